import { z } from "zod";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { StoreTransaction } from "../../store/store.js";
import type { App, AppNotification } from "../app.js";
import { formatDate, formatTime, instantOf, parseTimeOfDay, zonedParts, type Clock } from "../time.js";
import { addDays, clockOf } from "../time.js";

export const ALARMS_APP = "alarms";
/** Phones cap their alarm list; so do we, with an error that says what to do. */
export const MAX_ALARMS = 30;
const DEFAULT_SNOOZE_MINUTES = 9;

export const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
export type Weekday = (typeof WEEKDAYS)[number];
const WEEKDAY_NAMES: Record<Weekday, string> = {
  sun: "Sunday",
  mon: "Monday",
  tue: "Tuesday",
  wed: "Wednesday",
  thu: "Thursday",
  fri: "Friday",
  sat: "Saturday",
};

export interface Alarm {
  id: string;
  /** HH:MM, local to the profile's zone. */
  time: string;
  label: string;
  /** Days it repeats on; empty for a one-off alarm. */
  repeat: Weekday[];
  enabled: boolean;
  /** ISO instant of a snoozed ring, when snoozed. */
  snoozedUntil?: string;
}

function alarms(tx: StoreTransaction) {
  return tx.collection<Alarm>(ALARMS_APP, "alarms");
}

/** Read repeat days as a model writes them: "weekdays", "daily", "mon, wed", "Monday and Friday", "never". */
export function parseRepeat(text: string): Weekday[] {
  const cleaned = text.trim().toLowerCase();
  if (["", "never", "none", "once", "no", "one time", "no repeat"].includes(cleaned)) return [];
  if (["daily", "every day", "everyday", "all days", "each day"].includes(cleaned)) return [...WEEKDAYS];
  if (["weekdays", "every weekday", "workdays", "mon-fri", "monday to friday"].includes(cleaned)) return ["mon", "tue", "wed", "thu", "fri"];
  if (["weekends", "weekend", "every weekend", "sat-sun"].includes(cleaned)) return ["sun", "sat"];
  const words = cleaned.split(/[\s,;/&+]+|\band\b/).filter((word) => word !== "" && word !== "every" && word !== "on");
  const days = new Set<Weekday>();
  for (const word of words) {
    const day = WEEKDAYS.find((candidate) => word.startsWith(candidate) || WEEKDAY_NAMES[candidate].toLowerCase().startsWith(word.replace(/s$/, "")));
    if (!day || word.length < 2) {
      throw new ToolError(
        "invalid_repeat",
        `repeat="${text}" is not a set of days. Use "daily", "weekdays", "weekends", "never" or days such as "mon, wed, fri".`,
      );
    }
    days.add(day);
  }
  return WEEKDAYS.filter((day) => days.has(day));
}

export function describeRepeat(days: readonly Weekday[]): string {
  if (days.length === 0) return "once";
  if (days.length === 7) return "daily";
  if (days.join() === "mon,tue,wed,thu,fri") return "weekdays";
  if (days.join() === "sun,sat") return "weekends";
  return days.map((day) => WEEKDAY_NAMES[day]).join(", ");
}

/** The next instant the alarm rings after `clock.now`, or undefined when it is off. */
export function nextRing(alarm: Alarm, clock: Clock): Date | undefined {
  if (!alarm.enabled) return undefined;
  if (alarm.snoozedUntil && Date.parse(alarm.snoozedUntil) > clock.now.getTime()) return new Date(alarm.snoozedUntil);
  const today = formatDate(zonedParts(clock.now, clock.timeZone));
  for (let offset = 0; offset <= 7; offset++) {
    const date = addDays(today, offset);
    const instant = instantOf(date, alarm.time, clock.timeZone);
    const weekday = WEEKDAYS[zonedParts(instant, clock.timeZone).weekday] ?? "sun";
    if (instant.getTime() > clock.now.getTime() && (alarm.repeat.length === 0 || alarm.repeat.includes(weekday))) return instant;
  }
  return undefined;
}

function describeInstant(instant: Date | undefined, clock: Clock): string | null {
  if (!instant) return null;
  const parts = zonedParts(instant, clock.timeZone);
  return `${WEEKDAY_NAMES[WEEKDAYS[parts.weekday] ?? "sun"]} ${formatDate(parts)} ${formatTime(parts)}`;
}

