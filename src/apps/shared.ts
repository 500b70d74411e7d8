import { z } from "zod";
import { ToolError } from "../tools/tool.js";

/**
 * Argument and lookup helpers shared by the apps. A small model writes "Driving", "walking " or "40" where a schema says enum or
 * number; these accept such forms while the JSON schema the model sees stays
 * exact (zod keeps the inner schema for the input side of a preprocess).
 */
export function looseEnum<const Values extends readonly [string, ...string[]]>(values: Values) {
  return z.preprocess(
    (value) => (typeof value === "string" ? value.trim().toLowerCase().replace(/[\s-]+/g, "_") : value),
    z.enum(values),
  );
}

/** A number that may arrive as a numeric string ("40", " 12.5 "). */
export function looseNumber<Inner extends z.ZodNumber>(inner: Inner) {
  return z.preprocess((value) => {
    if (typeof value !== "string") return value;
    const cleaned = value.trim().replace(/^[€$£]/, "").replace(/,/g, "");
    return cleaned !== "" && !Number.isNaN(Number(cleaned)) ? Number(cleaned) : value;
  }, inner);
}

/** A boolean that may arrive as "true", "yes", "on". */
export function looseBoolean() {
  return z.preprocess((value) => {
    if (typeof value !== "string") return value;
    const word = value.trim().toLowerCase();
    if (["true", "yes", "on", "1"].includes(word)) return true;
    if (["false", "no", "off", "0"].includes(word)) return false;
    return value;
  }, z.boolean());
}

/** Round to cents. */
export function money(amount: number): number {
  return Math.round(amount * 100) / 100;
}

export function formatMoney(amount: number, currency = "EUR"): string {
  return `${money(amount).toFixed(2)} ${currency}`;
}

function normalise(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/** True when every word of `query` occurs in `text` (accents and case ignored). */
export function matchesWords(text: string, query: string): boolean {
  const haystack = normalise(text);
  return normalise(query)
    .split(" ")
    .filter((word) => word !== "")
    .every((word) => haystack.includes(word));
}

/**
 * Find one item by id or name as a small model writes it: exact id or name
 * first, then a name that starts with the query, then one that contains all
 * its words. Nothing found: a ToolError that lists a few names to use.
 */
export function findByName<T>(
  items: readonly T[],
  query: string,
  options: { what: string; id: (item: T) => string; name: (item: T) => string; listTool?: string },
): T {
  const wanted = normalise(query);
  if (wanted === "") {
    throw new ToolError("invalid_argument", `The ${options.what} name is empty. Give a name${options.listTool ? ` (see ${options.listTool})` : ""}.`);
  }
  const exact = items.find((item) => normalise(options.id(item)) === wanted || normalise(options.name(item)) === wanted);
  if (exact !== undefined) return exact;
  const starts = items.filter((item) => normalise(options.name(item)).startsWith(wanted));
  if (starts.length === 1) return starts[0]!;
  const containing = items.filter((item) => matchesWords(`${options.name(item)} ${options.id(item)}`, query));
  if (containing.length === 1) return containing[0]!;
  const candidates = (starts.length > 1 ? starts : containing).slice(0, 5).map(options.name);
  if (candidates.length > 1) {
    throw new ToolError(
      "ambiguous_name",
      `"${query}" matches several ${options.what}s: ${candidates.join("; ")}. Retry with the full name.`,
    );
  }
  const some = items.slice(0, 6).map(options.name);
  throw new ToolError(
    "not_found",
    `No ${options.what} named "${query}".` +
      (options.listTool ? ` Find the right name with ${options.listTool}.` : some.length > 0 ? ` Some that exist: ${some.join("; ")}.` : ""),
  );
}

/**
 * Words a reference uses for the kind of thing or whose it is, not for which
 * one: "Omar's email", "the bank statement message", "my Porto booking".
 */
const REFERENCE_FILLER = new Set([
  "the", "a", "an", "my", "your", "his", "her", "their", "our", "this", "that", "s", "one", "id",
  "about", "from", "to", "of", "on", "in", "for", "with", "and",
  "email", "emails", "mail", "message", "messages", "draft", "drafts",
  "article", "articles", "story", "news", "booking", "bookings", "reservation", "photo", "photos", "picture", "pic",
]);

/**
 * The items a reference written instead of an id names ("bank statement",
 * "small_language_models", "Omar's email"): those whose text holds every
 * word of it that is not a filler word (at the start of one of its words,
 * a plural's "s" aside; figures alone are no such word), else those holding the most of its words, when
 * that is at least half of them. Empty when the reference has no word of
 * its own or nothing holds enough of it.
 */
export function itemsMatching<T>(items: readonly T[], reference: string, text: (item: T) => string): T[] {
  const words = normalise(reference)
    .split(" ")
    // Figures alone ("emails-1") say nothing of which one: an id written wrong is not a description.
    .filter((word) => word !== "" && !REFERENCE_FILLER.has(word) && !/^\d+$/.test(word))
    .map((word) => (word.length >= 4 && word.endsWith("s") ? word.slice(0, -1) : word));
  if (words.length === 0) return [];
  const scored = items.map((item) => {
    const haystack = ` ${normalise(text(item))}`;
    return { item, hits: words.filter((word) => haystack.includes(` ${word}`)).length };
  });
  const best = Math.max(0, ...scored.map((entry) => entry.hits));
  if (best === 0 || best * 2 < words.length) return [];
  return scored.filter((entry) => entry.hits === best).map((entry) => entry.item);
}

/**
 * What a "no such id" error adds when the reference written instead of the id
 * matches items: their ids only (never their text, which others may have
 * written), and how to call again. Empty when nothing matches.
 */
export function referenceHint(ids: readonly string[], parameter: string, options: { list?: boolean } = {}): string {
  if (ids.length === 1) return ` The one that matches is ${ids[0]}: call again with ${options.list === true ? `"${ids[0]}" in ${parameter}` : `${parameter}="${ids[0]}"`}.`;
  if (ids.length > 1) return ` Those that match: ${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ` and ${ids.length - 5} more` : ""}; call again with the id of the one meant.`;
  return "";
}

/** The fix a "no such id" error names for the agent (`ToolError.retryWith`): the one matching id, else nothing. */
export function referenceFix(ids: readonly string[], parameter: string): { retryWith: Record<string, string> } | undefined {
  return ids.length === 1 ? { retryWith: { [parameter]: ids[0]! } } : undefined;
}

/** Cap a list for a small model: the first `limit` items and how many more there are. */
export function capped<T>(items: readonly T[], limit: number): { items: T[]; more: number } {
  return { items: items.slice(0, limit), more: Math.max(0, items.length - limit) };
}
