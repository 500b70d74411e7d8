/**
 * Dates and times in a call must agree with what the request itself says. A
 * small model turns "tomorrow" into a date from its training data (2022…),
 * so a lookup searches the wrong day and a task is created already overdue.
 * The request's own words are resolved here with chrono against the profile's
 * clock and zone (as the apps resolve "Friday 3 pm"); an argument that names
 * another day or time is corrected to the request's value, or, when it cannot
 * be rewritten safely, sent back to the model with the resolved value.
 *
 * A clock time that leaves morning or evening open ("at 7", "half past six")
 * holds either reading: 07:00 and 19:00 both agree with "7", and a value with
 * another hour (a model that wrote midnight for "an alarm for 7") is sent back
 * to the model with both, since which one the user meant is not for grounding
 * to guess. A time chrono does not read on its own (a bare hour after "for",
 * "by", "around" or "until", an hour in words) counts for a time-of-day
 * argument when the request names no other time.
 */
import * as chrono from "chrono-node";
import type { JsonSchema, ToolCall } from "../model/types.js";

export interface GroundingClock {
  now: Date;
  /** IANA zone of the profile. */
  timeZone: string;
}

/**
 * A day and/or time the request names, resolved: date as YYYY-MM-DD, time as
 * HH:MM, and the same clock time twelve hours away when the request leaves
 * morning or evening open ("at 7": 07:00, other 19:00); a range ("from July
 * 10 to July 20") has its end too.
 */
export interface NamedTime extends NamedMoment {
  text: string;
  end?: NamedMoment;
}

export interface NamedMoment {
  date?: string;
  time?: string;
  otherTime?: string;
}

export type Grounding =
  | { kind: "unchanged"; call: ToolCall }
  | { kind: "corrected"; call: ToolCall; corrections: string[] }
  | { kind: "contradiction"; call: ToolCall; error: { code: "date_contradicts_request"; message: string } };

/** Argument names that carry the day or time a call acts on; ends of ranges and durations are left alone. */
const TEMPORAL_KEY = /(?:^|_)(?:date|day|when|due|deadline|start|from|time|at|datetime|on)(?:$|_)/i;
const NOT_TEMPORAL_KEY = /zone|duration|reminder|repeat|minutes|seconds|hours|count|format/i;
/** The end of a range ("to_date", "end_time", "until"): it takes the end of a range the request names, and nothing else. */
const END_KEY = /(?:^|_)(?:to|end|ends|until|till|through)(?:$|_)|^end|checkout|check_out/i;
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

/** A clock time written the 24-hour way, with a leading zero ("07:00", "0730"): it leaves nothing open. */
const TWENTY_FOUR_HOUR_FIGURE = /\b0\d[:.h]?\d{2}\b/i;

/** chrono's marks of words that settle morning or evening ("noon", "this evening", "tonight") and of a time counted from the clock. */
const SETTLES_MERIDIEM = /^(?:parser\/ENCasualTimeParser|casualReference\/tonight|result\/relative)/;

/**
 * The hour twelve hours from the one chrono read, when the words leave
 * morning or evening open: "at 7", "7 o'clock", "6:30". Not for "7 am",
 * "19:00", "07:00", "noon", "tomorrow morning at 7" or "at 7 tonight", nor
 * for a time counted from the clock ("in 2 hours").
 */
function twelveHoursAway(components: chrono.ParsedComponents, text: string): number | undefined {
  const hour = components.get("hour") ?? 0;
  if (components.isCertain("meridiem") || hour < 1 || hour > 12 || TWENTY_FOUR_HOUR_FIGURE.test(text)) return undefined;
  if ([...components.tags()].some((tag) => SETTLES_MERIDIEM.test(tag))) return undefined;
  return hour === 12 ? 0 : hour + 12;
}

function componentsOf(components: chrono.ParsedComponents, text: string): NamedMoment {
  const named: NamedMoment = {};
  if (components.isCertain("day") || components.isCertain("weekday") || components.isCertain("month")) named.date = dateOf(components.date());
  if (components.isCertain("hour")) {
    const minute = pad(components.isCertain("minute") ? (components.get("minute") ?? 0) : 0);
    named.time = `${pad(components.get("hour") ?? 0)}:${minute}`;
    const other = twelveHoursAway(components, text);
    if (other !== undefined) named.otherTime = `${pad(other)}:${minute}`;
  }
  return named;
}

