import { mkdtempSync, rmSync, statSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { AccessToken, accessTokenPath } from "../../src/server/access-token.js";
import { startServer, type RunningServer, type StartServerOptions } from "../../src/server/server.js";
import { ScriptedModel, type ScriptedTurn } from "../../src/testing/scripted-model.js";

/**
 * The OpenAI-compatible API on a real HTTP server over a scripted model:
 * what the server sends the model (tool choice, limits, seed) and what a
 * client gets back (content, calls, finish reasons, usage, errors).
 */
let server: RunningServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serveScript(turns: ScriptedTurn[], options: Partial<StartServerOptions> = {}): Promise<{ model: ScriptedModel; client: OpenAI; url: string }> {
  const model = new ScriptedModel(turns, { id: "scripted" });
  server = await startServer({ model, port: 0, ...options });
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "unused-on-loopback", maxRetries: 0 });
  return { model, client, url: server.url };
}

const weatherTool = {
  type: "function" as const,
  function: { name: "get_weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
};

describe("OpenAI-compatible API", () => {
  it("lists the loaded model", async () => {
    const { client } = await serveScript([]);
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(["scripted"]);
  });

  it("answers a chat completion with usage, cached and reasoning tokens included", async () => {
    const { client, model } = await serveScript([{ text: "Hello there.", thoughts: "greet", usage: { cachedPromptTokens: 3 } }]);
    const completion = await client.chat.completions.create({
      model: "scripted",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
      ],
      max_tokens: 20,
      seed: 7,
      temperature: 0.5,
    });
    expect(completion.choices[0]!.message.content).toBe("Hello there.");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect((completion.choices[0]!.message as unknown as { reasoning_content: string }).reasoning_content).toBe("greet");
    expect(completion.usage!.prompt_tokens_details!.cached_tokens).toBe(3);
    expect(completion.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(0);
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
    const sent = model.requests[0]!;
    expect(sent.maxTokens).toBe(20);
    expect(sent.seed).toBe(7);
    expect(sent.temperature).toBe(0.5);
    expect(sent.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ]);
  });

  it("streams text deltas, a finish reason and a usage chunk", async () => {
    const { client } = await serveScript(["One two three four."]);
    const stream = await client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "Count" }], stream: true, stream_options: { include_usage: true } });
    let text = "";
    let finish: string | null = null;
    let usageSeen = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usageSeen = true;
    }
    expect(text).toBe("One two three four.");
    expect(finish).toBe("stop");
    expect(usageSeen).toBe(true);
  });

  it("returns tool calls, passes tool_choice and parallel_tool_calls through, and takes tool results back", async () => {
    const { client, model } = await serveScript([{ toolCalls: [{ name: "get_weather", arguments: { city: "Lisbon" }, id: "call_a" }] }, "It is sunny."]);
    const first = await client.chat.completions.create({
      model: "scripted",
      messages: [{ role: "user", content: "Weather in Lisbon?" }],
      tools: [weatherTool],
      tool_choice: "required",
      parallel_tool_calls: false,
    });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(call.type === "function" && call.function.name).toBe("get_weather");
    expect(call.type === "function" && JSON.parse(call.function.arguments)).toEqual({ city: "Lisbon" });
    expect(model.requests[0]!.toolChoice).toBe("required");
    expect(model.requests[0]!.parallelToolCalls).toBe(false);
    expect(model.requests[0]!.tools!.map((tool) => tool.name)).toEqual(["get_weather"]);

    const second = await client.chat.completions.create({
      model: "scripted",
      messages: [{ role: "user", content: "Weather in Lisbon?" }, first.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: '{"sky":"sunny"}' }],
      tools: [weatherTool],
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
    expect(second.choices[0]!.message.content).toBe("It is sunny.");
    expect(model.requests[1]!.toolChoice).toEqual({ name: "get_weather" });
    expect(model.requests[1]!.messages.at(-1)).toEqual({ role: "tool", toolCallId: "call_a", name: "get_weather", content: '{"sky":"sunny"}' });
  });

  it("offers no tools for tool_choice none, and streams tool calls with their index", async () => {
    const { client, model } = await serveScript(["No tools.", { toolCalls: [{ name: "get_weather", arguments: { city: "Porto" } }] }]);
    await client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "Hi" }], tools: [weatherTool], tool_choice: "none" });
    expect(model.requests[0]!.tools).toBeUndefined();
    const stream = await client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "Porto?" }], tools: [weatherTool], stream: true });
    const calls: { index: number; name?: string; arguments?: string }[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) calls.push({ index: call.index, name: call.function?.name, arguments: call.function?.arguments });
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(calls).toEqual([{ index: 0, name: "get_weather", arguments: '{"city":"Porto"}' }]);
    expect(finish).toBe("tool_calls");
  });

  it("answers response_format json_schema and json_object through a forced call of that schema", async () => {
    const { client, model } = await serveScript([
      (request) => ({ toolCalls: [{ name: request.tools![0]!.name, arguments: { value: ["a", "b"] } }] }),
      (request) => ({ toolCalls: [{ name: request.tools![0]!.name, arguments: { name: "Ana", age: 31 } }] }),
      (request) => ({ toolCalls: [{ name: request.tools![0]!.name, arguments: { cat: "Tom" } }] }),
    ]);
    const listed = await client.chat.completions.create({
      model: "scripted",
      messages: [{ role: "user", content: "Two letters" }],
      response_format: { type: "json_schema", json_schema: { name: "letters", schema: { type: "array", items: { type: "string" } } } },
    });
    expect(JSON.parse(listed.choices[0]!.message.content!)).toEqual(["a", "b"]);
    expect(model.requests[0]!.toolChoice).toEqual({ name: "respond_with_letters" });
    const stream = await client.chat.completions.create({
      model: "scripted",
      messages: [{ role: "user", content: "A person" }],
      stream: true,
      response_format: {
        type: "json_schema",
        json_schema: { name: "person", schema: { type: "object", properties: { name: { type: "string" }, age: { type: "integer" } }, required: ["name", "age"] } },
      },
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(JSON.parse(text)).toEqual({ name: "Ana", age: 31 });
    const object = await client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "A cat" }], response_format: { type: "json_object" } });
    expect(JSON.parse(object.choices[0]!.message.content!)).toEqual({ cat: "Tom" });
    expect(model.requests[2]!.tools![0]!.parameters).toMatchObject({ type: "object", additionalProperties: true });
    await expect(
      client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "x" }], tools: [weatherTool], response_format: { type: "json_object" } }),
    ).rejects.toMatchObject({ status: 400, param: "response_format" });
  });

  it("cuts the answer at a stop sequence, streamed or not, and never shows part of one", async () => {
    const { client } = await serveScript(["alpha beta END gamma", "alpha beta END gamma"]);
    const whole = await client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "go" }], stop: ["END", "zzz"] });
    expect(whole.choices[0]!.message.content).toBe("alpha beta ");
    expect(whole.choices[0]!.finish_reason).toBe("stop");
    const stream = await client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "go" }], stop: "END", stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("alpha beta ");
  });

  it("answers errors in OpenAI's shape, which the client turns into its error classes", async () => {
    const { client, url } = await serveScript([]);
    await expect(client.chat.completions.create({ model: "other", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({
      status: 404,
      code: "model_not_found",
    });
    await expect(
      client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "x" }], tools: [weatherTool], tool_choice: { type: "function", function: { name: "nope" } } }),
    ).rejects.toMatchObject({ status: 400, param: "tool_choice" });
    await expect(client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "x" }], n: 2 })).rejects.toMatchObject({ status: 400, param: "n" });
    const response = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: "invalid_request_error", code: "invalid_json", param: null } });
  });

  it("refuses a schema the grammar cannot follow, naming it", async () => {
    const { client } = await serveScript([]);
    const tool = { type: "function" as const, function: { name: "odd", parameters: { type: "object", properties: { a: { not: { type: "string" } } } } } };
    await expect(client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "x" }], tools: [tool] })).rejects.toMatchObject({
      status: 400,
      code: "invalid_tool_schema",
    });
  });

  it("times a slow generation out with 504", async () => {
    const { client } = await serveScript([{ text: "late", delayMs: 5_000 }], { limits: { requestTimeoutMs: 200 } });
    await expect(client.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({ status: 504, code: "request_timeout" });
  });

  it("refuses more waiting requests than it admits with 503", async () => {
    const { url } = await serveScript([{ text: "slow", delayMs: 400 }], { maxQueuedRequests: 1 });
    const body = JSON.stringify({ model: "scripted", messages: [{ role: "user", content: "x" }] });
    const post = (): Promise<Response> => fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body });
    const first = post();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await post();
    expect(second.status).toBe(503);
    expect((await first).status).toBe(200);
  });
});

