import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent, AgentOutcome } from "../../src/agent/types.js";
import type { Profile } from "../../src/apps/profile.js";
import type { ChatMessage } from "../../src/model/types.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { notesOf, openNotesProfile, outboxOf, runCounts } from "./fixtures/notes-app.js";

const run = promisify(execFile);
let directory: string;
let profile: Profile;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "botpsy-agent-"));
  profile = openNotesProfile(join(directory, "profile.db"), directory);
  runCounts.clear();
});

afterEach(() => {
  profile.close();
  rmSync(directory, { recursive: true, force: true });
});

const sendCall = { name: "send_note", arguments: { to: "frank@example.com", text: "See you at 3" } };

describe("approvals", () => {
  it("pauses a call that needs approval, with a dry-run preview, and runs nothing", async () => {
    const model = new ScriptedModel([{ toolCalls: [sendCall] }]);
    const agentRun = new Agent({ model, profile }).run("send Frank: see you at 3");
    const events: AgentEvent[] = [];
    for await (const event of agentRun) events.push(event);
    const outcome = await agentRun.outcome;

    expect(outcome.stopReason).toBe("awaiting_approval");
    expect(outcome.pendingApprovals).toHaveLength(1);
    const request = outcome.pendingApprovals[0]!;
    expect(request).toMatchObject({ risk: "send", call: { name: "send_note" }, reason: "send calls need your approval" });
    // The approval request carries the policy's risk-aware sentence (recipient and text), from a rolled-back dry run.
    expect(request.preview).toBe("Will send to frank@example.com the text “See you at 3”");
    expect(request.preview).toContain("frank@example.com");
    expect(events.some((event) => event.type === "approval-request")).toBe(true);
    // The dry run was rolled back: nothing was sent.
    expect(outboxOf(profile)).toEqual([]);
    expect(runCounts.get("send_note")).toBe(1);
    expect(profile.store.history()).toEqual([]);
  });

  it("resumes in a new process and runs the approved call", async () => {
    const model = new ScriptedModel([{ toolCalls: [sendCall] }]);
    const paused = await new Agent({ model, profile }).run("send Frank: see you at 3").outcome;
    const requestId = paused.pendingApprovals[0]!.id;
    profile.close();

    const child = await run(
      process.execPath,
      ["--import", "tsx", resolve("test/agent/fixtures/resume-child.ts"), join(directory, "profile.db"), paused.runId, JSON.stringify([{ requestId, approved: true }])],
      { cwd: resolve("."), timeout: 60_000 },
    );
    const result = JSON.parse(child.stdout) as { outcome: AgentOutcome; eventTypes: string[]; modelSaw: ChatMessage[] };
    expect(result.outcome.stopReason).toBe("answered");
    expect(result.outcome.runId).toBe(paused.runId);
    expect(result.outcome.answer).toBe("Sent it to Frank.");
    expect(result.outcome.calls.map((record) => record.status)).toEqual(["ok"]);
    expect(result.outcome.steps).toBe(2);
    expect(result.eventTypes).toEqual(expect.arrayContaining(["tool-call", "tool-result", "step", "done"]));
    // The model in the new process saw the whole turn: request, its own call, the result.
    expect(result.modelSaw.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"]);

    profile = openNotesProfile(join(directory, "profile.db"), directory);
    expect(outboxOf(profile)).toEqual([{ id: "sent-1", to: "frank@example.com", text: "See you at 3" }]);
    // The same run cannot be resumed twice.
    const agent = new Agent({ model: new ScriptedModel([]), profile });
    expect(() => agent.resume(paused.runId, [{ requestId, approved: true }])).toThrow(/not waiting for approval/);
  }, 90_000);

  it("tells the model the user declined, and the session continues", async () => {
    const model = new ScriptedModel([{ toolCalls: [sendCall] }, "OK, I did not send it."]);
    const agent = new Agent({ model, profile });
    const paused = await agent.run("send Frank: see you at 3").outcome;
    const resumed = await agent.resume(paused.runId, [{ requestId: paused.pendingApprovals[0]!.id, approved: false }]).outcome;
    expect(resumed.stopReason).toBe("answered");
    expect(resumed.calls[0]).toMatchObject({ status: "declined", error: { code: "declined_by_user" } });
    const result = model.requests[1]!.messages.at(-1)!;
    expect(result.content).toContain("The user declined");
    expect(outboxOf(profile)).toEqual([]);
  });

  it("runs the allowed calls of a paused turn only after the decision, in order", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "add_note", arguments: { text: "draft" } }, sendCall] }, "Done."]);
    const agent = new Agent({ model, profile });
    const paused = await agent.run("write a draft note and send Frank: see you at 3").outcome;
    expect(notesOf(profile)).toEqual([]);
    const resumed = await agent.resume(paused.runId, [{ requestId: paused.pendingApprovals[0]!.id, approved: true }]).outcome;
    expect(resumed.calls.map((record) => [record.call.name, record.status])).toEqual([
      ["add_note", "ok"],
      ["send_note", "ok"],
    ]);
    expect(notesOf(profile)).toHaveLength(1);
  });

  it("remembers a session-wide approval for later calls of that tool in the session only", async () => {
    const model = new ScriptedModel([{ toolCalls: [sendCall] }, "Sent.", { toolCalls: [sendCall] }, "Sent again.", { toolCalls: [sendCall] }]);
    const agent = new Agent({ model, profile });
    const paused = await agent.run("send Frank: see you at 3", { sessionId: "kitchen" }).outcome;
    await agent.resume(paused.runId, [{ requestId: paused.pendingApprovals[0]!.id, approved: true, scope: "session" }]).outcome;
    const second = await agent.run("send it again", { sessionId: "kitchen" }).outcome;
    expect(second.stopReason).toBe("answered");
    expect(outboxOf(profile)).toHaveLength(2);
    const otherSession = await agent.run("send Frank once more: see you at 3", { sessionId: "garden" }).outcome;
    expect(otherSession.stopReason).toBe("awaiting_approval");
  });

  it("rejects decisions that do not match the pending requests", async () => {
    const model = new ScriptedModel([{ toolCalls: [sendCall] }]);
    const agent = new Agent({ model, profile });
    const paused = await agent.run("send Frank: see you at 3", { sessionId: "s1" }).outcome;
    expect(() => agent.resume(paused.runId, [])).toThrow(/Decide every request/);
    expect(() => agent.resume(paused.runId, [{ requestId: "nope", approved: true }])).toThrow(/no approval request "nope"/);
    expect(() => agent.resume("run-missing", [])).toThrow(/There is no run/);
    // A new request in a session with a paused run is refused until the run is settled.
    expect(() => agent.run("something else", { sessionId: "s1" })).toThrow(/waiting for approval/);
    agent.abandon(paused.runId);
    model.push("Fine.");
    expect((await agent.run("something else", { sessionId: "s1" }).outcome).stopReason).toBe("abstained");
  });
});