function fromChrono(result: chrono.ParsedResult): NamedTime {
  const named: NamedTime = { text: result.text, ...componentsOf(result.start, result.text) };
  if (result.end) {
    const end = componentsOf(result.end, result.text);
    if (end.date !== undefined || end.time !== undefined) named.end = end;
  }
  return named;
}

/** Month abbreviations written with a dot against the day ("March.11, 2022", "Jun.20"), which chrono misreads, spaced out. */
function spacedMonthDots(text: string): string {
  return text.replace(/\b(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.\s*(?=\d)/gi, "$1 ");
}

/** A date written out whole, its year among its words ("January 1, 2021", "2022/08/16"; not "two days after", which chrono resolves whole too). */
function absolute(result: chrono.ParsedResult): boolean {
  return result.start.isCertain("day") && result.start.isCertain("month") && result.start.isCertain("year") && /\b(?:1[5-9]|20)\d{2}\b/.test(result.text);
}

/**
 * The days and times the request names ("tomorrow", "Friday at 1 pm", "in 2
 * hours"), resolved against the clock. A request that writes a calendar
 * date out is absolute: only the dates it writes whole (day, month and
 * year: "January 1, 2021", "2022/08/16") count, and a weekday or a relative
 * word beside them does not move them to the week of the clock.
 */
export function namedTimes(request: string, clock: GroundingClock): NamedTime[] {
  const explicit = EXPLICIT_DATE.test(request);
  // Clock times in words in figures: chrono reads "after quarter past seven this evening" as 19:15, not as "this evening" alone.
  const text = clockTimesInFigures(spacedMonthDots(request));
  const named = chrono
    .parse(text, { instant: localReference(clock) }, { forwardDate: true })
    // "now" ("what about now?", "do it now") says when to act, not a day the call is about.
    .filter((result) => !/^(?:right )?now$/i.test(result.text.trim()))
    // "every 8 hours" says how often, not a time 8 hours from now.
    .filter((result) => !(INTERVAL.test(result.text.trim()) && /\b(?:every|each)\s+$/i.test(text.slice(0, result.index))))
    .map((result) => ({ result, named: fromChrono(result) }))
    .filter(({ named }) => named.date !== undefined || named.time !== undefined);
  // Beside a written date, a relative one ("yesterday") is another day the request names: the
  // request then names several, and which argument means which is a guess.
  if (explicit && named.some(({ result }) => !absolute(result))) return named.length > 1 ? named.map((entry) => entry.named) : [];
  return named.map((entry) => entry.named);
}

/** A stretch of time on its own ("8 hours", "a day"), which chrono reads as counted from now. */
const INTERVAL = /^(?:\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)$/i;

/** Hours in words, as people say a clock time ("at seven", "half past six"). */
const HOUR_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
};
const HOUR_IN_WORDS = `(${Object.keys(HOUR_WORDS).join("|")})`;
const HOUR_SAID = `(${Object.keys(HOUR_WORDS).join("|")}|1[0-2]|0?[1-9])`;
const MINUTES_IN_WORDS: Record<string, number> = { fifteen: 15, thirty: 30, "forty-five": 45, "forty five": 45 };
/** Words that put a time of day after them ("an alarm for 7", "back by 6", "around 8"); chrono reads a bare hour only after "at" and "from". */
const TIME_LEAD = "for|by|around|about|until|till";

const hourOf = (said: string): number => HOUR_WORDS[said.toLowerCase()] ?? Number(said);

/**
 * Clock times said in words, written in figures for chrono, which reads
 * figures only: "half past six" is 6:30, "quarter to eight" 7:45, "at seven
 * thirty" at 7:30, "seven o'clock" 7 o'clock. Words that count ("seven
 * days") are left as they are: only an hour after a word that introduces a
 * time, or beside "past", "to" or "o'clock", is a clock time.
 */
