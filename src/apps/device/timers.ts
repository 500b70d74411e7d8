import { EventEmitter } from "node:events";
import { z } from "zod";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { DatabaseHandle, StoreTransaction } from "../../store/store.js";
import type { App } from "../app.js";

export const TIMERS_APP = "timers";
const TIMERS_COLLECTION = "timers";
export const MAX_TIMER_SECONDS = 24 * 60 * 60;
const MAX_ACTIVE_TIMERS = 20;

export interface Timer {
  id: string;
  label: string;
  durationSeconds: number;
  state: "running" | "paused" | "cancelled";
  /** ISO instant it rings, on the profile clock, while running. */
  endsAt?: string;
  /** Seconds left, while paused. */
  remainingSeconds?: number;
  startedAt: string;
}

export interface TimerFiredEvent {
  /** The database of the profile whose timer rang (a process may hold several profiles). */
  db: DatabaseHandle;
  timerId: string;
  label: string;
  durationSeconds: number;
  endsAt: string;
}

/**
 * Rings timers while the process runs. A timer is armed only once the call
 * that started (or resumed) it committed, and checked against the store when
 * it rings, so a call rolled back, undone or cancelled since rings nothing.
 */
export class TimerScheduler extends EventEmitter<{ "timer-fired": [TimerFiredEvent] }> {
  private readonly armed = new WeakMap<DatabaseHandle, Map<string, NodeJS.Timeout>>();
  private readonly fired = new WeakMap<DatabaseHandle, Set<string>>();

  arm(db: DatabaseHandle, timer: Timer, delayMilliseconds: number): void {
    this.disarm(db, timer.id);
    let timers = this.armed.get(db);
    if (!timers) {
      timers = new Map();
      this.armed.set(db, timers);
    }
    const handle = setTimeout(() => this.ring(db, timer), Math.max(0, delayMilliseconds));
    // A pending timer must not keep a finished command alive.
    handle.unref();
    timers.set(timer.id, handle);
  }

  disarm(db: DatabaseHandle, timerId: string): void {
    const timers = this.armed.get(db);
    const handle = timers?.get(timerId);
    if (handle) clearTimeout(handle);
    timers?.delete(timerId);
  }

  isArmed(db: DatabaseHandle, timerId: string): boolean {
    return this.armed.get(db)?.has(timerId) ?? false;
  }

  hasFired(db: DatabaseHandle, timerId: string): boolean {
    return this.fired.get(db)?.has(timerId) ?? false;
  }

  private ring(db: DatabaseHandle, armedTimer: Timer): void {
    this.armed.get(db)?.delete(armedTimer.id);
    if (!db.open) return;
    const row = db
      .prepare("SELECT data FROM records WHERE app = ? AND collection = ? AND id = ?")
      .get(TIMERS_APP, TIMERS_COLLECTION, armedTimer.id) as { data: string } | undefined;
    if (!row) return;
    const timer = JSON.parse(row.data) as Timer;
    if (timer.state !== "running" || timer.endsAt === undefined || timer.endsAt !== armedTimer.endsAt) return;
    let fired = this.fired.get(db);
    if (!fired) {
      fired = new Set();
      this.fired.set(db, fired);
    }
    fired.add(timer.id);
    this.emit("timer-fired", { db, timerId: timer.id, label: timer.label, durationSeconds: timer.durationSeconds, endsAt: timer.endsAt });
  }
}

/** The process's timer scheduler: listen to "timer-fired" to hear timers ring. */
export const timerEvents = new TimerScheduler();

const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1 };

/** Read a duration as a model writes it: "5 minutes", "1h30m", "90 seconds", "00:05:00", "half an hour", "10" (minutes). */
export function parseDuration(text: string, field = "duration"): number {
  const cleaned = text.trim().toLowerCase().replace(/\ban?\b/g, "1");
  const fail = (): never => {
    throw new ToolError("invalid_duration", `${field}="${text}" is not a duration. Use a form such as "5 minutes", "1 hour 30 minutes" or "00:10:00".`);
  };
  let seconds: number;
  const clock = /^(\d+):([0-5]\d)(?::([0-5]\d))?$/.exec(cleaned);
  if (clock) {
    seconds = clock[3] === undefined ? Number(clock[1]) * 60 + Number(clock[2]) : Number(clock[1]) * 3600 + Number(clock[2]) * 60 + Number(clock[3]);
  } else if (/^\d+(\.\d+)?$/.test(cleaned)) {
    seconds = Number(cleaned) * 60;
  } else if (/^(1\s+)?half\s+(1\s+)?hour$/.test(cleaned) || cleaned === "half hour") {
    seconds = 1800;
  } else {
    const pattern = /(\d+(?:\.\d+)?)\s*(hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)(?![a-z])/g;
    seconds = 0;
    let consumed = cleaned;
    for (const match of cleaned.matchAll(pattern)) {
      seconds += Number(match[1]) * (UNIT_SECONDS[match[2]![0]!] ?? 0);
      consumed = consumed.replace(match[0], "");
    }
    if (consumed.replace(/\band\b|[\s,]/g, "") !== "" || seconds === 0) fail();
  }
  seconds = Math.round(seconds);
  if (seconds < 1 || seconds > MAX_TIMER_SECONDS) {
    throw new ToolError("invalid_duration", `${field}="${text}" must be between 1 second and 24 hours.`);
  }
  return seconds;
}

