import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { CallEnvironment } from "../../src/agent/call-execution.js";
import { planCalls, unknownToolMessage, userTextOf } from "../../src/agent/call-planning.js";
import { executePlans, recordProvenance } from "../../src/agent/execution.js";
import { MarkupFilter } from "../../src/agent/final-answer.js";
import { playModelTurn } from "../../src/agent/model-turn.js";
import { echoesEarlierCall, RepeatedFailureGuard } from "../../src/agent/repeated-calls.js";
import { reachedStepLimit, repeatsSucceededCalls, resolveFinalAnswer, skipCallsAtStepLimit, uniqueCallIds } from "../../src/agent/resolution.js";
import { applyDecisions, checkDecisions, DECLINED_MESSAGE } from "../../src/agent/resumption.js";
import { createRunState, provenanceOf, type RunState } from "../../src/agent/run-state.js";
import { continuationChoice, firstTurnChoice, heldTurnForms, prepareFirstTurn, pruneTurnArguments, recoveryChoice, requestActions, requestParts, resumeChoice, selectedTools } from "../../src/agent/turn-preparation.js";
import type { AgentEvent, CallRecord } from "../../src/agent/types.js";
import type { Profile } from "../../src/apps/profile.js";
import type { ToolCall, ToolSpec } from "../../src/model/types.js";
import type { GateInput, PermissionGate, RunContext, ToolResultFormatter } from "../../src/policy/types.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { defineTool, ToolError, toolSpec, type Tool } from "../../src/tools/tool.js";
import { ToolBox } from "../../src/tools/toolbox.js";
import { callLog, freshNotesProfile, notesTools } from "./fixtures/notes-app.js";

let profile: Profile;

beforeEach(() => {
  profile = freshNotesProfile();
});

afterEach(() => profile.close());

function state(request = "add a note: milk", maxSteps = 10): RunState {
  return createRunState({ runId: "run-1", sessionId: "session-1", request, maxSteps });
}

function call(name: string, args: Record<string, unknown> = {}, id = `id-${name}`): ToolCall {
  return { id, name, arguments: args };
}

function environment(): CallEnvironment {
  return { profile, sessionId: "session-1", signal: new AbortController().signal };
}

/** A gate that answers from a table by tool name and remembers what it was asked. */
class TableGate implements PermissionGate {
  readonly inputs: GateInput[] = [];
  constructor(private readonly table: Record<string, "allow" | "ask" | "deny">) {}
  decide(input: GateInput) {
    this.inputs.push(input);
    const decision = this.table[input.call.name] ?? "allow";
    return { decision, reason: `${decision} by table` };
  }
}

