import { statSync } from "node:fs";
import ICAL from "ical.js";
import { z } from "zod";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { StoreTransaction } from "../../store/store.js";
import type { App, AppNotification } from "../app.js";
import { addDays } from "../device/alarms.js";
import { readSandboxFile, resolveSandboxPath, sandboxRoot, writeSandboxFile } from "../device/sandbox.js";
import { PERSONA } from "../persona.js";
import { formatDate, formatTime, instantOf, parseTimeOfDay, parseWhen, today, zonedParts, type Clock } from "../time.js";
import { formatPerson, resolvePeople, type Person } from "./people.js";

export const CALENDAR_APP = "calendar";
const LIST_LIMIT = 30;
const FIND_LIMIT = 20;
const MAX_EVENTS = 2000;
const FREQUENCIES = ["daily", "weekly", "monthly"] as const;
type Frequency = (typeof FREQUENCIES)[number];

export interface Recurrence {
  frequency: Frequency;
  /** Every `interval` days/weeks/months. */
  interval: number;
  /** Total occurrences, when limited. */
  count?: number;
  /** Last date (YYYY-MM-DD, in the event's zone), when limited. */
  until?: string;
}

export interface CalendarEvent {
  id: string;
  title: string;
  /** Local date of the (first) occurrence in `timeZone`. */
  date: string;
  /** Local start time HH:MM in `timeZone`; undefined for an all-day event. */
  time?: string;
  durationMinutes: number;
  timeZone: string;
  location?: string;
  notes?: string;
  attendees: Person[];
  /** Minutes before the start at which a reminder fires. */
  reminders: number[];
  recurrence?: Recurrence;
  /** The iCalendar UID of an imported event (so importing the same file twice adds nothing). */
  uid?: string;
}

export interface Occurrence {
  event: CalendarEvent;
  start: Date;
  end: Date;
}

function events(tx: StoreTransaction) {
  return tx.collection<CalendarEvent>(CALENDAR_APP, "events");
}

function clockOf(context: { now(): Date; timeZone: string }): Clock {
  return { now: context.now(), timeZone: context.timeZone };
}

function addMonths(date: string, months: number): string | undefined {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const shifted = new Date(Date.UTC(year, month - 1 + months, day));
  // The 31st does not exist every month: such a month has no occurrence, as in RFC 5545.
  if (shifted.getUTCDate() !== day) return undefined;
  return formatDate({ year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() });
}

function occurrenceDate(event: CalendarEvent, index: number): string | undefined {
  const recurrence = event.recurrence;
  if (!recurrence) return index === 0 ? event.date : undefined;
  if (recurrence.frequency === "daily") return addDays(event.date, index * recurrence.interval);
  if (recurrence.frequency === "weekly") return addDays(event.date, index * 7 * recurrence.interval);
  return addMonths(event.date, index * recurrence.interval);
}

function occurrenceAt(event: CalendarEvent, date: string): Occurrence {
  const start = instantOf(date, event.time ?? "00:00", event.timeZone);
  const end = event.time === undefined ? instantOf(addDays(date, Math.max(1, Math.round(event.durationMinutes / 1440))), "00:00", event.timeZone) : new Date(start.getTime() + event.durationMinutes * 60_000);
  return { event, start, end };
}

/** The occurrences of `event` that overlap [from, to). */
export function occurrences(event: CalendarEvent, from: Date, to: Date): Occurrence[] {
  const found: Occurrence[] = [];
  const limit = event.recurrence?.count ?? 5000;
  for (let index = 0; index < limit && index < 5000; index++) {
    const date = occurrenceDate(event, index);
    if (date === undefined) {
      if (!event.recurrence || event.recurrence.frequency !== "monthly") break;
      continue;
    }
    if (event.recurrence?.until && date > event.recurrence.until) break;
    const occurrence = occurrenceAt(event, date);
    if (occurrence.start.getTime() >= to.getTime()) break;
    if (occurrence.end.getTime() > from.getTime()) found.push(occurrence);
  }
  return found;
}

function describeMinutes(minutes: number): string {
  if (minutes % 1440 === 0) return `${minutes / 1440} day${minutes === 1440 ? "" : "s"}`;
  if (minutes % 60 === 0) return `${minutes / 60} h`;
  return `${minutes} min`;
}

function allOccurrences(tx: StoreTransaction, from: Date, to: Date, skipId?: string): Occurrence[] {
  return events(tx)
    .all()
    .filter((event) => event.id !== skipId)
    .flatMap((event) => occurrences(event, from, to))
    .sort((a, b) => a.start.getTime() - b.start.getTime());
}

