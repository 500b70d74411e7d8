import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type BfclCase,
  type BfclCaseResult,
  parsePythonCall,
  runBfcl,
  runBfclCase,
  loadBfclCategory,
} from "../../src/eval/bfcl/index.js";
import { createGeneration } from "../../src/model/generation.js";
import { emptyUsage, type ChatModel, type GenerateRequest, type Generation, type ToolCall } from "../../src/model/types.js";

/**
 * A deterministic test double that answers with the case's own ground truth:
 * for single-turn the expected calls, for multi-turn each turn's calls then a
 * short text. It exercises the runner's logic, never a model's skill.
 */
class GroundTruthModel implements ChatModel {
  readonly id = "ground-truth";
  private readonly turnsSeen = new Map<string, number>();

  constructor(private readonly cases: ReadonlyMap<string, BfclCase>) {}

  generate(request: GenerateRequest): Generation {
    return createGeneration(async () => {
      const toolCalls = this.answer(request);
      return {
        text: toolCalls.length === 0 ? "Done." : "",
        thoughts: "",
        toolCalls,
        usage: { ...emptyUsage(), promptTokens: 1, outputTokens: 1 },
        timings: { totalMs: 0, timeToFirstTokenMs: 0, outputTokensPerSecond: 0, promptTokensPerSecond: 0 },
        stopReason: toolCalls.length === 0 ? "stop" : "tool-calls",
      };
    });
  }

  private answer(request: GenerateRequest): ToolCall[] {
    // Multi-turn requests name their case in the conversation id; single-turn ones are found by their question.
    const idFromConversation = /^bfcl-(.+)-[a-z0-9]+$/.exec(request.conversationId ?? "")?.[1];
    const firstUser = request.messages.find((message) => message.role === "user")?.content ?? "";
    const caseData =
      idFromConversation !== undefined
        ? this.cases.get(idFromConversation)
        : [...this.cases.values()].find((candidate) => candidate.question[0]?.some((message) => message.content === firstUser));
    if (caseData === undefined) throw new Error("GroundTruthModel: unknown case");
    const tools = request.tools ?? [];
    const toolName = (name: string): string => tools.find((tool) => tool.name === name.replace(/\./g, "_"))?.name ?? name.replace(/\./g, "_");
    if (caseData.kind === "single-turn") {
      return (caseData.groundTruth ?? []).map((expected, index) => {
        const [name, params] = Object.entries(expected)[0]!;
        const args = Object.fromEntries(Object.entries(params).filter(([, accepted]) => accepted[0] !== "").map(([key, accepted]) => [key, accepted[0]]));
        return { id: `call_${index}`, name: toolName(name), arguments: args };
      });
    }
    // A new turn starts whenever the last message is the user's.
    if (request.messages.at(-1)?.role !== "user") return [];
    const turn = this.turnsSeen.get(caseData.id) ?? 0;
    this.turnsSeen.set(caseData.id, turn + 1);
    return (caseData.groundTruth[turn] ?? []).map((source, index) => {
      const call = parsePythonCall(source);
      const tool = tools.find((candidate) => candidate.name === call.name);
      const order = Object.keys((tool?.parameters.properties as Record<string, unknown> | undefined) ?? {});
      const args: Record<string, unknown> = { ...call.keywords };
      call.positional.forEach((value, position) => {
        args[order[position] ?? `arg${position}`] = value;
      });
      return { id: `call_${turn}_${index}`, name: call.name, arguments: args };
    });
  }

  async dispose(): Promise<void> {}
}

function modelFor(categories: string[]): GroundTruthModel {
  return new GroundTruthModel(new Map(categories.flatMap((category) => loadBfclCategory(category)).map((caseData) => [caseData.id, caseData])));
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

  it("runs three simple cases on the real small model", async () => {
    const modelPath = process.env.BOTPSY_TEST_MODEL;
    expect(modelPath, "BOTPSY_TEST_MODEL is set by the test setup").toBeTruthy();
    expect(existsSync(modelPath!)).toBe(true);
    const { createChatModel } = await import("../../src/model/index.js");
    const model = await createChatModel({ model: modelPath! });
    try {
      const summary = await runBfcl({ categories: ["simple_python"], model, limit: 3, options: { maxTokens: 48 } });
      expect(summary.results).toHaveLength(3);
      for (const result of summary.results) {
        expect(result.errorType).not.toBe("model_error");
        expect(result.steps).toBe(1);
        expect(result.usage.promptTokens).toBeGreaterThan(0);
      }
      const score = summary.categories[0]!;
      expect(score.total).toBe(3);
      expect(score.accuracy).toBeGreaterThanOrEqual(0);
    } finally {
      await model.dispose();
    }
  }, 900_000);
});
