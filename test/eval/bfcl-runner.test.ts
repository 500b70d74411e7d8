import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { botpsyAgentFactory } from "../../src/eval/agent-factory.js";
import { bfclInputSchema, loadBfclCategory, runBfclCase, SINGLE_TURN_MAX_STEPS, type RunBfclCaseOptions } from "../../src/eval/bfcl/index.js";
import { GroundTruthModel } from "../../src/eval/bfcl/ground-truth-model.js";
import { bfclCaseResult, recordedCategory, runBfclSuite } from "../../src/eval/bfcl-suite.js";
import { unseenSuiteFiles } from "../../src/eval/suites.js";
import { packageRoot } from "../../src/version.js";
import type { EvalSettings } from "../../src/eval/results.js";
import type { ChatModel, GenerateRequest } from "../../src/model/types.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { toolSpec } from "../../src/tools/tool.js";

/**
 * BFCL through botpsy's agent (the one the apps suite runs): the case's
 * functions as tools, each user turn one request of one session, BFCL's
 * checks on what the agent executed. GroundTruthModel checks the harness
 * (every case must pass); ScriptedModel scripts what the agent must do with
 * particular replies.
 */

function settings(maxSteps = 20): EvalSettings {
  return { suite: "bfcl", model: { id: "test" }, options: { thinking: "off", seed: 1, temperature: 0, maxSteps, maxTokens: 512 }, botpsyVersion: "test" };
}

/**
 * Settings for GroundTruthModel runs: the ground truth knows the case's hidden state (a file
 * it never listed, a user id), which argument grounding rightly refuses from a model.
 */
function oracleSettings(): EvalSettings {
  const base = settings();
  return { ...base, options: { ...base.options, harness: { grounding: "off" } } };
}

function caseOptions(model: ChatModel): RunBfclCaseOptions {
  return { model, agentFactory: botpsyAgentFactory, settings: settings() };
}

function modelFor(categories: string[]): GroundTruthModel {
  return new GroundTruthModel(categories.flatMap((category) => loadBfclCategory(category)));
}

/** A model that records each request and lets another answer it. */
function watching(inner: ChatModel, seen: GenerateRequest[]): ChatModel {
  return {
    id: "watching",
    generate: (request) => {
      seen.push(request);
      return inner.generate(request);
    },
    dispose: async () => {},
  };
}

