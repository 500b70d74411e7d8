import * as chrono from "chrono-node";
import { zonedParts } from "../clock.js";
import { ToolError } from "../tools/tool.js";

export { zonedParts };

/**
 * Dates and times as a small model writes them ("Friday", "3 pm", "tomorrow
 * morning", "2026-12-04 15:00") normalised against the profile's clock and time
 * zone. Results are local wall-clock values in that zone, plus the instant.
 */
export interface When {
  /** YYYY-MM-DD in the profile's zone. */
  date: string;
  /** HH:MM (24 h) in the profile's zone; undefined when the text named no time. */
  time: string | undefined;
  /** The instant, ISO 8601 UTC (midnight local when no time was named). */
  iso: string;
}

export interface Clock {
  now: Date;
  timeZone: string;
}

/** Minutes to add to UTC to get wall-clock time in `timeZone` at `instant`. */
export function zoneOffsetMinutes(instant: Date, timeZone: string): number {
  const p = zonedParts(instant, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute);
  return Math.round((asUtc - Math.floor(instant.getTime() / 60000) * 60000) / 60000);
}

/** The instant at which the wall clock in `timeZone` shows the given local date and time. */
export function instantOf(date: string, time: string, timeZone: string): Date {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const [hour, minute] = time.split(":").map(Number) as [number, number];
  const guess = new Date(Date.UTC(year, month - 1, day, hour, minute));
  const offset = zoneOffsetMinutes(guess, timeZone);
  const first = new Date(guess.getTime() - offset * 60000);
  const corrected = zoneOffsetMinutes(first, timeZone);
  return corrected === offset ? first : new Date(guess.getTime() - corrected * 60000);
}

export function formatDate(p: { year: number; month: number; day: number }): string {
  return `${p.year}-${String(p.month).padStart(2, "0")}-${String(p.day).padStart(2, "0")}`;
}

export function formatTime(p: { hour: number; minute: number }): string {
  return `${String(p.hour).padStart(2, "0")}:${String(p.minute).padStart(2, "0")}`;
}

/** Today's local date in the profile's zone. */
export function today(clock: Clock): string {
  return formatDate(zonedParts(clock.now, clock.timeZone));
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const HH_MM = /^([01]?\d|2[0-3]):([0-5]\d)$/;
const BARE_HOUR = /^([01]?\d|2[0-3])$/;

/**
 * Parse a date and/or time. Throws a ToolError that says what form to use
 * when nothing can be read from the text. A date with no day ("3 pm") means
 * the next such time from now; a weekday means the next one (today counts
 * when the time is still ahead).
 */
export function parseWhen(text: string, clock: Clock, field = "when"): When {
  const trimmed = text.trim();
  if (trimmed === "") {
    throw new ToolError("invalid_date", `${field} is empty. Give a date or time such as "2026-12-04 15:00", "Friday 3 pm" or "tomorrow".`);
  }
  if (ISO_DATE.test(trimmed)) return { date: trimmed, time: undefined, iso: instantOf(trimmed, "00:00", clock.timeZone).toISOString() };
  const hhmm = HH_MM.exec(trimmed) ?? BARE_HOUR.exec(trimmed);
  const local = zonedParts(clock.now, clock.timeZone);
  // chrono reads a reference expressed as a "local" Date: shift the clock so the
  // process zone does not matter.
  const reference = new Date(local.year, local.month - 1, local.day, local.hour, local.minute);
  if (hhmm) {
    return nextAt(reference, Number(hhmm[1]), Number(hhmm[2] ?? 0), clock);
  }
  const results = chrono.parse(trimmed, { instant: reference }, { forwardDate: true });
  const first = results[0];
  if (!first) {
    throw new ToolError(
      "invalid_date",
      `Could not read a date or time from ${field}="${text}". Use a form such as "2026-12-04 15:00", "Friday 3 pm", "tomorrow morning" or "in 2 hours".`,
    );
  }
  // chrono reads a date out of any text around it: what it left unread must be words, not more numbers or markup
  // (">'00:00:00:00" is not midnight, "7 (or 8)" is not 7); a zone's name ("07:00 (Europe/Lisbon)") is words.
  const unread = `${trimmed.slice(0, first.index)} ${trimmed.slice(first.index + first.text.length)}`;
  if (/[0-9]/.test(unread) || /[^\p{L}\s.,;:!?'"()/_-]/u.test(unread)) {
    throw new ToolError(
      "invalid_date",
      `${field}="${text}" holds more than one date or time, or characters that are not one ("${unread.trim()}" is left over after "${first.text}"). Give one, such as "2026-12-04 15:00", "Friday 3 pm" or "in 2 hours".`,
    );
  }
  const start = first.start;
  let hour = start.isCertain("hour") ? start.get("hour") ?? 0 : undefined;
  let minute = start.isCertain("minute") ? start.get("minute") ?? 0 : hour === undefined ? undefined : 0;
  if (hour === undefined && /\bmorning\b/i.test(trimmed)) [hour, minute] = [9, 0];
  if (hour === undefined && /\bafternoon\b/i.test(trimmed)) [hour, minute] = [15, 0];
  if (hour === undefined && /\bevening\b/i.test(trimmed)) [hour, minute] = [19, 0];
  if (hour === undefined && /\b(tonight|night)\b/i.test(trimmed)) [hour, minute] = [21, 0];
  if (hour === undefined && /\bnoon\b/i.test(trimmed)) [hour, minute] = [12, 0];
  const dateNamed = start.isCertain("day") || start.isCertain("weekday") || start.isCertain("month");
  if (!dateNamed && hour !== undefined) return nextAt(reference, hour, minute ?? 0, clock);
  const parsed = start.date();
  const date = formatDate({ year: parsed.getFullYear(), month: parsed.getMonth() + 1, day: parsed.getDate() });
  const time = hour === undefined ? undefined : formatTime({ hour, minute: minute ?? 0 });
  return { date, time, iso: instantOf(date, time ?? "00:00", clock.timeZone).toISOString() };
}

function nextAt(reference: Date, hour: number, minute: number, clock: Clock): When {
  const candidate = new Date(reference.getFullYear(), reference.getMonth(), reference.getDate(), hour, minute);
  if (candidate.getTime() <= reference.getTime()) candidate.setDate(candidate.getDate() + 1);
  const date = formatDate({ year: candidate.getFullYear(), month: candidate.getMonth() + 1, day: candidate.getDate() });
  const time = formatTime({ hour, minute });
  return { date, time, iso: instantOf(date, time, clock.timeZone).toISOString() };
}

/** Parse a time of day alone ("7", "7:30", "3 pm", "15:00") into HH:MM. */
export function parseTimeOfDay(text: string, clock: Clock, field = "time"): string {
  const when = parseWhen(text, clock, field);
  if (when.time === undefined) {
    throw new ToolError("invalid_time", `${field}="${text}" names no time of day. Use a form such as "07:00" or "7 am".`);
  }
  return when.time;
}

/** The profile clock of a tool call (or an app's environment), read once so one call sees one "now". */
export function clockOf(context: { now(): Date; timeZone: string }): Clock {
  return { now: context.now(), timeZone: context.timeZone };
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
