import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent } from "../../src/agent/types.js";
import type { Profile } from "../../src/apps/profile.js";
import type { PermissionGate } from "../../src/policy/types.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { approvalAnswerSource, LineReader, pausedMessage } from "../../src/cli/approval-input.js";
import { decideApprovals } from "../../src/cli/commands/run.js";
import { openProfileAnnounced } from "../../src/cli/first-run.js";
import { openNotesProfile, runCounts } from "./fixtures/notes-app.js";

let directory: string;
let profile: Profile;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "botpsy-approvals-"));
  profile = openNotesProfile(join(directory, "profile.db"), directory);
  runCounts.clear();
});

afterEach(() => {
  profile.close();
  rmSync(directory, { recursive: true, force: true });
});

/** A gate that asks the user about every call, so any call could be put up for approval. */
const askEverything: PermissionGate = { decide: () => ({ decision: "ask", reason: "every call needs approval here" }) };

describe("approvals that make sense", () => {
  it("sends a call whose dry run fails back to the model as that failure, never to the user", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "connect_printer", arguments: { name: "office" } }] }, "The printer is offline."]);
    const agentRun = new Agent({ model, profile, gate: askEverything }).run("connect the office printer");
    const events: AgentEvent[] = [];
    for await (const event of agentRun) events.push(event);
    const outcome = await agentRun.outcome;
    expect(outcome.stopReason).not.toBe("awaiting_approval");
    expect(events.some((event) => event.type === "approval-request")).toBe(false);
    expect(outcome.calls).toMatchObject([{ status: "error", error: { code: "printer_offline" } }]);
    // Only the dry run ran the tool: the failure was not run a second time for real.
    expect(runCounts.get("connect_printer")).toBe(1);
    // The model read the failure and answered.
    expect(model.requests[1]?.messages.some((message) => message.role === "tool" && message.content.includes("printer is offline"))).toBe(true);
  });

  it("takes approval answers from a pipe, and pauses resumably once the input has ended", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "send_note", arguments: { to: "frank@example.com", text: "hi" } }] }]);
    const paused = await new Agent({ model, profile }).run("send Frank: hi").outcome;
    expect(paused.stopReason).toBe("awaiting_approval");
    const prompts: string[] = [];
    const piped = new LineReader(Readable.from(["y\n"]));
    const ask = approvalAnswerSource(piped, (text) => prompts.push(text));
    expect(await decideApprovals(paused.pendingApprovals, { ask })).toEqual([{ requestId: paused.pendingApprovals[0]!.id, approved: true }]);
    expect(prompts[0]).toContain("[y/N]");
    // The pipe has no more lines: no decision, the run stays paused.
    expect(await decideApprovals(paused.pendingApprovals, { ask })).toBeUndefined();
    piped.dispose();
    const message = pausedMessage(paused);
    expect(message).toContain(`botpsy resume ${paused.runId} --approve yes`);
    expect(message).toContain("send_note");
  });
});

describe("first run", () => {
  it("says which profile was created and where it lives, once", () => {
    const home = join(directory, "home");
    const saved = { home: process.env.BOTPSY_HOME, profile: process.env.BOTPSY_PROFILE };
    process.env.BOTPSY_HOME = home;
    process.env.BOTPSY_PROFILE = "first-run";
    try {
      const notes: string[] = [];
      openProfileAnnounced({ write: (text) => notes.push(text) }).close();
      expect(notes.join("")).toContain(`created the profile "first-run" at ${join(home, "profiles", "first-run.db")}`);
      openProfileAnnounced({ write: (text) => notes.push(text) }).close();
      expect(notes).toHaveLength(1);
    } finally {
      if (saved.home === undefined) delete process.env.BOTPSY_HOME;
      else process.env.BOTPSY_HOME = saved.home;
      if (saved.profile === undefined) delete process.env.BOTPSY_PROFILE;
      else process.env.BOTPSY_PROFILE = saved.profile;
    }
  });
});