function describeOccurrence(occurrence: Occurrence, clock: Clock): Record<string, unknown> {
  const { event } = occurrence;
  const local = zonedParts(occurrence.start, clock.timeZone);
  const localEnd = zonedParts(occurrence.end, clock.timeZone);
  const allDay = event.time === undefined;
  return {
    id: event.id,
    title: event.title,
    date: formatDate(local),
    ...(allDay ? { allDay: true } : { time: formatTime(local), end: formatTime(localEnd) }),
    ...(event.timeZone !== clock.timeZone && !allDay ? { eventTimeZone: event.timeZone, eventTime: event.time } : {}),
    ...(event.location ? { location: event.location } : {}),
    ...(event.attendees.length > 0 ? { attendees: event.attendees.map((person) => person.name) } : {}),
    ...(event.recurrence ? { repeats: describeRecurrence(event.recurrence) } : {}),
  };
}

function describeRecurrence(recurrence: Recurrence): string {
  const unit = { daily: "day", weekly: "week", monthly: "month" }[recurrence.frequency];
  const every = recurrence.interval === 1 ? recurrence.frequency : `every ${recurrence.interval} ${unit}s`;
  return `${every}${recurrence.count ? `, ${recurrence.count} times` : ""}${recurrence.until ? `, until ${recurrence.until}` : ""}`;
}

function describeEvent(event: CalendarEvent, clock: Clock): Record<string, unknown> {
  return {
    ...describeOccurrence(occurrenceAt(event, event.date), clock),
    durationMinutes: event.durationMinutes,
    timeZone: event.timeZone,
    ...(event.notes ? { notes: event.notes } : {}),
    ...(event.reminders.length > 0 ? { remindersMinutesBefore: event.reminders } : {}),
    ...(event.attendees.length > 0 ? { attendees: event.attendees.map(formatPerson) } : {}),
  };
}

function parseFrequency(text: string): Frequency | undefined {
  const cleaned = text.trim().toLowerCase().replace(/^every\s+/, "");
  if (["", "none", "never", "once", "no"].includes(cleaned)) return undefined;
  if (["daily", "day", "every day", "days"].includes(cleaned)) return "daily";
  if (["weekly", "week", "weeks"].includes(cleaned)) return "weekly";
  if (["monthly", "month", "months"].includes(cleaned)) return "monthly";
  throw new ToolError("invalid_repeat", `repeat="${text}" is not understood. Use "daily", "weekly", "monthly" or "none".`);
}

function checkTimeZone(zone: string): string {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone.trim() }).resolvedOptions().timeZone;
  } catch {
    throw new ToolError("invalid_time_zone", `time_zone="${zone}" is not a time zone. Use an IANA name such as "Europe/Lisbon" or "America/New_York".`);
  }
}

/** Find an event by id ("event-3") or title ("Team sync"), refusing to guess between several. */
function findEvent(tx: StoreTransaction, text: string): CalendarEvent {
  const all = events(tx).all();
  const wanted = text.trim().toLowerCase();
  const byId = all.find((event) => event.id === wanted);
  if (byId) return byId;
  let matches = all.filter((event) => event.title.toLowerCase() === wanted);
  if (matches.length === 0) matches = all.filter((event) => event.title.toLowerCase().includes(wanted));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new ToolError("event_not_found", `No event matches "${text}". Find it with find_events or list_events and use its id.`);
  }
  throw new ToolError(
    "event_ambiguous",
    `Several events match "${text}": ${matches.slice(0, 8).map((event) => `${event.id} (${event.title}, ${event.date})`).join(", ")}. Use the id.`,
  );
}

interface Timing {
  date: string;
  time: string | undefined;
  /** What the model wrote, normalised, to echo back. */
  normalised: string;
}

/** Date and time as written ("Friday", "3 pm"; or both in `date`: "Friday 3 pm"), against the profile clock. */
function parseTiming(date: string, time: string | undefined, clock: Clock): Timing {
  const day = parseWhen(date, clock, "date");
  const at = time !== undefined && time.trim() !== "" ? parseTimeOfDay(time, clock, "time") : day.time;
  return { date: day.date, time: at, normalised: `${day.date}${at ? ` ${at}` : " (all day)"}` };
}

function conflictsOf(tx: StoreTransaction, event: CalendarEvent, clock: Clock): Record<string, unknown>[] {
  if (event.time === undefined) return [];
  const mine = occurrences(event, new Date(0), new Date(Date.parse(`${addDays(event.date, 180)}T00:00:00Z`))).slice(0, 50);
  const found = new Map<string, Record<string, unknown>>();
  for (const occurrence of mine) {
    for (const other of allOccurrences(tx, occurrence.start, occurrence.end, event.id)) {
      if (other.event.time === undefined) continue;
      if (!found.has(other.event.id)) found.set(other.event.id, describeOccurrence(other, clock));
    }
  }
  return [...found.values()].slice(0, 5);
}

