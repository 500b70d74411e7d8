import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaChatModel } from "../../src/model/llama-chat-model.js";
import { sha256OfFile } from "../../src/model/lora-adapter.js";
import type { ToolSpec } from "../../src/model/types.js";
import { callKey } from "../../src/agent/repeated-calls.js";
import { buildTrainingSet, type BuildReport } from "../../src/tune/data.js";
import { EvaluationIndex } from "../../src/tune/disjointness.js";
import { findRecipe } from "../../src/tune/recipes.js";
import { TrainingRenderer } from "../../src/tune/render.js";

const modelPath = process.env.BOTPSY_TEST_MODEL!;

describe("botpsy tune data", () => {
  let renderer: TrainingRenderer;
  let tokenizer: { fileName: string; sha256: string };
  let report: BuildReport;
  /** A set the size of a small training run, for the mix of kinds. */
  let mix: BuildReport;
  const index = EvaluationIndex.load();

  beforeAll(async () => {
    renderer = await TrainingRenderer.load(modelPath, "prompted");
    tokenizer = { fileName: "SmolLM2-135M-Instruct.Q4_1.gguf", sha256: await sha256OfFile(modelPath) };
    report = await buildTrainingSet({ count: 60, seed: 5, renderer, index, tokenizer });
    mix = await buildTrainingSet({ count: 120, seed: 2, renderer, index, tokenizer });
  });

  afterAll(async () => {
    await renderer.dispose();
  });

  it("builds every kind of example, with the ToolBox's subset of tools rather than all of them", () => {
    expect(report.examples.length).toBe(60);
    const kinds = new Set([...report.examples, ...mix.examples].map((example) => example.kind));
    for (const kind of ["single-call", "check-then-act", "recovery", "dead-end", "multi-app", "abstention"]) expect(kinds).toContain(kind);
    for (const example of report.examples) {
      expect(example.offeredTools[0]!.length).toBeGreaterThan(0);
      expect(example.offeredTools[0]!.length).toBeLessThan(20);
      expect(example.sequences.length).toBe(example.offeredTools.length);
    }
  });

  it("keeps nothing that overlaps an evaluation set", () => {
    for (const example of [...report.examples, ...mix.examples]) {
      expect(index.overlap(example.request)).toBeUndefined();
      const answer = example.messages[example.messages.length - 1]!;
      expect(index.overlap(answer.content)).toBeUndefined();
    }
  });

  it("makes the same examples, byte for byte, from the same seed: fence boundaries and the demo files' times included", async () => {
    // A news item is fenced as untrusted (its boundary is random at inference); a missing file lists a folder (times from the disk).
    const recipes = [findRecipe("headlines")!, findRecipe("file-not-found")!];
    const first = await buildTrainingSet({ count: 4, seed: 3, renderer, index, tokenizer, recipes });
    const second = await buildTrainingSet({ count: 4, seed: 3, renderer, index, tokenizer, recipes });
    const text = JSON.stringify(first.examples);
    expect(text).toContain("<<untrusted ");
    expect(text).toContain('\\"modified\\"');
    expect(JSON.stringify(second.examples)).toBe(text);
    const other = await buildTrainingSet({ count: 4, seed: 4, renderer, index, tokenizer, recipes });
    expect(JSON.stringify(other.examples)).not.toBe(text);
  });

  it("drops examples whose request is in an evaluation set, and says so", async () => {
    const clarification = findRecipe("missing-detail")!;
    const probe = new EvaluationIndex([
      { name: "probe suite", texts: ["move it to next week", "text him back", "send him the usual", "tell her I'm on my way", "pay him back"] },
    ]);
    const probed = await buildTrainingSet({ count: 3, seed: 1, renderer, index: probe, tokenizer, recipes: [clarification] });
    expect(probed.examples).toEqual([]);
    expect(probed.dropped.overlap).toBeGreaterThan(0);
    expect(probed.dropped.overlap + probed.dropped["router-conflict"]).toBe(probed.attempted);
    expect(probed.overlaps[0]?.source).toBe("probe suite");
  });

  it("makes about two fifths of a set abstentions and clarifications, from many different requests", () => {
    expect(mix.examples.length).toBe(120);
    const abstaining = mix.examples.filter((example) => example.kind === "abstention" || example.kind === "clarification");
    const share = abstaining.length / mix.examples.length;
    // 20 of 44 draws per round are abstentions or clarifications (0.45); the router's drops move a seeded set a little either way.
    expect(share).toBeGreaterThanOrEqual(0.38);
    expect(share).toBeLessThanOrEqual(0.5);
    expect(mix.byKind.abstention! + (mix.byKind.clarification ?? 0)).toBe(abstaining.length);
    for (const recipe of ["out-of-scope", "general-knowledge", "near-miss", "searched-no-fit", "own-tool-mismatch"]) expect(abstaining.some((example) => example.recipe === recipe)).toBe(true);
    // Composed from parts, not a handful of memorised sentences.
    expect(new Set(abstaining.map((example) => example.request)).size).toBeGreaterThanOrEqual(abstaining.length * 0.8);
    expect(new Set(abstaining.map((example) => example.messages[example.messages.length - 1]!.content)).size).toBeGreaterThan(15);
  });

  it("offers abstentions the ToolBox's tools and has the model answer in words, with no call", () => {
    const abstentions = mix.examples.filter((example) => example.kind === "abstention" && example.recipe !== "searched-no-fit");
    expect(abstentions.length).toBeGreaterThan(20);
    for (const example of abstentions) {
      expect(example.offeredTools.length).toBe(1);
      expect(example.offeredTools[0]!.length).toBeGreaterThan(0);
      expect(example.offeredTools[0]!.length).toBeLessThan(20);
      expect(example.toolChoices[0]).toBe("auto");
      expect(example.calls).toEqual([]);
      expect(example.messages.some((message) => message.role === "tool" || (message.role === "assistant" && (message.toolCalls ?? []).length > 0))).toBe(false);
      const reply = example.messages[example.messages.length - 1]!;
      expect(reply.role).toBe("assistant");
      expect(reply.content.length).toBeGreaterThan(10);
      expect(example.sequences[0]!.writesCall).toBe(false);
      expect(example.sequences[0]!.completion).toContain(reply.content);
    }
  });

  it("never repeats a failing call, and ends a dead end with the look-up the error asked for and an answer in words", () => {
    const failing = mix.examples.filter((example) => example.kind === "recovery" || example.kind === "dead-end");
    for (const example of failing) {
      const calls = example.calls.filter((call) => call.name !== "find_tools");
      expect(calls[0]!.ok).toBe(false);
      for (let position = 1; position < calls.length; position++) {
        const [before, after] = [calls[position - 1]!, calls[position]!];
        if (!before.ok && !after.ok) expect(callKey({ id: "", ...after })).not.toBe(callKey({ id: "", ...before }));
      }
    }
    const deadEnds = failing.filter((example) => example.kind === "dead-end");
    expect(new Set(deadEnds.map((example) => example.recipe)).size).toBeGreaterThanOrEqual(5);
    for (const example of deadEnds) {
      const calls = example.calls.filter((call) => call.name !== "find_tools");
      // The last call worked (the look-up): the model read it, then stopped and said what is wrong.
      expect(calls[calls.length - 1]!.ok).toBe(true);
      expect(example.sequences[example.sequences.length - 1]!.writesCall).toBe(false);
      expect(example.messages[example.messages.length - 1]!.content.length).toBeGreaterThan(20);
    }
    const missingFile = deadEnds.find((example) => example.recipe === "file-not-found");
    if (missingFile !== undefined) {
      expect(missingFile.calls.find((call) => call.name === "read_file")!.error!.code).toBe("file_not_found");
      const listed = missingFile.calls.find((call) => call.name === "list_files")!.value as { entries: Array<{ name: string }> };
      for (const entry of listed.entries) expect(missingFile.messages[missingFile.messages.length - 1]!.content).toContain(entry.name);
    }
  });

  it("puts the apps' real results in the conversation, errors included (Wi-Fi off, fuel that does not fit)", () => {
    for (const example of report.examples) {
      const toolMessages = example.messages.filter((message) => message.role === "tool");
      expect(toolMessages.length).toBe(example.calls.length);
      example.calls.forEach((call, position) => {
        const content = toolMessages[position]!.content;
        if (call.ok) expect(content).toContain(JSON.stringify(call.value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").slice(0, 40));
        else expect(content).toContain(call.error!.code);
      });
    }
    const offline = report.examples.find((example) => example.recipe === "weather-offline")!;
    // set_wifi is not among the tools retrieved for a weather request: the model finds it first, as it must at inference.
    expect(offline.calls.map((call) => [call.name, call.ok])).toEqual([
      ["get_weather", false],
      ["find_tools", true],
      ["set_wifi", true],
      ["get_weather", true],
    ]);
    expect(offline.calls[0]!.error!.code).toBe("wifi_off");
    const fuel = report.examples.find((example) => example.recipe === "fuel-capacity")!;
    const fuelCalls = fuel.calls.filter((call) => call.name === "add_fuel");
    expect(fuelCalls[0]!.ok).toBe(false);
    expect(fuelCalls[1]!.ok).toBe(true);
    expect(Number(fuelCalls[1]!.arguments.gallons)).toBeLessThan(Number(fuelCalls[0]!.arguments.gallons));
  });

  it("has the model search with find_tools, read what it found, and still answer in words when none of it does what was asked", () => {
    const searched = mix.examples.filter((example) => example.recipe === "searched-no-fit");
    expect(searched.length).toBeGreaterThan(2);
    for (const example of searched) {
      expect(example.calls.map((call) => [call.name, call.ok])).toEqual([["find_tools", true]]);
      expect(String(example.calls[0]!.arguments.query).length).toBeGreaterThan(2);
      // The search's real result is in the conversation before the answer.
      expect(example.messages.filter((message) => message.role === "tool")).toHaveLength(1);
      expect(example.sequences.map((sequence) => sequence.writesCall)).toEqual([true, false]);
    }
  });

  it("offers the user's own tools as they are, and teaches both a call that fits and an answer in words when only the numbers fit", () => {
    const ownCalls = mix.examples.filter((example) => example.recipe === "own-tool-call");
    const mismatches = mix.examples.filter((example) => example.recipe === "own-tool-mismatch");
    expect(ownCalls.length).toBeGreaterThan(3);
    expect(mismatches.length).toBeGreaterThan(3);
    for (const example of [...ownCalls, ...mismatches]) {
      // A handful of tools: the ToolBox offers all of them and no find_tools, as it does at inference.
      expect(example.offeredTools[0]!.length).toBeGreaterThanOrEqual(1);
      expect(example.offeredTools[0]!.length).toBeLessThanOrEqual(3);
      expect(example.offeredTools[0]).not.toContain("find_tools");
      expect(example.tools.every((tool) => tool.description.length > 10)).toBe(true);
    }
    for (const example of ownCalls) {
      expect(example.calls).toHaveLength(1);
      expect(example.calls[0]!.ok).toBe(true);
      expect(example.offeredTools[0]).toContain(example.calls[0]!.name);
      // The answer quotes the tool's real result.
      const value = example.calls[0]!.value as Record<string, unknown>;
      const reply = example.messages[example.messages.length - 1]!.content;
      expect(Object.values(value).some((field) => typeof field === "number" && reply.replaceAll(",", "").includes(String(Math.round(field * 100) / 100)))).toBe(true);
    }
    for (const example of mismatches) {
      expect(example.calls).toEqual([]);
      expect(example.sequences.map((sequence) => sequence.writesCall)).toEqual([false]);
    }
  });

  it("trains the router's forced turns where the set says so: the call prefix learned, an answer in words kept", async () => {
    // "Set an alarm" makes the router force a call, where only a question back is right; "find a recipe for …" is served by its call.
    const recipes = [findRecipe("missing-detail")!, findRecipe("find-recipe")!];
    const played = await buildTrainingSet({ count: 16, seed: 7, renderer, index, tokenizer, recipes });
    const trained = await buildTrainingSet({ count: 16, seed: 7, renderer, index, tokenizer, recipes, forcedTurns: "trained" });
    const forced = (example: { toolChoices: unknown[] }): boolean => example.toolChoices[0] === "required" || typeof example.toolChoices[0] === "object";

    // As played, a forced turn can only be a call: the answers in words the router would not allow are dropped.
    expect(played.dropped["router-conflict"]).toBeGreaterThan(0);
    expect(played.examples.filter((example) => forced(example) && !example.sequences[0]!.writesCall)).toEqual([]);
    const keptInWords = trained.examples.filter((example) => forced(example) && !example.sequences[0]!.writesCall);
    expect(keptInWords.length).toBeGreaterThan(0);
    for (const example of keptInWords) {
      expect(example.kind).toBe("clarification");
      const sequence = example.sequences[0]!;
      expect(sequence.completion).toContain(example.messages[example.messages.length - 1]!.content);
      expect(sequence.prompt.endsWith("<|im_start|>assistant\n")).toBe(true);
    }

    // A forced call: as played, its prefix is context; trained, it is the first thing learned, after the same prompt.
    const callsPlayed = new Map(played.examples.filter((example) => forced(example) && example.sequences[0]!.writesCall).map((example) => [example.request, example.sequences[0]!]));
    const pairs = trained.examples
      .filter((example) => forced(example) && example.sequences[0]!.writesCall && callsPlayed.has(example.request))
      .map((example) => [callsPlayed.get(example.request)!, example.sequences[0]!] as const);
    expect(pairs.length).toBeGreaterThan(0);
    for (const [asPlayed, asTrained] of pairs) {
      expect(asPlayed.completion.startsWith("<tool_call>")).toBe(false);
      expect(asPlayed.prompt.startsWith(asTrained.prompt)).toBe(true);
      const prefix = asPlayed.prompt.slice(asTrained.prompt.length);
      expect(prefix.startsWith("<tool_call>")).toBe(true);
      expect(asTrained.completion.startsWith(prefix)).toBe(true);
      expect(asTrained.completionStart).toBeLessThan(asPlayed.completionStart);
      expect(asTrained.tokens.slice(0, asTrained.completionStart)).toEqual(asPlayed.tokens.slice(0, asTrained.completionStart));
    }
  });

  it("renders each turn's prompt as the llama.cpp backend does: the same token count, the same text", async () => {
    const model = await LlamaChatModel.load({ modelPath, threads: 1, maxConversations: 1, contextSize: 2048, chatFormat: "prompted" });
    try {
      // Two turns: a forced one (the router's call prefix in the context) and a free one, where the data has both.
      const forced = report.examples.find((example) => example.toolChoices[0] === "required" || typeof example.toolChoices[0] === "object");
      const free = report.examples.find((example) => example.toolChoices[0] === "auto");
      for (const example of [forced, free].filter((candidate) => candidate !== undefined)) {
        const sequence = example.sequences[0]!;
        const messages = example.messages.slice(0, 2);
        const tools: ToolSpec[] = example.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters as ToolSpec["parameters"] }));
        const choice = example.toolChoices[0];
        const result = await model.generate({ messages, tools, maxTokens: 1, ...(choice !== null && choice !== undefined ? { toolChoice: choice } : {}) }).result;
        expect(result.usage.promptTokens).toBe(sequence.completionStart);
        expect(sequence.prompt).toContain(example.request);
        expect(sequence.prompt).toContain("<|im_start|>assistant");
        expect(sequence.tokens.length).toBeGreaterThan(sequence.completionStart);
      }
      // A turn after a tool's result, where the backend continues the open model turn: the same tokens again.
      const afterResult = report.examples.find(
        (example) => example.sequences.length >= 2 && (example.toolChoices[1] ?? "auto") === "auto" && example.offeredTools[1]?.join() === example.offeredTools[0]?.join(),
      );
      expect(afterResult, "the data has a free turn after a result").toBeDefined();
      const second = afterResult!.sequences[1]!;
      const upToResult = afterResult!.messages.slice(0, afterResult!.messages.findIndex((message) => message.role === "tool") + 1);
      const tools: ToolSpec[] = afterResult!.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters as ToolSpec["parameters"] }));
      const result = await model.generate({ messages: upToResult, tools, maxTokens: 1 }).result;
      expect(result.usage.promptTokens).toBe(second.completionStart);
      expect(second.prompt).not.toMatch(/<\|im_start\|>assistant\n<\|im_end\|>/);
    } finally {
      await model.dispose();
    }
  }, 600_000);
});
