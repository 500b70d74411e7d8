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

function escapeRegExp(text: string): string {
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

/** A readable name for where an untrusted result came from ("the web page https://…", "an email from x@…"). */
export function describeSource(tool: string, result: unknown): string {
  const fields = result !== null && typeof result === "object" && !Array.isArray(result) ? (result as Record<string, unknown>) : {};
  const text = (key: string): string | undefined => (typeof fields[key] === "string" ? (fields[key] as string) : undefined);
  const url = text("url") ?? text("link");
  if (url) return `the web page ${url}`;
  const from = text("from") ?? text("sender") ?? text("author") ?? text("organizer") ?? text("with");
  if (/mail/i.test(tool) && from) return `an email from ${from}`;
  if (/message|chat/i.test(tool) && from) return `a message from ${from}`;
  if (/web|search|browse|page/i.test(tool)) return `a web page (${tool})`;
  if (/mail/i.test(tool)) return `an email (${tool})`;
  if (/message|chat/i.test(tool)) return `a message of someone else (${tool})`;
  if (/news|feed|rss/i.test(tool)) return `a news item (${tool})`;
  if (/file|document|doc/i.test(tool)) return `a document (${tool})`;
  if (/calendar|event|invite/i.test(tool)) return `a calendar invitation (${tool})`;
  if (from) return `content from ${from} (${tool})`;
  return `untrusted content (${tool})`;
}
