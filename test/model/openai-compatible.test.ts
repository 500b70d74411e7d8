import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContextOverflowError, InvalidToolCallError, ModelRequestError } from "../../src/model/errors.js";
import { OpenAICompatibleModel } from "../../src/model/openai-compatible-model.js";
import type { ModelEvent, ToolSpec } from "../../src/model/types.js";

type Handler = (body: Record<string, unknown>, response: ServerResponse) => void;

/**
 * A small real HTTP server speaking the chat completions protocol (SSE
 * streaming). Each test sets the handler for what the server answers.
 */
class ChatCompletionsTestServer {
  handler: Handler = (_body, response) => response.writeHead(500).end();
  readonly bodies: Array<Record<string, unknown>> = [];
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      let raw = "";
      request.on("data", (chunk: Buffer) => (raw += chunk.toString()));
      request.on("end", () => {
        if (request.url !== "/v1/chat/completions" || request.method !== "POST") {
          response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "no such route" } }));
          return;
        }
        const body = JSON.parse(raw) as Record<string, unknown>;
        this.bodies.push(body);
        this.handler(body, response);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

function streamEvents(response: ServerResponse, chunks: unknown[]): void {
  response.writeHead(200, { "content-type": "text/event-stream" });
  for (const chunk of chunks) response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  response.end("data: [DONE]\n\n");
}

const weatherTool: ToolSpec = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