describe("turn preparation", () => {
  const wide = defineTool({
    name: "set_alarm",
    description: "Set an alarm.",
    input: z.object({ time: z.string(), label: z.string().optional().describe("A name for the alarm"), sound: z.string().optional() }),
    risk: "write",
    run: () => ({}),
  });

  it("prunes optional parameters the words have nothing for, on the first turn only unless told otherwise", () => {
    const specs = [toolSpec(wide)];
    const first = pruneTurnArguments(specs, "set an alarm for 7", 1, undefined);
    expect(Object.keys((first[0]!.parameters as { properties: object }).properties)).toEqual(["time"]);
    expect(pruneTurnArguments(specs, "set an alarm for 7", 2, undefined)).toBe(specs);
    expect(pruneTurnArguments(specs, "set an alarm for 7", 2, { turns: "all" })[0]!.parameters).not.toEqual(specs[0]!.parameters);
    expect(pruneTurnArguments(specs, "set an alarm for 7", 2, { turns: "recovery" })).toBe(specs);
    expect(pruneTurnArguments(specs, "set an alarm for 7", 1, false)).toBe(specs);
  });

  it("prunes a turn held to a call after a failure against the request, bringing back only the parameters an error names that the call left out", () => {
    const specs = [toolSpec(wide)];
    const failedCall = (args: Record<string, unknown>, code: string, message: string): CallRecord => ({
      call: { id: "c1", name: "set_alarm", arguments: args },
      risk: "write",
      status: "error",
      error: { code, message },
      durationMs: 1,
      step: 1,
    });
    const names = (forms: ToolSpec[]) => Object.keys((forms[0]!.parameters as { properties: object }).properties);
    // An invented value that failed cannot be written again; an error's ordinary words ("a name") bring nothing back.
    expect(names(heldTurnForms(specs, "set an alarm for 7", [failedCall({ time: "7", sound: "0" }, "invalid_sound", 'sound="0" is not a sound; give it a name.')]))).toEqual(["time"]);
    // A parameter the error asks for, which the call did not carry, is the fix.
    expect(names(heldTurnForms(specs, "set an alarm for 7", [failedCall({ time: "7" }, "duplicate", "An alarm at 07:00 exists: give a label to tell them apart.")]))).toEqual(["time", "label"]);
    // What the request has words for stays.
    expect(names(heldTurnForms(specs, "set an alarm for 7 called gym, name it Gym", [failedCall({ time: "x" }, "invalid_time", "time names no time of day.")]))).toEqual(["time", "label"]);
  });

  it("offers the tools already called in the run and those find_tools loaded", () => {
    const toolbox = new ToolBox(notesTools);
    const run = state("list my notes");
    run.loadedTools.push("send_note");
    expect(selectedTools(toolbox, run).map((spec) => spec.name)).toEqual(notesTools.map((tool) => tool.name));
  });

  it("routes the first turn: names a dominant tool, keeps the caller's choice, narrows a forced turn", () => {
    const specs: ToolSpec[] = notesTools.map(toolSpec);
    expect(firstTurnChoice("add a note", specs, {}).toolChoice).toEqual({ name: "add_note" });
    expect(firstTurnChoice("add a note", specs, { firstStepToolChoice: "auto" }).toolChoice).toBe("auto");
    expect(firstTurnChoice("add a note", specs, { generationToolChoice: "none" }).toolChoice).toBe("none");
    const free = firstTurnChoice("what is the meaning of life", specs, {});
    expect(free.tools).toBe(specs);
    // Only the router's own forced choice is marked routed: a forced-call floor may release that one, never a caller's.
    expect(firstTurnChoice("add a note", specs, {}).routed).toBe(true);
    expect(firstTurnChoice("add a note", specs, { firstStepToolChoice: "required" }).routed).toBeUndefined();
    expect(firstTurnChoice("add a note", specs, { generationToolChoice: "required" }).routed).toBeUndefined();
    expect(free.routed).toBeUndefined();
  });

  it("prepares a first turn for a caller with its own specs, as the agent's options say", () => {
    const specs = [toolSpec(wide)];
    const prepared = prepareFirstTurn("set an alarm for 7", specs, {});
    expect(prepared.toolChoice).toEqual({ name: "set_alarm" });
    expect(Object.keys((prepared.tools[0]!.parameters as { properties: object }).properties)).toEqual(["time"]);
    const agent = new Agent({ model: new ScriptedModel([]), profile, argumentPruning: false });
    expect(agent.prepareFirstTurn("set an alarm for 7", specs).tools).toEqual(specs);
  });
});

describe("argument pruning in the call only (scope: call)", () => {
  const alarm = defineTool({
    name: "set_alarm",
    description: "Set an alarm.",
    input: z.object({ time: z.string(), label: z.string().optional().describe("A name for the alarm"), sound: z.string().optional() }),
    risk: "write",
    run: () => ({ set: true }),
  });
  const properties = (spec: ToolSpec | undefined): string[] => Object.keys((spec?.parameters as { properties: object }).properties);

  async function requestsOf(argumentPruning: { scope: "prompt" | "call" }) {
    const model = new ScriptedModel([{ toolCalls: [{ name: "set_alarm", arguments: { time: "07:00" } }] }, "Set for 7."]);
    const agent = new Agent({ model, profile, toolbox: new ToolBox([alarm]), gate: new TableGate({}), argumentPruning });
    expect((await agent.run("set an alarm for 7").outcome).stopReason).toBe("answered");
    return model.requests;
  }

  it("documents every parameter on every turn, so the prompt stays the same, and prunes what the first call may hold", async () => {
    const [first, second] = await requestsOf({ scope: "call" });
    expect(properties(first!.tools?.[0])).toEqual(["time", "label", "sound"]);
    expect(second!.tools).toEqual(first!.tools);
    expect(properties(first!.callableTools?.[0])).toEqual(["time"]);
    expect(second!.callableTools).toBeUndefined();
  });

  it("with scope prompt, prunes the prompt's tool list on the first turn (which then differs from the next turn's)", async () => {
    const [first, second] = await requestsOf({ scope: "prompt" });
    expect(properties(first!.tools?.[0])).toEqual(["time"]);
    expect(properties(second!.tools?.[0])).toEqual(["time", "label", "sound"]);
    expect(first!.callableTools).toBeUndefined();
  });
});

