import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Template } from "@huggingface/jinja";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ChatFormatUnsupportedError } from "../../src/model/errors.js";
import { readModelInfo } from "../../src/model/info.js";
import { normalizeToolSpecs } from "../../src/model/json-schema.js";
import { LlamaChatModel } from "../../src/model/llama-chat-model.js";
import type { ChatMessage, GenerateResult, ToolSpec } from "../../src/model/types.js";

/**
 * BotPsy's dialect end to end on a tiny random-weight GGUF that carries the
 * real Qwen 3.5 chat template (test/fixtures/qwen35-tiny.gguf, written by
 * scripts/fixtures/make-qwen35-fixture.py). The weights are noise, so calls
 * are forced; what is checked is the format: the template is recognised, the
 * calls come back parsed and typed, the history re-renders token for token as
 * generated (the cache covers every earlier token) and thinking budgets hold.
 */
const fixture = resolve("test/fixtures/qwen35-tiny.gguf");
const TIMEOUT_MS = 300_000;

const tools: ToolSpec[] = [
  {
    name: "add_event",
    description: "Add an event to the calendar.",
    parameters: {
      type: "object",
      properties: { title: { type: "string", maxLength: 24 }, minutes: { type: "integer" }, all_day: { type: "boolean" }, kind: { type: "string", enum: ["work", "home"] } },
      required: ["title", "minutes", "all_day", "kind"],
    },
  },
  { name: "list_alarms", description: "List the alarms.", parameters: { type: "object", properties: {} } },
];