function summary(alarm: Alarm, clock: Clock): Record<string, unknown> {
  return {
    id: alarm.id,
    time: alarm.time,
    label: alarm.label,
    repeat: describeRepeat(alarm.repeat),
    enabled: alarm.enabled,
    nextRing: describeInstant(nextRing(alarm, clock), clock),
    ...(alarm.snoozedUntil && Date.parse(alarm.snoozedUntil) > clock.now.getTime() ? { snoozed: true } : {}),
  };
}

/** Find an alarm by id ("alarm-2"), label ("gym") or time ("7 am"). */
function findAlarm(tx: StoreTransaction, text: string, clock: Clock): Alarm {
  const all = alarms(tx).all();
  const wanted = text.trim().toLowerCase();
  const byId = all.find((alarm) => alarm.id === wanted);
  if (byId) return byId;
  let matches = all.filter((alarm) => alarm.label.toLowerCase() === wanted);
  if (matches.length === 0) {
    let time: string | undefined;
    try {
      time = parseTimeOfDay(text, clock, "alarm");
    } catch {
      time = undefined;
    }
    matches = time === undefined ? [] : all.filter((alarm) => alarm.time === time);
  }
  if (matches.length === 1) return matches[0]!;
  const known = all.map((alarm) => `${alarm.id} (${alarm.time}${alarm.label ? ` ${alarm.label}` : ""})`).join(", ") || "none";
  if (matches.length === 0) {
    throw new ToolError("alarm_not_found", `No alarm matches "${text}". Alarms: ${known}. Use an id from list_alarms.`);
  }
  throw new ToolError("alarm_ambiguous", `Several alarms match "${text}": ${matches.map((alarm) => alarm.id).join(", ")}. Use the id.`);
}

const alarmField = z.string().min(1).describe('The alarm: its id, label or time. Example: "alarm-1" or "7 am"');
const repeatField = z.string().describe('Days to repeat: "daily", "weekdays", "weekends", "never" or "mon, wed". Example: "weekdays"');

const setAlarm = defineTool({
  name: "set_alarm",
  description: "Set an alarm for a time of day, once or repeating on some days.",
  input: z.object({
    time: z.string().min(1).describe('Time of day. Example: "7 am" or "06:30"'),
    label: z.string().optional().describe('A name for the alarm. Example: "Gym"'),
    repeat: repeatField.optional(),
  }),
  risk: "write",
  run: ({ time, label, repeat }, context) => {
    const clock = clockOf(context);
    const normalised = parseTimeOfDay(time, clock, "time");
    const days = repeat === undefined ? [] : parseRepeat(repeat);
    const collection = alarms(context.store);
    const existing = collection.all();
    const duplicate = existing.find((alarm) => alarm.time === normalised && alarm.repeat.join() === days.join());
    if (duplicate) {
      throw new ToolError(
        "alarm_exists",
        `An alarm for ${normalised} (${describeRepeat(days)}) already exists: ${duplicate.id}. Change it with change_alarm instead.`,
      );
    }
    if (existing.length >= MAX_ALARMS) {
      throw new ToolError("too_many_alarms", `You have ${existing.length} alarms, the most allowed. Delete one with delete_alarm, then retry.`);
    }
    const alarm: Alarm = { id: collection.nextId("alarm"), time: normalised, label: label?.trim() ?? "", repeat: days, enabled: true };
    collection.put(alarm.id, alarm);
    return summary(alarm, clock);
  },
});

const listAlarms = defineTool({
  name: "list_alarms",
  description: "List your alarms with when each rings next.",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => {
    const clock = clockOf(context);
    const all = alarms(context.store).all().sort((a, b) => a.time.localeCompare(b.time));
    return { alarms: all.map((alarm) => summary(alarm, clock)), count: all.length };
  },
});