describe("recovery after a failed call (recoveryRouting)", () => {
  const specs: ToolSpec[] = ["set_wifi", "download_file", "list_files"].map((name) => ({ name, description: name, parameters: { type: "object", properties: {} } }));
  const failed = (name: string, code: string, message: string, step = 1): CallRecord => ({ call: call(name, {}), risk: "write", status: "error", error: { code, message }, durationMs: 1, step });
  const on = {};
  const resume = { resumeAfterRecovery: true };

  it("holds the next turn to the tool the error names, else to the failed tool again", () => {
    expect(recoveryChoice([failed("download_file", "wifi_off", "Wi-Fi is off. Turn it on with set_wifi, then try again.")], 2, specs, on)).toEqual({ name: "set_wifi" });
    expect(recoveryChoice([failed("download_file", "invalid_arguments", "url must be a web address.")], 2, specs, on)).toEqual({ name: "download_file" });
    // Two tools named: the failed one again, with the error in view.
    expect(recoveryChoice([failed("download_file", "no_space", "Make room with list_files and set_wifi.")], 2, specs, on)).toEqual({ name: "download_file" });
    // The tool that fixes it is not offered this turn: find it first.
    const withFinder = [...specs, { name: "find_tools", description: "Find tools.", parameters: { type: "object", properties: {} } }];
    const known = (name: string): boolean => name === "empty_trash";
    expect(recoveryChoice([failed("download_file", "no_space", "Storage is full: free space with empty_trash.")], 2, withFinder, on, known)).toEqual({ name: "find_tools" });
    expect(recoveryChoice([failed("download_file", "no_space", "Storage is full: free space with empty_trash.")], 2, specs, on, known)).toEqual({ name: "download_file" });
  });

  it("leaves the turn free when it is off, after a success, a decline, a timeout, or too many failures", () => {
    const wifi = failed("download_file", "wifi_off", "Turn it on with set_wifi.");
    expect(recoveryChoice([wifi], 2, specs, { recoveryRouting: false })).toBeUndefined();
    expect(recoveryChoice([wifi], 2, specs, { ...on, generationToolChoice: "none" })).toBeUndefined();
    expect(recoveryChoice([wifi, { ...wifi, status: "ok", error: undefined }], 2, specs, on)).toBeUndefined();
    expect(recoveryChoice([{ ...wifi, status: "declined", error: { code: "blocked_by_policy", message: "set_wifi" } }], 2, specs, on)).toBeUndefined();
    expect(recoveryChoice([failed("download_file", "tool_timeout", "set_wifi")], 2, specs, on)).toBeUndefined();
    expect(recoveryChoice([failed("x", "a", "m", 1), failed("x", "a", "m", 2), failed("download_file", "a", "set_wifi", 3)], 4, specs, on)).toBeUndefined();
    expect(recoveryChoice([failed("gone_tool", "unknown_tool", "There is no tool.")], 2, specs, on)).toBeUndefined();
  });

  it("after a fix worked, holds the next turn to the failed tool (resumeChoice)", () => {
    const wifi = failed("download_file", "wifi_off", "Wi-Fi is off. Turn it on with set_wifi.");
    const ok = (name: string, step: number): CallRecord => ({ call: call(name, {}), risk: "write", status: "ok", durationMs: 1, step });
    expect(resumeChoice([wifi, ok("set_wifi", 2)], 3, specs, resume)).toEqual({ name: "download_file" });
    // A search, then the tool it found: two steps of fixes.
    expect(resumeChoice([wifi, ok("find_tools", 2), ok("set_wifi", 3)], 4, specs, resume)).toEqual({ name: "download_file" });
    // Only a search so far: the next turn must use what it found.
    expect(resumeChoice([wifi, ok("find_tools", 2)], 3, specs, resume)).toBe("required");
  });

  it("leaves the turn free once the failed tool ran again, after a failed fix, a late fix, a decline, or when off", () => {
    const wifi = failed("download_file", "wifi_off", "Wi-Fi is off. Turn it on with set_wifi.");
    const ok = (name: string, step: number): CallRecord => ({ call: call(name, {}), risk: "write", status: "ok", durationMs: 1, step });
    expect(resumeChoice([wifi, ok("set_wifi", 2), ok("download_file", 3)], 4, specs, resume)).toBeUndefined();
    expect(resumeChoice([wifi, failed("set_wifi", "x", "y", 2)], 3, specs, resume)).toBeUndefined();
    expect(resumeChoice([wifi, ok("list_files", 2), ok("list_files", 3), ok("set_wifi", 4)], 5, specs, resume)).toBeUndefined();
    expect(resumeChoice([{ ...wifi, status: "declined" }, ok("set_wifi", 2)], 3, specs, resume)).toBeUndefined();
    expect(resumeChoice([failed("download_file", "tool_timeout", "set_wifi"), ok("set_wifi", 2)], 3, specs, resume)).toBeUndefined();
    expect(resumeChoice([wifi, ok("set_wifi", 2)], 3, specs, {})).toBeUndefined();
    expect(resumeChoice([wifi, ok("set_wifi", 2)], 3, specs, { ...resume, recoveryRouting: false })).toBeUndefined();
    expect(resumeChoice([wifi, ok("set_wifi", 2)], 3, specs, { ...resume, generationToolChoice: "none" })).toBeUndefined();
    // The failed tool is not offered any more.
    expect(resumeChoice([wifi, ok("set_wifi", 2)], 3, specs.slice(0, 1), resume)).toBeUndefined();
  });

  it("makes the agent's next turn call the named tool, then the failed one again once the fix worked", async () => {
    let online = false;
    const download = defineTool({
      name: "download_file",
      description: "Download a file.",
      input: z.object({ url: z.string() }),
      risk: "write",
      run: () => {
        if (!online) throw new ToolError("wifi_off", "Wi-Fi is off. Turn it on with set_wifi, then download again.");
        return { saved: "a" };
      },
    });
    const wifi = defineTool({
      name: "set_wifi",
      description: "Turn Wi-Fi on or off.",
      input: z.object({ on: z.boolean() }),
      risk: "settings",
      run: ({ on }) => {
        online = on;
        return { on };
      },
    });
    const fetchA = { toolCalls: [{ name: "download_file", arguments: { url: "https://example.com/a" } }] };
    const model = new ScriptedModel([fetchA, { toolCalls: [{ name: "set_wifi", arguments: { on: true } }] }, fetchA, "Downloaded."]);
    const agent = new Agent({ model, profile, toolbox: new ToolBox([download, wifi]), gate: new TableGate({}), resumeAfterRecovery: true });
    const outcome = await agent.run("download https://example.com/a").outcome;
    expect(model.requests[1]!.toolChoice).toEqual({ name: "set_wifi" });
    expect(model.requests[2]!.toolChoice).toEqual({ name: "download_file" });
    expect(model.requests[3]!.toolChoice ?? "auto").toBe("auto");
    expect(outcome.calls.map((record) => `${record.call.name}:${record.status}`)).toEqual(["download_file:error", "set_wifi:ok", "download_file:ok"]);
  });
});