describe("OpenAICompatibleModel", () => {
  const server = new ChatCompletionsTestServer();
  let baseUrl = "";
  beforeAll(async () => {
    baseUrl = await server.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it("streams text and reasoning, and reports usage with cached and reasoning tokens", async () => {
    server.handler = (_body, response) =>
      streamEvents(response, [
        { choices: [{ delta: { reasoning_content: "think " } }] },
        { choices: [{ delta: { content: "Hel" } }] },
        { choices: [{ delta: { content: "lo" }, finish_reason: "stop" }] },
        {
          choices: [],
          usage: { prompt_tokens: 20, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 12 }, completion_tokens_details: { reasoning_tokens: 2 } },
        },
      ]);
    const model = new OpenAICompatibleModel({ baseUrl, model: "served-model", apiKey: "secret" });
    const generation = model.generate({ messages: [{ role: "user", content: "hi" }], maxTokens: 32 });
    const events: ModelEvent[] = [];
    for await (const event of generation) events.push(event);
    const result = await generation.result;
    expect(result.text).toBe("Hello");
    expect(result.thoughts).toBe("think ");
    expect(result.usage).toEqual({ promptTokens: 20, cachedPromptTokens: 12, outputTokens: 5, reasoningTokens: 2 });
    expect(result.stopReason).toBe("stop");
    expect(events.map((event) => event.type)).toEqual(["thought-delta", "text-delta", "text-delta", "usage", "done"]);
    const sent = server.bodies.at(-1)!;
    expect(sent).toMatchObject({ model: "served-model", stream: true, temperature: 0, seed: 1, max_tokens: 32 });
    expect(sent.tools).toBeUndefined();
  });

  it("sends tools and tool choice, maps the history, and assembles calls streamed in pieces", async () => {
    server.handler = (_body, response) =>
      streamEvents(response, [
        { choices: [{ delta: { tool_calls: [{ index: 0, id: "call_1", function: { name: "get_weather", arguments: '{"ci' } }] } }] },
        { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: 'ty": "Oslo"}' } }] } }] },
        { choices: [{ delta: { tool_calls: [{ index: 1, id: "call_2", function: { name: "get_weather", arguments: '{"city":"Rome"}' } }] } }] },
        { choices: [{ delta: {}, finish_reason: "tool_calls" }] },
      ]);
    const model = new OpenAICompatibleModel({ baseUrl, model: "m" });
    const result = await model.generate({
      messages: [
        { role: "user", content: "weather?" },
        { role: "assistant", content: "", toolCalls: [{ id: "old", name: "get_weather", arguments: { city: "Paris" } }] },
        { role: "tool", toolCallId: "old", name: "get_weather", content: "rain" },
      ],
      tools: [weatherTool],
      toolChoice: { name: "get_weather" },
    }).result;
    expect(result.toolCalls).toEqual([
      { id: "call_1", name: "get_weather", arguments: { city: "Oslo" } },
      { id: "call_2", name: "get_weather", arguments: { city: "Rome" } },
    ]);
    expect(result.stopReason).toBe("tool-calls");
    const sent = server.bodies.at(-1)!;
    expect(sent.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
    expect(sent.tools).toEqual([{ type: "function", function: { name: "get_weather", description: "Weather for a city", parameters: weatherTool.parameters } }]);
    expect(sent.messages).toEqual([
      { role: "user", content: "weather?" },
      { role: "assistant", content: null, tool_calls: [{ id: "old", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "old", name: "get_weather", content: "rain" },
    ]);
  });

  it("refuses a call to a tool that was not offered, or with arguments that are not JSON", async () => {
    const model = new OpenAICompatibleModel({ baseUrl, model: "m" });
    server.handler = (_body, response) =>
      streamEvents(response, [{ choices: [{ delta: { tool_calls: [{ index: 0, id: "x", function: { name: "delete_all", arguments: "{}" } }] } }] }]);
    await expect(model.generate({ messages: [{ role: "user", content: "x" }], tools: [weatherTool] }).result).rejects.toBeInstanceOf(InvalidToolCallError);
    server.handler = (_body, response) =>
      streamEvents(response, [{ choices: [{ delta: { tool_calls: [{ index: 0, id: "x", function: { name: "get_weather", arguments: "{city" } }] } }] }]);
    await expect(model.generate({ messages: [{ role: "user", content: "x" }], tools: [weatherTool] }).result).rejects.toThrow(/not JSON/);
  });

  it("maps HTTP errors, context overflow and an unreachable server to botpsy errors", async () => {
    const model = new OpenAICompatibleModel({ baseUrl, model: "m" });
    server.handler = (_body, response) => response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "bad key" } }));
    await expect(model.generate({ messages: [{ role: "user", content: "x" }] }).result).rejects.toMatchObject({ code: "model_unauthorized", status: 401 });
    server.handler = (_body, response) =>
      response.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "the request exceeds the available context size" } }));
    await expect(model.generate({ messages: [{ role: "user", content: "x" }] }).result).rejects.toBeInstanceOf(ContextOverflowError);
    server.handler = (_body, response) => response.writeHead(503).end("overloaded");
    await expect(model.generate({ messages: [{ role: "user", content: "x" }] }).result).rejects.toThrow(/HTTP 503: overloaded/);
    const wrongRoute = new OpenAICompatibleModel({ baseUrl: baseUrl.replace(/\/v1$/, "/v2"), model: "m" });
    await expect(wrongRoute.generate({ messages: [{ role: "user", content: "x" }] }).result).rejects.toThrow(/Check the base URL/);
    const unreachable = new OpenAICompatibleModel({ baseUrl: "http://127.0.0.1:9/v1", model: "m" });
    const failure = unreachable.generate({ messages: [{ role: "user", content: "x" }] }).result;
    await expect(failure).rejects.toBeInstanceOf(ModelRequestError);
    await expect(failure).rejects.toMatchObject({ code: "model_unreachable" });
  });

  it("stops a stream when aborted and reports the partial text", async () => {
    server.handler = (_body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(`data: ${JSON.stringify({ choices: [{ delta: { content: "partial" } }] })}\n\n`);
      // Never ends: only the abort can finish this request.
    };
    const model = new OpenAICompatibleModel({ baseUrl, model: "m" });
    const controller = new AbortController();
    const generation = model.generate({ messages: [{ role: "user", content: "x" }], signal: controller.signal });
    for await (const event of generation) {
      if (event.type === "text-delta") break;
    }
    const abortedAt = performance.now();
    controller.abort();
    const result = await generation.result;
    expect(performance.now() - abortedAt).toBeLessThan(200);
    expect(result.stopReason).toBe("aborted");
    expect(result.text).toBe("partial");
  });
});
