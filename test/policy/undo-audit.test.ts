import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeEach, describe, expect, it } from "vitest";
import { Profile } from "../../src/apps/profile.js";
import { AuditLog } from "../../src/policy/audit.js";
import { makeTempDir } from "../support/temp-dir.js";

const run = promisify(execFile);
let home: string;

beforeEach(() => {
  home = makeTempDir("botpsy-undo-audit-");
});

async function botpsy(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], { env: { ...process.env, BOTPSY_HOME: home, BOTPSY_PROFILE: "default" } });
}

describe("botpsy undo", () => {
  it("records each undo in the hash-chained audit log", async () => {
    const profile = Profile.open({ home, seed: "demo", clock: "2026-12-01T09:00:00Z", timeZone: "Europe/Lisbon" });
    try {
      const addTask = profile.tools().find((tool) => tool.name === "add_task")!;
      await profile.runTool(addTask, { title: "Water the plants" });
      await profile.runTool(addTask, { title: "Call the plumber" });
    } finally {
      profile.close();
    }

    const { stdout } = await botpsy("undo", "--count", "2");
    expect(stdout).toMatch(/Reverted #\d+ add_task\(\{"title":"Call the plumber"\}\)/);
    expect(stdout).toMatch(/Reverted #\d+ add_task\(\{"title":"Water the plants"\}\)/);

    const reopened = Profile.open({ home });
    try {
      const audit = new AuditLog(reopened.store);
      const undos = audit.entries().filter((entry) => entry.kind === "undo");
      expect(undos.map((entry) => [entry.tool, (entry.data as { arguments: { title: string } }).arguments.title])).toEqual([
        ["add_task", "Call the plumber"],
        ["add_task", "Water the plants"],
      ]);
      expect(audit.verify()).toMatchObject({ ok: true, checked: 2 });
    } finally {
      reopened.close();
    }
    const { stdout: auditText } = await botpsy("audit");
    expect(auditText).toMatch(/undone add_task/);
  }, 60_000);

  it("records nothing when there is nothing to undo", async () => {
    Profile.open({ home, seed: "empty" }).close();
    const { stdout } = await botpsy("undo");
    expect(stdout).toBe("Nothing to undo.\n");
    const reopened = Profile.open({ home });
    try {
      expect(new AuditLog(reopened.store).entries()).toEqual([]);
    } finally {
      reopened.close();
    }
  }, 60_000);
});
