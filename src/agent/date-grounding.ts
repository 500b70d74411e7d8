/**
 * Dates and times in a call must agree with what the request itself says. A
 * small model turns "tomorrow" into a date from its training data (2022…),
 * so a lookup searches the wrong day and a task is created already overdue.
 * The request's own words are resolved here with chrono against the profile's
 * clock and zone (as the apps resolve "Friday 3 pm"); an argument that names
 * another day or time is corrected to the request's value, or, when it cannot
 * be rewritten safely, sent back to the model with the resolved value.
 */
import * as chrono from "chrono-node";
import type { ToolCall } from "../model/types.js";

export interface GroundingClock {
  now: Date;
  /** IANA zone of the profile. */
  timeZone: string;
}

/** A day and/or time the request names, resolved: date as YYYY-MM-DD, time as HH:MM. */
export interface NamedTime {
  text: string;
  date?: string;
  time?: string;
}

export type Grounding =
  | { kind: "unchanged"; call: ToolCall }
  | { kind: "corrected"; call: ToolCall; corrections: string[] }
  | { kind: "contradiction"; call: ToolCall; error: { code: "date_contradicts_request"; message: string } };

/** Argument names that carry the day or time a call acts on; ends of ranges and durations are left alone. */
const TEMPORAL_KEY = /(?:^|_)(?:date|day|when|due|deadline|start|from|time|at|datetime|on)(?:$|_)/i;
const NOT_TEMPORAL_KEY = /zone|end|until|duration|reminder|repeat|minutes|seconds|hours|count|format/i;
const TIME_ONLY_KEY = /(?:^|_)time$/i;
const ISO_DATE = /^(\d{4}-\d{2}-\d{2})$/;
const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
const HH_MM = /^([01]?\d|2[0-3]):([0-5]\d)$/;
/**
 * A calendar date written out in the request ("09/10, 2026", "2026-09-10", a
 * year): the request is then absolute, and a weekday beside it ("this
 * Thursday 09/10") must not move the date to the week of the clock.
 */
const EXPLICIT_DATE = /\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}\/\d{1,2}\b|\b(?:19|20)\d{2}\b/;

/** The profile's wall clock as a "local" Date, so chrono reads it the same in any process zone (as the apps do). */
function localReference(clock: GroundingClock): Date {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone: clock.timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric" })
      .formatToParts(clock.now)
      .map((part) => [part.type, part.value]),
  ) as Record<string, string>;
  return new Date(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour) % 24, Number(parts.minute));
}

const pad = (value: number): string => String(value).padStart(2, "0");
const dateOf = (date: Date): string => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;

function fromChrono(result: chrono.ParsedResult): NamedTime {
  const start = result.start;
  const named: NamedTime = { text: result.text };
  if (start.isCertain("day") || start.isCertain("weekday") || start.isCertain("month")) named.date = dateOf(start.date());
  if (start.isCertain("hour")) named.time = `${pad(start.get("hour") ?? 0)}:${pad(start.isCertain("minute") ? (start.get("minute") ?? 0) : 0)}`;
  return named;
}

/** The days and times the request names ("tomorrow", "Friday at 1 pm", "in 2 hours"), resolved against the clock. */
export function namedTimes(request: string, clock: GroundingClock): NamedTime[] {
  return chrono
    .parse(request, { instant: localReference(clock) }, { forwardDate: true })
    // "now" ("what about now?", "do it now") says when to act, not a day the call is about.
    .filter((result) => !/^(?:right )?now$/i.test(result.text.trim()))
    .map(fromChrono)
    .filter((named) => named.date !== undefined || named.time !== undefined);
}

/** What an argument value names, and whether it is nothing but a date/time (so it can be rewritten whole). */
function readArgument(value: string, clock: GroundingClock): { named: NamedTime; whole: boolean } | undefined {
  const trimmed = value.trim();
  const isoDate = ISO_DATE.exec(trimmed);
  if (isoDate) return { named: { text: trimmed, date: isoDate[1] }, whole: true };
  const isoDateTime = ISO_DATE_TIME.exec(trimmed);
  if (isoDateTime) return { named: { text: trimmed, date: isoDateTime[1], time: isoDateTime[2] }, whole: !/[zZ+]|-\d{2}:?\d{2}$/.test(trimmed.slice(10)) };
  const hhmm = HH_MM.exec(trimmed);
  if (hhmm) return { named: { text: trimmed, time: `${pad(Number(hhmm[1]))}:${hhmm[2]}` }, whole: true };
  const results = chrono.parse(trimmed, { instant: localReference(clock) }, { forwardDate: true });
  const first = results[0];
  if (first === undefined || results.length > 1) return undefined;
  const named = fromChrono(first);
  if (named.date === undefined && named.time === undefined) return undefined;
  return { named, whole: trimmed.length - first.text.length <= 3 };
}

/**
 * Check a call's date and time arguments against the request. Only a request
 * that names exactly one day or time is used (with two, which argument means
 * which is a guess); only arguments that name a day or time are compared.
 */
export function groundCallDates(call: ToolCall, request: string, clock: GroundingClock): Grounding {
  const unchanged: Grounding = { kind: "unchanged", call };
  if (typeof call.arguments !== "object" || call.arguments === null || Array.isArray(call.arguments)) return unchanged;
  if (EXPLICIT_DATE.test(request)) return unchanged;
  const named = namedTimes(request, clock);
  if (named.length !== 1) return unchanged;
  const wanted = named[0]!;
  const args = { ...(call.arguments as Record<string, unknown>) };
  const corrections: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== "string" || !TEMPORAL_KEY.test(key) || NOT_TEMPORAL_KEY.test(key)) continue;
    const read = readArgument(value, clock);
    if (read === undefined) continue;
    // A time-of-day parameter ("time", "new_time") is about the time only; a date parameter takes a
    // time from the request only when the request ties it to a day ("Friday at 1 pm"): a lone "at 5"
    // may be about another thing the request asks for.
    const timeOnly = TIME_ONLY_KEY.test(key);
    const dateWrong = !timeOnly && wanted.date !== undefined && read.named.date !== undefined && read.named.date !== wanted.date;
    const timeWrong =
      wanted.time !== undefined && read.named.time !== undefined && read.named.time !== wanted.time && (timeOnly || wanted.date !== undefined);
    if (!dateWrong && !timeWrong) continue;
    const date = timeOnly ? undefined : dateWrong ? wanted.date : read.named.date;
    const time = timeWrong ? wanted.time : read.named.time;
    const replacement = timeOnly ? (time ?? value) : [date, time].filter((part) => part !== undefined).join(" ");
    const says = [wanted.date, wanted.time].filter((part) => part !== undefined).join(" ");
    // A time-of-day parameter takes the request's time whole, whatever else the model wrote into it.
    if (!read.whole && !timeOnly) {
      return {
        kind: "contradiction",
        call,
        error: {
          code: "date_contradicts_request",
          message: `${key}="${value}" is not what the request says: "${wanted.text}" is ${says}. Call ${call.name} again with ${key}="${says}".`,
        },
      };
    }
    args[key] = replacement;
    corrections.push(`${key}: "${value}" → "${replacement}" (the request says "${wanted.text}")`);
  }
  return corrections.length === 0 ? unchanged : { kind: "corrected", call: { ...call, arguments: args }, corrections };
}
