/**
 * Codes as the request writes them. A code (a policy, order, candidate or
 * regatta number, an ISBN: a token with a figure in it, "HX-558201",
 * "CAND-7781", "978-0-14-303943-3") names one thing exactly; a small model
 * copying one often writes it changed, and the changed code names nothing.
 * In a parameter whose name says it holds an identifier (its name has `id`,
 * `number`, `code`, `reference`, `isbn`…; a path, a list or a title may hold
 * a code among other words, and is left alone):
 *
 * - with words added around it (`policy_number: "policy_hx-558201"`): the
 *   argument, itself shaped like a code and found nowhere in the
 *   conversation, holds exactly one code of the request whole: it becomes
 *   that code;
 * - cut short (`isbn: "014-303943-3"` for "978-0-14-303943-3"): the
 *   argument's figures (four or more) run inside the figures of exactly one
 *   longer code of the request, and any letters it has are that code's too:
 *   it becomes that code;
 * - as a sentence (four words or more: `candidate_id: "Kick off a
 *   background check on candidate CAND-7781, …"`): the sentence holds
 *   exactly one code of the request: it becomes that code;
 * - a name copied into an identifier (`regatta_id: "Sea Lark"` beside
 *   `boat_name: "Sea Lark"`) while the request writes exactly one code the
 *   call does not use ("regatta CWR-2025"): the identifier gets the code.
 *
 * A currency written by name where the parameter asks for a code ("ISO 4217
 * code", "currency code", "3-letter") becomes its ISO code ("euro": EUR,
 * "Japanese yen": JPY).
 *
 * Anything else is left as written: a value the conversation writes as it
 * is, dates and times (date grounding's), a value holding two codes of the
 * request (a choice between them), and a result the tool's schema refuses.
 */
import type { JsonSchema, ToolCall } from "../model/types.js";
import { codesInText, heldValues, holdsToken } from "./value-separation.js";

/** ISO 4217 codes and the names people give the currencies (each name as a whole word or phrase of the evidence). */
export const CURRENCY_NAMES: Readonly<Record<string, readonly string[]>> = {
  USD: ["dollar", "dollars", "us dollar", "us dollars", "bucks", "$"],
  EUR: ["euro", "euros", "€"],
  GBP: ["pound", "pounds", "sterling", "quid", "£"],
  JPY: ["yen", "¥"],
  CNY: ["yuan", "renminbi", "rmb"],
  CHF: ["swiss franc", "swiss francs"],
  CAD: ["canadian dollar", "canadian dollars"],
  AUD: ["australian dollar", "australian dollars"],
  NZD: ["new zealand dollar", "new zealand dollars"],
  HKD: ["hong kong dollar", "hong kong dollars"],
  SGD: ["singapore dollar", "singapore dollars"],
  INR: ["rupee", "rupees", "₹"],
  SEK: ["swedish krona", "swedish kronor"],
  NOK: ["norwegian krone", "norwegian kroner"],
  DKK: ["danish krone", "danish kroner"],
  PLN: ["zloty", "zlotys", "złoty"],
  CZK: ["koruna", "czech crown", "czech crowns"],
  HUF: ["forint", "forints"],
  MXN: ["mexican peso", "mexican pesos"],
  BRL: ["real", "reais", "brazilian real"],
  ZAR: ["rand", "rands"],
  KRW: ["won", "korean won"],
  TRY: ["lira", "turkish lira"],
  THB: ["baht"],
};

/** The currency a value names ("euro", "Japanese yen", "US dollars": its code); the longest name wins ("canadian dollar" over "dollar"). */
export function currencyCodeOf(value: string): string | undefined {
  const words = value
    .toLowerCase()
    .replace(/[^\p{L}$€£¥₹\s]/gu, " ")
    .trim()
    .split(/\s+/);
  let best: { code: string; length: number } | undefined;
  for (const [code, names] of Object.entries(CURRENCY_NAMES)) {
    for (const name of names) {
      const parts = name.split(" ");
      // The name must end the value, with at most one word before it ("Japanese yen", not "yen notes").
      const tail = words.slice(-parts.length).join(" ");
      if (tail !== name || words.length - parts.length > 1) continue;
      if (best === undefined || name.length > best.length) best = { code, length: name.length };
    }
  }
  return best?.code;
}

/** A value shaped like one code: letters and figures joined by `-`, `_`, `/` or `.`, with a figure. */
const CODE_SHAPE = /^[A-Za-z0-9]+(?:[-_/.][A-Za-z0-9]+)*$/;
/** Dates and times: date grounding's to judge. */
const DATE_OR_TIME = /^\d{4}-\d{1,2}(-\d{1,2})?([T ].*)?$|^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$|^\d{1,2}:\d{2}/;
/** A value of this many words or more in an identifier is a sentence, not a code written with a word ("GBR 4471"). */
const SENTENCE_WORDS = 4;
/** Words of a parameter's name that make it an identifier. */
const IDENTIFIER_WORDS = new Set(["id", "ids", "identifier", "number", "num", "no", "code", "ref", "reference", "isbn", "vin", "sku", "serial", "docket"]);