function withConflicts(result: Record<string, unknown>, conflicts: Record<string, unknown>[]): Record<string, unknown> {
  if (conflicts.length === 0) return result;
  return {
    ...result,
    conflicts,
    warning: `This overlaps ${conflicts.length} other event(s): ${conflicts.map((conflict) => `${String(conflict.title)} at ${String(conflict.date)} ${String(conflict.time)}`).join("; ")}. Move it with update_event if that is not intended.`,
  };
}

const dateField = z.string().min(1).describe('Day, optionally with a time. Example: "Friday", "2026-12-04" or "tomorrow 3 pm"');
const timeField = z.string().describe('Start time. Example: "3 pm" or "15:00"');
const peopleField = z
  .union([z.array(z.string()), z.string()])
  .describe('Contacts or email addresses. Example: ["Frank", "maria.lopez@example.com"]');
const remindersField = z.array(z.number().int().min(0).max(40320)).describe("Minutes before the start to remind. Example: [10, 60]");

const createEvent = defineTool({
  name: "create_event",
  description: "Add an event to your calendar. Overlaps with other events are reported in the result.",
  input: z.object({
    title: z.string().trim().min(1).describe('Example: "Dentist"'),
    date: dateField,
    time: timeField.optional(),
    duration_minutes: z.number().int().min(1).max(60 * 24 * 14).optional().describe("Length in minutes (default 60). Example: 30"),
    time_zone: z.string().optional().describe('IANA zone of the date and time, when not yours. Example: "America/New_York"'),
    location: z.string().optional().describe('Example: "Smile Dental, Rua Augusta 20"'),
    attendees: peopleField.optional(),
    reminder_minutes: remindersField.optional(),
    repeat: z.string().optional().describe('"daily", "weekly", "monthly" or "none" (default).'),
    repeat_count: z.number().int().min(1).max(500).optional().describe("How many times it happens in all. Example: 10"),
    repeat_until: z.string().optional().describe('Last day it repeats. Example: "2027-03-31"'),
    notes: z.string().optional(),
  }),
  risk: "write",
  run: (args, context) => {
    const clock = clockOf(context);
    const collection = events(context.store);
    if (collection.all().length >= MAX_EVENTS) {
      throw new ToolError("calendar_full", `The calendar holds ${MAX_EVENTS} events, its limit. Delete old events with delete_event, then retry.`);
    }
    const timeZone = args.time_zone ? checkTimeZone(args.time_zone) : context.timeZone;
    const timing = parseTiming(args.date, args.time, { now: clock.now, timeZone });
    const frequency = args.repeat === undefined ? undefined : parseFrequency(args.repeat);
    if (!frequency && (args.repeat_count !== undefined || args.repeat_until !== undefined)) {
      throw new ToolError("invalid_repeat", 'repeat_count and repeat_until need repeat="daily", "weekly" or "monthly".');
    }
    const event: CalendarEvent = {
      id: collection.nextId("event"),
      title: args.title,
      date: timing.date,
      ...(timing.time ? { time: timing.time } : {}),
      durationMinutes: args.duration_minutes ?? (timing.time ? 60 : 1440),
      timeZone,
      ...(args.location ? { location: args.location } : {}),
      ...(args.notes ? { notes: args.notes } : {}),
      attendees: resolvePeople(context.store, args.attendees, "attendees"),
      reminders: args.reminder_minutes ?? (timing.time ? [15] : []),
      ...(frequency
        ? {
            recurrence: {
              frequency,
              interval: 1,
              ...(args.repeat_count ? { count: args.repeat_count } : {}),
              ...(args.repeat_until ? { until: parseWhen(args.repeat_until, clock, "repeat_until").date } : {}),
            },
          }
        : {}),
    };
    collection.put(event.id, event);
    return withConflicts({ created: describeEvent(event, clock), normalised: timing.normalised }, conflictsOf(context.store, event, clock));
  },
});

const listEvents = defineTool({
  name: "list_events",
  description: "List calendar events from a day on (today by default), for some days (7 by default).",
  input: z.object({
    from: z.string().optional().describe('First day. Example: "today", "Monday" or "2026-12-07"'),
    days: z.number().int().min(1).max(62).optional().describe("How many days. Example: 1 for one day"),
  }),
  risk: "read",
  resultTrust: "untrusted",
  run: ({ from, days = 7 }, context) => {
    const clock = clockOf(context);
    const first = from === undefined ? today(clock) : parseWhen(from, clock, "from").date;
    const start = instantOf(first, "00:00", clock.timeZone);
    const end = instantOf(addDays(first, days), "00:00", clock.timeZone);
    const found = allOccurrences(context.store, start, end);
    return {
      from: first,
      to: addDays(first, days - 1),
      events: found.slice(0, LIST_LIMIT).map((occurrence) => describeOccurrence(occurrence, clock)),
      ...(found.length > LIST_LIMIT ? { more: found.length - LIST_LIMIT } : {}),
    };
  },
});

