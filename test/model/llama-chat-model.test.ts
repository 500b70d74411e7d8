import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ContextOverflowError, ModelFileCorruptError, ModelFileMissingError, UnsupportedArchitectureError } from "../../src/model/errors.js";
import { LlamaChatModel } from "../../src/model/llama-chat-model.js";
import type { ChatMessage, ToolSpec } from "../../src/model/types.js";
import { makeTempDir } from "../support/temp-dir.js";

/**
 * Real inference on SmolLM2-135M-Instruct (pulled by the global setup). The
 * limits are generous because a shared machine can be many times slower than
 * an idle one; the tests assert behaviour, never speed (except the abort bound).
 */
const MODEL_TEST_TIMEOUT_MS = 600_000;
/**
 * The 20-prompt test's budget, per prompt. On a two-core machine with a load
 * average of 17, one thread took 1.5 to 12 s per prompt (70 s for all 20); the
 * worst case, 200 output tokens at the ~70 ms a token seen there, is about
 * 15 s. Three times that per prompt holds on a machine busier still, where a
 * single 600 s limit for the whole loop did not (with two threads, which spin
 * against each other on a busy machine).
 */
const PER_PROMPT_TIMEOUT_MS = 45_000;
/**
 * Least share (%) of a forced-call loop's prompt read from the cache on steps
 * 2 and 3. Measured 86.3 and 89.4 (41 of 299 and of 385 tokens evaluated, all
 * of them new); before calls were re-rendered token for token, 81.5 and 77.2.
 */
const CACHED_SHARE_FLOOR = 84;
const modelPath = process.env.BOTPSY_TEST_MODEL;
if (modelPath === undefined) throw new Error("BOTPSY_TEST_MODEL is not set: run the model tests through vitest (test/global-setup.ts).");

const toolInputs = {
  get_weather: z.object({ city: z.string(), unit: z.enum(["celsius", "fahrenheit"]).optional() }),
  send_message: z.object({ to: z.string(), text: z.string() }),
  set_alarm: z.object({ time: z.string(), label: z.string().optional() }),
  create_event: z.object({ title: z.string(), date: z.string(), attendees: z.array(z.string()).max(3).optional() }),
  search_web: z.object({ query: z.string() }),
  turn_wifi: z.object({ on: z.boolean() }),
};
const toolDescriptions: Record<keyof typeof toolInputs, string> = {
  get_weather: "Get the current weather for a city.",
  send_message: "Send a text message to a contact.",
  set_alarm: "Set an alarm at a time.",
  create_event: "Add an event to the calendar.",
  search_web: "Search the web.",
  turn_wifi: "Turn Wi-Fi on or off.",
};
const tools: ToolSpec[] = Object.entries(toolInputs).map(([name, input]) => {
  const parameters = z.toJSONSchema(input, { io: "input" }) as Record<string, unknown>;
  delete parameters.$schema;
  return { name, description: toolDescriptions[name as keyof typeof toolInputs], parameters };
});

const prompts = [
  "What's the weather in Paris?",
  "Text Anna that I'm running late.",
  "Wake me up at 7 am tomorrow.",
  "Is it going to rain in London today?",
  "Put lunch with Tom on Friday in my calendar.",
  "Search the web for vegan lasagne recipes.",
  "Turn off the wifi.",
  "Tell Bob the meeting moved to 3 pm.",
  "How cold is it in Oslo in fahrenheit?",
  "Set an alarm for 6:30 called gym.",
  "Schedule a dentist appointment on 2026-03-04.",
  "Look up who won the 2018 World Cup.",
  "Switch the Wi-Fi back on please.",
  "Message mum: happy birthday!",
  "Weather for Tokyo?",
  "Remind me with an alarm at noon.",
  "Create an event 'Team sync' on Monday with Ana and Li.",
  "Find news about the Mars mission.",
  "Send 'on my way' to Carlos.",
  "Do I need an umbrella in Berlin?",
];

