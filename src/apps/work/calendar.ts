// The calendar app, split by job under calendar/: the event model, the
// recurrence engine, free slots and conflicts, iCalendar import and export,
// the tools, and the app (seed, reminders, view). Importers use this module.
export { calendarApp } from "./calendar/app.js";
export { eventsToIcs } from "./calendar/ics.js";
export { CALENDAR_APP, type CalendarEvent, type Occurrence, type Recurrence } from "./calendar/model.js";
export { occurrences } from "./calendar/recurrence.js";