describe("continuation routing: the parts of a request not served yet", () => {
  const simple = (name: string, description: string): Tool =>
    defineTool({ name, description, input: z.object({ time: z.string().optional() }), risk: "write", run: () => ({ done: name }) });
  const appTools = [
    simple("pause_music", "Pause the music that is playing."),
    simple("set_alarm", "Set an alarm at a time of day."),
    simple("list_alarms", "List the alarms."),
    simple("get_weather", "Weather forecast for a place and a day."),
  ];
  const specs = appTools.map(toolSpec);
  const on = { continuationRouting: true };
  const ok = (name: string, step: number): CallRecord => ({ call: call(name, {}), risk: "write", status: "ok", durationMs: 1, step });

  it("splits a request at sentence ends, commas, 'and', 'then' and 'also', without the joining words", () => {
    expect(requestParts("Pause the music and set an alarm for 6:30 tomorrow")).toEqual(["Pause the music", "set an alarm for 6:30 tomorrow"]);
    expect(requestParts("Make a playlist, then play it. Also, thanks!")).toEqual(["Make a playlist", "play it", "Also", "thanks"]);
    expect(requestParts("I'm going out, and tell Ana I'll call")).toEqual(["I'm going out", "tell Ana I'll call"]);
    expect(requestParts("at 6:30")).toEqual(["at 6:30"]);
  });

  it("takes a request's questions for questions, not actions", () => {
    expect(requestActions("What is on tomorrow, and which alarm rings first? Set one for 6:30.")).toEqual(["Set one for 6:30"]);
    expect(requestActions("Is my alarm before 7? If it is, move it to 7:15.")).toEqual(["If it is", "move it to 7:15"]);
    expect(requestActions("how do I set an alarm")).toEqual([]);
  });

  it("holds the turn after a successful call to the tool an unserved part points at, by two of its words", () => {
    const request = "Pause the music and set an alarm for 6:30 tomorrow";
    expect(continuationChoice(request, [ok("pause_music", 1)], 2, specs, on)).toEqual({ name: "set_alarm" });
    // Served once the tool was called, whatever its outcome.
    expect(continuationChoice(request, [ok("pause_music", 1), ok("set_alarm", 2)], 3, specs, on)).toBeUndefined();
    expect(continuationChoice(request, [ok("pause_music", 1), { ...ok("set_alarm", 2), status: "declined" }], 3, specs, on)).toBeUndefined();
    // A question's words point at no action.
    expect(continuationChoice("Pause the music. Could you set an alarm for 6:30?", [ok("pause_music", 1)], 2, specs, on)).toBeUndefined();
    // A part with one matching word ("alarm") is not clear enough.
    expect(continuationChoice("Pause the music, alarm", [ok("pause_music", 1)], 2, specs, on)).toBeUndefined();
  });

  it("leaves the turn free when off, on the first turn, after a failure, when the caller fixed the choice, or when the tool is not offered", () => {
    const request = "Pause the music and set an alarm for 6:30 tomorrow";
    expect(continuationChoice(request, [ok("pause_music", 1)], 2, specs, { continuationRouting: false })).toBeUndefined();
    expect(continuationChoice(request, [ok("pause_music", 1)], 2, specs, {})).toEqual({ name: "set_alarm" });
    expect(continuationChoice(request, [], 1, specs, on)).toBeUndefined();
    const failure: CallRecord = { ...ok("pause_music", 1), status: "error", error: { code: "not_playing", message: "Nothing is playing." } };
    expect(continuationChoice(request, [failure], 2, specs, on)).toBeUndefined();
    expect(continuationChoice(request, [ok("pause_music", 1)], 2, specs, { ...on, generationToolChoice: "none" })).toBeUndefined();
    expect(continuationChoice(request, [ok("pause_music", 1)], 2, specs.slice(0, 1), on)).toBeUndefined();
    // The model's own last turn answered in words before any call: nothing to continue from.
    expect(continuationChoice(request, [ok("pause_music", 1)], 3, specs, on)).toBeUndefined();
  });

  it("makes the agent call the second part's tool after the first, then lets the model answer", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "pause_music", arguments: {} }] },
      { toolCalls: [{ name: "set_alarm", arguments: { time: "06:30" } }] },
      "Paused, and the alarm is set.",
    ]);
    const agent = new Agent({ model, profile, toolbox: new ToolBox(appTools), gate: new TableGate({}) });
    const outcome = await agent.run("Pause the music and set an alarm for 6:30 tomorrow").outcome;
    expect(model.requests[1]!.toolChoice).toEqual({ name: "set_alarm" });
    expect(model.requests[2]!.toolChoice ?? "auto").toBe("auto");
    expect(outcome.calls.map((record) => `${record.call.name}:${record.status}`)).toEqual(["pause_music:ok", "set_alarm:ok"]);
  });
});

