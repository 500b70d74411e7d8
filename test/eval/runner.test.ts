import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { botpsyAgentFactory } from "../../src/eval/agent-factory.js";
import { groundTruthTurns } from "../../src/eval/ground-truth.js";
import { computeMetrics } from "../../src/eval/metrics.js";
import { caseResults, readResults, settingsKey, type EvalSettings } from "../../src/eval/results.js";
import { runSuite } from "../../src/eval/run-suite.js";
import { runScenario } from "../../src/eval/runner.js";
import { parseScenario, type Scenario, type ScenarioInput } from "../../src/eval/scenario.js";
import type { GenerateRequest, Generation } from "../../src/model/types.js";
import { ScriptedModel, type ScriptedTurn } from "../../src/testing/scripted-model.js";
import { makeTempDir } from "../support/temp-dir.js";

const settings: EvalSettings = {
  suite: "test",
  model: { id: "scripted-model" },
  options: { thinking: "off", seed: 1, temperature: 0, maxSteps: 10, maxTokens: 512 },
  botpsyVersion: "0.0.0-test",
};

const frankReminder: ScenarioInput = {
  id: "messages-frank-reminder",
  tags: { group: "messages", steps: "multi", source: "brief", labels: ["recovery"] },
  setup: {
    settings: { wifi: false, mobileData: false },
    records: [{ app: "messages", collection: "account", id: "account", value: { capacity: 17 }, merge: true }],
  },
  tools: { apps: ["settings", "messages", "contacts"] },
  turns: [{ user: "Send Frank a reminder about tomorrow's meeting" }],
  expect: {
    ordered: true,
    calls: [
      { name: "set_wifi", arguments: { on: true } },
      { name: "delete_message", arguments: { message_id: { $oneOf: ["msg-1", { $any: true }] } } },
      { name: "send_message", arguments: { to: { $oneOf: ["Frank", "Frank Miller"] }, text: { $oneOf: ["Reminder: our meeting is tomorrow.", { $contains: "meeting" }] } } },
    ],
    state: [
      { app: "settings", collection: "device", id: "device", path: "wifi", equals: true },
      { app: "messages", collection: "messages", where: { direction: "out", text: { $contains: "meeting" } }, count: 1 },
    ],
  },
};

const alarmAtSeven: ScenarioInput = {
  id: "device-alarm-seven",
  tags: { group: "device", steps: "single", source: "brief" },
  tools: { apps: ["alarms"] },
  turns: [{ user: "Set an alarm for 7" }],
  expect: {
    calls: [{ name: "set_alarm", arguments: { time: { $oneOf: ["07:00", { $when: { time: "07:00" } }] } } }],
    state: [{ app: "alarms", collection: "alarms", where: { time: "07:00" }, count: { min: 1 } }],
  },
};

const poem: ScenarioInput = {
  id: "other-abstain-poem",
  tags: { group: "other", steps: "single", labels: ["abstain"] },
  tools: { apps: ["alarms", "settings"] },
  turns: [{ user: "Write me a haiku about autumn leaves" }],
  expect: { noCall: true },
};

function scripted(scenario: Scenario): ScriptedModel {
  return new ScriptedModel(groundTruthTurns(scenario).flat());
}

async function run(input: ScenarioInput, turns: ScriptedTurn[]) {
  const scenario = parseScenario(input);
  return runScenario(scenario, { model: new ScriptedModel(turns), agentFactory: botpsyAgentFactory, settings, settingsKey: settingsKey(settings) });
}