const findEvents = defineTool({
  name: "find_events",
  description: "Search calendar events by title, place, notes or attendee.",
  input: z.object({ query: z.string().trim().min(1).describe('Example: "dentist" or "Frank"') }),
  risk: "read",
  resultTrust: "untrusted",
  run: ({ query }, context) => {
    const clock = clockOf(context);
    const wanted = query.toLowerCase();
    const matching = events(context.store).find(
      (event) =>
        event.title.toLowerCase().includes(wanted) ||
        (event.location?.toLowerCase().includes(wanted) ?? false) ||
        (event.notes?.toLowerCase().includes(wanted) ?? false) ||
        event.attendees.some((person) => person.name.toLowerCase().includes(wanted) || person.email.includes(wanted)),
    );
    const now = clock.now;
    const horizon = new Date(now.getTime() + 400 * 86_400_000);
    const described = matching.map((event) => {
      const next = occurrences(event, now, horizon)[0];
      return next ? { ...describeOccurrence(next, clock), upcoming: true } : { ...describeOccurrence(occurrenceAt(event, event.date), clock), upcoming: false };
    });
    return {
      query,
      events: described.slice(0, FIND_LIMIT),
      ...(described.length > FIND_LIMIT ? { more: described.length - FIND_LIMIT } : {}),
    };
  },
});

const updateEvent = defineTool({
  name: "update_event",
  description: "Change an event: title, day, time, length, place, attendees, reminders, notes or repeat.",
  input: z.object({
    event: z.string().min(1).describe('The event id or title. Example: "event-3"'),
    title: z.string().trim().min(1).optional(),
    date: dateField.optional(),
    time: timeField.optional(),
    duration_minutes: z.number().int().min(1).max(60 * 24 * 14).optional(),
    location: z.string().optional(),
    attendees: peopleField.optional().describe("Replaces the attendee list."),
    add_attendees: peopleField.optional().describe('Adds people. Example: ["Tom"]'),
    reminder_minutes: remindersField.optional(),
    repeat: z.string().optional().describe('"daily", "weekly", "monthly" or "none".'),
    notes: z.string().optional(),
  }),
  risk: "write",
  run: (args, context) => {
    const clock = clockOf(context);
    const found = findEvent(context.store, args.event);
    const changed = Object.entries(args).filter(([key, value]) => key !== "event" && value !== undefined);
    if (changed.length === 0) throw new ToolError("nothing_to_change", "Say what to change: title, date, time, duration_minutes, location, attendees…");
    const next: CalendarEvent = structuredClone(found);
    if (args.title !== undefined) next.title = args.title;
    if (args.date !== undefined || args.time !== undefined) {
      const eventClock = { now: clock.now, timeZone: found.timeZone };
      const timing = args.date !== undefined ? parseTiming(args.date, args.time, eventClock) : { date: found.date, time: parseTimeOfDay(args.time ?? "", eventClock, "time") };
      next.date = timing.date;
      if (timing.time !== undefined) next.time = timing.time;
      if (found.time === undefined && timing.time !== undefined && args.duration_minutes === undefined) next.durationMinutes = 60;
    }
    if (args.duration_minutes !== undefined) next.durationMinutes = args.duration_minutes;
    if (args.location !== undefined) next.location = args.location;
    if (args.notes !== undefined) next.notes = args.notes;
    if (args.attendees !== undefined) next.attendees = resolvePeople(context.store, args.attendees, "attendees");
    for (const person of resolvePeople(context.store, args.add_attendees, "add_attendees")) {
      if (!next.attendees.some((known) => known.email === person.email)) next.attendees.push(person);
    }
    if (args.reminder_minutes !== undefined) next.reminders = args.reminder_minutes;
    if (args.repeat !== undefined) {
      const frequency = parseFrequency(args.repeat);
      if (frequency) next.recurrence = { frequency, interval: 1 };
      else delete next.recurrence;
    }
    events(context.store).put(next.id, next);
    return withConflicts({ updated: describeEvent(next, clock) }, conflictsOf(context.store, next, clock));
  },
});

const deleteEvent = defineTool({
  name: "delete_event",
  description: "Delete an event from your calendar (every occurrence of a repeating one).",
  input: z.object({ event: z.string().min(1).describe('The event id or title. Example: "event-3"') }),
  risk: "destructive",
  run: ({ event }, context) => {
    const found = findEvent(context.store, event);
    events(context.store).delete(found.id);
    return { deleted: found.id, title: found.title, date: found.date, ...(found.recurrence ? { repeats: describeRecurrence(found.recurrence) } : {}) };
  },
});