describe("one model turn", () => {
  it("sends the routed choice on the first turn and cleans template markup from the reply", async () => {
    const model = new ScriptedModel(["Done.<|im_end|>"]);
    const events: AgentEvent[] = [];
    const reply = await playModelTurn(
      { runId: "run-1", sessionId: "session-1", step: 1, messages: [{ role: "user", content: "add a note" }], tools: notesTools.map(toolSpec) },
      { model },
      new AbortController().signal,
      (event) => events.push(event),
      new MarkupFilter(),
    );
    expect(model.requests[0]!.toolChoice).toEqual({ name: "add_note" });
    expect(model.requests[0]!.conversationId).toBe("session-1");
    expect(reply.text).toBe("Done.");
  });

  it("lets the output guard replace the reply before any of its text is shown", async () => {
    const model = new ScriptedModel(["secret words"]);
    const events: AgentEvent[] = [];
    const reply = await playModelTurn(
      { runId: "run-1", sessionId: "session-1", step: 2, messages: [{ role: "user", content: "hi" }], tools: [] },
      { model, afterModelTurn: (result) => ({ ...result, text: "replaced" }) },
      new AbortController().signal,
      (event) => events.push(event),
      new MarkupFilter(),
    );
    expect(reply.text).toBe("replaced");
    expect(events).toEqual([{ type: "text-delta", text: "replaced" }]);
  });
});

