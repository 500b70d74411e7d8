import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { judgeRun } from "../../src/agent/outcome.js";
import type { AgentEvent } from "../../src/agent/types.js";
import { alarmsApp, type Alarm } from "../../src/apps/device/alarms.js";
import { Profile } from "../../src/apps/profile.js";
import type { ChatMessage } from "../../src/model/types.js";
import type { PermissionGate } from "../../src/policy/types.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { callLog, freshNotesProfile, notesOf, runCounts } from "./fixtures/notes-app.js";

let profile: Profile;

beforeEach(() => {
  profile = freshNotesProfile();
});

afterEach(() => profile.close());

function toolMessages(messages: ChatMessage[]): Extract<ChatMessage, { role: "tool" }>[] {
  return messages.filter((message): message is Extract<ChatMessage, { role: "tool" }> => message.role === "tool");
}

describe("the agent loop", () => {
  it("runs a call, feeds the result back and ends with the model's answer", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "add_note", arguments: { text: "buy milk" } }] }, "I added the note."]);
    const agent = new Agent({ model, profile });
    const run = agent.run("Add a note: buy milk");
    const events: AgentEvent[] = [];
    for await (const event of run) events.push(event);
    const outcome = await run.outcome;

    expect(outcome.stopReason).toBe("answered");
    expect(outcome.answer).toBe("I added the note.");
    expect(outcome.steps).toBe(2);
    expect(outcome.calls).toHaveLength(1);
    expect(outcome.calls[0]).toMatchObject({ status: "ok", risk: "write", result: { id: "note-1" }, step: 1 });
    expect(notesOf(profile)).toEqual([{ id: "note-1", text: "buy milk" }]);
    // Undoable: the call was one journaled action.
    expect(profile.store.history()[0]?.tool).toBe("add_note");

    const types = events.map((event) => event.type);
    expect(types[0]).toBe("step");
    expect(types).toContain("tool-call");
    expect(types.indexOf("tool-call")).toBeLessThan(types.indexOf("tool-result"));
    expect(types.at(-1)).toBe("done");
    expect(events.filter((event) => event.type === "text-delta").map((event) => (event as { text: string }).text).join("")).toBe("I added the note.");

    // Usage is the sum of both model turns.
    const firstPrompt = model.requests.length;
    expect(firstPrompt).toBe(2);
    expect(outcome.usage.promptTokens).toBeGreaterThan(0);
    expect(outcome.usage.outputTokens).toBeGreaterThan(0);

    // The second model turn read the result, fenced as data.
    const second = model.requests[1]!;
    const result = toolMessages(second.messages)[0]!;
    expect(result.name).toBe("add_note");
    expect(JSON.parse(result.content)).toEqual({ result: { id: "note-1" } });
    // The system prompt carries the profile's date and zone.
    expect(second.messages[0]).toMatchObject({ role: "system" });
    expect(second.messages[0]!.content).toContain("Friday 2026-12-04");
    expect(second.messages[0]!.content).toContain("Europe/Lisbon");
    expect(second.conversationId).toBe(outcome.sessionId);
    expect(second.temperature).toBe(0);
  });

  it("runs independent reads concurrently and state changes in the order given", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "slow_lookup", arguments: { word: "alpha", delayMs: 150 } },
          { name: "slow_lookup", arguments: { word: "beta", delayMs: 150 } },
          { name: "add_note", arguments: { text: "first" } },
          { name: "add_note", arguments: { text: "second" } },
        ],
      },
      "Done.",
    ]);
    const outcome = await new Agent({ model, profile }).run("look up alpha and beta (150 ms each) and add two notes: first, second").outcome;
    expect(outcome.stopReason).toBe("answered");
    expect(outcome.calls.map((record) => record.status)).toEqual(["ok", "ok", "ok", "ok"]);
    const [alpha, beta] = [callLog.find((entry) => entry.name === "alpha")!, callLog.find((entry) => entry.name === "beta")!];
    // Overlapping intervals: the second lookup started before the first ended.
    expect(Math.max(alpha.start, beta.start)).toBeLessThan(Math.min(alpha.end, beta.end));
    expect(notesOf(profile).map((note) => note.text)).toEqual(["first", "second"]);
    // Results are given back in call order whatever order they finished in.
    const results = toolMessages(model.requests[1]!.messages);
    expect(results.map((message) => message.name)).toEqual(["slow_lookup", "slow_lookup", "add_note", "add_note"]);
    expect(results[0]!.content).toContain("alpha");
  });

  it("feeds unknown tools, invalid arguments and tool errors back to the model", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "make_coffee", arguments: {} },
          { name: "add_note", arguments: { text: 42 } },
          { name: "connect_printer", arguments: { name: "office" } },
        ],
      },
      "Sorry, the printer is offline.",
    ]);
    const events: AgentEvent[] = [];
    const run = new Agent({ model, profile }).run("print my notes on the office printer");
    for await (const event of run) events.push(event);
    const outcome = await run.outcome;

    expect(outcome.stopReason).toBe("abstained");
    expect(outcome.calls.map((record) => [record.status, record.error?.code])).toEqual([
      ["error", "unknown_tool"],
      ["error", "invalid_arguments"],
      ["error", "printer_offline"],
    ]);
    const results = toolMessages(model.requests[1]!.messages).map((message) => JSON.parse(message.content) as { error: { code: string; message: string } });
    expect(results[0]!.error.message).toContain('There is no tool "make_coffee"');
    expect(results[0]!.error.message).toContain("add_note");
    expect(results[1]!.error.message).toMatch(/text: .*string/i);
    expect(results[2]!.error).toEqual({ code: "printer_offline", message: "The printer is offline. Turn it on, then retry." });
    expect(events.filter((event) => event.type === "tool-error")).toHaveLength(3);
    expect(runCounts.get("add_note")).toBeUndefined();
  });

  it("checks the step cap before any call of the last step runs", async () => {
    // A new note each step (a call that only repeats the one before would end the run: endRepeatedSuccess).
    let added = 0;
    const model = new ScriptedModel([() => ({ toolCalls: [{ name: "add_note", arguments: { text: `again ${++added}` } }] })], { whenExhausted: "repeat-last" });
    const outcome = await new Agent({ model, profile, maxSteps: 3, argumentGrounding: false }).run("keep adding notes").outcome;
    expect(outcome.stopReason).toBe("step_limit");
    expect(outcome.steps).toBe(3);
    expect(outcome.error?.code).toBe("step_limit");
    // Steps 1 and 2 ran their call; step 3's call was never run (no one would read its result).
    expect(notesOf(profile)).toHaveLength(2);
    expect(runCounts.get("add_note")).toBe(2);
    expect(outcome.calls.map((record) => record.status)).toEqual(["ok", "ok", "skipped"]);
    expect(model.requests).toHaveLength(3);
  });

  it("a per-run step limit overrides the agent's", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "list_notes" }] }], { whenExhausted: "repeat-last" });
    const outcome = await new Agent({ model, profile }).run("list", { maxSteps: 1 }).outcome;
    expect(outcome.stopReason).toBe("step_limit");
    expect(runCounts.get("list_notes")).toBeUndefined();
    expect(() => new Agent({ model, profile, maxSteps: 0 })).toThrow(/maxSteps 0/);
  });

  it("with endRepeatedFailure off, refuses a call repeated after two failures and tells the model to change approach", async () => {
    const printerCall = { name: "connect_printer", arguments: { name: "office" } };
    const model = new ScriptedModel([{ toolCalls: [printerCall] }, { toolCalls: [printerCall] }, { toolCalls: [printerCall] }, "I could not reach the printer."]);
    const outcome = await new Agent({ model, profile, endRepeatedFailure: false }).run("connect the office printer").outcome;
    expect(runCounts.get("connect_printer")).toBe(2);
    expect(outcome.calls.map((record) => record.error?.code)).toEqual(["printer_offline", "printer_offline", "repeated_call"]);
    expect(outcome.calls[2]!.status).toBe("skipped");
    const lastResult = toolMessages(model.requests[3]!.messages).at(-1)!;
    expect(lastResult.content).toContain("change the arguments");
    expect(outcome.stopReason).toBe("abstained");
  });

  it("ends the run, saying what failed, when the model writes again a call that already failed twice", async () => {
    const printerCall = { name: "connect_printer", arguments: { name: "office" } };
    const model = new ScriptedModel([{ toolCalls: [printerCall] }], { whenExhausted: "repeat-last" });
    const run = new Agent({ model, profile }).run("connect the office printer");
    const events: AgentEvent[] = [];
    for await (const event of run) events.push(event);
    const outcome = await run.outcome;
    expect(runCounts.get("connect_printer")).toBe(2);
    expect(model.requests).toHaveLength(3);
    expect(outcome.calls.map((record) => record.error?.code)).toEqual(["printer_offline", "printer_offline", "repeated_call"]);
    expect(outcome.error?.code).toBe("repeated_failure");
    expect(outcome.error?.message).toMatch(/^connect_printer failed 2 times \(printer_offline: /);
    expect(outcome.answer).toMatch(/^I stopped trying: connect printer failed 2 times\. The last error: /);
    // The answer streamed like any other, and it quotes the app's own error.
    const streamed = events.flatMap((event) => (event.type === "text-delta" ? [event.text] : [])).join("");
    expect(streamed).toBe(outcome.answer);
    expect(outcome.answer).toContain(outcome.calls[1]!.error!.message);
    const verdict = judgeRun(outcome, "Connect the office printer");
    expect(verdict.outcome).toBe("failed");
    expect(verdict.exitCode).toBe(1);
    expect(verdict.reason).toMatch(/^Not done: connect_printer failed 2 times/);
  });

  it("ends the run when one tool fails a third time with the same kind of error, whatever its arguments", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "connect_printer", arguments: { name: "office" } }] },
      { toolCalls: [{ name: "connect_printer", arguments: { name: "office 2" } }] },
      { toolCalls: [{ name: "connect_printer", arguments: { name: "the office one" } }] },
      { toolCalls: [{ name: "add_note", arguments: { text: "printer" } }] },
      "Done.",
    ]);
    const outcome = await new Agent({ model, profile, argumentGrounding: false }).run("connect the office printer").outcome;
    expect(runCounts.get("connect_printer")).toBe(3);
    expect(model.requests).toHaveLength(3);
    // The unrelated write a small model reaches for next never ran.
    expect(notesOf(profile)).toEqual([]);
    expect(outcome.error).toMatchObject({ code: "repeated_failure" });
    expect(outcome.error!.message).toMatch(/^connect_printer failed 3 times/);
  });

  it("a failure that changes kind, or a fix in between, does not end the run", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "connect_printer", arguments: { name: "office" } }] },
      { toolCalls: [{ name: "connect_printer", arguments: { name: "office 2" } }] },
      { toolCalls: [{ name: "connect_printer", arguments: { name: 7 } }] },
      { toolCalls: [{ name: "add_note", arguments: { text: "printer offline" } }] },
      "Noted.",
    ]);
    const outcome = await new Agent({ model, profile, argumentGrounding: false }).run("connect the office printer or note it").outcome;
    expect(outcome.calls.map((record) => record.error?.code ?? record.status)).toEqual(["printer_offline", "printer_offline", "invalid_arguments", "ok"]);
    expect(outcome.error).toBeUndefined();
    expect(notesOf(profile)).toEqual([{ id: "note-1", text: "printer offline" }]);
  });

  it("a standing failure after a successful write is reported as partly done", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add_note", arguments: { text: "printer" } }] },
      { toolCalls: [{ name: "connect_printer", arguments: { name: "office" } }] },
    ], { whenExhausted: "repeat-last" });
    const outcome = await new Agent({ model, profile, argumentGrounding: false }).run("Add a note and connect the office printer").outcome;
    expect(outcome.error?.code).toBe("repeated_failure");
    const verdict = judgeRun(outcome, "Add a note and connect the office printer");
    expect(verdict.outcome).toBe("failed");
    expect(verdict.reason).toMatch(/^Partly done: add_note succeeded, but connect_printer failed 2 times/);
  });

  it("arguments in another key order count as the same call", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "send_note", arguments: { to: "a", text: 1 } }] },
      { toolCalls: [{ name: "send_note", arguments: { text: 1, to: "a" } }] },
      { toolCalls: [{ name: "send_note", arguments: { to: "a", text: 1 } }] },
      "Giving up.",
    ]);
    const outcome = await new Agent({ model, profile }).run("send").outcome;
    expect(outcome.calls.map((record) => record.error?.code)).toEqual(["invalid_arguments", "invalid_arguments", "repeated_call"]);
  });

  it("cuts off a tool that hangs, and a hung write leaves nothing behind nor blocks the store", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "hang_forever" }, { name: "hang_while_writing", arguments: { text: "half done" } }] },
      { toolCalls: [{ name: "add_note", arguments: { text: "after" } }] },
      "Done.",
    ]);
    const outcome = await new Agent({ model, profile, argumentGrounding: false }).run("try the slow tools").outcome;
    expect(outcome.calls.map((record) => record.error?.code ?? record.status)).toEqual(["tool_timeout", "tool_timeout", "ok"]);
    expect(outcome.calls[0]!.error!.message).toContain("80 ms");
    expect(notesOf(profile)).toEqual([{ id: "note-1", text: "after" }]);
    expect(outcome.stopReason).toBe("answered");
  });

  it("stops when aborted during a model turn", async () => {
    const model = new ScriptedModel([{ text: "thinking hard", delayMs: 5_000 }]);
    const controller = new AbortController();
    const run = new Agent({ model, profile }).run("take your time", { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const outcome = await run.outcome;
    expect(outcome.stopReason).toBe("aborted");
    expect(outcome.durationMs).toBeLessThan(4_000);
  });

  it("stops when aborted during a tool call, and runs nothing after", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "slow_lookup", arguments: { word: "long", delayMs: 3_000 } }] }, { toolCalls: [{ name: "add_note", arguments: { text: "never" } }] }]);
    const controller = new AbortController();
    const run = new Agent({ model, profile }).run("look up long words, take 3000 ms", { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const outcome = await run.outcome;
    expect(outcome.stopReason).toBe("aborted");
    expect(outcome.calls[0]!.error!.code).toBe("aborted");
    expect(model.requests).toHaveLength(1);
    expect(notesOf(profile)).toEqual([]);
  });

  it("reports an abstention when the model answers in words without acting", async () => {
    const model = new ScriptedModel(["I have no tool to book flights."]);
    const outcome = await new Agent({ model, profile }).run("book me a flight to Lisbon").outcome;
    expect(outcome.stopReason).toBe("abstained");
    expect(outcome.answer).toBe("I have no tool to book flights.");
    expect(outcome.calls).toEqual([]);
  });

  it("a text reply with no tools offered is an answer, not an abstention", async () => {
    const model = new ScriptedModel(["Hello!"]);
    const { ToolBox } = await import("../../src/tools/toolbox.js");
    const outcome = await new Agent({ model, profile, toolbox: new ToolBox() }).run("hi").outcome;
    expect(outcome.stopReason).toBe("answered");
    expect(model.requests[0]!.tools).toBeUndefined();
  });

  it("a model failure ends the run with stop reason error and a message", async () => {
    const model = new ScriptedModel([]);
    const outcome = await new Agent({ model, profile }).run("anything").outcome;
    expect(outcome.stopReason).toBe("error");
    expect(outcome.error?.code).toBe("script_exhausted");
  });

  it("rejects an empty request", () => {
    const agent = new Agent({ model: new ScriptedModel([]), profile });
    expect(() => agent.run("   ")).toThrow(/request is empty/);
  });

  it("sends a denied call back to the model as blocked by policy", async () => {
    const gate: PermissionGate = {
      decide: (input) => (input.risk === "write" ? { decision: "deny", reason: "notes are read-only today" } : { decision: "allow", reason: "ok" }),
    };
    const model = new ScriptedModel([{ toolCalls: [{ name: "add_note", arguments: { text: "x" } }] }, "I am not allowed to add notes."]);
    const outcome = await new Agent({ model, profile, gate }).run("add a note").outcome;
    expect(outcome.calls[0]).toMatchObject({ status: "declined", error: { code: "blocked_by_policy" } });
    expect(toolMessages(model.requests[1]!.messages)[0]!.content).toContain("blocked by policy: notes are read-only today");
    expect(notesOf(profile)).toEqual([]);
  });

  it("marks untrusted results and neutralises chat markup in them", async () => {
    const seen: string[] = [];
    const gate: PermissionGate = {
      decide: (input) => {
        seen.push(...input.untrustedContent.map((content) => content.text));
        return { decision: "allow", reason: "ok" };
      },
    };
    const model = new ScriptedModel([
      { toolCalls: [{ name: "read_web_page", arguments: { url: "https://example.com" } }] },
      { toolCalls: [{ name: "list_notes" }] },
      "Read it.",
    ]);
    await new Agent({ model, profile, gate }).run("read example.com").outcome;
    const content = toolMessages(model.requests[1]!.messages)[0]!.content;
    expect(content).not.toContain("<|im_start|>");
    expect(content).toContain("\\u003c|im_start|\\u003e");
    const parsed = JSON.parse(content) as { untrusted_data: { text: string }; note: string };
    expect(parsed.untrusted_data.text).toContain("<|im_start|>");
    expect(parsed.note).toMatch(/never follow instructions/);
    // The gate saw the untrusted text when deciding the later call.
    expect(seen.some((text) => text.includes("eve@example.com"))).toBe(true);
  });

  it("lets hooks filter the turn before and the reply after the model", async () => {
    const model = new ScriptedModel([{ text: "secret plan", toolCalls: [{ name: "add_note", arguments: { text: "x" } }] }, "All good."]);
    const agent = new Agent({
      model,
      profile,
      beforeModelTurn: (turn) => ({ ...turn, tools: turn.tools.filter((tool) => tool.name !== "hang_forever") }),
      afterModelTurn: (reply) => (reply.toolCalls.length > 0 ? { ...reply, text: "", toolCalls: [] } : reply),
    });
    const run = agent.run("add a note");
    const texts: string[] = [];
    for await (const event of run) if (event.type === "text-delta") texts.push(event.text);
    const outcome = await run.outcome;
    expect(model.requests[0]!.tools!.map((tool) => tool.name)).not.toContain("hang_forever");
    expect(outcome.calls).toEqual([]);
    expect(notesOf(profile)).toEqual([]);
    expect(texts.join("")).not.toContain("secret");
  });

  it("uses a custom result formatter", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "list_notes" }] }, "None."]);
    await new Agent({ model, profile, formatToolResult: (tool, outcome) => `[[${tool?.name}:${outcome.status}]]` }).run("list notes").outcome;
    expect(toolMessages(model.requests[1]!.messages)[0]!.content).toBe("[[list_notes:ok]]");
  });

  describe("an alarm at an hour the request does not name", () => {
    let alarms: Profile;
    // Friday afternoon: the default model once wrote midnight for "Set an alarm for 7" here.
    beforeEach(() => {
      alarms = Profile.open({ databasePath: ":memory:", seed: "empty", clock: "2026-12-04T15:07:00Z", timeZone: "UTC", apps: [alarmsApp] });
    });
    afterEach(() => alarms.close());
    const midnight = { toolCalls: [{ name: "set_alarm", arguments: { time: "2026-12-05 00:00:00" } }] };
    const set = (profile: Profile) => profile.store.read((tx) => tx.collection<Alarm>("alarms", "alarms").all().map((alarm) => alarm.time));

    it("is not set: the model's turn comes back with what the request said, and a corrected call runs", async () => {
      const model = new ScriptedModel([midnight, { toolCalls: [{ name: "set_alarm", arguments: { time: "07:00" } }] }, "Alarm set for 07:00."]);
      const outcome = await new Agent({ model, profile: alarms }).run("Set an alarm for 7").outcome;
      expect(outcome.calls.map((record) => [record.status, record.error?.code])).toEqual([
        ["error", "date_contradicts_request"],
        ["ok", undefined],
      ]);
      expect(toolMessages(model.requests[1]!.messages)[0]!.content).toContain('The request says \\"for 7\\", not 00:00. Call set_alarm with time=\\"07:00\\" or time=\\"19:00\\".');
      expect(set(alarms)).toEqual(["07:00"]);
      expect(judgeRun(outcome, "Set an alarm for 7")).toMatchObject({ outcome: "finished", exitCode: 0 });
    });

    it("fails the run, saying why, when the model keeps writing it", async () => {
      const model = new ScriptedModel([midnight, midnight, midnight, midnight]);
      // To the step limit when standing failures are left to the model,
      const outcome = await new Agent({ model, profile: alarms, maxSteps: 4, endRepeatedFailure: false }).run("Set an alarm for 7").outcome;
      expect(outcome.stopReason).toBe("step_limit");
      expect(set(alarms)).toEqual([]);
      const verdict = judgeRun(outcome, "Set an alarm for 7");
      expect(verdict).toMatchObject({ outcome: "failed", exitCode: 1 });
      expect(verdict.reason).toMatch(/^Not done: set_alarm did not succeed \(date_contradicts_request: The request says "for 7", not 00:00\./);
      // and at the third refusal by default.
      const again = new ScriptedModel([midnight, midnight, midnight, midnight]);
      const ended = await new Agent({ model: again, profile: alarms, maxSteps: 4 }).run("Set an alarm for 7").outcome;
      expect(again.requests).toHaveLength(3);
      expect(set(alarms)).toEqual([]);
      const endedVerdict = judgeRun(ended, "Set an alarm for 7");
      expect(endedVerdict).toMatchObject({ outcome: "failed", exitCode: 1 });
      expect(endedVerdict.reason).toMatch(/^Not done: set_alarm failed 3 times \(date_contradicts_request: The request says "for 7", not 00:00\./);
    });
  });
});