const findFreeSlot = defineTool({
  name: "find_free_slot",
  description: "Find free time in your calendar for a meeting of some length, within working hours: the first free slot of each day.",
  input: z.object({
    duration_minutes: z.number().int().min(5).max(600).describe("Length needed. Example: 30"),
    date: z.string().optional().describe('First day to look at (default today). Example: "tomorrow"'),
    days: z.number().int().min(1).max(14).optional().describe("How many days to look through (default 5)."),
    earliest: z.string().optional().describe('Day starts at (default "09:00").'),
    latest: z.string().optional().describe('Day ends at (default "18:00").'),
  }),
  risk: "read",
  run: ({ duration_minutes, date, days = 5, earliest = "09:00", latest = "18:00" }, context) => {
    const clock = clockOf(context);
    const first = date === undefined ? today(clock) : parseWhen(date, clock, "date").date;
    const dayStart = parseTimeOfDay(earliest, clock, "earliest");
    const dayEnd = parseTimeOfDay(latest, clock, "latest");
    if (dayEnd <= dayStart) throw new ToolError("invalid_range", `latest (${dayEnd}) must be after earliest (${dayStart}).`);
    const slots: Record<string, string>[] = [];
    for (let offset = 0; offset < days && slots.length < 3; offset++) {
      const day = addDays(first, offset);
      let cursor = Math.max(instantOf(day, dayStart, clock.timeZone).getTime(), Math.ceil(clock.now.getTime() / 900_000) * 900_000);
      const close = instantOf(day, dayEnd, clock.timeZone).getTime();
      const busy = allOccurrences(context.store, new Date(cursor), new Date(close)).filter((occurrence) => occurrence.event.time !== undefined);
      for (const occurrence of [...busy, undefined]) {
        const blockStart = occurrence ? occurrence.start.getTime() : close;
        if (blockStart - cursor >= duration_minutes * 60_000) {
          const start = new Date(cursor);
          const end = new Date(cursor + duration_minutes * 60_000);
          slots.push({ date: day, start: formatTime(zonedParts(start, clock.timeZone)), end: formatTime(zonedParts(end, clock.timeZone)) });
          if (slots.length >= 3) break;
        }
        if (occurrence) cursor = Math.max(cursor, occurrence.end.getTime());
        if (slots.length > 0 && slots.at(-1)?.date === day) break;
      }
    }
    if (slots.length === 0) {
      throw new ToolError(
        "no_free_slot",
        `No free ${duration_minutes}-minute slot between ${dayStart} and ${dayEnd} in ${days} day(s) from ${first}. Try more days, a shorter meeting or wider hours.`,
      );
    }
    return { durationMinutes: duration_minutes, slots };
  },
});

function icalTimeFields(time: ICAL.Time): { date: string; time: string | undefined } {
  return {
    date: formatDate({ year: time.year, month: time.month, day: time.day }),
    time: time.isDate ? undefined : formatTime({ hour: time.hour, minute: time.minute }),
  };
}

function isValidZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The local date, time and zone an iCalendar DTSTART/DTEND means. */
function readIcalTime(property: ICAL.Property | null, fallbackZone: string): { date: string; time: string | undefined; timeZone: string; instant: Date } | undefined {
  if (!property) return undefined;
  const value = property.getFirstValue();
  if (!(value instanceof ICAL.Time)) return undefined;
  const tzid = property.getParameter("tzid");
  const zoneName = typeof tzid === "string" && isValidZone(tzid) ? tzid : undefined;
  if (!value.isDate && !zoneName && value.zone === ICAL.Timezone.utcTimezone) {
    const instant = value.toJSDate();
    const parts = zonedParts(instant, fallbackZone);
    return { date: formatDate(parts), time: formatTime(parts), timeZone: fallbackZone, instant };
  }
  const fields = icalTimeFields(value);
  const timeZone = zoneName ?? fallbackZone;
  return { ...fields, timeZone, instant: instantOf(fields.date, fields.time ?? "00:00", timeZone) };
}