const changeAlarm = defineTool({
  name: "change_alarm",
  description: "Change an alarm: its time, label, repeat days, or turn it on or off.",
  input: z.object({
    alarm: alarmField,
    time: z.string().optional().describe('New time. Example: "7:30 am"'),
    label: z.string().optional().describe('New label. Example: "Work"'),
    repeat: repeatField.optional(),
    enabled: z.boolean().optional().describe("true to turn it on, false to turn it off"),
  }),
  risk: "write",
  run: ({ alarm, time, label, repeat, enabled }, context) => {
    const clock = clockOf(context);
    if (time === undefined && label === undefined && repeat === undefined && enabled === undefined) {
      throw new ToolError("nothing_to_change", "Say what to change: time, label, repeat or enabled.");
    }
    const found = findAlarm(context.store, alarm, clock);
    const updated = alarms(context.store).update(found.id, (current) => {
      if (time !== undefined) current.time = parseTimeOfDay(time, clock, "time");
      if (label !== undefined) current.label = label.trim();
      if (repeat !== undefined) current.repeat = parseRepeat(repeat);
      if (enabled !== undefined) current.enabled = enabled;
      delete current.snoozedUntil;
      return current;
    });
    return summary(updated, clock);
  },
});

const deleteAlarm = defineTool({
  name: "delete_alarm",
  description: "Delete an alarm.",
  input: z.object({ alarm: alarmField }),
  risk: "destructive",
  run: ({ alarm }, context) => {
    const clock = clockOf(context);
    const found = findAlarm(context.store, alarm, clock);
    alarms(context.store).delete(found.id);
    return { deleted: found.id, time: found.time, label: found.label };
  },
});

const snoozeAlarm = defineTool({
  name: "snooze_alarm",
  description: "Snooze an alarm: it rings again after some minutes (9 by default).",
  input: z.object({
    alarm: alarmField,
    minutes: z.number().int().min(1).max(60).optional().describe("Minutes to snooze, 1..60. Example: 10"),
  }),
  risk: "write",
  run: ({ alarm, minutes = DEFAULT_SNOOZE_MINUTES }, context) => {
    const clock = clockOf(context);
    const found = findAlarm(context.store, alarm, clock);
    if (!found.enabled) {
      throw new ToolError("alarm_off", `Alarm ${found.id} is off, so it cannot be snoozed. Turn it on with change_alarm(alarm="${found.id}", enabled=true).`);
    }
    const until = new Date(clock.now.getTime() + minutes * 60_000);
    const updated = alarms(context.store).update(found.id, (current) => ({ ...current, snoozedUntil: until.toISOString() }));
    return { ...summary(updated, clock), snoozedMinutes: minutes };
  },
});

export const alarmsApp: App = {
  name: ALARMS_APP,
  group: "device",
  title: "Alarms",
  description: "Alarms that ring at a time of day, once or on repeat days.",
  tools: [setAlarm, listAlarms, changeAlarm, deleteAlarm, snoozeAlarm],
  seed(tx) {
    const collection = alarms(tx);
    const seeded: Omit<Alarm, "id">[] = [
      { time: "06:45", label: "Wake up", repeat: ["mon", "tue", "wed", "thu", "fri"], enabled: true },
      { time: "09:30", label: "Weekend", repeat: ["sun", "sat"], enabled: false },
      { time: "18:00", label: "Gym", repeat: ["tue", "thu"], enabled: true },
    ];
    for (const alarm of seeded) {
      const id = collection.nextId("alarm");
      collection.put(id, { id, ...alarm });
    }
  },
  due(tx, environment, from, to) {
    const found: AppNotification[] = [];
    for (const alarm of alarms(tx).all()) {
      const instant = nextRing(alarm, { now: from, timeZone: environment.timeZone });
      if (instant === undefined || instant.getTime() > to.getTime()) continue;
      found.push({ app: ALARMS_APP, kind: "alarm", at: instant.toISOString(), message: `Alarm ${alarm.time}${alarm.label ? `: ${alarm.label}` : ""}` });
    }
    return found;
  },
  view(tx, environment) {
    const clock = clockOf(environment);
    const all = alarms(tx).all().sort((a, b) => a.time.localeCompare(b.time));
    const data = all.map((alarm) => summary(alarm, clock));
    const text =
      all.length === 0
        ? "No alarms."
        : all
            .map((alarm) => `${alarm.enabled ? "[on] " : "[off]"} ${alarm.time}  ${describeRepeat(alarm.repeat).padEnd(10)} ${alarm.label}  (${alarm.id})`)
            .join("\n");
    return { text, data };
  },
};
