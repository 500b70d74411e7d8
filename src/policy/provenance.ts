import type { Risk } from "../tools/tool.js";
import type { Origin } from "./types.js";

/** Risk classes whose calls act on the world beyond an undo: their arguments are checked for provenance. */
export const SIDE_EFFECTING_RISKS: readonly Risk[] = ["send", "spend", "destructive", "settings"];

/** One piece of text that entered the conversation, with where it came from. */
export interface ProvenanceEntry {
  origin: Origin;
  text: string;
}

/** A value of a call's arguments that comes from untrusted content and not from the user. */
export interface TaintFinding {
  /** The argument path (`to`, `recipients[1]`, `body`). */
  argument: string;
  value: string;
  /** What the value is to a person: "address", "link", "amount", "number", "path", "value". */
  kind: string;
  origin: Extract<Origin, { kind: "untrusted" }>;
  /** "the address frank@… comes from the web page https://… and not from your request" */
  reason: string;
}

/** Argument names whose whole value is a target or payload worth tracing (recipients, amounts, paths, links). */
const TARGET_KEY =
  /^(to|cc|bcc|recipients?|contacts?|address(es)?|emails?|phones?|numbers?|phone_number|chat|conversation|thread|\w*account\w*|to_\w+|iban|payee|beneficiary|merchant|url|urls|link|links|path|paths|file|files|destination|target|amount|price|total|sum|card|card_id|payment_method|name)$/i;
const AMOUNT_KEY = /^(amount|price|total|sum|value|quantity)$/i;
/** Arguments that carry free text (a body, a note): only the addresses, links and numbers inside them are traced. */
const FREE_TEXT_KEY = /^(text|body|message|content|subject|note|notes|memo|title|caption|comment|description|reason|query)$/i;

