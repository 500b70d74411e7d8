import type { StoreTransaction } from "../../../store/store.js";
import { ToolError } from "../../../tools/tool.js";
import { addDays, formatDate, instantOf } from "../../time.js";
import { events, type CalendarEvent, type Frequency, type Occurrence, type Recurrence } from "./model.js";

export function addMonths(date: string, months: number): string | undefined {
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

export function occurrenceAt(event: CalendarEvent, date: string): Occurrence {
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

/** The occurrences of every event (but `skipId`) that overlap [from, to), earliest first. */
export function allOccurrences(tx: StoreTransaction, from: Date, to: Date, skipId?: string): Occurrence[] {
  return events(tx)
    .all()
    .filter((event) => event.id !== skipId)
    .flatMap((event) => occurrences(event, from, to))
    .sort((a, b) => a.start.getTime() - b.start.getTime());
}

export function describeRecurrence(recurrence: Recurrence): string {
  const unit = { daily: "day", weekly: "week", monthly: "month" }[recurrence.frequency];
  const every = recurrence.interval === 1 ? recurrence.frequency : `every ${recurrence.interval} ${unit}s`;
  return `${every}${recurrence.count ? `, ${recurrence.count} times` : ""}${recurrence.until ? `, until ${recurrence.until}` : ""}`;
}

export function parseFrequency(text: string): Frequency | undefined {
  const cleaned = text.trim().toLowerCase().replace(/^every\s+/, "");
  if (["", "none", "never", "once", "no"].includes(cleaned)) return undefined;
  if (["daily", "day", "every day", "days"].includes(cleaned)) return "daily";
  if (["weekly", "week", "weeks"].includes(cleaned)) return "weekly";
  if (["monthly", "month", "months"].includes(cleaned)) return "monthly";
  throw new ToolError("invalid_repeat", `repeat="${text}" is not understood. Use "daily", "weekly", "monthly" or "none".`);
}