const importIcs = defineTool({
  name: "import_ics",
  description: "Import the events of an .ics calendar file from your files into your calendar.",
  input: z.object({ path: z.string().min(1).describe('The .ics file. Example: "invites/offsite.ics"') }),
  risk: "write",
  run: ({ path }, context) => {
    const clock = clockOf(context);
    const file = readSandboxFile(context.store, path);
    let calendar: ICAL.Component;
    try {
      calendar = new ICAL.Component(ICAL.parse(file.content.toString("utf8")) as unknown[]);
    } catch (error) {
      throw new ToolError("invalid_ics", `"${file.path.relative}" is not a valid iCalendar file (${String(error)}). Check the file with read_file.`);
    }
    const collection = events(context.store);
    const known = new Set(collection.all().map(uidOf));
    const imported: Record<string, unknown>[] = [];
    const skipped: string[] = [];
    let alreadyThere = 0;
    for (const component of calendar.getAllSubcomponents("vevent")) {
      const summary = String(component.getFirstPropertyValue("summary") ?? "").trim() || "(untitled)";
      const uid = component.getFirstPropertyValue("uid");
      if (typeof uid === "string" && known.has(uid)) {
        alreadyThere++;
        continue;
      }
      const start = readIcalTime(component.getFirstProperty("dtstart"), context.timeZone);
      if (!start) {
        skipped.push(`${summary}: no start`);
        continue;
      }
      const end = readIcalTime(component.getFirstProperty("dtend"), start.timeZone);
      const durationValue = component.getFirstPropertyValue("duration");
      const durationMinutes = end
        ? Math.max(1, Math.round((end.instant.getTime() - start.instant.getTime()) / 60_000))
        : durationValue instanceof ICAL.Duration
          ? Math.max(1, Math.round(durationValue.toSeconds() / 60))
          : start.time === undefined
            ? 1440
            : 60;
      let recurrence: Recurrence | undefined;
      const rule = component.getFirstPropertyValue("rrule");
      if (rule instanceof ICAL.Recur) {
        const frequency = rule.freq.toLowerCase() as Frequency;
        if ((FREQUENCIES as readonly string[]).includes(frequency)) {
          recurrence = {
            frequency,
            interval: rule.interval || 1,
            ...(rule.count ? { count: rule.count } : {}),
            ...(rule.until ? { until: icalTimeFields(rule.until).date } : {}),
          };
        } else {
          skipped.push(`${summary}: repeat rule ${rule.freq} kept as a single event`);
        }
      }
      const attendees: Person[] = component.getAllProperties("attendee").flatMap((property) => {
        const address = String(property.getFirstValue() ?? "").replace(/^mailto:/i, "").toLowerCase();
        if (!address.includes("@")) return [];
        const name = property.getParameter("cn");
        return [{ name: typeof name === "string" && name !== "" ? name : address, email: address }];
      });
      const reminders = component.getAllSubcomponents("valarm").flatMap((alarm) => {
        const trigger = alarm.getFirstPropertyValue("trigger");
        return trigger instanceof ICAL.Duration ? [Math.abs(Math.round(trigger.toSeconds() / 60))] : [];
      });
      const location = component.getFirstPropertyValue("location");
      const description = component.getFirstPropertyValue("description");
      const event: CalendarEvent = {
        id: collection.nextId("event"),
        title: summary,
        date: start.date,
        ...(start.time ? { time: start.time } : {}),
        durationMinutes,
        timeZone: start.timeZone,
        ...(typeof location === "string" && location !== "" ? { location } : {}),
        ...(typeof description === "string" && description !== "" ? { notes: description } : {}),
        attendees,
        reminders,
        ...(recurrence ? { recurrence } : {}),
        ...(typeof uid === "string" && uid !== "" ? { uid } : {}),
      };
      collection.put(event.id, event);
      if (event.uid) known.add(event.uid);
      imported.push(describeOccurrence(occurrenceAt(event, event.date), clock));
    }
    if (imported.length === 0 && alreadyThere === 0) {
      throw new ToolError("no_events", `"${file.path.relative}" holds no events that can be imported${skipped.length ? ` (${skipped.join("; ")})` : ""}.`);
    }
    return {
      path: file.path.relative,
      imported: imported.length,
      events: imported.slice(0, LIST_LIMIT),
      ...(alreadyThere ? { alreadyInCalendar: alreadyThere } : {}),
      ...(skipped.length ? { skipped } : {}),
    };
  },
});

function uidOf(event: CalendarEvent): string {
  return event.uid ?? `${event.id}@botpsy.local`;
}

function icalTime(date: string, time: string | undefined): ICAL.Time {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const [hour, minute] = (time ?? "00:00").split(":").map(Number) as [number, number];
  return ICAL.Time.fromData({ year, month, day, hour, minute, second: 0, isDate: time === undefined });
}