export function clockTimesInFigures(text: string): string {
  return text
    .replace(new RegExp(`\\b(half|quarter)\\s+past\\s+${HOUR_SAID}\\b`, "gi"), (_, part: string, hour: string) => `${hourOf(hour)}:${part.toLowerCase() === "half" ? 30 : 15}`)
    .replace(new RegExp(`\\bquarter\\s+(?:to|till|of)\\s+${HOUR_SAID}\\b`, "gi"), (_, hour: string) => `${hourOf(hour) === 1 ? 12 : hourOf(hour) - 1}:45`)
    .replace(
      new RegExp(`\\b(at|from|${TIME_LEAD})\\s+${HOUR_IN_WORDS}(?:\\s+(${Object.keys(MINUTES_IN_WORDS).join("|")}))?\\b`, "gi"),
      (_, lead: string, hour: string, minutes: string | undefined) => `${lead} ${hourOf(hour)}${minutes === undefined ? "" : `:${MINUTES_IN_WORDS[minutes.toLowerCase()]}`}`,
    )
    .replace(new RegExp(`\\b${HOUR_IN_WORDS}(\\s+o'?clock)\\b`, "gi"), (_, hour: string, oclock: string) => `${hourOf(hour)}${oclock}`);
}

/** A bare hour after a word that introduces a time ("an alarm for 7", "back by 6"); chrono leaves it out, since "at" is the only lead it reads. */
const BARE_HOUR = new RegExp(`(?<![\\w:])(?:${TIME_LEAD})\\s+([01]?\\d|2[0-3])(?![\\w:.,]\\d|\\w)`, "i");
/** What may follow a bare hour that is a time: the end of a clause, a conjunction, "please". A noun ("for 7 people") makes it a count. */
const CLAUSE_END = /^\s*(?:$|[.,;:!?)]|(?:and|or|then|please)\b)/i;
/** What may stand between a bare hour and a day chrono reads ("for 7 every weekday", "for 7 in the morning"). */
const DAY_LEAD = /^\s*(?:(?:every|each|in\s+the)\s+)?/i;
const BARE_HOUR_TAG = "botpsy/bareHour";

/** Whether `text` opens with a day or time chrono reads ("tomorrow", "on Friday", "in the morning"). */
function opensWithDayOrTime(text: string): boolean {
  const [first] = chrono.casual.parse(text.slice(DAY_LEAD.exec(text)?.[0].length ?? 0));
  return first?.index === 0;
}

/** chrono's casual English, and a bare hour after "for", "by", "around", "about", "until" or "till" as a clock time. */
const clockTimeReader = chrono.casual.clone();
clockTimeReader.parsers.push({
  pattern: () => BARE_HOUR,
  extract: (context, match) => {
    const rest = context.text.slice((match.index ?? 0) + match[0].length);
    if (!CLAUSE_END.test(rest) && !opensWithDayOrTime(rest)) return null;
    return context.createParsingComponents({ hour: Number(match[1]), minute: 0 }).addTag(BARE_HOUR_TAG);
  },
});

/** A time of day read beyond chrono's own reading; `figure` is the bare hour as the request writes it, when it is one ("for 7"). */
export interface SpokenTimeOfDay extends NamedTime {
  figure?: number;
}

/**
 * The one time of day the request names in words chrono does not read on
 * its own: a bare hour ("Set an alarm for 7", "for 7 tomorrow"), a clock
 * time in words ("half past six", "at seven"). Undefined when chrono's own
 * reading names a time (that one counts), or when the request names no time
 * of day or several. A time counted from the clock ("in 20 minutes") is
 * chrono's own reading, never this one.
 */
export function spokenTimeOfDay(request: string, clock: GroundingClock): SpokenTimeOfDay | undefined {
  return spokenTime(request, clock, namedTimes(request, clock));
}

/** `spokenTimeOfDay`, given what chrono's own reading of the request names. */
function spokenTime(request: string, clock: GroundingClock, chronoReading: readonly NamedTime[]): SpokenTimeOfDay | undefined {
  if (chronoReading.some((named) => named.time !== undefined)) return undefined;
  const timed = clockTimeReader
    .parse(clockTimesInFigures(spacedMonthDots(request)), { instant: localReference(clock) }, { forwardDate: true })
    .filter((result) => result.start.isCertain("hour"));
  if (timed.length !== 1) return undefined;
  const [result] = timed as [chrono.ParsedResult];
  const named = fromChrono(result);
  const hour = result.start.get("hour");
  return result.start.tags().has(BARE_HOUR_TAG) && hour !== null ? { ...named, figure: hour } : named;
}

