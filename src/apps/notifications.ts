import { EventEmitter } from "node:events";
import type { AppNotification } from "./app.js";
import { formatDuration, timerEvents, type TimerFiredEvent } from "./device/timers.js";
import type { Profile } from "./profile.js";

export interface NotificationWatcherOptions {
  /** How often the apps are asked what came due (default every 15 s). */
  intervalMs?: number;
}

/**
 * Tells the user what comes due while botpsy runs: alarms and calendar
 * reminders (asked of every app's `due` hook on an interval, over the window
 * since the last look, so nothing is told twice and nothing is skipped) and
 * timers (heard as they ring). `botpsy chat` prints them.
 */
export class NotificationWatcher extends EventEmitter<{ notification: [AppNotification] }> {
  private last: Date;
  private interval: NodeJS.Timeout | undefined;
  private readonly onTimer = (event: TimerFiredEvent): void => {
    if (event.db !== this.profile.store.db) return;
    this.emit("notification", {
      app: "timers",
      kind: "timer",
      at: event.endsAt,
      message: `Timer done${event.label ? `: ${event.label}` : ""} (${formatDuration(event.durationSeconds)})`,
    });
  };

  constructor(
    private readonly profile: Profile,
    private readonly options: NotificationWatcherOptions = {},
  ) {
    super();
    this.last = profile.environment.now();
  }

  /** Start looking; the interval does not keep the process alive. */
  start(): this {
    if (this.interval !== undefined) return this;
    timerEvents.on("timer-fired", this.onTimer);
    this.interval = setInterval(() => {
      try {
        this.check();
      } catch {
        // A profile being closed or an app failing to read is no reason to end the process; the next look retries.
      }
    }, this.options.intervalMs ?? 15_000);
    this.interval.unref();
    return this;
  }

  stop(): void {
    if (this.interval !== undefined) clearInterval(this.interval);
    this.interval = undefined;
    timerEvents.off("timer-fired", this.onTimer);
  }

  /**
   * What came due since the last look, up to `now` (default the profile's
   * clock), oldest first; each is also emitted. A closed profile gives nothing.
   */
  check(now: Date = this.profile.environment.now()): AppNotification[] {
    if (now.getTime() <= this.last.getTime() || !this.profile.store.db.open) return [];
    const from = this.last;
    const environment = this.profile.environment;
    const found = this.profile.store
      .read((tx) => this.profile.apps.flatMap((app) => app.due?.(tx, environment, from, now) ?? []))
      .sort((a, b) => a.at.localeCompare(b.at));
    this.last = now;
    for (const notification of found) this.emit("notification", notification);
    return found;
  }
}