const EMAIL = /[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}/gi;
const URL = /\bhttps?:\/\/[^\s"'<>)\]]+/gi;
const DOMAIN_LINK = /\b(?:www\.)[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:\/[^\s"'<>)\]]*)?/gi;
const PHONE = /\+?\d[\d\s().-]{6,}\d/g;
const IBAN = /\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b/g;
const NUMBER = /-?\d+(?:[.,]\d+)?/g;

function normalise(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

function digitsOnly(text: string): string {
  return text.replace(/\D/g, "");
}

function numbersIn(text: string): Set<number> {
  const found = new Set<number>();
  for (const match of text.matchAll(NUMBER)) found.add(Number(match[0].replace(",", ".")));
  return found;
}

interface Candidate {
  argument: string;
  value: string;
  kind: string;
}

const CONTAINS_EMAIL = /[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}/i;

function kindOf(value: string, key: string): string {
  if (CONTAINS_EMAIL.test(value)) return "address";
  if (/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(value.replace(/\s/g, ""))) return "account number";
  if (/^https?:\/\//i.test(value) || /^www\./i.test(value)) return "link";
  if (AMOUNT_KEY.test(key)) return "amount";
  if (/^\+?[\d\s().-]{7,}$/.test(value)) return "number";
  if (value.includes("/") && !/\s/.test(value)) return "path";
  if (/^(to|recipients?|contacts?|chat|payee|beneficiary)$/i.test(key)) return "recipient";
  return "value";
}

/** The values of `args` that say where a call acts or what it carries: recipients, amounts, links, paths. */
export function extractCandidates(args: unknown, path = ""): Candidate[] {
  const candidates: Candidate[] = [];
  const visit = (value: unknown, at: string, key: string): void => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, `${at}[${index}]`, key));
      return;
    }
    if (value !== null && typeof value === "object") {
      for (const [childKey, child] of Object.entries(value)) visit(child, at === "" ? childKey : `${at}.${childKey}`, childKey);
      return;
    }
    if (typeof value === "number" && AMOUNT_KEY.test(key)) {
      candidates.push({ argument: at, value: String(value), kind: "amount" });
      return;
    }
    if (typeof value !== "string") return;
    const trimmed = value.trim();
    if (TARGET_KEY.test(key) && trimmed.length >= 3) candidates.push({ argument: at, value: trimmed, kind: kindOf(trimmed, key) });
    else if (!FREE_TEXT_KEY.test(key) && (trimmed.length >= 4 || CONTAINS_EMAIL.test(trimmed))) {
      // Any other argument names what the call acts on (an event, a document, a hotel, a role): a whole
      // value planted by someone else is as much a target as a recipient is.
      candidates.push({ argument: at, value: trimmed, kind: kindOf(trimmed, key) === "value" ? "target" : kindOf(trimmed, key) });
    }
    if (/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(trimmed)) {
      candidates.push({ argument: at, value: trimmed, kind: "account number" });
      return;
    }
    // Links, addresses and numbers hidden inside a payload (a message body) count too.
    for (const [pattern, kind] of [
      [EMAIL, "address"],
      [URL, "link"],
      [DOMAIN_LINK, "link"],
      [PHONE, "number"],
      [IBAN, "account number"],
    ] as const) {
      for (const match of trimmed.matchAll(pattern)) {
        if (match[0] !== trimmed) candidates.push({ argument: at, value: match[0], kind });
      }
    }
  };
  visit(args, path, "");
  return candidates;
}

function appearsIn(candidate: Candidate, text: string, normalisedText: string): boolean {
  if (candidate.kind === "amount") {
    const wanted = Number(candidate.value.replace(",", "."));
    return Number.isFinite(wanted) && numbersIn(text).has(wanted);
  }
  if (candidate.kind === "number") {
    const digits = digitsOnly(candidate.value);
    return digits.length >= 7 && digitsOnly(text).includes(digits);
  }
  const wanted = normalise(candidate.value);
  if (candidate.kind === "target") {
    // A bare word ("editor", "Team sync") counts only as a whole word or phrase, not inside another word.
    return new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(wanted)}($|[^\\p{L}\\p{N}])`, "u").test(normalisedText);
  }
  return normalisedText.includes(wanted);
}

/** `text` as a regular expression that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function describeOrigin(origin: Extract<Origin, { kind: "untrusted" }>): string {
  return origin.source;
}

/**
 * What entered one conversation and from where. The safety layer records the
 * user's words and every tool result; the gate asks it where a call's
 * arguments came from.
 */
export class ProvenanceTracker {
  private readonly entries: (ProvenanceEntry & { normalised: string })[] = [];

  record(origin: Origin, text: string): void {
    if (text.trim() === "") return;
    this.entries.push({ origin, text, normalised: normalise(text) });
  }

  recordUser(text: string): void {
    this.record({ kind: "user" }, text);
  }

  recordToolResult(tool: string, trust: "trusted" | "untrusted", text: string, source = `the result of ${tool}`): void {
    this.record(trust === "trusted" ? { kind: "trusted-tool", tool } : { kind: "untrusted", tool, source }, text);
  }

  all(): readonly ProvenanceEntry[] {
    return this.entries.map(({ origin, text }) => ({ origin, text }));
  }

  untrusted(): { tool: string; source: string; text: string }[] {
    return this.entries.flatMap((entry) =>
      entry.origin.kind === "untrusted" ? [{ tool: entry.origin.tool, source: entry.origin.source, text: entry.text }] : [],
    );
  }

  /** Every origin a value was seen in (the user's words first); empty when the model made it up. */
  originsOf(value: string): Origin[] {
    const candidate: Candidate = { argument: "", value, kind: kindOf(value, "") };
    return this.entries.filter((entry) => appearsIn(candidate, entry.text, entry.normalised)).map((entry) => entry.origin);
  }
}

export interface TaintCheckInput {
  args: Record<string, unknown>;
  /** The user's own words in this conversation. */
  userText: string;
  /** Content the user did not write: email bodies, web pages, messages of others. */
  untrusted: readonly { tool: string; source: string; text: string }[];
  /** Trusted tool results (the user's own contacts, calendar): values found there are the user's. */
  trusted?: readonly string[];
}

/**
 * The arguments of a call that come from untrusted content and from nowhere
 * the user vouches for (their request, their own apps' data). A value the
 * model invented is not a finding: it came from no content at all.
 */
export function findTaintedArguments(input: TaintCheckInput): TaintFinding[] {
  const userText = input.userText;
  const userNormalised = normalise(userText);
  const trusted = (input.trusted ?? []).map((text) => ({ text, normalised: normalise(text) }));
  const untrusted = input.untrusted.map((item) => ({ ...item, normalised: normalise(item.text) }));
  const findings: TaintFinding[] = [];
  const seen = new Set<string>();
  for (const candidate of extractCandidates(input.args)) {
    if (appearsIn(candidate, userText, userNormalised)) continue;
    if (trusted.some((item) => appearsIn(candidate, item.text, item.normalised))) continue;
    const source = untrusted.find((item) => appearsIn(candidate, item.text, item.normalised));
    if (!source) continue;
    const key = `${candidate.argument}\u0000${candidate.value}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const origin = { kind: "untrusted", tool: source.tool, source: source.source } as const;
    findings.push({
      ...candidate,
      origin,
      reason: `the ${candidate.kind} ${shorten(candidate.value)} comes from ${describeOrigin(origin)}, not from your request`,
    });
  }
  return findings;
}

function shorten(value: string, length = 60): string {
  return value.length <= length ? `"${value}"` : `"${value.slice(0, length - 1)}…"`;
}