describe("sessions", () => {
  it("continues a conversation: earlier turns reach the model, with the same conversation id", async () => {
    const model = new ScriptedModel(["Hello Ana.", "Your name is Ana."]);
    const agent = new Agent({ model, profile });
    const first = await agent.run("My name is Ana.").outcome;
    const second = await agent.run("What is my name?", { sessionId: first.sessionId }).outcome;
    expect(second.sessionId).toBe(first.sessionId);
    const messages = model.requests[1]!.messages;
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(messages[1]!.content).toBe("My name is Ana.");
    expect(messages[2]!.content).toBe("Hello Ana.");
    expect(model.requests[1]!.conversationId).toBe(first.sessionId);
    expect(agent.sessions.turns(first.sessionId)).toHaveLength(2);
  });

  it("compacts finished tool chains of earlier turns into one line each", async () => {
    const turns = 6;
    const script = [];
    for (let index = 0; index < turns; index++) {
      script.push({ toolCalls: [{ name: "add_note", arguments: { text: `note number ${index} with some longer text to make results bigger` } }, { name: "list_notes" }] });
      script.push(`Added note ${index}.`);
    }
    const compacted = new ScriptedModel(script);
    const whole = new ScriptedModel(script);
    const compactAgent = new Agent({ model: compacted, profile });
    const sessionId = "long";
    for (let index = 0; index < turns; index++) await compactAgent.run(`add note ${index}`, { sessionId }).outcome;

    const otherProfile = openNotesProfile();
    const wholeAgent = new Agent({ model: whole, profile: otherProfile, compaction: false });
    for (let index = 0; index < turns; index++) await wholeAgent.run(`add note ${index}`, { sessionId }).outcome;
    otherProfile.close();

    const lastCompacted = compacted.requests.at(-2)!;
    const lastWhole = whole.requests.at(-2)!;
    // Earlier turns: user + one assistant summary each, no tool messages.
    const earlier = lastCompacted.messages.slice(1, 1 + (turns - 1) * 2);
    expect(earlier.every((message) => message.role === "user" || message.role === "assistant")).toBe(true);
    expect(earlier[1]!.content).toContain('add_note({"text":"note number 0');
    expect(earlier[1]!.content).toContain('"id":"note-1"');
    expect(earlier[1]!.content).toContain("Added note 0.");
    // The current turn stays whole.
    expect(lastCompacted.messages.at(-1)!.role).toBe("user");
    const size = (messages: ChatMessage[]): number => JSON.stringify(messages).length;
    expect(size(lastCompacted.messages)).toBeLessThan(size(lastWhole.messages) * 0.7);
    // Each earlier turn is bounded, however long its results were.
    for (const message of earlier) expect(message.content.length).toBeLessThan(600);
  });
});
