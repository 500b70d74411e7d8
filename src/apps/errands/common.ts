import { z } from "zod";
import { ToolError } from "../../tools/tool.js";
import { formatDate, parseWhen, today, zonedParts, type Clock } from "../time.js";
import type { ToolContext } from "../../tools/tool.js";

/**
 * Argument helpers shared by the apps of the "life" and "errands" groups. A
 * small model writes "Driving", "walking " or "40" where a schema says enum or
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

export function clockOf(context: Pick<ToolContext, "now" | "timeZone">): Clock {
  return { now: context.now(), timeZone: context.timeZone };
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

/** Cap a list for a small model: the first `limit` items and how many more there are. */
export function capped<T>(items: readonly T[], limit: number): { items: T[]; more: number } {
  return { items: items.slice(0, limit), more: Math.max(0, items.length - limit) };
}

const WEEKDAY = /\b(mon|tue|wed|thu|fri|sat|sun)[a-z]*\b/i;

/**
 * A day in the past or today ("yesterday", "Saturday", "last Saturday",
 * "November 28", "2026-11-28"). The shared parser looks forward, so a weekday
 * or a month day that lands ahead of today is taken as the last one.
 */
export function parsePastDay(text: string, clock: Clock, field: string): string {
  const when = parseWhen(text, clock, field);
  const now = today(clock);
  if (when.date <= now) return when.date;
  const [year, month, day] = when.date.split("-").map(Number) as [number, number, number];
  if (WEEKDAY.test(text) && !/\bnext\b/i.test(text)) {
    const shifted = new Date(Date.UTC(year, month - 1, day - 7));
    const date = formatDate({ year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() });
    if (date <= now) return date;
  }
  const lastYear = formatDate({ year: year - 1, month, day });
  if (!/\b(next|tomorrow|in)\b/i.test(text) && lastYear <= now && when.date.slice(0, 4) > now.slice(0, 4)) return lastYear;
  throw new ToolError("date_in_future", `${field}="${text}" is ${when.date}, after today (${now}). Give today or a past day, such as "yesterday" or "${now}".`);
}

/** Local date (YYYY-MM-DD) of an instant in the zone. */
export function localDate(instant: Date, timeZone: string): string {
  return formatDate(zonedParts(instant, timeZone));
}

/** Shift a YYYY-MM-DD date by whole days. */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const shifted = new Date(Date.UTC(year, month - 1, day + days));
  return formatDate({ year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() });
}

/** Whole days from `from` to `to` (both YYYY-MM-DD). */
export function daysBetween(from: string, to: string): number {
  const parse = (date: string): number => {
    const [year, month, day] = date.split("-").map(Number) as [number, number, number];
    return Date.UTC(year, month - 1, day);
  };
  return Math.round((parse(to) - parse(from)) / 86_400_000);
}

/** Great-circle distance in km. */
export function haversineKm(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const radians = (degrees: number): number => (degrees * Math.PI) / 180;
  const dLat = radians(b.lat - a.lat);
  const dLon = radians(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(radians(a.lat)) * Math.cos(radians(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

/** A stable pseudo-random number in [0, 1) from a string (FNV-1a), for bundled data that must repeat. */
export function stableFraction(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) / 0x1_0000_0000;
}
