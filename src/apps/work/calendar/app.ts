import type { App, AppNotification } from "../../app.js";
import { PERSONA } from "../../persona.js";
import { addDays, clockOf, formatTime, instantOf, today, zonedParts, type Clock } from "../../time.js";
import type { Person } from "../people.js";
import { describeMinutes, describeOccurrence } from "./describe.js";
import { CALENDAR_APP, events, type CalendarEvent } from "./model.js";
import { addMonths, allOccurrences, occurrences } from "./recurrence.js";
import { calendarTools } from "./tools.js";

/** Whether the persona's seeded week needs this weekday: days from `date` to the next `weekday` (0 = Sunday), 0 when it is today. */
function daysUntil(clock: Clock, weekday: number): number {
  return (weekday - zonedParts(clock.now, clock.timeZone).weekday + 7) % 7;
}

export const calendarApp: App = {
  name: CALENDAR_APP,
  group: "work",
  title: "Calendar",
  description: "Your calendar: events with times, places, attendees, reminders and repeats.",
  tools: calendarTools,
  seed(tx, environment) {
    const clock = clockOf(environment);
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
    const clock = clockOf(environment);
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