describe("runner on the real apps with a scripted model", () => {
  it("counts a scenario solved by its ground-truth calls as a success", async () => {
    const scenario = parseScenario(frankReminder);
    const result = await runScenario(scenario, { model: scripted, agentFactory: botpsyAgentFactory, settings, settingsKey: settingsKey(settings) });
    expect(result.error).toBeUndefined();
    expect(result.checks.filter((check) => !check.passed)).toEqual([]);
    expect(result.success).toBe(true);
    expect(result.calls.map((call) => `${call.name}:${call.status}`)).toEqual(["set_wifi:ok", "delete_message:ok", "send_message:ok"]);
    expect(result.modelTurns).toBe(4);
    expect(result.calls.every((call) => !call.invalid && !call.invented)).toBe(true);
  });

  it("recovers through the failures: the first sends fail, the expected ones still match", async () => {
    const result = await run(frankReminder, [
      { toolCalls: [{ name: "send_message", arguments: { to: "Frank", text: "Reminder: meeting tomorrow" } }] },
      { toolCalls: [{ name: "set_wifi", arguments: { on: true } }] },
      { toolCalls: [{ name: "send_message", arguments: { to: "Frank", text: "Reminder: meeting tomorrow" } }] },
      { toolCalls: [{ name: "delete_message", arguments: { message_id: "msg-2" } }] },
      { toolCalls: [{ name: "send_message", arguments: { to: "Frank Miller", text: "Reminder: meeting tomorrow" } }] },
      "Sent the reminder to Frank.",
    ]);
    expect(result.calls.map((call) => call.errorCode ?? call.status)).toEqual(["wifi_off", "ok", "storage_full", "ok", "ok"]);
    expect(result.success).toBe(true);
  });

  it("fails a wrong call and says why", async () => {
    const result = await run(frankReminder, [
      { toolCalls: [{ name: "set_wifi", arguments: { on: true } }] },
      { toolCalls: [{ name: "delete_message", arguments: { message_id: "msg-3" } }] },
      { toolCalls: [{ name: "send_message", arguments: { to: "Maria", text: "Reminder: meeting tomorrow" } }] },
      "Done.",
    ]);
    expect(result.success).toBe(false);
    const failed = result.checks.filter((check) => !check.passed);
    expect(failed.map((check) => check.kind)).toContain("calls");
    expect(failed.find((check) => check.kind === "calls")?.detail).toContain("send_message");
  });

  it("marks invented tools and invalid arguments", async () => {
    const result = await run(alarmAtSeven, [
      { toolCalls: [{ name: "wake_me_up", arguments: { at: "7" } }] },
      { toolCalls: [{ name: "set_alarm", arguments: { when: "7" } }] },
      { toolCalls: [{ name: "set_alarm", arguments: { time: "7" } }] },
      "Alarm set for 7:00.",
    ]);
    expect(result.calls.map((call) => [call.name, call.invented, call.invalid])).toEqual([
      ["wake_me_up", true, false],
      ["set_alarm", false, true],
      ["set_alarm", false, false],
    ]);
    expect(result.success).toBe(true);
  });

  it("does not count the ToolBox's own find_tools as invented when many tools are offered", async () => {
    const everything: ScenarioInput = { ...alarmAtSeven, id: "device-alarm-seven-all-tools", tools: { apps: ["alarms", "settings", "calendar", "tasks", "email", "messages", "contacts", "music"] } };
    const result = await run(everything, [
      { toolCalls: [{ name: "find_tools", arguments: { query: "alarm clock" } }] },
      { toolCalls: [{ name: "set_alarm", arguments: { time: "7" } }] },
      "Alarm set for 7:00.",
    ]);
    expect(result.calls.map((call) => [call.name, call.invented, call.invalid])).toEqual([
      ["find_tools", false, false],
      ["set_alarm", false, false],
    ]);
  });

  it("scores abstention: words succeed, a call fails", async () => {
    expect((await run(poem, ["I can't write poems with these tools, sorry."])).success).toBe(true);
    const called = await run(poem, [{ toolCalls: [{ name: "list_alarms", arguments: {} }] }, "Here are your alarms."]);
    expect(called.success).toBe(false);
    expect(called.abstainCase).toBe(true);
  });

  it("records how the first model turn began: the tool choice the router gave it, and the model's call margin where it measured one", async () => {
    const alarmModel = new ScriptedModel([{ toolCalls: [{ name: "set_alarm", arguments: { time: "07:00" } }] }, "Alarm set for 7:00."]);
    const forced = await runScenario(parseScenario(alarmAtSeven), { model: alarmModel, agentFactory: botpsyAgentFactory, settings, settingsKey: settingsKey(settings) });
    expect(forced.firstTurn?.choice).toMatch(/^(named|required)$/);
    expect(forced.firstTurn?.callMargin).toBeUndefined();
    // The margin is asked for on the first turn only: the one recorded.
    expect(alarmModel.requests.map((request) => request.reportCallMargin === true)).toEqual([true, false]);
    const free = await run(poem, ["Leaves drift on the wind."]);
    expect(free.firstTurn).toEqual({ choice: "auto" });
    // A model that measures its margin (the llama.cpp model, asked with reportCallMargin) has it recorded, rounded.
    const scripted = new ScriptedModel(["Leaves drift on the wind."]);
    const measuring = new Proxy(scripted, {
      get(target, property) {
        if (property !== "generate") return Reflect.get(target, property, target);
        return (request: GenerateRequest) => {
          const generation = target.generate(request);
          return Object.assign(Object.create(generation) as Generation, {
            result: generation.result.then((result) => ({ ...result, callMargin: { opening: -1.23456, following: 2.5 } })),
          });
        };
      },
    });
    const measured = await runScenario(parseScenario(poem), { model: measuring, agentFactory: botpsyAgentFactory, settings, settingsKey: settingsKey(settings) });
    expect(measured.success).toBe(true);
    expect(measured.firstTurn).toEqual({ choice: "auto", callMargin: { opening: -1.235, following: 2.5 } });
  });

  it("reports a harness problem as a failed case with the error, not a crash", async () => {
    const result = await run({ ...alarmAtSeven, id: "bad-tools", tools: { names: ["no_such_tool"] } }, ["x"]);
    expect(result.success).toBe(false);
    expect(result.error?.code).toBe("invalid_scenario");
    expect(result.error?.message).toContain("no_such_tool");
  });
});