describe("BFCL through the agent", () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "botpsy-bfcl-runner-"));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("scores every multi-turn base case whose ground truth fits its documents, in the shared case pool", { timeout: 120_000 }, async () => {
    const out = join(directory, "multi-turn.jsonl");
    const summary = await runBfclSuite({ categories: ["multi_turn_base"], model: modelFor(["multi_turn_base"]), settings: oracleSettings(), out, concurrency: 4, progress: false });
    expect(summary.results).toHaveLength(200);
    // multi_turn_base_173's ground truth gives close_ticket a text id where its document declares an
    // integer: the agent refuses that call before it runs, as the call grammar would stop a real model.
    const failed = summary.results.filter((result) => !result.success);
    expect(failed.map((result) => result.caseId)).toEqual(["multi_turn_base_173"]);
    expect(failed[0]!.checks.at(-1)!.detail).toContain("multi_turn:empty_turn_model_response");
    const passed = summary.results.filter((result) => result.success);
    expect(passed.every((result) => result.checks.length > 0 && result.checks.every((check) => check.kind === "bfcl-turn" && check.passed))).toBe(true);
  });

  it("offers held-back functions only from their turn, continuing the same session", async () => {
    const caseData = loadBfclCategory("multi_turn_miss_func", { limit: 1 })[0]!;
    if (caseData.kind !== "multi-turn") throw new Error("multi_turn_miss_func holds multi-turn cases");
    const seen: GenerateRequest[] = [];
    const result = await runBfclCase(caseData, caseOptions(watching(modelFor(["multi_turn_miss_func"]), seen)));
    expect(result.valid, result.errors.join("; ")).toBe(true);
    const [arrivalTurn, arriving] = Object.entries(caseData.missedFunctions)[0]!;
    expect(arriving).toContain("sort");
    // A request's turn: the user messages it holds (the session's earlier turns are in its history).
    const turnOf = (request: GenerateRequest): number => request.messages.filter((message) => message.role === "user").length - 1;
    const before = seen.filter((request) => turnOf(request) < Number(arrivalTurn));
    expect(before.length).toBeGreaterThan(0);
    expect(before.flatMap((request) => (request.tools ?? []).map((tool) => tool.name))).not.toContain("sort");
    expect(result.calls[Number(arrivalTurn)]!.map((call) => call.name)).toContain("sort");
    // One session: every request of the case went out under one conversation, the earlier turns in its history.
    expect(new Set(seen.map((request) => request.conversationId)).size).toBe(1);
    const lastUserTurns = seen.at(-1)!.messages.filter((message) => message.role === "user");
    expect(lastUserTurns.length).toBe(caseData.question.length);
  });

  it("scores single-turn categories with the AST checker and irrelevance as an abstention", async () => {
    const out = join(directory, "single.jsonl");
    const categories = ["simple_python", "multiple", "parallel", "irrelevance"];
    const summary = await runBfclSuite({ categories, model: modelFor(categories), settings: oracleSettings(), out, limit: 10, progress: false });
    expect(summary.results).toHaveLength(40);
    expect(summary.results.filter((result) => !result.success).map((result) => result.caseId)).toEqual([]);
    const simple = summary.results.find((result) => result.group === "simple_python")!;
    expect(simple.calls.length).toBe(1);
    expect(simple.calls.every((call) => call.status === "ok")).toBe(true);
    expect(summary.results.filter((result) => result.group === "irrelevance").every((result) => result.calls.length === 0)).toBe(true);
    // Every case records how its first model turn began (the router's choice; no margin from a scripted model).
    expect(summary.results.every((result) => result.firstTurn !== undefined && result.firstTurn.callMargin === undefined)).toBe(true);
    expect(new Set(summary.results.map((result) => result.firstTurn!.choice))).toContain("auto");
  });

  it("runs the shipped agent: its system prompt goes out, and only calls that pass validation are checked", async () => {
    const caseData = loadBfclCategory("simple_python", { limit: 1 })[0]!;
    // base must be an integer: the agent refuses the call before it runs, so nothing was executed.
    const wrongType = new ScriptedModel([{ toolCalls: [{ name: "calculate_triangle_area", arguments: { base: "10", height: 5 } }] }, "Sorry."]);
    const refused = await runBfclCase(caseData, caseOptions(wrongType));
    expect(wrongType.requests[0]!.messages[0]!.role).toBe("system");
    expect(refused).toMatchObject({ valid: false, errorType: "wrong_count", calls: [[]] });
    // The call that did not run is kept beside the score, with why, and reaches the case's line.
    expect(refused.notRun).toEqual([{ name: "calculate_triangle_area", arguments: { base: "10", height: 5 }, status: "error", errorCode: "invalid_arguments" }]);
    const line = bfclCaseResult(caseData, { ...refused, id: caseData.id, category: caseData.category, durationMs: 1 }, { settings: settings(), settingsKey: "k", modelId: "test", source: "bfcl-v4" });
    expect(line.success).toBe(false);
    expect(line.calls).toEqual([{ name: "calculate_triangle_area", arguments: { base: "10", height: 5 }, status: "error", errorCode: "invalid_arguments", invalid: false, invented: false }]);

    // A value the request never gave: grounding stops the call, and the line says so.
    const guessing = new ScriptedModel([{ toolCalls: [{ name: "calculate_triangle_area", arguments: { base: 12, height: 5 } }] }, "Sorry."]);
    const guessed = await runBfclCase(caseData, caseOptions(guessing));
    expect(guessed).toMatchObject({ valid: false, errorType: "wrong_count", calls: [[]], notRun: [{ name: "calculate_triangle_area", arguments: { base: 12, height: 5 }, status: "error", errorCode: "ungrounded_arguments" }] });

    const right = new ScriptedModel([{ toolCalls: [{ name: "calculate_triangle_area", arguments: { base: 10, height: 5 } }] }, "The area is 25 units."]);
    const passed = await runBfclCase(caseData, caseOptions(right));
    expect(passed).toMatchObject({ valid: true, steps: 2, calls: [[{ name: "calculate_triangle_area", arguments: { base: 10, height: 5 } }]] });
    expect(passed.notRun).toBeUndefined();
    // The second model turn read the recorded call's result.
    expect(right.requests[1]!.messages.at(-1)!.role).toBe("tool");
  });

  it(`checks the calls of a single-turn case's first model turn; the cap of ${SINGLE_TURN_MAX_STEPS} turns keeps later ones from running`, async () => {
    const caseData = loadBfclCategory("simple_python", { limit: 1 })[0]!;
    const call = { name: "calculate_triangle_area", arguments: { base: 10, height: 5 } };
    const repeating = new ScriptedModel([{ toolCalls: [call] }], { whenExhausted: "repeat-last" });
    const result = await runBfclCase(caseData, caseOptions(repeating));
    expect(repeating.requests).toHaveLength(SINGLE_TURN_MAX_STEPS);
    expect(result).toMatchObject({ valid: true, calls: [[call]] });
  });

  it("scores an irrelevance case the model abstains on as passed, and one it calls a tool on as failed", async () => {
    const caseData = loadBfclCategory("irrelevance", { limit: 1 })[0]!;
    const abstaining = await runBfclCase(caseData, caseOptions(new ScriptedModel(["None of the tools can compute that."])));
    expect(abstaining).toMatchObject({ valid: true, calls: [[]] });
    const name = caseData.functions[0]!.name;
    const required = Object.fromEntries((caseData.functions[0]!.parameters.required ?? []).map((parameter) => [parameter, 1]));
    const calling = await runBfclCase(caseData, caseOptions(new ScriptedModel([{ toolCalls: [{ name, arguments: required }] }, "Done."])));
    expect(calling.valid).toBe(false);
  });

  it("prunes optional parameters the request does not speak of from what the first turn may call, never a required one", async () => {
    const cases = loadBfclCategory("simple_python", { limit: 30 });
    const inner = modelFor(["simple_python"]);
    let prunedCases = 0;
    for (const caseData of cases) {
      const seen: GenerateRequest[] = [];
      await runBfclCase(caseData, caseOptions(watching(inner, seen)));
      // Pruned from what the first turn may call (its prompt documents every parameter).
      const offered = (seen[0]!.callableTools ?? seen[0]!.tools ?? []).flatMap((tool) => Object.keys((tool.parameters.properties as object | undefined) ?? {}));
      const documented = caseData.functions.flatMap((doc) => Object.keys(doc.parameters.properties ?? {}));
      for (const doc of caseData.functions) for (const name of doc.parameters.required ?? []) expect(offered).toContain(name);
      if (offered.length < documented.length) prunedCases++;
    }
    expect(prunedCases).toBeGreaterThan(0);
  });

  it("fails a multi-turn case whose agent never stops calling, at the step cap", async () => {
    const caseData = loadBfclCategory("multi_turn_base", { limit: 1 })[0]!;
    // pwd and ls in turn: never the call of the step before (that would end the run: endRepeatedSuccess).
    let step = 0;
    const looping = new ScriptedModel([() => ({ toolCalls: [{ name: step++ % 2 === 0 ? "pwd" : "ls" }] })], { whenExhausted: "repeat-last" });
    const result = await runBfclCase(caseData, caseOptions(looping));
    expect(result).toMatchObject({ valid: false, errorType: "multi_turn:force_terminated", steps: 20 });
    expect(looping.requests).toHaveLength(20);
    // The calls of the last step hit the cap and did not run.
    expect(result.calls[0]).toHaveLength(19);
  });
});