export function formatDuration(totalSeconds: number): string {
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const parts = [hours ? `${hours} h` : "", minutes ? `${minutes} min` : "", seconds ? `${seconds} s` : ""].filter(Boolean);
  return parts.join(" ") || "0 s";
}

function timers(tx: StoreTransaction) {
  return tx.collection<Timer>(TIMERS_APP, TIMERS_COLLECTION);
}

function remaining(timer: Timer, now: Date): number {
  if (timer.state === "paused") return timer.remainingSeconds ?? 0;
  if (timer.state === "running" && timer.endsAt) return Math.max(0, Math.ceil((Date.parse(timer.endsAt) - now.getTime()) / 1000));
  return 0;
}

function summary(timer: Timer, now: Date, db: DatabaseHandle): Record<string, unknown> {
  const left = remaining(timer, now);
  const rang = timer.state === "running" && (left === 0 || timerEvents.hasFired(db, timer.id));
  return {
    id: timer.id,
    label: timer.label,
    duration: formatDuration(timer.durationSeconds),
    state: rang ? "done" : timer.state,
    remaining: formatDuration(rang ? 0 : left),
    remainingSeconds: rang ? 0 : left,
    ...(timer.state === "running" && timer.endsAt ? { endsAt: timer.endsAt } : {}),
  };
}

function active(tx: StoreTransaction): Timer[] {
  return timers(tx).find((timer) => timer.state !== "cancelled");
}

/** The timer a call means: by id or label, or the only one that fits when none is named. */
function findTimer(tx: StoreTransaction, text: string | undefined, fits: (timer: Timer) => boolean, what: string): Timer {
  const candidates = active(tx);
  if (text === undefined || text.trim() === "") {
    const fitting = candidates.filter(fits);
    if (fitting.length === 1) return fitting[0]!;
    if (fitting.length === 0) throw new ToolError("timer_not_found", `There is no ${what} timer. See your timers with list_timers.`);
    throw new ToolError("timer_ambiguous", `There are ${fitting.length} ${what} timers: ${fitting.map((timer) => timer.id).join(", ")}. Name one with timer="…".`);
  }
  const wanted = text.trim().toLowerCase();
  const found = candidates.find((timer) => timer.id === wanted) ?? candidates.find((timer) => timer.label.toLowerCase() === wanted);
  if (!found) {
    throw new ToolError(
      "timer_not_found",
      `No timer matches "${text}". Timers: ${candidates.map((timer) => `${timer.id}${timer.label ? ` (${timer.label})` : ""}`).join(", ") || "none"}.`,
    );
  }
  return found;
}

const timerField = z.string().optional().describe('The timer: its id or label. Example: "timer-1" or "pasta". Leave out when there is only one.');

const startTimer = defineTool({
  name: "start_timer",
  description: "Start a countdown timer.",
  input: z.object({
    duration: z.string().min(1).describe('How long. Example: "10 minutes" or "1h30m"'),
    label: z.string().optional().describe('A name. Example: "Pasta"'),
  }),
  risk: "write",
  run: ({ duration, label }, context) => {
    const seconds = parseDuration(duration);
    if (active(context.store).length >= MAX_ACTIVE_TIMERS) {
      throw new ToolError("too_many_timers", `${MAX_ACTIVE_TIMERS} timers are already set. Cancel one with cancel_timer, then retry.`);
    }
    const now = context.now();
    const collection = timers(context.store);
    const timer: Timer = {
      id: collection.nextId("timer"),
      label: label?.trim() ?? "",
      durationSeconds: seconds,
      state: "running",
      endsAt: new Date(now.getTime() + seconds * 1000).toISOString(),
      startedAt: now.toISOString(),
    };
    collection.put(timer.id, timer);
    const db = context.store.db;
    context.store.onCommit(() => timerEvents.arm(db, timer, seconds * 1000));
    return summary(timer, now, db);
  },
});