describe("the Qwen 3.5 fixture", () => {
  let model: LlamaChatModel;
  let home: string;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "botpsy-qwen35-"));
    model = await LlamaChatModel.load({ modelPath: fixture, gpu: false, threads: 1, contextSize: 4096, formatCacheFile: join(home, "formats.json") });
  }, TIMEOUT_MS);
  afterAll(async () => {
    await model?.dispose();
    rmSync(home, { recursive: true, force: true });
  });

  it("is the file its generator wrote (sha256 recorded beside it)", () => {
    const recorded = readFileSync(`${fixture}.sha256`, "utf8").split(/\s+/)[0];
    expect(createHash("sha256").update(readFileSync(fixture)).digest("hex")).toBe(recorded);
  });

  it("has Qwen's tool and thinking markers as single tokens, also in plain text", () => {
    for (const marker of ["<tool_call>", "</tool_call>", "<think>", "</think>", "<tool_response>", "</tool_response>"]) {
      expect(model.model.tokenize(marker, false), marker).toHaveLength(1);
    }
    expect(model.model.tokenize("<|im_start|>", true)).toHaveLength(1);
  });

  it("is recognised as Qwen 3.5 from its template, then from the cache, and named formats skip the template", async () => {
    expect(model.format.name).toBe("qwen3.5");
    expect(model.format.source).toBe("template");
    const cached = await LlamaChatModel.load({ modelPath: fixture, gpu: false, threads: 1, contextSize: 512, formatCacheFile: join(home, "formats.json") });
    const named = await LlamaChatModel.load({ modelPath: fixture, gpu: false, threads: 1, contextSize: 512, chatFormat: "qwen3.5" });
    try {
      expect(cached.format).toMatchObject({ name: "qwen3.5", source: "cache" });
      expect(named.format).toMatchObject({ name: "qwen3.5", source: "named" });
    } finally {
      await cached.dispose();
      await named.dispose();
    }
  }, TIMEOUT_MS);

  it("refuses the Qwen 3.5 format for a model whose vocabulary cannot write it", async () => {
    const smollm2 = process.env.BOTPSY_TEST_MODEL;
    if (smollm2 === undefined) throw new Error("BOTPSY_TEST_MODEL is not set: run the model tests through vitest (test/global-setup.ts).");
    const attempt = LlamaChatModel.load({ modelPath: smollm2, gpu: false, threads: 1, contextSize: 256, chatFormat: "qwen3.5" });
    await expect(attempt).rejects.toBeInstanceOf(ChatFormatUnsupportedError);
    await expect(attempt).rejects.toThrow(/no single token for <tool_call>/);
  }, TIMEOUT_MS);

  it("names the dialect in the model's info, with the template's hash and a passing self-test", async () => {
    const info = await readModelInfo(fixture);
    expect(info.dialect).toBe("qwen3.5");
    expect(info.chatTemplateSha256).toBe(createHash("sha256").update(info.chatTemplate ?? "").digest("hex"));
    expect(info.selfTest).toMatch(/^pass/);
  });

  it("runs a four-step loop with forced, typed calls, reading at least 90% of each later prompt from the cache", async () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "You are botpsy." },
      { role: "user", content: "Add lunch with Tom on Friday" },
    ];
    const results: GenerateResult[] = [];
    for (let step = 1; step <= 4; step++) {
      const result = await model.generate({ messages, tools, toolChoice: step < 4 ? { name: "add_event" } : "none", maxTokens: 200, conversationId: "loop" }).result;
      results.push(result);
      if (step < 4) {
        expect(result.stopReason, `step ${step}: ${JSON.stringify(result)}`).toBe("tool-calls");
        const [call] = result.toolCalls;
        expect(call?.name).toBe("add_event");
        expect(typeof call?.arguments.title).toBe("string");
        expect((call?.arguments.title as string).length).toBeLessThanOrEqual(24);
        expect(Number.isInteger(call?.arguments.minutes)).toBe(true);
        expect(typeof call?.arguments.all_day).toBe("boolean");
        expect(["work", "home"]).toContain(call?.arguments.kind);
      } else {
        expect(result.toolCalls).toEqual([]);
      }
      // The history as a caller keeps it: content and calls, no thoughts.
      messages.push({ role: "assistant", content: result.text, ...(result.toolCalls.length > 0 ? { toolCalls: result.toolCalls } : {}) });
      for (const call of result.toolCalls) messages.push({ role: "tool", toolCallId: call.id, name: call.name, content: '{"added": true}' });
    }
    for (let step = 2; step <= 4; step++) {
      const previous = results[step - 2]!;
      const current = results[step - 1]!;
      // Every token of the previous prompt and of what was generated is reused.
      expect(current.usage.cachedPromptTokens, `step ${step}`).toBe(previous.usage.promptTokens + previous.usage.outputTokens);
      expect(current.usage.cachedPromptTokens / current.usage.promptTokens, `step ${step}`).toBeGreaterThanOrEqual(0.9);
    }
  }, TIMEOUT_MS);

  it("types array and object arguments by their schema (items, bounds, properties, enums, integer ranges) under random weights", async () => {
    const input = z.object({
      tags: z.array(z.enum(["red", "blue"])).min(1).max(3),
      spot: z.object({ x: z.number().int(), y: z.number().int(), mark: z.enum(["pin", "flag"]).optional() }),
      sizes: z.array(z.number().int()).max(2).optional(),
      // Random weights write any digits; the grammar lists a small range's values.
      zoom: z.number().int().min(1).max(12),
      layers: z.array(z.number().int().min(0).max(3)).min(1).max(2),
    });
    const parameters = z.toJSONSchema(input, { io: "input" }) as Record<string, unknown>;
    delete parameters.$schema;
    const place: ToolSpec = { name: "place_pins", description: "Place pins on the map.", parameters };
    for (let seed = 1; seed <= 6; seed++) {
      const result = await model.generate({ messages: [{ role: "user", content: "Pin it" }], tools: [place], toolChoice: { name: "place_pins" }, maxTokens: 300, seed, temperature: 1 }).result;
      expect(result.stopReason, JSON.stringify(result)).toBe("tool-calls");
      const parsed = input.safeParse(result.toolCalls[0]?.arguments);
      expect(parsed.success, `seed ${seed}: ${JSON.stringify(result.toolCalls[0]?.arguments)}`).toBe(true);
    }
  }, TIMEOUT_MS);

  it("cuts thoughts at their budget, and re-renders the turn with them when the caller dropped them", async () => {
    const messages: ChatMessage[] = [{ role: "user", content: "Which alarms do I have?" }];
    const first = await model.generate({ messages, tools, thinking: { budget: 6 }, toolChoice: "auto", maxTokens: 40, conversationId: "think" }).result;
    expect(first.usage.reasoningTokens).toBeLessThanOrEqual(6);
    expect(first.usage.reasoningTokens).toBeGreaterThan(0);
    messages.push({ role: "assistant", content: first.text, ...(first.toolCalls.length > 0 ? { toolCalls: first.toolCalls } : {}) });
    for (const call of first.toolCalls) messages.push({ role: "tool", toolCallId: call.id, name: call.name, content: "none" });
    if (first.toolCalls.length === 0) messages.push({ role: "user", content: "<tool_response>\nnone\n</tool_response>" });
    const second = await model.generate({ messages, tools, thinking: { budget: 6 }, maxTokens: 8, conversationId: "think" }).result;
    if (first.stopReason !== "max-tokens") {
      expect(second.usage.cachedPromptTokens).toBe(first.usage.promptTokens + first.usage.outputTokens);
    } else {
      expect(second.usage.cachedPromptTokens).toBeGreaterThanOrEqual(first.usage.promptTokens);
    }
  }, TIMEOUT_MS);

  it("feeds the model exactly what the GGUF's own template renders", async () => {
    const info = await readModelInfo(fixture);
    const template = new Template(info.chatTemplate!);
    const messages: ChatMessage[] = [
      { role: "system", content: "You are botpsy." },
      { role: "user", content: "Which alarms do I have?" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_a", name: "list_alarms", arguments: {} }] },
      { role: "tool", toolCallId: "call_a", name: "list_alarms", content: "[]" },
    ];
    const expected = template.render({
      messages: [
        messages[0],
        messages[1],
        { role: "assistant", content: "", tool_calls: [{ type: "function", function: { name: "list_alarms", arguments: {} } }] },
        { role: "tool", content: "[]" },
      ],
      tools: normalizeToolSpecs(tools).map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
      add_generation_prompt: true,
    });
    expect(model.model.detokenize(model.promptTokens({ messages, tools }), true)).toBe(expected);
  });
});