describe("LlamaChatModel on SmolLM2-135M", () => {
  let model: LlamaChatModel;

  beforeAll(async () => {
    model = await LlamaChatModel.load({ modelPath, contextSize: 2048, threads: 1, maxConversations: 2 });
  }, MODEL_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await model?.dispose();
  });

  it("loads with the prompted tool-call format (ChatML has no native one)", () => {
    expect(model.format.name).toBe("prompted");
    expect(model.contextSize).toBe(2048);
    expect(model.id).toBe("SmolLM2-135M-Instruct.Q4_1.gguf");
  });

  it("repeats greedy generation exactly with a fixed seed, and counts usage", async () => {
    const messages: ChatMessage[] = [{ role: "user", content: "Name three fruits." }];
    const first = await model.generate({ messages, maxTokens: 24, seed: 7, conversationId: "repeat-a" }).result;
    const second = await model.generate({ messages, maxTokens: 24, seed: 7, conversationId: "repeat-b" }).result;
    expect(first.text.length).toBeGreaterThan(0);
    expect(second.text).toBe(first.text);
    expect(first.usage.promptTokens).toBeGreaterThan(5);
    expect(first.usage.outputTokens).toBeGreaterThan(0);
    expect(first.usage.outputTokens).toBeLessThanOrEqual(24);
    expect(first.usage.reasoningTokens).toBe(0);
    expect(first.timings.timeToFirstTokenMs).toBeGreaterThan(0);
    expect(first.timings.totalMs).toBeGreaterThanOrEqual(first.timings.timeToFirstTokenMs);
    if (first.stopReason === "max-tokens") expect(first.usage.outputTokens).toBe(24);
  }, MODEL_TEST_TIMEOUT_MS);

  it("under tool choice required, names one of the given tools with schema-valid arguments on every one of 20 prompts", async () => {
    const names = new Set(tools.map((tool) => tool.name));
    for (const prompt of prompts) {
      const result = await model.generate({ messages: [{ role: "user", content: prompt }], tools, toolChoice: "required", maxTokens: 200 }).result;
      expect(result.stopReason, prompt).toBe("tool-calls");
      expect(result.toolCalls.length, prompt).toBe(1);
      for (const call of result.toolCalls) {
        expect(names.has(call.name), `${prompt} -> ${call.name}`).toBe(true);
        const parsed = toolInputs[call.name as keyof typeof toolInputs].safeParse(call.arguments);
        expect(parsed.success, `${prompt} -> ${call.name}(${JSON.stringify(call.arguments)})`).toBe(true);
      }
    }
  }, prompts.length * PER_PROMPT_TIMEOUT_MS);

  it("holds a bounded integer argument to its range while decoding, where the model asks for far more", async () => {
    const input = z.object({ count: z.number().int().min(1).max(10) });
    const parameters = z.toJSONSchema(input, { io: "input" }) as Record<string, unknown>;
    delete parameters.$schema;
    const skip: ToolSpec = { name: "skip_track", description: "Skip songs in the playing queue.", parameters };
    const written: unknown[] = [];
    for (const [index, prompt] of ["Skip 500000 songs.", "Skip 2026 tracks please", "skip a million songs"].entries()) {
      const result = await model.generate({ messages: [{ role: "user", content: prompt }], tools: [skip], toolChoice: "required", maxTokens: 40, temperature: 1, seed: index + 1 }).result;
      expect(result.toolCalls.length, prompt).toBe(1);
      written.push(result.toolCalls[0]!.arguments);
      expect(input.safeParse(result.toolCalls[0]!.arguments).success, `${prompt} -> ${JSON.stringify(result.toolCalls[0]!.arguments)}`).toBe(true);
    }
    // Only the grammar knows the bounds: the prompt is the one an unbounded count gives.
    const unbounded: ToolSpec = { ...skip, parameters: { type: "object", properties: { count: { type: "integer" } }, required: ["count"], additionalProperties: false } };
    const messages = [{ role: "user" as const, content: "Skip" }];
    expect(model.promptTokens({ messages, tools: [skip] })).toEqual(model.promptTokens({ messages, tools: [unbounded] }));
  }, 3 * PER_PROMPT_TIMEOUT_MS);

  it("calls the named tool when the choice names one, and only writes text under tool choice none", async () => {
    const named = await model.generate({
      messages: [{ role: "user", content: "It is sunny today." }],
      tools,
      toolChoice: { name: "turn_wifi" },
      maxTokens: 48,
    }).result;
    expect(named.toolCalls.map((call) => call.name)).toEqual(["turn_wifi"]);
    expect(toolInputs.turn_wifi.safeParse(named.toolCalls[0]?.arguments).success).toBe(true);

    const none = await model.generate({ messages: [{ role: "user", content: "What's the weather in Paris?" }], tools, toolChoice: "none", maxTokens: 32 }).result;
    expect(none.toolCalls).toEqual([]);
    expect(none.stopReason).not.toBe("tool-calls");
    expect(none.text.trim().length).toBeGreaterThan(0);
  }, MODEL_TEST_TIMEOUT_MS);

  it("stops within 200 ms of an abort", async () => {
    const controller = new AbortController();
    const generation = model.generate({
      messages: [{ role: "user", content: "Write a long story about a dragon." }],
      maxTokens: 1000,
      signal: controller.signal,
    });
    let abortedAt = 0;
    let previousDeltaAt = 0;
    let slowestTokenMs = 0;
    let deltas = 0;
    for await (const event of generation) {
      if (event.type !== "text-delta" || abortedAt !== 0) continue;
      const now = performance.now();
      if (previousDeltaAt !== 0) slowestTokenMs = Math.max(slowestTokenMs, now - previousDeltaAt);
      previousDeltaAt = now;
      // Abort mid-stream, once a few pieces of text have come.
      if (++deltas === 3) {
        abortedAt = now;
        controller.abort();
      }
    }
    const result = await generation.result;
    const elapsed = performance.now() - abortedAt;
    expect(abortedAt).toBeGreaterThan(0);
    // llama.cpp cannot interrupt a token being computed: on an idle machine that is a few
    // milliseconds and the bound is 200 ms; on a machine loaded many times over, one token can
    // take longer than that, so the bound grows to two of the slowest tokens seen.
    expect(elapsed).toBeLessThan(Math.max(200, 2 * slowestTokenMs));
    expect(result.stopReason).toBe("aborted");
    expect(result.usage.outputTokens).toBeLessThan(1000);
  }, MODEL_TEST_TIMEOUT_MS);

  it("continues after tool results and keeps the call's exact text in the cache", async () => {
    const messages: ChatMessage[] = [{ role: "user", content: "What's the weather in Rome?" }];
    const call = await model.generate({ messages, tools, toolChoice: { name: "get_weather" }, maxTokens: 48, conversationId: "tools" }).result;
    const toolCall = call.toolCalls[0]!;
    messages.push({ role: "assistant", content: "", toolCalls: [toolCall] }, { role: "tool", toolCallId: toolCall.id, name: toolCall.name, content: '{"sky":"sunny","celsius":24}' });
    const answer = await model.generate({ messages, tools, toolChoice: "none", maxTokens: 24, conversationId: "tools" }).result;
    expect(answer.toolCalls).toEqual([]);
    expect(answer.usage.cachedPromptTokens).toBeGreaterThanOrEqual(call.usage.promptTokens);
  }, MODEL_TEST_TIMEOUT_MS);

  it("raises ContextOverflowError for a conversation larger than the context", async () => {
    const huge = "word ".repeat(3000);
    const attempt = model.generate({ messages: [{ role: "user", content: huge }], maxTokens: 8, conversationId: "overflow" }).result;
    await expect(attempt).rejects.toBeInstanceOf(ContextOverflowError);
    await expect(attempt).rejects.toThrow(/holds 2048/);
  }, MODEL_TEST_TIMEOUT_MS);
});

