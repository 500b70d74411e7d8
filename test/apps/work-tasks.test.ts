import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Profile } from "../../src/apps/profile.js";
import { tasksApp } from "../../src/apps/work/tasks.js";
import { failure, risks, toolFinder, toolRunner } from "./support.js";

// Tuesday 1 December 2026, 09:00 in Lisbon.
const CLOCK = "2026-12-01T09:00:00Z";
const ZONE = "Europe/Lisbon";
const folders: string[] = [];

function openProfile(databasePath = ":memory:"): Profile {
  return Profile.open({ databasePath, seed: "demo", clock: CLOCK, timeZone: ZONE, apps: [tasksApp] });
}

const tool = toolFinder(tasksApp);

const run = toolRunner(tool);

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("tasks app", () => {
  it("declares the risk class of every tool", () => {
    expect(risks(tasksApp)).toEqual({
      add_task: "write",
      list_tasks: "read",
      search_tasks: "read",
      complete_task: "write",
      update_task: "write",
      delete_task: "destructive",
      create_task_list: "write",
    });
  });

  it("adds a task with a due date and priority, echoing the normalised date", async () => {
    const profile = openProfile();
    const task = await run(profile, "add_task", { title: "Call the plumber", list: "personal", due: "Friday 5 pm", priority: "High" });
    expect(task).toMatchObject({ id: "task-10", list: "Personal", due: "2026-12-04 17:00", priority: "high", status: "open" });
    const plain = await run(profile, "add_task", { title: "Water the plants" });
    expect(plain).toMatchObject({ list: "Personal", priority: "medium" });
    expect((await failure(run(profile, "add_task", { title: "x", list: "Garden" }))).message).toMatch(/create_task_list\(name="Garden"\)/);
    expect((await failure(run(profile, "add_task", { title: "x", priority: "asap" }))).code).toBe("invalid_priority");
    expect((await failure(run(profile, "add_task", { title: "x", due: "whenever" }))).code).toBe("invalid_date");
    profile.close();
  });

  it("lists open tasks most urgent first, by list and by due date", async () => {
    const profile = openProfile();
    const all = await run(profile, "list_tasks", {});
    const titles = (all.tasks as { title: string; status: string }[]).map((task) => task.title);
    expect(titles[0]).toBe("Renew the car insurance");
    expect((all.tasks as { status: string }[])[0]?.status).toBe("overdue");
    expect(titles).not.toContain("Pay the electricity bill");
    const work = await run(profile, "list_tasks", { list: "Work" });
    expect(work.count).toBe(3);
    const soon = await run(profile, "list_tasks", { due_by: "Friday" });
    expect((soon.tasks as { title: string }[]).map((task) => task.title)).toEqual([
      "Renew the car insurance",
      "Review Frank's roadmap slides",
      "Finish the Q4 report draft",
    ]);
    const withDone = await run(profile, "list_tasks", { include_done: true, list: "errands" });
    expect(withDone.count).toBe(3);
    profile.close();
  });

  it("searches, completes, updates and reopens", async () => {
    const profile = openProfile();
    const found = await run(profile, "search_tasks", { query: "report" });
    expect(found.count).toBe(1);
    expect(await run(profile, "complete_task", { task: "Q4 report" })).toMatchObject({ status: "done" });
    expect((await failure(run(profile, "complete_task", { task: "task-1" }))).code).toBe("already_done");
    const updated = await run(profile, "update_task", { task: "task-1", reopen: true, due: "none", priority: "low", list: "Personal" });
    expect(updated).toMatchObject({ status: "open", priority: "low", list: "Personal" });
    expect(updated.due).toBeUndefined();
    expect((await failure(run(profile, "update_task", { task: "task-1" }))).code).toBe("nothing_to_change");
    expect((await failure(run(profile, "complete_task", { task: "the" }))).code).toBe("task_ambiguous");
    expect((await failure(run(profile, "complete_task", { task: "fly to the moon" }))).code).toBe("task_not_found");
    profile.close();
  });

  it("creates lists and refuses duplicates", async () => {
    const profile = openProfile();
    expect((await run(profile, "create_task_list", { name: "Home renovation" })).lists).toContain("Home renovation");
    expect((await failure(run(profile, "create_task_list", { name: "home renovation" }))).code).toBe("list_exists");
    expect(await run(profile, "add_task", { title: "Paint the hall", list: "Home Renovation" })).toMatchObject({ list: "Home renovation" });
    profile.close();
  });

  it("delete is undoable", async () => {
    const profile = openProfile();
    const before = await run(profile, "list_tasks", { include_done: true });
    expect(await run(profile, "delete_task", { task: "dry cleaning" })).toMatchObject({ title: "Pick up dry cleaning" });
    expect((await run(profile, "list_tasks", { include_done: true })).count).toBe(Number(before.count) - 1);
    await profile.store.undo();
    expect(await run(profile, "list_tasks", { include_done: true })).toEqual(before);
    profile.close();
  });

  it("keeps tasks across a reopened database", async () => {
    const folder = mkdtempSync(join(tmpdir(), "botpsy-tasks-"));
    folders.push(folder);
    const path = join(folder, "profile.db");
    const first = openProfile(path);
    await run(first, "add_task", { title: "Kept task", list: "Work", due: "tomorrow" });
    await run(first, "complete_task", { task: "roadmap" });
    first.close();
    const second = openProfile(path);
    expect(((await run(second, "search_tasks", { query: "kept" })).tasks as unknown[])[0]).toMatchObject({ due: "2026-12-02", list: "Work" });
    expect(((await run(second, "search_tasks", { query: "roadmap" })).tasks as unknown[])[0]).toMatchObject({ status: "done" });
    expect(tasksApp.view(second.store.read((tx) => tx), second.environment).text).toMatch(/Work \(3 open\)[\s\S]*Kept task/);
    second.close();
  });
});