const pauseTimer = defineTool({
  name: "pause_timer",
  description: "Pause a running timer.",
  input: z.object({ timer: timerField }),
  risk: "write",
  run: ({ timer }, context) => {
    const now = context.now();
    const db = context.store.db;
    const found = findTimer(context.store, timer, (candidate) => candidate.state === "running", "running");
    if (found.state !== "running") throw new ToolError("timer_not_running", `Timer ${found.id} is ${found.state}. Resume it with resume_timer.`);
    const left = remaining(found, now);
    if (left === 0 || timerEvents.hasFired(db, found.id)) throw new ToolError("timer_finished", `Timer ${found.id} has already rung. Start a new one with start_timer.`);
    const updated = timers(context.store).update(found.id, (current) => {
      const next: Timer = { ...current, state: "paused", remainingSeconds: left };
      delete next.endsAt;
      return next;
    });
    context.store.onCommit(() => timerEvents.disarm(db, found.id));
    return summary(updated, now, db);
  },
});

const resumeTimer = defineTool({
  name: "resume_timer",
  description: "Resume a paused timer.",
  input: z.object({ timer: timerField }),
  risk: "write",
  run: ({ timer }, context) => {
    const now = context.now();
    const db = context.store.db;
    const found = findTimer(context.store, timer, (candidate) => candidate.state === "paused", "paused");
    if (found.state !== "paused") throw new ToolError("timer_not_paused", `Timer ${found.id} is already running.`);
    const left = found.remainingSeconds ?? 0;
    const updated = timers(context.store).update(found.id, (current) => {
      const next: Timer = { ...current, state: "running", endsAt: new Date(now.getTime() + left * 1000).toISOString() };
      delete next.remainingSeconds;
      return next;
    });
    context.store.onCommit(() => timerEvents.arm(db, updated, left * 1000));
    return summary(updated, now, db);
  },
});

const cancelTimer = defineTool({
  name: "cancel_timer",
  description: "Cancel a timer so it does not ring.",
  input: z.object({ timer: timerField }),
  risk: "write",
  run: ({ timer }, context) => {
    const db = context.store.db;
    const found = findTimer(context.store, timer, () => true, "active");
    timers(context.store).update(found.id, (current) => {
      const next: Timer = { ...current, state: "cancelled" };
      delete next.endsAt;
      delete next.remainingSeconds;
      return next;
    });
    context.store.onCommit(() => timerEvents.disarm(db, found.id));
    return { cancelled: found.id, label: found.label };
  },
});

const listTimers = defineTool({
  name: "list_timers",
  description: "List your timers and the time left on each.",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => {
    const now = context.now();
    const all = active(context.store);
    return { timers: all.map((timer) => summary(timer, now, context.store.db)), count: all.length };
  },
});

export const timersApp: App = {
  name: TIMERS_APP,
  group: "device",
  title: "Timers",
  description: "Countdown timers that ring while botpsy runs.",
  tools: [startTimer, pauseTimer, resumeTimer, cancelTimer, listTimers],
  attach(store, environment) {
    // Timers still running when the profile was last closed ring on time in this process.
    const now = environment.now().getTime();
    const running = store.read((tx) => timers(tx).find((timer) => timer.state === "running" && timer.endsAt !== undefined));
    for (const timer of running) {
      const delay = Date.parse(timer.endsAt ?? "") - now;
      if (delay > 0) timerEvents.arm(store.db, timer, delay);
    }
    // An undo that brings a timer back to running (undoing its cancel or pause) arms it again,
    // ringing at once when its end passed meanwhile; one that stops or removes it disarms it.
    store.onRecordsRestored(TIMERS_APP, (restored) => {
      for (const record of restored) {
        if (record.collection !== TIMERS_COLLECTION) continue;
        const timer = record.data as Timer | null;
        if (timer?.state === "running" && timer.endsAt !== undefined) {
          timerEvents.arm(store.db, timer, Date.parse(timer.endsAt) - environment.now().getTime());
        } else {
          timerEvents.disarm(store.db, record.recordId);
        }
      }
    });
  },
  view(tx, environment) {
    const now = environment.now();
    const all = active(tx).map((timer) => summary(timer, now, tx.db));
    const text =
      all.length === 0
        ? "No timers."
        : all.map((timer) => `${String(timer.id).padEnd(9)} ${String(timer.state).padEnd(8)} ${String(timer.remaining).padEnd(14)} ${String(timer.label)}`).join("\n");
    return { text, data: all };
  },
};