/** A readable name for where an untrusted result came from ("the web page https://…", "an email from x@…", "the file notes/a.txt"). */
export function describeSource(tool: string, result: unknown, app?: string): string {
  const fields = result !== null && typeof result === "object" && !Array.isArray(result) ? (result as Record<string, unknown>) : {};
  const text = (key: string): string | undefined => (typeof fields[key] === "string" ? (fields[key] as string) : undefined);
  const from = text("from") ?? text("sender") ?? text("author") ?? text("organizer") ?? text("with");
  // The app says what the content is; the tool's name only when no app is known ("search_files" is no web page).
  const kind = sourceKind(app) ?? sourceKind(tool) ?? (text("url") ?? text("link") ? "web" : undefined);
  switch (kind) {
    case "file": {
      const path = text("path") ?? text("file");
      return path ? `the file ${path}` : `your files (${tool})`;
    }
    case "document": {
      const title = text("title") ?? text("name");
      return title ? `the document "${title}"` : `a document (${tool})`;
    }
    case "web": {
      const url = text("url") ?? text("link");
      return url ? `the web page ${url}` : `a web page (${tool})`;
    }
    case "mail":
      return from ? `an email from ${from}` : `an email (${tool})`;
    case "message":
      return from ? `a message from ${from}` : `a message of someone else (${tool})`;
    case "news":
      return `a news item (${tool})`;
    case "calendar":
      return `a calendar invitation (${tool})`;
    case "contact":
      return `the notes of a contact (${tool})`;
    default:
      return from ? `content from ${from} (${tool})` : `untrusted content (${tool})`;
  }
}

function sourceKind(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (/^files?$|_files?$|^read_file$|^write_file$/i.test(name)) return "file";
  if (/doc/i.test(name)) return "document";
  if (/mail/i.test(name)) return "mail";
  if (/message|chat/i.test(name)) return "message";
  if (/news|feed|rss|article/i.test(name)) return "news";
  if (/calendar|event|invite/i.test(name)) return "calendar";
  if (/contact|people/i.test(name)) return "contact";
  if (/web|browse|page/i.test(name)) return "web";
  return undefined;
}

/**
 * Fields of a record that someone other than the user can write, whichever app
 * holds the record: notes and descriptions (a contact's note, an invitation's
 * description), bodies and contents (a message, an email, a file, a page),
 * snippets and summaries of search results, comments.
 */
export const WRITABLE_TEXT_KEY =
  /^(notes?|description|desc|details|body|bodies|content|contents|text|message|messages|snippet|summary|comment|comments|bio|about|memo|preview|html|instructions|caption)$/i;

/** The text fields of a result that others can write, with their path, and the rest of the result without them. */
export function splitWritableText(value: unknown): { fields: { path: string; text: string }[]; rest: unknown } {
  const fields: { path: string; text: string }[] = [];
  const visit = (current: unknown, path: string, writable: boolean): unknown => {
    if (typeof current === "string") {
      if (writable && current.trim() !== "") {
        fields.push({ path, text: current });
        return null;
      }
      return current;
    }
    if (Array.isArray(current)) return current.map((item, index) => visit(item, `${path}[${index}]`, writable));
    if (current !== null && typeof current === "object") {
      const copy: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(current)) copy[key] = visit(child, path === "" ? key : `${path}.${key}`, writable || WRITABLE_TEXT_KEY.test(key));
      return copy;
    }
    return current;
  };
  const rest = visit(value, "", false);
  return { fields, rest };
}

/** Where text fields of a trusted tool's result came from, for people: "the notes in the result of find_contact". */
export function describeWritableFields(tool: string, fields: readonly { path: string }[]): string {
  const names = [...new Set(fields.map((field) => field.path.replace(/\[\d+\]/g, "").split(".").at(-1) ?? field.path))];
  return `the ${names.slice(0, 3).join(", ")} in the result of ${tool} (text others can write)`;
}

/**
 * Whether a web address carries data: a query string or fragment with values,
 * or a path piece that holds an address, a long number or a long opaque token.
 */
export function urlCarriesData(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new globalThis.URL(/^https?:\/\//i.test(url) ? url : `https://${url}`);
  } catch {
    return true;
  }
  if (parsed.search.length > 1 || parsed.hash.length > 1 || parsed.username !== "" || parsed.password !== "") return true;
  return parsed.pathname.split("/").some((piece) => {
    const decoded = safeDecode(piece);
    return CONTAINS_EMAIL.test(decoded) || /\d{6,}/.test(decoded) || /^[A-Za-z0-9+_=-]{24,}$/.test(decoded) || decoded.length > 64;
  });
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A finding of `findEgress`: an address a read would fetch that carries data nobody vouched for. */
export interface EgressFinding {
  argument: string;
  url: string;
  reason: string;
}

/**
 * Addresses a read would send off the device that carry data and that neither
 * the user wrote nor a result gave as a plain link (the `url` of a search
 * result, a page's own address): the model composed them, and what they carry
 * leaves the device like a message would.
 */
export function findEgress(input: { args: Record<string, unknown>; arguments: readonly string[]; userText: string; content: readonly string[] }): EgressFinding[] {
  const findings: EgressFinding[] = [];
  for (const argument of input.arguments) {
    const value = input.args[argument];
    const urls = (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === "string");
    for (const url of urls) {
      const trimmed = url.trim();
      if (!urlCarriesData(trimmed)) continue;
      if (input.userText.includes(trimmed)) continue;
      const asJson = JSON.stringify(trimmed);
      const linked = input.content.some((text) => new RegExp(`"(?:url|link|href|address)":${escapeRegExp(asJson)}`).test(text));
      if (linked) continue;
      findings.push({
        argument,
        url: trimmed,
        reason: `opening ${shorten(trimmed)} would send what its address carries off the device, and neither you nor a search result gave that address`,
      });
    }
  }
  return findings;
}
