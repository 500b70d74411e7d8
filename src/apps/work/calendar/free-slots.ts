import type { StoreTransaction } from "../../../store/store.js";
import { addDays, formatTime, instantOf, zonedParts, type Clock } from "../../time.js";
import { allOccurrences } from "./recurrence.js";

export interface FreeSlotSearch {
  /** First day looked at (YYYY-MM-DD). */
  first: string;
  days: number;
  /** Working hours, HH:MM. */
  dayStart: string;
  dayEnd: string;
  durationMinutes: number;
}

/**
 * The first free slot of each day, at most three in all, between timed events
 * within working hours; never before now, rounded up to the quarter hour.
 */
export function firstFreeSlots(tx: StoreTransaction, clock: Clock, search: FreeSlotSearch): Record<string, string>[] {
  const { first, days, dayStart, dayEnd, durationMinutes } = search;
  const slots: Record<string, string>[] = [];
  for (let offset = 0; offset < days && slots.length < 3; offset++) {
    const day = addDays(first, offset);
    let cursor = Math.max(instantOf(day, dayStart, clock.timeZone).getTime(), Math.ceil(clock.now.getTime() / 900_000) * 900_000);
    const close = instantOf(day, dayEnd, clock.timeZone).getTime();
    const busy = allOccurrences(tx, new Date(cursor), new Date(close)).filter((occurrence) => occurrence.event.time !== undefined);
    for (const occurrence of [...busy, undefined]) {
      const blockStart = occurrence ? occurrence.start.getTime() : close;
      if (blockStart - cursor >= durationMinutes * 60_000) {
        const start = new Date(cursor);
        const end = new Date(cursor + durationMinutes * 60_000);
        slots.push({ date: day, start: formatTime(zonedParts(start, clock.timeZone)), end: formatTime(zonedParts(end, clock.timeZone)) });
        if (slots.length >= 3) break;
      }
      if (occurrence) cursor = Math.max(cursor, occurrence.end.getTime());
      if (slots.length > 0 && slots.at(-1)?.date === day) break;
    }
  }
  return slots;
}