/**
 * KV reuse on a model of its own. On the shared model above, a test that timed
 * out keeps generating in the background (vitest fails a test on timeout but
 * cannot stop its async work): on a busy machine the 20-prompt test did, and
 * its requests, a third conversation, took this test's context sequence
 * between its two turns (two sequences, least recently used given up), so the
 * second turn found 2 cached tokens instead of the whole first prompt. Here no
 * other request can reach the sequences, so what is measured is the reuse.
 */
describe("KV reuse across the turns of a conversation (SmolLM2-135M)", () => {
  let cacheModel: LlamaChatModel;
  beforeAll(async () => {
    cacheModel = await LlamaChatModel.load({ modelPath, contextSize: 2048, threads: 1, maxConversations: 2 });
  }, MODEL_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await cacheModel?.dispose();
  });

  it("reuses the evaluated prefix on the next turn of a conversation, also after another conversation ran", async () => {
    const history: ChatMessage[] = [
      { role: "system", content: "You are a helpful assistant. Answer briefly." },
      { role: "user", content: "Give me one tip for sleeping better." },
    ];
    const first = await cacheModel.generate({ messages: history, tools, maxTokens: 24, conversationId: "cache-a" }).result;
    // Another conversation in between must not evict this one (two sequences).
    await cacheModel.generate({ messages: [{ role: "user", content: "Say hi." }], maxTokens: 4, conversationId: "cache-b" }).result;
    history.push({ role: "assistant", content: first.text }, { role: "user", content: "And one more?" });
    const second = await cacheModel.generate({ messages: history, tools, maxTokens: 24, conversationId: "cache-a" }).result;

    const firstEvaluated = first.usage.promptTokens - first.usage.cachedPromptTokens;
    const secondEvaluated = second.usage.promptTokens - second.usage.cachedPromptTokens;
    // A fresh model: nothing is cached before the first turn.
    expect(first.usage.cachedPromptTokens).toBe(0);
    expect(second.usage.promptTokens).toBeGreaterThan(first.usage.promptTokens);
    expect(second.usage.cachedPromptTokens).toBeGreaterThanOrEqual(first.usage.promptTokens - 1);
    expect(secondEvaluated * 4).toBeLessThan(firstEvaluated);
  }, MODEL_TEST_TIMEOUT_MS);

  /**
   * Each step re-renders the model's previous call token for token, so all a
   * step evaluates is new: the call's close, its result turn and the forced
   * call's opening (the same count whatever the model wrote). Before, the
   * call's arguments were tokenized again and evaluated again too.
   */
  it("reads a forced-call loop's previous steps from the cache, evaluating only what is new", async () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "You are botpsy, a personal assistant." },
      { role: "user", content: "What's the weather in Rome? Then text Anna about it." },
    ];
    const steps = [];
    for (const name of ["get_weather", "send_message", "get_weather"]) {
      const result = await cacheModel.generate({ messages, tools, toolChoice: { name }, maxTokens: 96, conversationId: "loop" }).result;
      expect(result.toolCalls.map((call) => call.name)).toEqual([name]);
      steps.push(result.usage);
      messages.push({ role: "assistant", content: result.text, toolCalls: result.toolCalls });
      for (const call of result.toolCalls) messages.push({ role: "tool", toolCallId: call.id, name: call.name, content: '{"ok": true}' });
    }
    const evaluated = steps.map((usage) => usage.promptTokens - usage.cachedPromptTokens);
    const shares = steps.map((usage) => (100 * usage.cachedPromptTokens) / usage.promptTokens);
    expect(evaluated[1]).toBe(evaluated[2]);
    expect(shares[1]).toBeGreaterThanOrEqual(CACHED_SHARE_FLOOR);
    expect(shares[2]).toBeGreaterThanOrEqual(CACHED_SHARE_FLOOR);
  }, MODEL_TEST_TIMEOUT_MS);

  it("narrows what may be called with callableTools while the prompt, and so the cache, stays the same", async () => {
    const weather = tools.find((tool) => tool.name === "get_weather")!;
    const parameters = weather.parameters as { properties: Record<string, unknown>; required: string[] };
    const cityOnly: ToolSpec = { ...weather, parameters: { ...parameters, properties: { city: parameters.properties.city } } };
    const history: ChatMessage[] = [{ role: "user", content: "What is the weather in Oslo in fahrenheit?" }];
    const first = await cacheModel.generate({ messages: history, tools, callableTools: [cityOnly], toolChoice: "required", maxTokens: 48, conversationId: "narrow" }).result;
    expect(first.toolCalls.map((call) => call.name)).toEqual(["get_weather"]);
    // The pruned parameter cannot be written, though the prompt documents it.
    expect(Object.keys(first.toolCalls[0]!.arguments)).toEqual(["city"]);
    history.push({ role: "assistant", content: first.text, toolCalls: first.toolCalls }, { role: "tool", toolCallId: first.toolCalls[0]!.id, name: "get_weather", content: '{"temperature": 41}' });
    const second = await cacheModel.generate({ messages: history, tools, maxTokens: 16, conversationId: "narrow" }).result;
    // Everything before the generated call is read from the cache.
    expect(second.usage.cachedPromptTokens).toBeGreaterThanOrEqual(first.usage.promptTokens - 1);

    const stray = cacheModel.generate({ messages: history, tools: [weather], callableTools: [tools.find((tool) => tool.name === "turn_wifi")!], maxTokens: 4 }).result;
    await expect(stray).rejects.toThrow(/callableTools names "turn_wifi", which the request's tools do not document/);
  }, MODEL_TEST_TIMEOUT_MS);
});

