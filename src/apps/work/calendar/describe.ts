import { formatDate, formatTime, zonedParts, type Clock } from "../../time.js";
import { formatPerson } from "../people.js";
import type { CalendarEvent, Occurrence } from "./model.js";
import { describeRecurrence, occurrenceAt } from "./recurrence.js";

export function describeMinutes(minutes: number): string {
  if (minutes % 1440 === 0) return `${minutes / 1440} day${minutes === 1440 ? "" : "s"}`;
  if (minutes % 60 === 0) return `${minutes / 60} h`;
  return `${minutes} min`;
}

export function describeOccurrence(occurrence: Occurrence, clock: Clock): Record<string, unknown> {
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

export function describeEvent(event: CalendarEvent, clock: Clock): Record<string, unknown> {
  return {
    ...describeOccurrence(occurrenceAt(event, event.date), clock),
    durationMinutes: event.durationMinutes,
    timeZone: event.timeZone,
    ...(event.notes ? { notes: event.notes } : {}),
    ...(event.reminders.length > 0 ? { remindersMinutesBefore: event.reminders } : {}),
    ...(event.attendees.length > 0 ? { attendees: event.attendees.map(formatPerson) } : {}),
  };
}
