import type { StoreTransaction } from "../../../store/store.js";
import { ToolError } from "../../../tools/tool.js";
import type { Person } from "../people.js";

export const CALENDAR_APP = "calendar";
export const LIST_LIMIT = 30;
export const FIND_LIMIT = 20;
export const MAX_EVENTS = 2000;
export const FREQUENCIES = ["daily", "weekly", "monthly"] as const;
export type Frequency = (typeof FREQUENCIES)[number];

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

export function events(tx: StoreTransaction) {
  return tx.collection<CalendarEvent>(CALENDAR_APP, "events");
}

/** Find an event by id ("event-3") or title ("Team sync"), refusing to guess between several. */
export function findEvent(tx: StoreTransaction, text: string): CalendarEvent {
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
