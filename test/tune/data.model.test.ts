import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaChatModel } from "../../src/model/llama-chat-model.js";
import { sha256OfFile } from "../../src/model/lora-adapter.js";
import type { ToolSpec } from "../../src/model/types.js";
import { buildTrainingSet, type BuildReport } from "../../src/tune/data.js";
import { EvaluationIndex } from "../../src/tune/disjointness.js";
import { findRecipe } from "../../src/tune/recipes.js";
import { TrainingRenderer } from "../../src/tune/render.js";

const modelPath = process.env.BOTPSY_TEST_MODEL!;

describe("botpsy tune data", () => {
  let renderer: TrainingRenderer;
  let tokenizer: { fileName: string; sha256: string };
  let report: BuildReport;
  const index = EvaluationIndex.load();

  beforeAll(async () => {
    renderer = await TrainingRenderer.load(modelPath, "prompted");
    tokenizer = { fileName: "SmolLM2-135M-Instruct.Q4_1.gguf", sha256: await sha256OfFile(modelPath) };
    report = await buildTrainingSet({ count: 24, seed: 5, renderer, index, tokenizer });
  });

  afterAll(async () => {
    await renderer.dispose();
  });

  it("builds every kind of example, with the ToolBox's subset of tools rather than all of them", () => {
    expect(report.examples.length).toBe(24);
    const kinds = new Set(report.examples.map((example) => example.kind));
    // Clarifications are often dropped: the router forces a call on requests such as "Set an alarm", so the model could not ask there.
    for (const kind of ["single-call", "check-then-act", "recovery", "multi-app", "abstention"]) expect(kinds).toContain(kind);
    for (const example of report.examples) {
      expect(example.offeredTools[0]!.length).toBeGreaterThan(0);
      expect(example.offeredTools[0]!.length).toBeLessThan(20);
      expect(example.sequences.length).toBe(example.offeredTools.length);
    }
  });

  it("keeps nothing that overlaps an evaluation set", () => {
    for (const example of report.examples) {
      expect(index.overlap(example.request)).toBeUndefined();
      const answer = example.messages[example.messages.length - 1]!;
      expect(index.overlap(answer.content)).toBeUndefined();
    }
  });

  it("drops examples whose request is in an evaluation set, and says so", async () => {
    const abstention = findRecipe("no-tool")!;
    const probe = new EvaluationIndex([
      {
        name: "probe suite",
        texts: [
          "Order me a large pepperoni pizza for delivery",
          "Book a table for two at a restaurant tonight",
          "Translate 'good morning' into Japanese",
          "Call an Uber to the airport",
          "Lower the thermostat in the living room to 19 degrees",
          "Write me a poem about autumn leaves",
          "Renew my passport online",
        ],
      },
    ]);
    const probed = await buildTrainingSet({ count: 3, seed: 1, renderer, index: probe, tokenizer, recipes: [abstention] });
    expect(probed.examples).toEqual([]);
    expect(probed.dropped.overlap).toBeGreaterThan(0);
    expect(probed.dropped.overlap + probed.dropped["router-conflict"]).toBe(probed.attempted);
    expect(probed.overlaps[0]?.source).toBe("probe suite");
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