describe("botpsy run on the Qwen 3.5 fixture", () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "botpsy-qwen35-run-"));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("makes a forced call that parses, runs on the apps, and whose result the next step reads", async () => {
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((done) => {
      execFile(
        process.execPath,
        ["--import", "tsx", resolve("src/cli/main.ts"), "run", "List my alarms", "--model", fixture, "--json", "--yes", "--require-tool", "--threads", "1", "--max-steps", "3"],
        { cwd: resolve("."), env: { ...process.env, BOTPSY_HOME: home }, timeout: 280_000, maxBuffer: 16 * 1024 * 1024 },
        (_error, out, err) => done({ stdout: out, stderr: err }),
      );
    });
    const outcome = JSON.parse(stdout) as {
      stopReason: string;
      steps: number;
      calls: Array<{ call: { name: string; arguments: Record<string, unknown> }; status: string; step: number; error?: { code: string } }>;
    };
    expect(["answered", "abstained", "step_limit"], stderr).toContain(outcome.stopReason);
    const first = outcome.calls[0];
    expect(first, stderr).toBeDefined();
    expect(first!.step).toBe(1);
    // The call reached the apps: it ran, or the tool itself judged its (random) arguments.
    expect(first!.error?.code ?? "ran", JSON.stringify(first)).not.toMatch(/unknown_tool|parse/);
    expect(["ok", "error"]).toContain(first!.status);
    // Its result went back: there was a next model step.
    expect(outcome.steps).toBeGreaterThan(1);
  }, TIMEOUT_MS);
});