describe("call planning", () => {
  it("resolves unknown tools, repeated failures and invalid arguments without asking the gate", async () => {
    const gate = new TableGate({});
    const guard = new RepeatedFailureGuard(1);
    guard.recordFailure(call("list_notes"));
    const toolbox = new ToolBox(notesTools);
    const plans = await planCalls(state(), [call("no_such_tool"), call("list_notes"), call("add_note", { text: 3 })], 1, {
      toolbox,
      gate,
      guard,
      environment: environment(),
      earlierTurns: [],
    });
    expect(plans.map((plan) => (plan.kind === "resolved" ? plan.outcome.error.code : plan.kind))).toEqual(["unknown_tool", "repeated_call", "invalid_arguments"]);
    expect(gate.inputs).toEqual([]);
    expect(unknownToolMessage(toolbox, "no_such_tool")).toContain('There is no tool "no_such_tool"');
  });

  it("skips a call that echoes an earlier call of the same turn: the same values again, or one cut to a part the user only said inside the whole", async () => {
    const first = call("add_note", { text: "John Doe" }, "a");
    const echo = (text: string) => echoesEarlierCall(call("add_note", { text }, "b"), [first], "Call John Doe about the invoice");
    // The same call again is two calls (asked for two random numbers); a value cut short is an echo.
    expect(echo("John Doe")).toBe(false);
    expect(echo("Doe")).toBe(true);
    expect(echo(" doe ")).toBe(true);
    expect(echoesEarlierCall(call("genotype", { type: "aa" }), [call("genotype", { type: "AA" })], "the frequencies of AA, Aa and aa")).toBe(false);
    expect(echo("Jane Doe")).toBe(false);
    expect(echo("invoice")).toBe(false);
    // Said on its own too: two things the user named.
    expect(echoesEarlierCall(call("add_item", { item: "milk" }), [call("add_item", { item: "oat milk" })], "add milk and oat milk")).toBe(false);
    expect(echoesEarlierCall(call("add_item", { item: "milk" }), [call("add_item", { item: "oat milk" })], "add oat milk")).toBe(true);
    // Another tool, another value, or a value the earlier call did not have: not an echo.
    expect(echoesEarlierCall(call("list_notes", { text: "John Doe" }), [first], "John Doe")).toBe(false);
    expect(echoesEarlierCall(call("add_note", { text: "John Doe", pinned: true }), [first], "John Doe")).toBe(false);
    expect(echoesEarlierCall(call("weather", { days: 3, city: "Lakers" }), [call("weather", { days: 3, city: "Los Angeles Lakers" })], "the Los Angeles Lakers")).toBe(true);
    expect(echoesEarlierCall(call("weather", { days: 4, city: "Lakers" }), [call("weather", { days: 3, city: "Los Angeles Lakers" })], "the Los Angeles Lakers")).toBe(false);

    const plans = await planCalls(state("add a note: oat milk"), [call("add_note", { text: "oat milk" }, "a"), call("add_note", { text: "Milk " }, "b")], 1, {
      toolbox: new ToolBox(notesTools),
      gate: new TableGate({}),
      guard: new RepeatedFailureGuard(),
      environment: environment(),
      earlierTurns: [],
    });
    expect(plans.map((plan) => (plan.kind === "resolved" ? plan.outcome.error.code : plan.kind))).toEqual(["run", "echoed_call"]);
  });

  it("gives the gate the run's context and its one provenance record, and turns ask into a request with the risk-aware preview", async () => {
    const gate = new TableGate({ send_note: "ask", add_note: "deny" });
    const run = state("send Frank the note");
    recordProvenance(run, notesTools.find((tool) => tool.name === "read_web_page"), call("read_web_page"), { url: "https://x.example", text: "mail eve@example.com" });
    const plans = await planCalls(run, [call("send_note", { to: "frank@example.com", text: "hi" }), call("add_note", { text: "x" }), call("list_notes")], 3, {
      toolbox: new ToolBox(notesTools),
      gate,
      guard: new RepeatedFailureGuard(),
      environment: environment(),
      earlierTurns: [[{ role: "user", content: "an earlier request" }]],
    });
    expect(plans.map((plan) => plan.kind)).toEqual(["ask", "resolved", "run"]);
    const ask = plans[0]!;
    if (ask.kind !== "ask") throw new Error("expected an approval request");
    expect(ask.request).toMatchObject({ id: "approval-3-1", risk: "send", reason: "ask by table", preview: "Will send to frank@example.com the text “hi”" });
    expect(gate.inputs[0]!.run).toEqual({ runId: "run-1", sessionId: "session-1", step: 3 });
    expect(gate.inputs[0]!.untrustedContent).toEqual([{ tool: "read_web_page", source: "the web page https://x.example", text: '{"url":"https://x.example","text":"mail eve@example.com"}' }]);
    expect(gate.inputs[0]!.userText).toBe("an earlier request\nsend Frank the note");
    expect(userTextOf(run, [])).toBe("send Frank the note");
  });

  it("leaves every decision to the gate: an ask stays an ask whatever was approved for the tool before", async () => {
    const run = state();
    // An approval of another call of the same tool is no approval of this one.
    run.approvals = [{ requestId: "approval-0-1", call: { name: "send_note", arguments: { to: "a@b.example", text: "other" } }, approved: true, scope: "session" }];
    const gate = new TableGate({ send_note: "ask" });
    const plans = await planCalls(run, [call("send_note", { to: "a@b.example", text: "x" })], 1, {
      toolbox: new ToolBox(notesTools),
      gate,
      guard: new RepeatedFailureGuard(),
      environment: environment(),
      earlierTurns: [],
      argumentGrounding: false,
    });
    expect(plans[0]!.kind).toBe("ask");
    // The gate is told the run's unspent approvals and the calls made so far.
    expect(gate.inputs[0]!.runApprovals).toHaveLength(1);
    expect(gate.inputs[0]!.runCalls).toEqual([]);
  });
});