/** The order and separator of a date format a parameter's description states ("MM-DD-YYYY", "yyyy-mm-dd", "(month-day-year)", "mm-yyyy"). */
export interface DateFormat {
  parts: ("Y" | "M" | "D")[];
  separator: string;
}

const FORMAT_PART = "(y{2,4}|m{1,2}|d{1,2})";
const FORMAT_IN_LETTERS = new RegExp(`(?<![a-z])${FORMAT_PART}([-/.])${FORMAT_PART}(?:\\2${FORMAT_PART})?(?![a-z])`, "i");
const FORMAT_IN_WORDS = /\b(year|month|day)([-/])(year|month|day)(?:\2(year|month|day))?\b/i;

/** The date format a description states, when it states one (its parts distinct, a year and a month among them). */
export function describedDateFormat(description: string | undefined): DateFormat | undefined {
  if (description === undefined) return undefined;
  const match = FORMAT_IN_LETTERS.exec(description) ?? FORMAT_IN_WORDS.exec(description);
  if (!match) return undefined;
  const parts = [match[1], match[3], match[4]].filter((part): part is string => part !== undefined).map((part) => part[0]!.toUpperCase() as "Y" | "M" | "D");
  if (new Set(parts).size !== parts.length || !parts.includes("Y") || !parts.includes("M")) return undefined;
  return { parts, separator: match[2]! };
}

/** Words of a description that make its parameter about a day or a time. */
const MOMENT_WORDS = /\b(?:date|dates|day|days|time|times|when|deadline|timestamp|datetime)\b/i;

/**
 * Whether a parameter is about a day or a time: by its name (`date`,
 * `start_time`, `due`), by the date format its description states, or by a
 * description that speaks of a date or a time. Such a parameter's dates are
 * date grounding's to judge.
 */
export function aboutMoment(name: string, description: string | undefined): boolean {
  if (TEMPORAL_KEY.test(name) && !NOT_TEMPORAL_KEY.test(name)) return true;
  return description !== undefined && (describedDateFormat(description) !== undefined || MOMENT_WORDS.test(description));
}

/** Whether the text names a day or a time at all ("tomorrow", "in March", "at 5 pm"), as chrono reads it. */
export function namesMoment(text: string): boolean {
  return chrono.parse(clockTimesInFigures(text)).length > 0;
}

/** An ISO date (YYYY-MM-DD) written in a described format. */
export function formatDate(isoDate: string, format: DateFormat): string {
  const [year, month, day] = isoDate.split("-") as [string, string, string];
  return format.parts.map((part) => (part === "Y" ? year : part === "M" ? month : day)).join(format.separator);
}

/** A value written in the described format, as an ISO date (a format without a day reads as the 1st). */
function readInFormat(value: string, format: DateFormat): string | undefined {
  const fields = value.trim().split(format.separator);
  if (fields.length !== format.parts.length || !fields.every((field) => /^\d+$/.test(field))) return undefined;
  const of = (part: "Y" | "M" | "D"): number | undefined => {
    const index = format.parts.indexOf(part);
    return index < 0 ? undefined : Number(fields[index]);
  };
  const year = of("Y")!;
  const month = of("M")!;
  const day = of("D") ?? 1;
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  return `${year}-${pad(month)}-${pad(day)}`;
}

