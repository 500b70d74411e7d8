import { statSync } from "node:fs";
import { z } from "zod";
import { defineTool, ToolError, type Tool } from "../../../tools/tool.js";
import { readSandboxFile, resolveSandboxPath, sandboxRoot, writeSandboxFile } from "../../device/sandbox.js";
import { addDays, clockOf, instantOf, parseTimeOfDay, parseWhen, today, type Clock } from "../../time.js";
import { resolvePeople } from "../people.js";
import { conflictsOf, withConflicts } from "./conflicts.js";
import { describeEvent, describeOccurrence } from "./describe.js";
import { firstFreeSlots } from "./free-slots.js";
import { eventFromVevent, eventsToIcs, readVevents, uidOf } from "./ics.js";
import { events, FIND_LIMIT, findEvent, LIST_LIMIT, MAX_EVENTS, type CalendarEvent } from "./model.js";
import { allOccurrences, describeRecurrence, occurrenceAt, occurrences, parseFrequency } from "./recurrence.js";

function checkTimeZone(zone: string): string {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone.trim() }).resolvedOptions().timeZone;
  } catch {
    throw new ToolError("invalid_time_zone", `time_zone="${zone}" is not a time zone. Use an IANA name such as "Europe/Lisbon" or "America/New_York".`);
  }
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
    const slots = firstFreeSlots(context.store, clock, { first, days, dayStart, dayEnd, durationMinutes: duration_minutes });
    if (slots.length === 0) {
      throw new ToolError(
        "no_free_slot",
        `No free ${duration_minutes}-minute slot between ${dayStart} and ${dayEnd} in ${days} day(s) from ${first}. Try more days, a shorter meeting or wider hours.`,
      );
    }
    return { durationMinutes: duration_minutes, slots };
  },
});

const importIcs = defineTool({
  name: "import_ics",
  description: "Import the events of an .ics calendar file from your files into your calendar.",
  input: z.object({ path: z.string().min(1).describe('The .ics file. Example: "invites/offsite.ics"') }),
  risk: "write",
  run: ({ path }, context) => {
    const clock = clockOf(context);
    const file = readSandboxFile(context.store, path);
    const vevents = readVevents(file.content, file.path.relative);
    const collection = events(context.store);
    const known = new Set(collection.all().map(uidOf));
    const imported: Record<string, unknown>[] = [];
    const skipped: string[] = [];
    let alreadyThere = 0;
    for (const component of vevents) {
      const uid = component.getFirstPropertyValue("uid");
      if (typeof uid === "string" && known.has(uid)) {
        alreadyThere++;
        continue;
      }
      const draft = eventFromVevent(component, context.timeZone, skipped);
      if (!draft) continue;
      const event: CalendarEvent = { id: collection.nextId("event"), ...draft };
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

export const calendarTools: Tool[] = [createEvent, listEvents, findEvents, updateEvent, deleteEvent, findFreeSlot, importIcs, exportIcs];