/** One VEVENT per event, times in the event's own zone (TZID), repeat rules as RRULE. */
export function eventsToIcs(list: CalendarEvent[], stamp: Date): string {
  const calendar = new ICAL.Component(["vcalendar", [], []]);
  calendar.addPropertyWithValue("prodid", "-//botpsy//calendar//EN");
  calendar.addPropertyWithValue("version", "2.0");
  for (const event of list) {
    const component = new ICAL.Component("vevent");
    component.addPropertyWithValue("uid", uidOf(event));
    component.addPropertyWithValue("dtstamp", ICAL.Time.fromJSDate(stamp, true));
    component.addPropertyWithValue("summary", event.title);
    const start = component.addPropertyWithValue("dtstart", icalTime(event.date, event.time));
    const occurrence = occurrenceAt(event, event.date);
    const endParts = zonedParts(occurrence.end, event.timeZone);
    const end = component.addPropertyWithValue("dtend", icalTime(formatDate(endParts), event.time === undefined ? undefined : formatTime(endParts)));
    if (event.time !== undefined) {
      start.setParameter("tzid", event.timeZone);
      end.setParameter("tzid", event.timeZone);
    }
    if (event.location) component.addPropertyWithValue("location", event.location);
    if (event.notes) component.addPropertyWithValue("description", event.notes);
    for (const person of event.attendees) {
      const attendee = component.addPropertyWithValue("attendee", `mailto:${person.email}`);
      attendee.setParameter("cn", person.name);
    }
    if (event.recurrence) {
      const data: Record<string, unknown> = { freq: event.recurrence.frequency.toUpperCase(), interval: event.recurrence.interval };
      if (event.recurrence.count) data.count = event.recurrence.count;
      if (event.recurrence.until) data.until = icalTime(event.recurrence.until, undefined);
      component.addPropertyWithValue("rrule", ICAL.Recur.fromData(data));
    }
    for (const minutes of event.reminders) {
      const alarm = new ICAL.Component("valarm");
      alarm.addPropertyWithValue("action", "DISPLAY");
      alarm.addPropertyWithValue("description", event.title);
      alarm.addPropertyWithValue("trigger", ICAL.Duration.fromSeconds(-minutes * 60));
      component.addSubcomponent(alarm);
    }
    calendar.addSubcomponent(component);
  }
  return calendar.toString() + "\r\n";
}

const exportIcs = defineTool({
  name: "export_ics",
  description: "Save calendar events to an .ics file in your files (all events, or those of some days).",
  input: z.object({
    path: z.string().min(1).describe('Where to save. Example: "exports/december.ics"'),
    from: z.string().optional().describe('First day. Example: "today". Leave out for every event.'),
    days: z.number().int().min(1).max(366).optional().describe("How many days from `from` (default 30)."),
    overwrite: z.boolean().optional().describe("Replace an existing file (default false)."),
  }),
  risk: "write",
  run: ({ path, from, days = 30, overwrite = false }, context) => {
    const clock = clockOf(context);
    const target = resolveSandboxPath(sandboxRoot(context.store), path);
    if (!target.relative.toLowerCase().endsWith(".ics")) throw new ToolError("invalid_path", `path="${path}" must end in .ics, such as "exports/calendar.ics".`);
    if (!overwrite && readExisting(target.absolute)) {
      throw new ToolError("file_exists", `"${target.relative}" already exists. Use overwrite=true to replace it, or another name.`);
    }
    let chosen = events(context.store).all();
    if (from !== undefined) {
      const first = parseWhen(from, clock, "from").date;
      const start = instantOf(first, "00:00", clock.timeZone);
      const end = instantOf(addDays(first, days), "00:00", clock.timeZone);
      chosen = chosen.filter((event) => occurrences(event, start, end).length > 0);
    }
    if (chosen.length === 0) throw new ToolError("no_events", "There are no events in that range to export. Widen the range or leave `from` out.");
    const text = eventsToIcs(chosen, clock.now);
    writeSandboxFile(context, target, Buffer.from(text, "utf8"));
    return { path: target.relative, exported: chosen.length, bytes: Buffer.byteLength(text) };
  },
});

function readExisting(absolute: string): boolean {
  try {
    return statSync(absolute).isFile();
  } catch {
    return false;
  }
}

/** Whether the persona's seeded week needs this weekday: days from `date` to the next `weekday` (0 = Sunday), 0 when it is today. */
function daysUntil(clock: Clock, weekday: number): number {
  return (weekday - zonedParts(clock.now, clock.timeZone).weekday + 7) % 7;
}