describe("runSuite", () => {
  it("appends results as JSONL with the settings, and skips finished cases when run again", async () => {
    const directory = makeTempDir("botpsy-eval-");
    const out = join(directory, "results.jsonl");
    const scenarios = [frankReminder, alarmAtSeven, poem].map((input) => parseScenario(input));
    const first = await runSuite({ scenarios, model: scripted, agentFactory: botpsyAgentFactory, settings, out, concurrency: 2, limit: 2, progress: false });
    expect(first.results).toHaveLength(2);
    const second = await runSuite({ scenarios, model: scripted, agentFactory: botpsyAgentFactory, settings, out, concurrency: 2, progress: false });
    expect(second.skipped).toBe(2);
    expect(second.results.map((result) => result.caseId)).toEqual(["other-abstain-poem"]);
    const lines = readResults(out);
    expect(lines.filter((line) => line.type === "run")).toHaveLength(2);
    const cases = caseResults(lines);
    expect(cases.map((result) => result.caseId).sort()).toEqual(["device-alarm-seven", "messages-frank-reminder", "other-abstain-poem"]);
    expect(cases.every((result) => result.settingsKey === settingsKey(settings))).toBe(true);
    expect(readFileSync(out, "utf8").endsWith("\n")).toBe(true);

    const metrics = computeMetrics(cases);
    expect(metrics.overall).toEqual({ total: 3, passed: 3, rate: 1 });
    expect(metrics.groups.messages?.multi).toEqual({ total: 1, passed: 1, rate: 1 });
    expect(metrics.groups.device?.single).toEqual({ total: 1, passed: 1, rate: 1 });
    expect(metrics.irrelevance).toEqual({ total: 1, passed: 1, rate: 1 });
    expect(metrics.multiStepAverage).toBe(1);
    expect(metrics.turnsToCompletion.count).toBe(3);

    // Other settings are another run: nothing is skipped.
    const other = { ...settings, options: { ...settings.options, seed: 2 } };
    const third = await runSuite({ scenarios, model: scripted, agentFactory: botpsyAgentFactory, settings: other, out, limit: 1, progress: false });
    expect(third.skipped).toBe(0);
    expect(third.results).toHaveLength(1);
  });
});
