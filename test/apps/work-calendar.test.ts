import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ICAL from "ical.js";
import { afterEach, describe, expect, it } from "vitest";
import { filesApp } from "../../src/apps/device/files.js";
import { FILES_DIRECTORY_META } from "../../src/apps/device/sandbox.js";
import { Profile } from "../../src/apps/profile.js";
import { calendarApp } from "../../src/apps/work/calendar.js";
import { failure, risks, toolFinder, toolRunner } from "./support.js";

// Tuesday 1 December 2026, 09:00 in Lisbon.
const CLOCK = "2026-12-01T09:00:00Z";
const ZONE = "Europe/Lisbon";
const folders: string[] = [];

function temporaryFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "botpsy-calendar-"));
  folders.push(folder);
  return folder;
}

function openProfile(seed: "demo" | "empty" = "empty", databasePath = join(temporaryFolder(), "profile.db")): Profile {
  return Profile.open({ databasePath, seed, clock: CLOCK, timeZone: ZONE, apps: [filesApp, calendarApp] });
}

const tool = toolFinder(calendarApp, filesApp);

const run = toolRunner(tool);

function sandbox(profile: Profile): string {
  return profile.store.getMeta(FILES_DIRECTORY_META) ?? "";
}

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("calendar app", () => {
  it("declares the risk class of every tool", () => {
    expect(risks(calendarApp)).toEqual({
      create_event: "write",
      list_events: "read",
      find_events: "read",
      update_event: "write",
      delete_event: "destructive",
      find_free_slot: "read",
      import_ics: "write",
      export_ics: "write",
    });
  });

  it('"Add the dentist on Friday at 3 pm" gives one event, Friday 15:00', async () => {
    const profile = openProfile();
    const result = await run(profile, "create_event", { title: "Dentist", date: "Friday", time: "3 pm" });
    expect(result.normalised).toBe("2026-12-04 15:00");
    expect(result.created).toMatchObject({ title: "Dentist", date: "2026-12-04", time: "15:00", end: "16:00" });
    const friday = (await run(profile, "list_events", { from: "Friday", days: 1 })).events as Record<string, unknown>[];
    expect(friday).toHaveLength(1);
    expect(friday[0]).toMatchObject({ title: "Dentist", time: "15:00" });
    profile.close();
  });

  it("accepts the time inside the date, all-day events, attendees and another time zone", async () => {
    const profile = openProfile();
    const combined = await run(profile, "create_event", { title: "Call", date: "tomorrow 4:30 pm", attendees: ["Frank", "someone@example.org"] });
    expect(combined.created).toMatchObject({ date: "2026-12-02", time: "16:30", attendees: ["Frank Miller <frank.miller@example.com>", "someone@example.org"] });
    const allDay = await run(profile, "create_event", { title: "Holiday", date: "2026-12-08" });
    expect(allDay.created).toMatchObject({ allDay: true, date: "2026-12-08" });
    const newYork = await run(profile, "create_event", { title: "NY standup", date: "2026-12-03", time: "9 am", time_zone: "America/New_York" });
    // 09:00 in New York is 14:00 in Lisbon in December.
    expect(newYork.created).toMatchObject({ time: "14:00", eventTime: "09:00", eventTimeZone: "America/New_York" });
    expect((await failure(run(profile, "create_event", { title: "X", date: "Friday", time_zone: "Mars/Base" }))).code).toBe("invalid_time_zone");
    expect((await failure(run(profile, "create_event", { title: "X", date: "someday soon-ish" }))).code).toBe("invalid_date");
    const unknown = await failure(run(profile, "create_event", { title: "X", date: "Friday", attendees: ["Zorro"] }));
    expect(unknown.code).toBe("unknown_contact");
    await expect(profile.runTool(tool("create_event"), { title: "", date: "Friday" })).rejects.toThrow(/title/);
    profile.close();
  });

  it("reports conflicts instead of silently double-booking", async () => {
    const profile = openProfile();
    await run(profile, "create_event", { title: "Dentist", date: "Friday", time: "3 pm" });
    const clash = await run(profile, "create_event", { title: "Budget review", date: "Friday", time: "15:30" });
    expect(clash.conflicts).toEqual([expect.objectContaining({ title: "Dentist", time: "15:00" })]);
    expect(String(clash.warning)).toMatch(/update_event/);
    const free = await run(profile, "create_event", { title: "Later", date: "Friday", time: "17:00" });
    expect(free.conflicts).toBeUndefined();
    profile.close();
  });

  it("repeats daily, weekly and monthly, with counts", async () => {
    const profile = openProfile();
    await run(profile, "create_event", { title: "Standup", date: "2026-12-01", time: "09:30", duration_minutes: 15, repeat: "daily", repeat_count: 3 });
    await run(profile, "create_event", { title: "Review", date: "2026-12-02", time: "11:00", repeat: "weekly" });
    await run(profile, "create_event", { title: "Rent", date: "2026-12-31", repeat: "Monthly" });
    const listed = (await run(profile, "list_events", { from: "2026-12-01", days: 62 })).events as { title: string; date: string }[];
    expect(listed.filter((event) => event.title === "Standup").map((event) => event.date)).toEqual(["2026-12-01", "2026-12-02", "2026-12-03"]);
    expect(listed.filter((event) => event.title === "Review")).toHaveLength(9);
    // No 31 February: a monthly event on the 31st skips shorter months.
    expect(listed.filter((event) => event.title === "Rent").map((event) => event.date)).toEqual(["2026-12-31", "2027-01-31"]);
    expect((await failure(run(profile, "create_event", { title: "X", date: "Friday", repeat: "yearly" }))).code).toBe("invalid_repeat");
    expect((await failure(run(profile, "create_event", { title: "X", date: "Friday", repeat_count: 2 }))).code).toBe("invalid_repeat");
    profile.close();
  });

  it("finds, updates and deletes events by id or title", async () => {
    const profile = openProfile("demo");
    const found = (await run(profile, "find_events", { query: "priya" })).events as { title: string; upcoming: boolean }[];
    expect(found.map((event) => event.title)).toEqual(expect.arrayContaining(["Team sync", "1:1 with Priya"]));
    const moved = await run(profile, "update_event", { event: "Lunch with Maria", time: "1 pm", add_attendees: ["Ana"], location: "Cervejaria Ramiro" });
    expect(moved.updated).toMatchObject({ time: "13:00", location: "Cervejaria Ramiro", attendees: ["Maria Lopez <maria.lopez@example.com>", "Ana Rivera <ana.rivera@example.com>"] });
    expect((await failure(run(profile, "update_event", { event: "Lunch with Maria" }))).code).toBe("nothing_to_change");
    expect((await failure(run(profile, "update_event", { event: "with", title: "x" }))).code).toBe("event_ambiguous");
    expect((await failure(run(profile, "delete_event", { event: "Opera" }))).code).toBe("event_not_found");
    const deleted = await run(profile, "delete_event", { event: "Yoga" });
    expect(deleted).toMatchObject({ title: "Yoga", repeats: "weekly" });
    expect(((await run(profile, "find_events", { query: "yoga" })).events as unknown[]).length).toBe(0);
    profile.close();
  });

  it("finds a free slot around busy time", async () => {
    const profile = openProfile();
    await run(profile, "create_event", { title: "Morning block", date: "2026-12-02", time: "09:00", duration_minutes: 120 });
    await run(profile, "create_event", { title: "Lunch", date: "2026-12-02", time: "11:30", duration_minutes: 60 });
    const slots = await run(profile, "find_free_slot", { duration_minutes: 60, date: "2026-12-02", days: 1 });
    expect(slots.slots).toEqual([{ date: "2026-12-02", start: "12:30", end: "13:30" }]);
    const short = await run(profile, "find_free_slot", { duration_minutes: 30, date: "2026-12-02", days: 1 });
    expect(short.slots).toEqual([{ date: "2026-12-02", start: "11:00", end: "11:30" }]);
    await run(profile, "create_event", { title: "All afternoon", date: "2026-12-02", time: "12:30", duration_minutes: 330 });
    expect((await failure(run(profile, "find_free_slot", { duration_minutes: 60, date: "2026-12-02", days: 1 }))).code).toBe("no_free_slot");
    expect((await failure(run(profile, "find_free_slot", { duration_minutes: 60, earliest: "18:00", latest: "9:00" }))).code).toBe("invalid_range");
    profile.close();
  });

  it("exports .ics with ical.js and imports it back, once", async () => {
    const profile = openProfile();
    await run(profile, "create_event", { title: "Dentist", date: "Friday", time: "3 pm", attendees: ["Dr. Wei Chen"], reminder_minutes: [30] });
    await run(profile, "create_event", { title: "Review", date: "2026-12-02", time: "11:00", repeat: "weekly", repeat_count: 4, time_zone: "Europe/Berlin" });
    const exported = await run(profile, "export_ics", { path: "exports/december.ics" });
    expect(exported).toMatchObject({ path: "exports/december.ics", exported: 2 });
    const text = readFileSync(join(sandbox(profile), "exports", "december.ics"), "utf8");
    const parsed = new ICAL.Component(ICAL.parse(text) as unknown[]);
    const events = parsed.getAllSubcomponents("vevent").map((component) => new ICAL.Event(component));
    expect(events.map((event) => event.summary)).toEqual(["Dentist", "Review"]);
    expect(text).toMatch(/DTSTART;TZID=Europe\/Lisbon:20261204T150000/);
    expect(text).toMatch(/RRULE:FREQ=WEEKLY;COUNT=4/);
    expect(text).toMatch(/TRIGGER:-PT30M/);
    expect((await failure(run(profile, "export_ics", { path: "exports/december.ics" }))).code).toBe("file_exists");
    expect((await failure(run(profile, "export_ics", { path: "exports/december.txt" }))).code).toBe("invalid_path");

    const other = openProfile();
    writeFileSync(join(sandbox(other), "december.ics"), text);
    const imported = await run(other, "import_ics", { path: "december.ics" });
    expect(imported.imported).toBe(2);
    const listed = (await run(other, "list_events", { from: "2026-12-01", days: 30 })).events as Record<string, unknown>[];
    expect(listed.filter((event) => event.title === "Review")).toHaveLength(4);
    expect(listed.find((event) => event.title === "Review")).toMatchObject({ time: "10:00", eventTime: "11:00", eventTimeZone: "Europe/Berlin" });
    expect(listed.find((event) => event.title === "Dentist")).toMatchObject({ date: "2026-12-04", time: "15:00", attendees: ["Dr. Wei Chen"] });
    const again = await run(other, "import_ics", { path: "december.ics" });
    expect(again).toMatchObject({ imported: 0, alreadyInCalendar: 2 });
    other.close();
    profile.close();
  });

  it("imports UTC times and refuses files that are not calendars", async () => {
    const profile = openProfile();
    writeFileSync(
      join(sandbox(profile), "invite.ics"),
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:abc-1\r\nDTSTAMP:20261120T100000Z\r\nDTSTART:20261210T150000Z\r\nDURATION:PT45M\r\nSUMMARY:Vendor call\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
    );
    const imported = await run(profile, "import_ics", { path: "invite.ics" });
    expect(imported.events).toEqual([expect.objectContaining({ title: "Vendor call", date: "2026-12-10", time: "15:00", end: "15:45" })]);
    writeFileSync(join(sandbox(profile), "bad.ics"), "this is not a calendar");
    expect((await failure(run(profile, "import_ics", { path: "bad.ics" }))).code).toBe("invalid_ics");
    expect((await failure(run(profile, "import_ics", { path: "missing.ics" }))).code).toBe("file_not_found");
    expect((await failure(run(profile, "import_ics", { path: "../outside.ics" }))).code).toBe("path_outside_sandbox");
    profile.close();
  });

  it("undo removes a created event and restores a deleted one", async () => {
    const profile = openProfile("demo");
    const before = await run(profile, "list_events", { days: 14 });
    await run(profile, "create_event", { title: "Dentist", date: "Friday", time: "3 pm" });
    await run(profile, "delete_event", { event: "Team sync" });
    await profile.store.undo(2);
    expect(await run(profile, "list_events", { days: 14 })).toEqual(before);
    profile.close();
  });

  it("keeps events across a reopened database; the seeded week is readable", async () => {
    const path = join(temporaryFolder(), "profile.db");
    const first = openProfile("demo", path);
    await run(first, "create_event", { title: "Dentist", date: "Friday", time: "3 pm" });
    first.close();
    const second = openProfile("empty", path);
    const found = (await run(second, "find_events", { query: "dentist" })).events as Record<string, unknown>[];
    expect(found).toEqual([expect.objectContaining({ title: "Dentist", date: "2026-12-04", time: "15:00", upcoming: true })]);
    const view = calendarApp.view(second.store.read((tx) => tx), second.environment);
    expect(view.text).toMatch(/This week/);
    expect(view.text).toMatch(/15:00-16:00 {2}Dentist/);
    expect(view.text).toMatch(/Team sync/);
    second.close();
  });
});