export const calendarApp: App = {
  name: CALENDAR_APP,
  group: "work",
  title: "Calendar",
  description: "Your calendar: events with times, places, attendees, reminders and repeats.",
  tools: [createEvent, listEvents, findEvents, updateEvent, deleteEvent, findFreeSlot, importIcs, exportIcs],
  seed(tx, environment) {
    const clock = { now: environment.now(), timeZone: environment.timeZone };
    const start = today(clock);
    const contact = (id: string): Person => {
      const found = PERSONA.contacts.find((candidate) => candidate.id === id)!;
      return { name: found.name, email: found.email };
    };
    const on = (weekday: number, weeksAhead = 0) => addDays(start, daysUntil(clock, weekday) + 7 * weeksAhead);
    const seeded: Omit<CalendarEvent, "id" | "timeZone">[] = [
      { title: "Team sync", date: on(1), time: "10:00", durationMinutes: 30, location: "Room Tejo", attendees: [contact("frank"), contact("priya"), contact("tom")], reminders: [10], recurrence: { frequency: "weekly", interval: 1 } },
      { title: "1:1 with Priya", date: on(4), time: "14:00", durationMinutes: 30, attendees: [contact("priya")], reminders: [10], recurrence: { frequency: "weekly", interval: 1 } },
      { title: "Call with Lena about the pilot", date: addDays(start, 1), time: "16:00", durationMinutes: 45, attendees: [contact("lena")], reminders: [15] },
      { title: "Lunch with Maria", date: addDays(start, 2), time: "12:30", durationMinutes: 75, location: "Time Out Market", attendees: [contact("maria")], reminders: [30] },
      { title: "Project Atlas review", date: addDays(start, 3), time: "11:00", durationMinutes: 60, location: "Video call", attendees: [contact("omar"), contact("frank")], reminders: [15], notes: "Bring the prototype demo." },
      { title: "Q4 report due", date: on(5), durationMinutes: 1440, attendees: [], reminders: [] },
      { title: "Yoga", date: on(6), time: "10:00", durationMinutes: 60, location: "Estrela Park", attendees: [], reminders: [30], recurrence: { frequency: "weekly", interval: 1 } },
      { title: "Dinner for Mom's birthday", date: addDays(start, 9), time: "20:00", durationMinutes: 150, location: "Casa do Alentejo", attendees: [contact("mom"), contact("ana")], reminders: [120] },
      { title: "Team offsite", date: addDays(start, 14), durationMinutes: 2880, location: "Sintra", attendees: [contact("frank"), contact("priya"), contact("tom"), contact("lena")], reminders: [] },
      { title: "Rent due", date: addMonths(start.slice(0, 8) + "01", 1) ?? start, durationMinutes: 1440, attendees: [], reminders: [], recurrence: { frequency: "monthly", interval: 1 } },
      { title: "Haircut", date: addDays(start, 20), time: "18:30", durationMinutes: 45, location: "Barbearia Oliveira", attendees: [], reminders: [60] },
      { title: "Flight to Berlin", date: addDays(start, 24), time: "07:40", durationMinutes: 215, location: "Lisbon Airport, T1", attendees: [], reminders: [180], notes: "TP 556, seat 14C" },
    ];
    const collection = events(tx);
    for (const event of seeded) {
      const id = collection.nextId("event");
      collection.put(id, { id, ...event, timeZone: environment.timeZone });
    }
  },
  due(tx, environment, from, to) {
    const found: AppNotification[] = [];
    for (const event of events(tx).all()) {
      if (event.reminders.length === 0) continue;
      const longest = Math.max(...event.reminders);
      // A reminder m minutes before a start falls in the window when the start is within m minutes after it.
      for (const occurrence of occurrences(event, from, new Date(to.getTime() + longest * 60_000))) {
        for (const minutes of event.reminders) {
          const at = occurrence.start.getTime() - minutes * 60_000;
          if (at <= from.getTime() || at > to.getTime()) continue;
          const start = event.time === undefined ? "all day" : `at ${formatTime(zonedParts(occurrence.start, environment.timeZone))}`;
          found.push({
            app: CALENDAR_APP,
            kind: "reminder",
            at: new Date(at).toISOString(),
            message: `Reminder: ${event.title} ${start}${minutes === 0 ? " (now)" : ` (in ${describeMinutes(minutes)})`}${event.location ? `, ${event.location}` : ""}`,
          });
        }
      }
    }
    return found;
  },
  view(tx, environment) {
    const clock = { now: environment.now(), timeZone: environment.timeZone };
    const first = today(clock);
    const found = allOccurrences(tx, instantOf(first, "00:00", clock.timeZone), instantOf(addDays(first, 7), "00:00", clock.timeZone));
    const described = found.map((occurrence) => describeOccurrence(occurrence, clock));
    const lines = [`This week (${first} to ${addDays(first, 6)}):`];
    let lastDate = "";
    for (const event of described) {
      if (event.date !== lastDate) {
        lastDate = String(event.date);
        lines.push(`\n${lastDate}`);
      }
      lines.push(`  ${event.allDay ? "all day    " : `${String(event.time)}-${String(event.end)}`}  ${String(event.title)}${event.location ? ` @ ${String(event.location)}` : ""}`);
    }
    if (described.length === 0) lines.push("  nothing planned");
    return { text: lines.join("\n"), data: { week: described, events: events(tx).all() } };
  },
};