/** What an argument value names, and whether it is nothing but a date/time (so it can be rewritten whole). */
function readArgument(value: string, clock: GroundingClock): { named: NamedTime; whole: boolean; worded?: boolean } | undefined {
  const trimmed = value.trim();
  const isoDate = ISO_DATE.exec(trimmed);
  if (isoDate) return { named: { text: trimmed, date: isoDate[1] }, whole: true };
  const isoDateTime = ISO_DATE_TIME.exec(trimmed);
  if (isoDateTime) return { named: { text: trimmed, date: isoDateTime[1], time: isoDateTime[2] }, whole: !/[zZ+]|-\d{2}:?\d{2}$/.test(trimmed.slice(10)) };
  const hhmm = HH_MM.exec(trimmed);
  if (hhmm) return { named: { text: trimmed, time: `${pad(Number(hhmm[1]))}:${hhmm[2]}` }, whole: true };
  // A time the model wrote in words ("quarter past seven") is read as the request's are.
  const figures = clockTimesInFigures(trimmed);
  const results = chrono.parse(figures, { instant: localReference(clock) }, { forwardDate: true });
  const first = results[0];
  if (first === undefined || results.length > 1) return undefined;
  const named = fromChrono(first);
  if (named.date === undefined && named.time === undefined) return undefined;
  return { named, whole: figures.length - first.text.length <= 3, worded: figures !== trimmed };
}

/** The descriptions of a schema's top-level parameters, by name. */
function descriptionsOf(parameters: JsonSchema | undefined): Record<string, string | undefined> {
  const properties = (parameters?.properties ?? {}) as Record<string, { description?: unknown }>;
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, typeof schema?.description === "string" ? schema.description : undefined]));
}

/** What a value's time of day makes of the time the request names. */
type TimeAgreement = { kind: "agrees" } | { kind: "wrong"; time: string } | { kind: "open"; readings: string[] };

/**
 * A value's time of day against the request's: the same time, or the other
 * reading of one that leaves morning or evening open, agrees; the same hour
 * with other minutes takes the request's minutes; another hour is wrong (the
 * request's time written instead) when the request's time has one reading,
 * and open when it has two: which one the user meant is not grounding's to
 * guess, so the model is given both.
 */
function timeAgainst(time: string, wanted: NamedMoment & { time: string }): TimeAgreement {
  const readings = wanted.otherTime === undefined ? [wanted.time] : [wanted.time, wanted.otherTime];
  if (readings.includes(time)) return { kind: "agrees" };
  const sameHour = readings.find((reading) => reading.slice(0, 2) === time.slice(0, 2));
  if (sameHour !== undefined) return { kind: "wrong", time: sameHour };
  return readings.length === 1 ? { kind: "wrong", time: wanted.time } : { kind: "open", readings };
}

/**
 * Check a call's date and time arguments against the request. Only a request
 * that names exactly one day or time (or one range, whose end goes to the
 * parameters that end something: "to_date", "until") is used (with two,
 * which argument means which is a guess); only arguments that name a day or
 * time are compared. A time of day chrono does not read on its own ("an
 * alarm for 7", "half past six": `spokenTimeOfDay`) holds a time argument
 * too, unless the figure is another argument's number (a table "for 4" with
 * `party_size: 4`). A date parameter whose description states a format
 * ("MM-DD-YYYY") gets its date in that format, the tool's own words.
 */