function nameWords(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "");
}

/** Whether a parameter's name says it holds an identifier: `candidate_id`, `policyNumber`, `ref_code`. */
export function namesIdentifier(name: string): boolean {
  return nameWords(name).some((word) => IDENTIFIER_WORDS.has(word));
}

/** Whether a parameter asks for a currency's code. */
function asksCurrencyCode(name: string, description: string): boolean {
  const text = `${nameWords(name).join(" ")} ${description}`.toLowerCase();
  return /\biso[\s-]?4217\b/.test(text) || (/\bcurrency\b/.test(text) && /\b(code|3-letter|three-letter)\b/.test(text));
}

/** The codes the request writes (tokens with a figure), each once, as written; dates are not codes. */
function codesOf(text: string): string[] {
  return codesInText(text)
    .codes.map((code) => String(code.value))
    .filter((code) => !DATE_OR_TIME.test(code));
}

const figuresOf = (text: string): string => text.replace(/\D/g, "");
const lettersOf = (text: string): string => text.toLowerCase().replace(/[^a-z]/g, "");

/** The one code of the request a changed code stands for (see the module comment), if exactly one. */
function codeMeant(value: string, parameter: string, codes: readonly string[]): string | undefined {
  const trimmed = value.trim();
  const lower = trimmed.toLowerCase();
  // Only a parameter that names an identifier holds one code: a path or a title may hold a code among other words.
  if (!namesIdentifier(parameter)) return undefined;
  if (CODE_SHAPE.test(trimmed)) {
    if (DATE_OR_TIME.test(trimmed)) return undefined;
    const held = codes.filter((code) => code.toLowerCase() !== lower && holdsToken(lower, code.toLowerCase()));
    if (held.length === 1) return held[0];
    if (held.length > 1) return undefined;
    const figures = figuresOf(trimmed);
    if (figures.length < 4) return undefined;
    const letters = lettersOf(trimmed);
    const longer = codes.filter((code) => figuresOf(code).length > figures.length && figuresOf(code).includes(figures) && lettersOf(code).includes(letters));
    return longer.length === 1 ? longer[0] : undefined;
  }
  if (trimmed.split(/\s+/).length >= SENTENCE_WORDS) {
    const held = codes.filter((code) => holdsToken(lower, code.toLowerCase()));
    return held.length === 1 ? held[0] : undefined;
  }
  return undefined;
}

/**
 * The call with its changed codes written as the request writes them and
 * currencies named where a code is asked written as codes (see the module
 * comment), when the result fits `fits`; the call itself otherwise.
 * `evidenceText` is everything the conversation carries (the user's words
 * and results): a value found there is left as it is.
 */
export function withCodesAsWritten(call: ToolCall, parameters: JsonSchema, userText: string, evidenceText: string, fits: (args: Record<string, unknown>) => boolean): ToolCall {
  const properties = (parameters.properties ?? {}) as Record<string, { type?: unknown; description?: unknown; enum?: unknown }>;
  const codes = codesOf(userText);
  const evidence = evidenceText.toLowerCase();
  const args: Record<string, unknown> = { ...call.arguments };
  let changed = false;
  for (const [name, value] of Object.entries(call.arguments)) {
    if (typeof value !== "string" || value.trim() === "" || properties[name]?.enum !== undefined) continue;
    const description = typeof properties[name]?.description === "string" ? (properties[name].description as string) : "";
    if (asksCurrencyCode(name, description) && !/^[A-Z]{3}$/.test(value.trim())) {
      const code = currencyCodeOf(value);
      if (code !== undefined) {
        args[name] = code;
        changed = true;
        continue;
      }
    }
    if (evidence.includes(value.trim().toLowerCase()) && !/\s/.test(value.trim())) continue;
    const meant = codeMeant(value, name, codes);
    if (meant !== undefined && meant !== value) {
      args[name] = meant;
      changed = true;
    }
  }
  // A name copied into an identifier while the request writes one code the call does not use.
  const byValue = new Map<string, string[]>();
  for (const [name, value] of Object.entries(args)) {
    if (typeof value !== "string" || /\d/.test(value) || value.trim() === "") continue;
    const key = value.trim().toLowerCase();
    byValue.set(key, [...(byValue.get(key) ?? []), name]);
  }
  for (const names of byValue.values()) {
    const identifiers = names.filter(namesIdentifier);
    if (names.length < 2 || identifiers.length !== 1 || properties[identifiers[0]!]?.enum !== undefined) continue;
    const { numbers, strings } = heldValues(args);
    const held = [...strings, ...numbers.map(String)];
    const unused = codes.filter((code) => !held.some((text) => holdsToken(text, code.toLowerCase())));
    if (unused.length !== 1) continue;
    args[identifiers[0]!] = unused[0];
    changed = true;
  }
  return changed && fits(args) ? { ...call, arguments: args } : call;
}
