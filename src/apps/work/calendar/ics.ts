import ICAL from "ical.js";
import { ToolError } from "../../../tools/tool.js";
import { formatDate, formatTime, instantOf, zonedParts } from "../../time.js";
import type { Person } from "../people.js";
import { FREQUENCIES, type CalendarEvent, type Frequency, type Recurrence } from "./model.js";
import { occurrenceAt } from "./recurrence.js";

export function icalTimeFields(time: ICAL.Time): { date: string; time: string | undefined } {
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
export function readIcalTime(property: ICAL.Property | null, fallbackZone: string): { date: string; time: string | undefined; timeZone: string; instant: Date } | undefined {
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

/** The VEVENTs of an iCalendar file; `name` says which file in the error when it does not parse. */
export function readVevents(content: Buffer, name: string): ICAL.Component[] {
  let calendar: ICAL.Component;
  try {
    calendar = new ICAL.Component(ICAL.parse(content.toString("utf8")) as unknown[]);
  } catch (error) {
    throw new ToolError("invalid_ics", `"${name}" is not a valid iCalendar file (${String(error)}). Check the file with read_file.`);
  }
  return calendar.getAllSubcomponents("vevent");
}

/** The title of a VEVENT, "(untitled)" when it has none. */
export function veventSummary(component: ICAL.Component): string {
  return String(component.getFirstPropertyValue("summary") ?? "").trim() || "(untitled)";
}

/**
 * The event a VEVENT describes, without an id, times read in `fallbackZone`
 * when it names no zone. What cannot be kept is said in `skipped`: a VEVENT
 * with no start gives undefined; a repeat rule other than daily, weekly or
 * monthly leaves a single event.
 */
export function eventFromVevent(component: ICAL.Component, fallbackZone: string, skipped: string[]): Omit<CalendarEvent, "id"> | undefined {
  const summary = veventSummary(component);
  const uid = component.getFirstPropertyValue("uid");
  const start = readIcalTime(component.getFirstProperty("dtstart"), fallbackZone);
  if (!start) {
    skipped.push(`${summary}: no start`);
    return undefined;
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
  return {
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
}

export function uidOf(event: CalendarEvent): string {
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