describe("loading bad model files", () => {
  let directory = "";
  beforeAll(() => {
    directory = makeTempDir("botpsy-bad-models-");
  });

  it("names a missing file", async () => {
    await expect(LlamaChatModel.load({ modelPath: join(directory, "absent.gguf"), threads: 1 })).rejects.toBeInstanceOf(ModelFileMissingError);
  });

  it("names a file that is not GGUF", async () => {
    const path = join(directory, "noise.gguf");
    writeFileSync(path, Buffer.from("this is not a model at all, just text"));
    const attempt = LlamaChatModel.load({ modelPath: path, gpu: false, threads: 1 });
    await expect(attempt).rejects.toBeInstanceOf(ModelFileCorruptError);
    await expect(attempt).rejects.toThrow(path);
  });

  it("names an architecture llama.cpp does not know", async () => {
    const path = join(directory, "alien.gguf");
    writeFileSync(path, ggufHeaderWithArchitecture("botpsy-alien"));
    const attempt = LlamaChatModel.load({ modelPath: path, gpu: false, threads: 1 });
    await expect(attempt).rejects.toBeInstanceOf(UnsupportedArchitectureError);
    await expect(attempt).rejects.toThrow(/botpsy-alien/);
  });
});

/** A minimal GGUF v3 file: no tensors, one metadata key naming the architecture. */
function ggufHeaderWithArchitecture(architecture: string): Buffer {
  const text = (value: string): Buffer => {
    const bytes = Buffer.from(value);
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(bytes.length));
    return Buffer.concat([length, bytes]);
  };
  const header = Buffer.alloc(24);
  header.write("GGUF", 0, "ascii");
  header.writeUInt32LE(3, 4);
  header.writeBigUInt64LE(0n, 8);
  header.writeBigUInt64LE(1n, 16);
  const type = Buffer.alloc(4);
  type.writeUInt32LE(8, 0);
  const body = Buffer.concat([header, text("general.architecture"), type, text(architecture)]);
  const padding = Buffer.alloc((32 - (body.length % 32)) % 32);
  return Buffer.concat([body, padding]);
}
