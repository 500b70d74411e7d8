import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { alarmsApp, parseRepeat } from "../../src/apps/device/alarms.js";
import { Profile } from "../../src/apps/profile.js";
import { failure, risks, toolFinder, toolRunner } from "./support.js";

// Tuesday 1 December 2026, 09:00 in Lisbon (UTC+0 in winter).
const CLOCK = "2026-12-01T09:00:00Z";
const ZONE = "Europe/Lisbon";
const folders: string[] = [];

function openProfile(databasePath = ":memory:", seed: "demo" | "empty" = "empty"): Profile {
  return Profile.open({ databasePath, seed, clock: CLOCK, timeZone: ZONE, apps: [alarmsApp] });
}

const tool = toolFinder(alarmsApp);

const run = toolRunner(tool);

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("alarms app", () => {
  it("declares the risk class of every tool", () => {
    expect(risks(alarmsApp)).toEqual({
      set_alarm: "write",
      list_alarms: "read",
      change_alarm: "write",
      delete_alarm: "destructive",
      snooze_alarm: "write",
    });
  });

  it('"Set an alarm for 7" is one call: the next 07:00, tomorrow morning', async () => {
    const profile = openProfile();
    const alarm = await run(profile, "set_alarm", { time: "7" });
    expect(alarm).toMatchObject({ id: "alarm-1", time: "07:00", repeat: "once", enabled: true, nextRing: "Wednesday 2026-12-02 07:00" });
    expect((await run(profile, "list_alarms", {})).count).toBe(1);
    profile.close();
  });

  it("sets repeating alarms with labels and reads repeat days as a model writes them", async () => {
    const profile = openProfile();
    const gym = await run(profile, "set_alarm", { time: "6:30 pm", label: "Gym", repeat: "Mondays and Thursdays" });
    expect(gym).toMatchObject({ time: "18:30", label: "Gym", repeat: "Monday, Thursday", nextRing: "Thursday 2026-12-03 18:30" });
    expect(parseRepeat("weekdays")).toEqual(["mon", "tue", "wed", "thu", "fri"]);
    expect(parseRepeat("daily")).toHaveLength(7);
    expect(parseRepeat("sat, sun")).toEqual(["sun", "sat"]);
    expect(parseRepeat("never")).toEqual([]);
    expect(() => parseRepeat("sometimes")).toThrow(/daily.*weekdays/);
    const later = await run(profile, "set_alarm", { time: "10:00", repeat: "weekdays" });
    expect(later.nextRing).toBe("Tuesday 2026-12-01 10:00");
    profile.close();
  });

  it("refuses bad times, duplicates and too many alarms", async () => {
    const profile = openProfile();
    expect((await failure(run(profile, "set_alarm", { time: "banana" }))).code).toBe("invalid_date");
    // A time found inside other numbers or markup is not read as that time: a small model's ">'00:00:00:00" is not midnight.
    for (const garbled of [">'00:00:00:00", "7 (or 8)", "7:00 <tool_call>"]) {
      const refused = await failure(run(profile, "set_alarm", { time: garbled }));
      expect(refused.code, garbled).toBe("invalid_date");
    }
    expect((await failure(run(profile, "set_alarm", { time: ">'00:00:00:00" }))).message).toMatch(/left over/);
    expect((await run(profile, "list_alarms", {})).count).toBe(0);
    // A time with its zone's name is still that time.
    expect((await run(profile, "set_alarm", { time: "06:30 (Europe/Lisbon)" })).time).toBe("06:30");
    await run(profile, "delete_alarm", { alarm: "06:30" });
    expect((await failure(run(profile, "set_alarm", { time: "7", repeat: "sometimes" }))).code).toBe("invalid_repeat");
    await run(profile, "set_alarm", { time: "7" });
    const duplicate = await failure(run(profile, "set_alarm", { time: "07:00" }));
    expect(duplicate.code).toBe("alarm_exists");
    expect(duplicate.message).toMatch(/change_alarm/);
    for (let hour = 8; hour < 22; hour++) {
      await run(profile, "set_alarm", { time: `${hour}:00` });
      await run(profile, "set_alarm", { time: `${hour}:30` });
    }
    await run(profile, "set_alarm", { time: "23:00" });
    expect((await run(profile, "list_alarms", {})).count).toBe(30);
    const full = await failure(run(profile, "set_alarm", { time: "23:15" }));
    expect(full.code).toBe("too_many_alarms");
    expect(full.message).toMatch(/delete_alarm/);
    profile.close();
  });

  it("changes an alarm found by id, label or time", async () => {
    const profile = openProfile();
    await run(profile, "set_alarm", { time: "7", label: "Work" });
    expect(await run(profile, "change_alarm", { alarm: "work", time: "7:30" })).toMatchObject({ id: "alarm-1", time: "07:30" });
    expect(await run(profile, "change_alarm", { alarm: "7:30 am", repeat: "weekends" })).toMatchObject({ repeat: "weekends" });
    expect(await run(profile, "change_alarm", { alarm: "alarm-1", enabled: false })).toMatchObject({ enabled: false, nextRing: null });
    expect((await failure(run(profile, "change_alarm", { alarm: "alarm-1" }))).code).toBe("nothing_to_change");
    const missing = await failure(run(profile, "change_alarm", { alarm: "alarm-9", time: "8" }));
    expect(missing.code).toBe("alarm_not_found");
    expect(missing.message).toMatch(/alarm-1/);
    profile.close();
  });

  it("reports ambiguity instead of guessing", async () => {
    const profile = openProfile();
    await run(profile, "set_alarm", { time: "7", repeat: "weekdays" });
    await run(profile, "set_alarm", { time: "7", repeat: "weekends" });
    expect((await failure(run(profile, "delete_alarm", { alarm: "7 am" }))).code).toBe("alarm_ambiguous");
    profile.close();
  });

  it("snoozes an enabled alarm and refuses a disabled one", async () => {
    const profile = openProfile();
    await run(profile, "set_alarm", { time: "7" });
    const snoozed = await run(profile, "snooze_alarm", { alarm: "alarm-1", minutes: 10 });
    expect(snoozed).toMatchObject({ snoozed: true, snoozedMinutes: 10, nextRing: "Tuesday 2026-12-01 09:10" });
    expect((await run(profile, "snooze_alarm", { alarm: "alarm-1" })).snoozedMinutes).toBe(9);
    await run(profile, "change_alarm", { alarm: "alarm-1", enabled: false });
    const off = await failure(run(profile, "snooze_alarm", { alarm: "alarm-1" }));
    expect(off.code).toBe("alarm_off");
    expect(off.message).toMatch(/enabled=true/);
    await expect(profile.runTool(tool("snooze_alarm"), { alarm: "alarm-1", minutes: 500 })).rejects.toThrow(/minutes|60/);
    profile.close();
  });

  it("deletes an alarm, and undo brings it back", async () => {
    const profile = openProfile(":memory:", "demo");
    const before = await run(profile, "list_alarms", {});
    expect(before.count).toBe(3);
    expect(await run(profile, "delete_alarm", { alarm: "Gym" })).toMatchObject({ deleted: "alarm-3", time: "18:00" });
    expect((await run(profile, "list_alarms", {})).count).toBe(2);
    await profile.store.undo();
    expect(await run(profile, "list_alarms", {})).toEqual(before);
    profile.close();
  });

  it("keeps alarms across a reopened database", async () => {
    const folder = mkdtempSync(join(tmpdir(), "botpsy-alarms-"));
    folders.push(folder);
    const path = join(folder, "profile.db");
    const first = openProfile(path, "demo");
    await run(first, "set_alarm", { time: "5:15 am", label: "Flight" });
    first.close();
    const second = openProfile(path);
    const listed = (await run(second, "list_alarms", {})).alarms as { label: string; time: string }[];
    expect(listed.map((alarm) => alarm.label)).toEqual(["Flight", "Wake up", "Gym", "Weekend"].sort((a, b) => {
      const times: Record<string, string> = { Flight: "05:15", "Wake up": "06:45", Gym: "18:00", Weekend: "09:30" };
      return (times[a] ?? "").localeCompare(times[b] ?? "");
    }));
    expect(alarmsApp.view(second.store.read((tx) => tx), second.environment).text).toMatch(/05:15.*Flight/);
    second.close();
  });
});