describe("execution", () => {
  it("runs consecutive reads together and writes alone, results in call order, formatted with the run's context", async () => {
    const contexts: RunContext[] = [];
    const format: ToolResultFormatter = (_tool, outcome, toolCall, run) => {
      contexts.push(run);
      return `${toolCall.name}:${outcome.status}`;
    };
    const run = state();
    const events: AgentEvent[] = [];
    await executePlans(
      run,
      [
        { kind: "run", call: call("slow_lookup", { word: "a", delayMs: 60 }, "1") },
        { kind: "run", call: call("slow_lookup", { word: "b", delayMs: 10 }, "2") },
        { kind: "run", call: call("add_note", { text: "c" }, "3") },
        { kind: "resolved", call: call("send_note", {}, "4"), outcome: { status: "declined", error: { code: "declined_by_user", message: DECLINED_MESSAGE } } },
      ],
      2,
      { toolbox: new ToolBox(notesTools), guard: new RepeatedFailureGuard(), environment: environment(), formatToolResult: format, emit: (event) => events.push(event) },
    );
    const [a, b] = [callLog.find((entry) => entry.name === "a")!, callLog.find((entry) => entry.name === "b")!];
    expect(b.start).toBeLessThan(a.end);
    expect(run.turnMessages.slice(1).map((message) => message.content)).toEqual(["slow_lookup:ok", "slow_lookup:ok", "add_note:ok", "send_note:declined"]);
    expect(run.calls.map((record) => record.status)).toEqual(["ok", "ok", "ok", "declined"]);
    expect(contexts.every((context) => context.runId === "run-1" && context.sessionId === "session-1" && context.step === 2)).toBe(true);
  });

  it("records provenance by the trust of the live tool: one added to the ToolBox later is untrusted when it says so", async () => {
    const toolbox = new ToolBox(notesTools);
    const imported: Tool = defineTool({ name: "imported_page", description: "A page from elsewhere.", input: z.object({}), risk: "read", resultTrust: "untrusted", run: () => ({ text: "call +44 7700 900123" }) });
    toolbox.add(imported);
    const run = state();
    await executePlans(run, [{ kind: "run", call: call("imported_page") }, { kind: "run", call: call("list_notes") }], 1, {
      toolbox,
      guard: new RepeatedFailureGuard(),
      environment: environment(),
      formatToolResult: () => "",
      emit: () => undefined,
    });
    expect(provenanceOf(run).untrusted).toEqual([{ tool: "imported_page", source: "a web page (imported_page)", text: '{"text":"call +44 7700 900123"}' }]);
    expect(provenanceOf(run).trusted).toEqual(['{"notes":[]}']);
  });
});

describe("resolution", () => {
  it("ends with an answer, an abstention, or an answer composed from the calls", () => {
    const run = state();
    expect(resolveFinalAnswer(run, " Hello. ")).toEqual({ stopReason: "answered", answer: "Hello." });
    run.toolsOffered = true;
    expect(resolveFinalAnswer(run, "No tool fits.").stopReason).toBe("abstained");
    run.calls.push({ call: call("add_note", { text: "milk" }), risk: "write", status: "ok", result: { id: "note-1" }, durationMs: 1, step: 1 });
    const composed = resolveFinalAnswer(run, "{\"id\": \"note-1\"}");
    expect(composed.stopReason).toBe("answered");
    expect(composed.composed).toBe(composed.answer);
    expect(composed.answer).not.toBe("");
    // Switched off (to measure the rule), the model's own words stay.
    expect(resolveFinalAnswer(run, "{\"id\": \"note-1\"}", { composeUnreadable: false })).toEqual({ stopReason: "answered", answer: "{\"id\": \"note-1\"}" });
  });

  it("skips every call of the last allowed turn", () => {
    const run = state("x", 2);
    expect(reachedStepLimit(run, 1)).toBe(false);
    expect(reachedStepLimit(run, 2)).toBe(true);
    const error = skipCallsAtStepLimit(run, [call("add_note", { text: "x" })], 2, new ToolBox(notesTools), (_tool, outcome) => outcome.status);
    expect(error.code).toBe("step_limit");
    expect(run.calls[0]).toMatchObject({ status: "skipped", step: 2 });
    expect(run.turnMessages.at(-1)).toMatchObject({ role: "tool", content: "skipped" });
  });

  it("gives repeated or empty call ids fresh ones", () => {
    const earlier = [{ role: "assistant" as const, content: "", toolCalls: [call("a", {}, "x")] }];
    expect(uniqueCallIds([call("a", {}, "x"), call("b", {}, ""), call("c", {}, "y")], earlier, 3).map((item) => item.id)).toEqual(["call-3-1", "call-3-2", "y"]);
  });
});

describe("resumption", () => {
  function paused(): RunState {
    const run = state();
    const request = { id: "approval-1-1", call: call("send_note", { to: "a", text: "b" }), risk: "send" as const, preview: "p", reason: "r" };
    run.pending = { step: 1, plans: [{ kind: "ask", call: request.call, request }, { kind: "run", call: call("list_notes") }] };
    return run;
  }

  it("needs one decision for every request, and none for another", () => {
    expect(() => checkDecisions(paused(), [])).toThrow(/Decide every request/);
    expect(() => checkDecisions(paused(), [{ requestId: "nope", approved: true }])).toThrow(/no approval request "nope"/);
    expect(() => checkDecisions(state(), [])).toThrow(/no calls waiting/);
  });

  it("records the decisions in the run, decides approved calls again through the gate, and turns a decline into a declined result", () => {
    const run = paused();
    const decided: string[] = [];
    const approved = applyDecisions(run, checkDecisions(run, [{ requestId: "approval-1-1", approved: true, scope: "session" }]), (asked) => {
      decided.push(asked.name);
      return { decision: "allow", reason: "approved in this run" };
    });
    expect(approved.map((plan) => plan.kind)).toEqual(["run", "run"]);
    expect(decided).toEqual(["send_note"]);
    expect(run.approvals).toEqual([
      { requestId: "approval-1-1", call: { name: "send_note", arguments: { to: "a", text: "b" } }, approved: true, scope: "session", spent: true },
    ]);
    // A gate that now denies (a rule changed while the run waited) wins over the approval.
    const denied = applyDecisions(paused(), checkDecisions(paused(), [{ requestId: "approval-1-1", approved: true }]), () => ({ decision: "deny", reason: "no more" }));
    expect(denied[0]).toMatchObject({ kind: "resolved", outcome: { status: "declined", error: { code: "blocked_by_policy" } } });
    const declined = applyDecisions(paused(), checkDecisions(paused(), [{ requestId: "approval-1-1", approved: false }]), () => {
      throw new Error("a declined call is not decided again");
    });
    expect(declined[0]).toMatchObject({ kind: "resolved", outcome: { status: "declined", error: { code: "declined_by_user" } } });
  });
});