describe("server security", () => {
  it("refuses to listen off loopback without an access token", async () => {
    await expect(startServer({ model: new ScriptedModel([]), host: "0.0.0.0", port: 0 })).rejects.toMatchObject({ code: "access_token_required" });
  });

  it("requires the bearer token when one is set, and stores only its hash, owner-only", async () => {
    const home = mkdtempSync(join(tmpdir(), "botpsy-token-"));
    try {
      const { token, accessToken } = AccessToken.create(home);
      expect(statSync(accessTokenPath(home)).mode & 0o777).toBe(0o600);
      expect(AccessToken.load(home)!.accepts(`Bearer ${token}`)).toBe(true);
      const { url } = await serveScript([], { accessToken });
      expect((await fetch(`${url}/v1/models`)).status).toBe(401);
      expect((await fetch(`${url}/v1/models`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: token, maxRetries: 0 });
      expect((await client.models.list()).data).toHaveLength(1);
      const rotated = AccessToken.create(home);
      expect(AccessToken.load(home)!.accepts(`Bearer ${token}`)).toBe(false);
      expect(AccessToken.load(home)!.accepts(`Bearer ${rotated.token}`)).toBe(true);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("keeps CORS closed: web origins, preflights and non-JSON bodies are refused", async () => {
    const { url } = await serveScript(["hi"]);
    const fromPage = await fetch(`${url}/v1/models`, { headers: { origin: "https://evil.example" } });
    expect(fromPage.status).toBe(403);
    expect(fromPage.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await fetch(`${url}/v1/chat/completions`, { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(403);
    const simple = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ model: "scripted", messages: [{ role: "user", content: "x" }] }),
    });
    expect(simple.status).toBe(415);
    // fetch will not send another Host, so this request goes through node:http as a rebinding page's would arrive.
    const rebound = await new Promise<number>((resolve, reject) => {
      const target = new URL(url);
      request({ host: target.hostname, port: target.port, path: "/v1/models", headers: { host: "attacker.example" } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
        .on("error", reject)
        .end();
    });
    expect(rebound).toBe(403);
  });

  it("lets an origin in when the server is told to", async () => {
    const { url } = await serveScript([], { corsOrigins: ["http://phone.local:5173"] });
    const preflight = await fetch(`${url}/v1/chat/completions`, { method: "OPTIONS", headers: { origin: "http://phone.local:5173", "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("http://phone.local:5173");
  });

  it("limits the body size and the nesting depth of bodies and call arguments", async () => {
    const { url } = await serveScript([], { limits: { bodyBytes: 10_000 } });
    const post = (body: string): Promise<Response> => fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body });
    const huge = await post(JSON.stringify({ model: "scripted", messages: [{ role: "user", content: "x".repeat(20_000) }] }));
    expect(huge.status).toBe(413);
    expect((await huge.json()) as unknown).toMatchObject({ error: { code: "body_too_large" } });
    const deep = await post(`{"a":${"[".repeat(100)}${"]".repeat(100)}}`);
    expect(deep.status).toBe(400);
    expect((await deep.json()) as unknown).toMatchObject({ error: { code: "body_too_deep" } });
    const deepArguments = `{"a":${'{"b":'.repeat(20)}1${"}".repeat(20)}}`;
    const assistantCall = await post(
      JSON.stringify({
        model: "scripted",
        messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: deepArguments } }] }],
      }),
    );
    expect(assistantCall.status).toBe(400);
    expect((await assistantCall.json()) as unknown).toMatchObject({ error: { code: "arguments_too_deep" } });
  });
});
