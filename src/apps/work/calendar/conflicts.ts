import type { StoreTransaction } from "../../../store/store.js";
import { addDays, type Clock } from "../../time.js";
import { describeOccurrence } from "./describe.js";
import type { CalendarEvent } from "./model.js";
import { allOccurrences, occurrences } from "./recurrence.js";

/** Up to five other timed events that overlap the first 50 occurrences of `event` (within 180 days). */
export function conflictsOf(tx: StoreTransaction, event: CalendarEvent, clock: Clock): Record<string, unknown>[] {
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

export function withConflicts(result: Record<string, unknown>, conflicts: Record<string, unknown>[]): Record<string, unknown> {
  if (conflicts.length === 0) return result;
  return {
    ...result,
    conflicts,
    warning: `This overlaps ${conflicts.length} other event(s): ${conflicts.map((conflict) => `${String(conflict.title)} at ${String(conflict.date)} ${String(conflict.time)}`).join("; ")}. Move it with update_event if that is not intended.`,
  };
}