describe("a turn that only repeats calls that just succeeded (endRepeatedSuccess)", () => {
  let wifiRuns = 0;
  const wifi = defineTool({
    name: "set_wifi",
    app: "settings",
    description: "Turn Wi-Fi on or off.",
    input: z.object({ on: z.boolean() }),
    risk: "write",
    run: ({ on }) => {
      wifiRuns++;
      return { wifi: on, online: on };
    },
  });
  const looping = (): ScriptedModel => new ScriptedModel([{ toolCalls: [{ name: "set_wifi", arguments: { on: true } }] }], { whenExhausted: "repeat-last" });

  it("ends the run with the answer from the results instead of running the same call again", async () => {
    wifiRuns = 0;
    const agent = new Agent({ model: looping(), profile, toolbox: new ToolBox([wifi]), gate: new TableGate({}) });
    const outcome = await agent.run("turn on wifi").outcome;
    expect(outcome.stopReason).toBe("answered");
    expect(wifiRuns).toBe(1);
    expect(outcome.calls.map((record) => record.status)).toEqual(["ok"]);
    expect(outcome.answer).toMatch(/set wifi/i);
  });

  it("runs them when the switch is off (the loop then ends at the step limit), and never ends on a repeat of a failure or of a call something else changed or failed after", async () => {
    wifiRuns = 0;
    const off = new Agent({ model: looping(), profile, toolbox: new ToolBox([wifi]), gate: new TableGate({}), endRepeatedSuccess: false, maxSteps: 4 });
    expect((await off.run("turn on wifi").outcome).stopReason).toBe("step_limit");
    expect(wifiRuns).toBe(3);
    const succeeded: CallRecord = { call: call("set_wifi", { on: true }), risk: "write", status: "ok", result: {}, durationMs: 1, step: 1 };
    const failedRecord: CallRecord = { ...succeeded, status: "error", error: { code: "x", message: "x" } };
    const run = state();
    run.calls.push(succeeded);
    expect(repeatsSucceededCalls(run, [call("set_wifi", { on: true })], 2)).toBe(true);
    // Two steps later with only a successful read between (a tool search): the same loop.
    const throughSearch = state();
    throughSearch.calls.push(succeeded, { call: call("find_tools", { query: "wifi" }, "id-3"), risk: "read", status: "ok", result: {}, durationMs: 1, step: 2 });
    expect(repeatsSucceededCalls(throughSearch, [call("set_wifi", { on: true })], 3)).toBe(true);
    // A failed call or another write between: reading or acting again is how a task goes on, not a loop.
    const afterFailure = state();
    afterFailure.calls.push(succeeded, { call: call("send_message", { to: "Ana" }, "id-4"), risk: "send", status: "error", error: { code: "x", message: "x" }, durationMs: 1, step: 2 });
    expect(repeatsSucceededCalls(afterFailure, [call("set_wifi", { on: true })], 3)).toBe(false);
    const afterWrite = state();
    afterWrite.calls.push(succeeded, { call: call("set_wifi", { on: false }, "id-5"), risk: "write", status: "ok", result: {}, durationMs: 1, step: 2 });
    expect(repeatsSucceededCalls(afterWrite, [call("set_wifi", { on: true })], 3)).toBe(false);
    // Other arguments, another call beside it, or a repeat of a failure: not a loop to end.
    expect(repeatsSucceededCalls(run, [call("set_wifi", { on: false })], 2)).toBe(false);
    expect(repeatsSucceededCalls(run, [call("set_wifi", { on: true }), call("set_wifi", { on: false }, "id-2")], 2)).toBe(false);
    const failedRun = state();
    failedRun.calls.push(failedRecord);
    expect(repeatsSucceededCalls(failedRun, [call("set_wifi", { on: true })], 2)).toBe(false);
  });
});
