import { describe, expect, it } from "vitest";
import { type BfclCaseResult, runBfcl, runBfclCase, loadBfclCategory } from "../../src/eval/bfcl/index.js";
import { GroundTruthModel } from "../../src/eval/bfcl/ground-truth-model.js";
import { createGeneration } from "../../src/model/generation.js";
import { emptyUsage, type ChatModel } from "../../src/model/types.js";

function modelFor(categories: string[]): GroundTruthModel {
  return new GroundTruthModel(categories.flatMap((category) => loadBfclCategory(category)));
}

describe("BFCL runner", () => {
  it("scores 100% on multi-turn base when the model replays the ground truth", async () => {
    const seen: BfclCaseResult[] = [];
    const summary = await runBfcl({ categories: ["multi_turn_base"], model: modelFor(["multi_turn_base"]), concurrency: 4, onResult: (result) => void seen.push(result) });
    expect(summary.results.filter((result) => !result.valid).map((result) => `${result.id} ${result.errors.join(" ")}`)).toEqual([]);
    expect(summary.categories).toEqual([{ category: "multi_turn_base", total: 200, correct: 200, accuracy: 1 }]);
    expect(seen).toHaveLength(200);
    expect(summary.results.every((result) => result.turns?.every((turn) => turn.valid))).toBe(true);
  });

  it("offers held-back functions only from their turn, and scores miss_func ground truth fully", async () => {
    const caseData = loadBfclCategory("multi_turn_miss_func", { limit: 1 })[0]!;
    const offeredPerRequest: string[][] = [];
    const inner = modelFor(["multi_turn_miss_func"]);
    const watching: ChatModel = {
      id: "watching",
      generate: (request) => {
        offeredPerRequest.push((request.tools ?? []).map((tool) => tool.name));
        return inner.generate(request);
      },
      dispose: async () => {},
    };
    const result = await runBfclCase(caseData, { model: watching });
    expect(result.valid).toBe(true);
    expect(offeredPerRequest[0]).not.toContain("sort");
    expect(offeredPerRequest.at(-1)).toContain("sort");
    const summary = await runBfcl({ categories: ["multi_turn_miss_func"], model: modelFor(["multi_turn_miss_func"]), concurrency: 4 });
    expect(summary.categories[0]).toMatchObject({ total: 200, correct: 200 });
  });

  it("prunes optional parameters the request does not speak of from the model's tools, never a required one", async () => {
    const cases = loadBfclCategory("simple_python", { limit: 30 });
    const inner = modelFor(["simple_python"]);
    let parameterNames: string[] = [];
    const watching: ChatModel = {
      id: "watching",
      generate: (request) => {
        parameterNames = (request.tools ?? []).flatMap((tool) => Object.keys((tool.parameters.properties as object | undefined) ?? {}));
        return inner.generate(request);
      },
      dispose: async () => {},
    };
    let prunedCases = 0;
    for (const caseData of cases) {
      const documented = caseData.functions.flatMap((doc) => Object.keys(doc.parameters.properties ?? {}));
      await runBfclCase(caseData, { model: watching, pruneArguments: false });
      expect(parameterNames).toHaveLength(documented.length);
      await runBfclCase(caseData, { model: watching });
      for (const doc of caseData.functions) for (const name of doc.parameters.required ?? []) expect(parameterNames).toContain(name);
      if (parameterNames.length < documented.length) prunedCases++;
    }
    expect(prunedCases).toBeGreaterThan(0);
  });

  it("scores single-turn categories with the AST checker and irrelevance as no call", async () => {
    const summary = await runBfcl({ categories: ["simple_python", "irrelevance"], model: modelFor(["simple_python", "irrelevance"]), limit: 20 });
    const simple = summary.categories.find((score) => score.category === "simple_python")!;
    expect(simple.total).toBe(20);
    expect(simple.correct).toBe(20);
    expect(summary.categories.find((score) => score.category === "irrelevance")).toMatchObject({ total: 20, correct: 20 });
  });

  it("fails a multi-turn case that never stops calling after 20 steps", async () => {
    const caseData = loadBfclCategory("multi_turn_base", { limit: 1 })[0]!;
    let requests = 0;
    const looping: ChatModel = {
      id: "looping",
      generate: () => {
        requests++;
        return createGeneration(async () => ({
          text: "",
          thoughts: "",
          toolCalls: [{ id: `c${requests}`, name: "pwd", arguments: {} }],
          usage: emptyUsage(),
          timings: { totalMs: 0, timeToFirstTokenMs: 0, outputTokensPerSecond: 0, promptTokensPerSecond: 0 },
          stopReason: "tool-calls",
        }));
      },
      dispose: async () => {},
    };
    const result = await runBfclCase(caseData, { model: looping });
    expect(result).toMatchObject({ valid: false, errorType: "multi_turn:force_terminated", steps: 20 });
    expect(requests).toBe(20);
  });
});