export function groundCallDates(call: ToolCall, request: string, clock: GroundingClock, parameters?: JsonSchema): Grounding {
  const unchanged: Grounding = { kind: "unchanged", call };
  if (typeof call.arguments !== "object" || call.arguments === null || Array.isArray(call.arguments)) return unchanged;
  const named = namedTimes(request, clock);
  const requested = named.length === 1 ? named[0]! : undefined;
  const args = { ...(call.arguments as Record<string, unknown>) };
  const spoken = spokenTime(request, clock, named);
  const spokenHour = spoken?.figure === undefined || !Object.values(args).includes(spoken.figure) ? spoken : undefined;
  // A request that writes its date out corrects only dates of the same year: another year is
  // another date the request gives (a card's expiry beside a travel day), not a slip.
  const sameYearOnly = EXPLICIT_DATE.test(request);
  const descriptions = descriptionsOf(parameters);
  const corrections: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== "string" || NOT_TEMPORAL_KEY.test(key)) continue;
    const timeOnly = TIME_ONLY_KEY.test(key);
    const format = timeOnly ? undefined : describedDateFormat(descriptions[key]);
    // A parameter is about a day or time by its name, or by the date format its description states ("birthday").
    if (!TEMPORAL_KEY.test(key) && format === undefined) continue;
    const ending = END_KEY.test(key);
    const wanted = ending ? requested?.end : requested;
    // The time of day the value is held to: chrono's reading of the request, or one it leaves out ("for 7").
    const clockSource = ending || requested?.time !== undefined ? requested : (spokenHour ?? requested);
    const wantedClock = ending ? wanted : clockSource;
    const inFormat = format === undefined ? undefined : readInFormat(value, format);
    const read = inFormat !== undefined ? { named: { text: value, date: inFormat }, whole: true } : readArgument(value, clock);
    if (read === undefined) {
      // A year alone where the request wrote the whole date ("1915" for "March 17, 1915"): the date cut short.
      if (!timeOnly && wanted?.date !== undefined && /^\d{4}$/.test(value.trim()) && wanted.date.startsWith(`${value.trim()}-`)) {
        const replacement = format === undefined ? wanted.date : formatDate(wanted.date, format);
        args[key] = replacement;
        corrections.push(`${key}: "${value}" → "${replacement}" (the request says "${requested!.text}")`);
      }
      continue;
    }
    // A time-of-day parameter ("time", "new_time") is about the time only; a date parameter takes a
    // time from the request only when the request ties it to a day ("Friday at 1 pm"): a lone "at 5"
    // may be about another thing the request asks for.
    const dateWrong =
      !timeOnly &&
      wanted?.date !== undefined &&
      read.named.date !== undefined &&
      read.named.date !== wanted.date &&
      (!sameYearOnly || read.named.date.slice(0, 4) === wanted.date.slice(0, 4));
    const agreement: TimeAgreement =
      wantedClock?.time !== undefined && read.named.time !== undefined && (timeOnly || wantedClock.date !== undefined)
        ? timeAgainst(read.named.time, { ...wantedClock, time: wantedClock.time })
        : { kind: "agrees" };
    const timeWrong = agreement.kind === "wrong";
    const date = timeOnly ? undefined : dateWrong ? wanted!.date : read.named.date;
    // The request's words for what the value got wrong: the day's and the time's, when they are two.
    const wrongWords = [dateWrong ? requested?.text : undefined, agreement.kind !== "agrees" ? clockSource?.text : undefined].filter((text) => text !== undefined);
    const saidText = [...new Set(wrongWords.length > 0 ? wrongWords : [requested?.text ?? ""])].join('" and "');
    if (agreement.kind === "open") {
      const options = agreement.readings.map((time) => [date, time].filter((part) => part !== undefined).join(" "));
      return {
        kind: "contradiction",
        call,
        error: {
          code: "date_contradicts_request",
          message: `The request says "${saidText}", not ${read.named.time}. Call ${call.name} with ${options.map((option) => `${key}="${option}"`).join(" or ")}.`,
        },
      };
    }
    // The right date in another format than the description states.
    const reformat =
      (format !== undefined && read.whole && read.named.date !== undefined && read.named.time === undefined && formatDate(read.named.date, format) !== value.trim()) ||
      // A time of day the model wrote in words ("half past six") is written as a clock time.
      (timeOnly && read.whole && read.worded === true && read.named.time !== undefined);
    if (!dateWrong && !timeWrong && !reformat) continue;
    const time = timeWrong ? agreement.time : read.named.time;
    const written = date !== undefined && format !== undefined && time === undefined ? formatDate(date, format) : date;
    const replacement = timeOnly ? (time ?? value) : [written, time].filter((part) => part !== undefined).join(" ");
    const says = [wanted?.date, timeWrong ? agreement.time : wanted?.time].filter((part) => part !== undefined).join(" ");
    // A time-of-day parameter takes the request's time whole, whatever else the model wrote into it.
    if (!read.whole && !timeOnly) {
      return {
        kind: "contradiction",
        call,
        error: {
          code: "date_contradicts_request",
          message: `${key}="${value}" is not what the request says: "${saidText}" is ${says}. Call ${call.name} again with ${key}="${says}".`,
        },
      };
    }
    args[key] = replacement;
    corrections.push(
      dateWrong || timeWrong
        ? `${key}: "${value}" → "${replacement}" (the request says "${saidText}")`
        : `${key}: "${value}" → "${replacement}" (${format !== undefined ? "the format its description states" : "a clock time"})`,
    );
  }
  return corrections.length === 0 ? unchanged : { kind: "corrected", call: { ...call, arguments: args }, corrections };
}