describe("BFCL function documents as tool inputs", () => {
  const doc = {
    name: "book.room",
    description: "Book a room.",
    parameters: {
      type: "dict",
      properties: {
        nights: { type: "integer", description: "How many nights." },
        view: { type: "string", enum: ["sea", "garden"], default: "garden", description: "The view." },
        extras: { type: "dict", description: "Anything else." },
      },
      required: ["nights"],
    },
  };

  it("never fills in a documented default, but shows it to the model", () => {
    const input = bfclInputSchema(doc);
    expect(input.parse({ nights: 2 })).toEqual({ nights: 2 });
    const spec = toolSpec({ name: "book_room", description: doc.description, input, risk: "read", run: () => "" });
    const view = (spec.parameters.properties as Record<string, Record<string, unknown>>).view!;
    expect(view).toMatchObject({ enum: ["sea", "garden"], default: "garden", description: "The view." });
    expect(spec.parameters.required).toEqual(["nights"]);
  });

  it("rejects what the documents rule out: a wrong type, an unknown argument, a value outside the enum", () => {
    const input = bfclInputSchema(doc);
    expect(input.safeParse({ nights: "2" }).success).toBe(false);
    expect(input.safeParse({ nights: 2.5 }).success).toBe(false);
    expect(input.safeParse({ nights: 2, pets: true }).success).toBe(false);
    expect(input.safeParse({ nights: 2, view: "street" }).success).toBe(false);
    // A dict without declared keys takes any.
    expect(input.parse({ nights: 2, extras: { crib: true } })).toEqual({ nights: 2, extras: { crib: true } });
  });
});

describe("recordedCategory", () => {
  it("records a file of botpsy's own by its path from the package root, and anything else as given", () => {
    const [dev] = unseenSuiteFiles("dev");
    expect(recordedCategory(dev!)).toBe("data/unseen/unseen_dev.json");
    expect(recordedCategory("simple_python")).toBe("simple_python");
    expect(recordedCategory("extra/BFCL_v4_live_simple.json")).toBe("extra/BFCL_v4_live_simple.json");
    const outside = resolve(packageRoot(), "..", "elsewhere", "BFCL_v4_live_simple.json");
    expect(recordedCategory(outside)).toBe(outside);
  });
});
