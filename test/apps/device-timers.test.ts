import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseDuration, timerEvents, timersApp, type TimerFiredEvent } from "../../src/apps/device/timers.js";
import { Profile } from "../../src/apps/profile.js";
import { failure, risks, toolFinder, toolRunner } from "./support.js";

const ZONE = "Europe/Lisbon";
const folders: string[] = [];

function openProfile(databasePath = ":memory:", clock?: string): Profile {
  return Profile.open({ databasePath, seed: "empty", timeZone: ZONE, apps: [timersApp], ...(clock ? { clock } : {}) });
}

const tool = toolFinder(timersApp);

const run = toolRunner(tool);

function nextFired(timeoutMs: number): Promise<TimerFiredEvent | undefined> {
  return new Promise((resolve) => {
    const timeout = setTimeout(() => {
      timerEvents.off("timer-fired", listener);
      resolve(undefined);
    }, timeoutMs);
    const listener = (event: TimerFiredEvent): void => {
      clearTimeout(timeout);
      timerEvents.off("timer-fired", listener);
      resolve(event);
    };
    timerEvents.on("timer-fired", listener);
  });
}

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("timers app", () => {
  it("declares the risk class of every tool", () => {
    expect(risks(timersApp)).toEqual({
      start_timer: "write",
      pause_timer: "write",
      resume_timer: "write",
      cancel_timer: "write",
      list_timers: "read",
    });
  });

  it("reads durations as a model writes them", () => {
    expect(parseDuration("5 minutes")).toBe(300);
    expect(parseDuration("1h30m")).toBe(5400);
    expect(parseDuration("1 hour and 15 minutes")).toBe(4500);
    expect(parseDuration("90 seconds")).toBe(90);
    expect(parseDuration("00:10:00")).toBe(600);
    expect(parseDuration("2:30")).toBe(150);
    expect(parseDuration("half an hour")).toBe(1800);
    expect(parseDuration("an hour")).toBe(3600);
    expect(parseDuration("10")).toBe(600);
    expect(() => parseDuration("soon")).toThrow(/5 minutes/);
    expect(() => parseDuration("30 hours")).toThrow(/24 hours/);
    expect(() => parseDuration("0 s")).toThrow();
  });

  it("a started timer really fires an event while the process runs", async () => {
    const profile = openProfile();
    const fired = nextFired(5000);
    const started = await run(profile, "start_timer", { duration: "1 second", label: "Tea" });
    expect(started).toMatchObject({ id: "timer-1", state: "running", duration: "1 s" });
    const event = await fired;
    expect(event).toMatchObject({ timerId: "timer-1", label: "Tea", durationSeconds: 1 });
    const listed = (await run(profile, "list_timers", {})).timers as { state: string }[];
    expect(listed[0]?.state).toBe("done");
    profile.close();
  });

  it("a rolled-back start (dry run) or an undone start arms nothing", async () => {
    const profile = openProfile();
    const fired = nextFired(2000);
    await profile.runTool(tool("start_timer"), { duration: "1 s" }, { dryRun: true });
    expect((await run(profile, "list_timers", {})).count).toBe(0);
    await run(profile, "start_timer", { duration: "1 s" });
    await profile.store.undo();
    expect(await fired).toBeUndefined();
    profile.close();
  });

  it("undoing a cancel arms the timer again and it rings; undoing a resume stops it ringing", async () => {
    const profile = openProfile();
    await run(profile, "start_timer", { duration: "1 second", label: "Eggs" });
    await run(profile, "cancel_timer", { timer: "Eggs" });
    expect(timerEvents.isArmed(profile.store.db, "timer-1")).toBe(false);
    const fired = nextFired(4000);
    await profile.store.undo();
    expect(timerEvents.isArmed(profile.store.db, "timer-1")).toBe(true);
    expect(await fired).toMatchObject({ timerId: "timer-1", label: "Eggs" });

    await run(profile, "start_timer", { duration: "1 second", label: "Rice" });
    await run(profile, "pause_timer", { timer: "Rice" });
    await run(profile, "resume_timer", { timer: "Rice" });
    const silent = nextFired(2000);
    await profile.store.undo();
    expect(timerEvents.isArmed(profile.store.db, "timer-2")).toBe(false);
    expect(await silent).toBeUndefined();
    profile.close();
  });

  it("pauses, resumes and cancels; a paused or cancelled timer does not ring", async () => {
    const profile = openProfile(":memory:", "2026-12-01T09:00:00Z");
    await run(profile, "start_timer", { duration: "1 s", label: "pasta" });
    const fired = nextFired(1800);
    const paused = await run(profile, "pause_timer", {});
    expect(paused).toMatchObject({ state: "paused", remainingSeconds: 1 });
    expect(await fired).toBeUndefined();
    expect((await failure(run(profile, "pause_timer", { timer: "pasta" }))).code).toBe("timer_not_running");
    const resumed = await run(profile, "resume_timer", { timer: "pasta" });
    expect(resumed).toMatchObject({ state: "running", endsAt: "2026-12-01T09:00:01.000Z" });
    expect((await failure(run(profile, "resume_timer", { timer: "pasta" }))).code).toBe("timer_not_paused");
    const cancelledFire = nextFired(1800);
    expect(await run(profile, "cancel_timer", { timer: "timer-1" })).toEqual({ cancelled: "timer-1", label: "pasta" });
    expect(await cancelledFire).toBeUndefined();
    expect((await run(profile, "list_timers", {})).count).toBe(0);
    profile.close();
  });

  it("asks which timer when several fit and none is named", async () => {
    const profile = openProfile(":memory:", "2026-12-01T09:00:00Z");
    expect((await failure(run(profile, "pause_timer", {}))).code).toBe("timer_not_found");
    await run(profile, "start_timer", { duration: "10 minutes", label: "eggs" });
    await run(profile, "start_timer", { duration: "20 minutes", label: "bread" });
    const ambiguous = await failure(run(profile, "cancel_timer", {}));
    expect(ambiguous.code).toBe("timer_ambiguous");
    expect(ambiguous.message).toMatch(/timer-1, timer-2/);
    expect((await failure(run(profile, "cancel_timer", { timer: "soup" }))).code).toBe("timer_not_found");
    expect((await failure(run(profile, "start_timer", { duration: "forever" }))).code).toBe("invalid_duration");
    profile.close();
  });

  it("keeps timers across a reopened database and re-arms running ones", async () => {
    const folder = mkdtempSync(join(tmpdir(), "botpsy-timers-"));
    folders.push(folder);
    const path = join(folder, "profile.db");
    const first = openProfile(path);
    await run(first, "start_timer", { duration: "2 s", label: "laundry" });
    await run(first, "start_timer", { duration: "1 hour", label: "roast" });
    await run(first, "pause_timer", { timer: "roast" });
    first.close();
    const fired = nextFired(4000);
    const second = openProfile(path);
    const listed = (await run(second, "list_timers", {})).timers as { label: string; state: string }[];
    expect(listed.map((timer) => [timer.label, timer.state])).toEqual([
      ["laundry", "running"],
      ["roast", "paused"],
    ]);
    expect(await fired).toMatchObject({ label: "laundry" });
    expect(timersApp.view(second.store.read((tx) => tx), second.environment).text).toMatch(/roast/);
    second.close();
  });
});
