import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, streamText, tool } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startServeProcess } from "../support/serve-process.js";

/**
 * `botpsy serve` end to end: the real CLI on 127.0.0.1 (a free port), the
 * real SmolLM2 model on one thread, and two real clients, the `openai` npm
 * package and the AI SDK's OpenAI-compatible provider. What a 135M model says
 * is not checked for sense; what is checked is the protocol: streamed and
 * whole answers, usage, a forced tool call that names the offered tool with
 * arguments its schema accepts (the grammar guarantees it), and JSON that
 * follows a response_format schema. The server is started with
 * --rotate-token, so it prints a new token once and every request needs it.
 */
const modelPath = process.env.BOTPSY_TEST_MODEL ?? resolve(".botpsy-test/models/SmolLM2-135M-Instruct.Q4_1.gguf");
let home: string;
let child: ChildProcess;
let baseURL: string;
let modelId: string;
let token: string;

beforeAll(async () => {
  if (!existsSync(modelPath)) throw new Error(`The test model is missing at ${modelPath}; fetch it with: botpsy models pull smollm2-135m-instruct-q4_1`);
  home = mkdtempSync(join(tmpdir(), "botpsy-serve-e2e-"));
  ({ child, baseURL, token } = await startServeProcess({ home, modelPath }));
  const client = new OpenAI({ baseURL, apiKey: token, maxRetries: 0 });
  modelId = (await client.models.list()).data[0]!.id;
}, 280_000);

afterAll(() => {
  child?.kill("SIGTERM");
  rmSync(home, { recursive: true, force: true });
});

const weatherParameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const;

describe("botpsy serve with the real SmolLM2 model", () => {
  it("answers the openai client, whole and streamed, with usage", async () => {
    const client = new OpenAI({ baseURL, apiKey: token, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: modelId, messages: [{ role: "user", content: "Say hello." }], max_tokens: 12 });
    expect(typeof completion.choices[0]!.message.content).toBe("string");
    expect(["stop", "length"]).toContain(completion.choices[0]!.finish_reason);
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
    expect(completion.usage!.completion_tokens).toBeLessThanOrEqual(12);

    const stream = await client.chat.completions.create({
      model: modelId,
      messages: [{ role: "user", content: "Name a colour." }],
      max_tokens: 12,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let deltas = 0;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content ?? "";
      if (piece !== "") deltas++;
      text += piece;
      usage = chunk.usage ?? usage;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(deltas).toBeGreaterThan(1);
    expect(usage!.completion_tokens).toBeGreaterThan(0);
  });

  it("requires the printed token, and serves concurrent requests through its queue", async () => {
    expect((await fetch(`${baseURL}/models`)).status).toBe(401);
    const client = new OpenAI({ baseURL, apiKey: token, maxRetries: 0 });
    const answers = await Promise.all(
      ["One", "Two", "Three"].map((word) => client.chat.completions.create({ model: modelId, messages: [{ role: "user", content: `Repeat: ${word}` }], max_tokens: 6 })),
    );
    for (const answer of answers) expect(answer.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it("makes a tool call when tool_choice is required, with arguments the schema accepts", async () => {
    const client = new OpenAI({ baseURL, apiKey: token, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: modelId,
      messages: [{ role: "user", content: "What is the weather in Paris?" }],
      tools: [{ type: "function", function: { name: "get_weather", description: "Current weather of a city", parameters: weatherParameters } }],
      tool_choice: "required",
      max_tokens: 48,
    });
    const call = completion.choices[0]!.message.tool_calls?.[0];
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    expect(call?.type === "function" && call.function.name).toBe("get_weather");
    const args = JSON.parse(call!.type === "function" ? call!.function.arguments : "{}") as { city: unknown };
    expect(typeof args.city).toBe("string");
  });

  it("follows a response_format JSON schema", async () => {
    const client = new OpenAI({ baseURL, apiKey: token, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: modelId,
      messages: [{ role: "user", content: "Give me a city and its country." }],
      response_format: {
        type: "json_schema",
        json_schema: { name: "place", schema: { type: "object", properties: { city: { type: "string", maxLength: 30 }, country: { type: "string", maxLength: 30 } }, required: ["city", "country"] } },
      },
      max_tokens: 64,
    });
    const value = JSON.parse(completion.choices[0]!.message.content!) as Record<string, unknown>;
    expect(typeof value.city).toBe("string");
    expect(typeof value.country).toBe("string");
  });

  it("serves the AI SDK's OpenAI-compatible provider: streamed text and a required tool call", async () => {
    const provider = createOpenAICompatible({ name: "botpsy", baseURL, apiKey: token, includeUsage: true });
    const streamed = streamText({ model: provider(modelId), prompt: "Say hi.", maxOutputTokens: 12 });
    let text = "";
    for await (const piece of streamed.textStream) text += piece;
    expect(text.length).toBeGreaterThan(0);
    expect((await streamed.usage).outputTokens).toBeGreaterThan(0);

    const result = await generateText({
      model: provider(modelId),
      prompt: "What is the weather in Rome?",
      tools: { get_weather: tool({ description: "Current weather of a city", inputSchema: z.object({ city: z.string() }) }) },
      toolChoice: "required",
      maxOutputTokens: 48,
    });
    expect(result.toolCalls.map((call) => call.toolName)).toEqual(["get_weather"]);
    expect(typeof (result.toolCalls[0]!.input as { city: unknown }).city).toBe("string");
  });
});
