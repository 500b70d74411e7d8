import { describe, expect, it } from "vitest";
import { alarmsApp } from "../../src/apps/device/alarms.js";
import { timersApp } from "../../src/apps/device/timers.js";
import { NotificationWatcher } from "../../src/apps/notifications.js";
import type { AppNotification } from "../../src/apps/app.js";
import { Profile } from "../../src/apps/profile.js";
import { calendarApp } from "../../src/apps/work/calendar.js";
import { toolFinder, toolRunner } from "./support.js";

const CLOCK = "2026-12-01T09:00:00Z";
const tool = toolFinder(calendarApp, alarmsApp, timersApp);
const run = toolRunner(tool);

function openProfile(clock?: string): Profile {
  return Profile.open({ databasePath: ":memory:", seed: "empty", timeZone: "Europe/Lisbon", apps: [calendarApp, alarmsApp, timersApp], ...(clock ? { clock } : {}) });
}

describe("notification watcher", () => {
  it("tells each calendar reminder once, when its moment has passed, with the event's time and place", async () => {
    const profile = openProfile(CLOCK);
    await run(profile, "create_event", { title: "Dentist", date: "2026-12-01", time: "10:00", location: "Rua Augusta 20", reminder_minutes: [30, 0] });
    // The calendar's default reminder is 15 minutes before.
    await run(profile, "create_event", { title: "Standup", date: "2026-12-01", time: "09:45" });
    const watcher = new NotificationWatcher(profile);
    const heard: AppNotification[] = [];
    watcher.on("notification", (notification) => heard.push(notification));
    expect(watcher.check(new Date("2026-12-01T09:29:00Z"))).toEqual([]);
    const due = watcher.check(new Date("2026-12-01T09:31:00Z"));
    expect(due).toEqual([
      { app: "calendar", kind: "reminder", at: "2026-12-01T09:30:00.000Z", message: "Reminder: Dentist at 10:00 (in 30 min), Rua Augusta 20" },
      { app: "calendar", kind: "reminder", at: "2026-12-01T09:30:00.000Z", message: "Reminder: Standup at 09:45 (in 15 min)" },
    ]);
    expect(watcher.check(new Date("2026-12-01T09:50:00Z"))).toEqual([]);
    const now = watcher.check(new Date("2026-12-01T10:00:00Z"));
    expect(now.map((notification) => notification.message)).toEqual(["Reminder: Dentist at 10:00 (now), Rua Augusta 20"]);
    expect(heard).toHaveLength(3);
    profile.close();
  });

  it("tells an alarm when it rings, and a repeating one again the next day", async () => {
    const profile = openProfile(CLOCK);
    await run(profile, "set_alarm", { time: "07:30", label: "Gym", repeat: "every day" });
    const watcher = new NotificationWatcher(profile);
    expect(watcher.check(new Date("2026-12-02T07:29:00Z"))).toEqual([]);
    expect(watcher.check(new Date("2026-12-02T07:31:00Z"))).toEqual([{ app: "alarms", kind: "alarm", at: "2026-12-02T07:30:00.000Z", message: "Alarm 07:30: Gym" }]);
    expect(watcher.check(new Date("2026-12-03T08:00:00Z")).map((notification) => notification.at)).toEqual(["2026-12-03T07:30:00.000Z"]);
    profile.close();
  });

  it("hears the profile's timers ring, not another profile's", async () => {
    const profile = openProfile();
    const other = openProfile();
    const watcher = new NotificationWatcher(profile, { intervalMs: 60_000 }).start();
    const heard: AppNotification[] = [];
    watcher.on("notification", (notification) => heard.push(notification));
    await run(other, "start_timer", { duration: "1 second", label: "Not mine" });
    await run(profile, "start_timer", { duration: "1 second", label: "Tea" });
    await new Promise((resolve) => setTimeout(resolve, 1800));
    watcher.stop();
    expect(heard.map((notification) => [notification.kind, notification.message])).toEqual([["timer", "Timer done: Tea (1 s)"]]);
    profile.close();
    other.close();
  });

  it("gives nothing once the profile is closed", () => {
    const profile = openProfile(CLOCK);
    const watcher = new NotificationWatcher(profile);
    profile.close();
    expect(watcher.check(new Date("2026-12-05T00:00:00Z"))).toEqual([]);
  });
});
