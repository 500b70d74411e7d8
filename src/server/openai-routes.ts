import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { streamSSE, type SSEStreamingApi } from "hono/streaming";
import type { ChatModel, GenerateResult, StopReason, ToolCall, Usage } from "../model/types.js";
import { ApiError, toApiError } from "./api-error.js";
import { parseChatCompletionRequest, prepareChatRequest, type PreparedChatRequest } from "./chat-request.js";
import { readJsonBody, type RequestLimits } from "./request-body.js";
import { StopSequenceScanner } from "./stop-sequences.js";

export interface OpenAIRoutesOptions {
  model: ChatModel;
  limits: RequestLimits;
  /** When the model was loaded (seconds since the epoch), for `GET /v1/models`. */
  loadedAt: number;
  admission: Admission;
}

/**
 * Bounds the requests waiting for the model. The model serves one generation
 * at a time over its context sequences; past `capacity` waiting requests a
 * new one is refused at once (503) instead of piling up memory and timeouts.
 */
export class Admission {
  private active = 0;
  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get inFlight(): number {
    return this.active;
  }

  enter(): () => void {
    if (this.active >= this.capacity) {
      throw new ApiError(503, "server_busy", `${this.active} requests are already waiting for the model; retry in a moment.`);
    }
    this.active++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.active--;
    };
  }
}

interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

type FinishReason = "stop" | "length" | "tool_calls";

export function toOpenAIUsage(usage: Usage): OpenAIUsage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.promptTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedPromptTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

function finishReason(stopReason: StopReason, hasToolCalls: boolean, stoppedBySequence: boolean): FinishReason {
  if (stoppedBySequence) return "stop";
  if (hasToolCalls || stopReason === "tool-calls") return "tool_calls";
  if (stopReason === "max-tokens") return "length";
  return "stop";
}

function toOpenAIToolCall(call: ToolCall): OpenAIToolCall {
  return { id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } };
}

/** The JSON text a structured-output call stands for. */
function structuredText(call: ToolCall, prepared: PreparedChatRequest): string {
  const value = prepared.structured?.wrapped ? call.arguments.value : call.arguments;
  return JSON.stringify(value ?? null);
}

/** Why a generation's controller was aborted: the server's doing, not the client's. */
class StopReached extends Error {}
class RequestTimedOut extends Error {}

/**
 * One chat completion under way: the model's generation, cut at stop
 * sequences, bounded by the request timeout, aborted when the client leaves.
 */
class CompletionRun {
  readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onClientAbort: () => void;
  private readonly clientSignal: AbortSignal;

  constructor(clientSignal: AbortSignal, timeoutMs: number) {
    this.clientSignal = clientSignal;
    this.timer = setTimeout(() => this.controller.abort(new RequestTimedOut()), timeoutMs);
    this.onClientAbort = () => this.controller.abort(clientSignal.reason);
    if (clientSignal.aborted) this.controller.abort(clientSignal.reason);
    else clientSignal.addEventListener("abort", this.onClientAbort, { once: true });
  }

  get timedOut(): boolean {
    return this.controller.signal.reason instanceof RequestTimedOut;
  }

  stopAtSequence(): void {
    this.controller.abort(new StopReached());
  }

  end(): void {
    clearTimeout(this.timer);
    this.clientSignal.removeEventListener("abort", this.onClientAbort);
  }
}

function timeoutError(limits: RequestLimits): ApiError {
  return new ApiError(504, "request_timeout", `The model did not finish within ${limits.requestTimeoutMs} ms; ask for fewer tokens (max_tokens) or retry.`);
}

export function openAIRoutes(options: OpenAIRoutesOptions): Hono {
  const { model, limits, admission } = options;
  const routes = new Hono();

  routes.get("/v1/models", (c) =>
    c.json({ object: "list", data: [{ id: model.id, object: "model", created: options.loadedAt, owned_by: "botpsy" }] }),
  );

  routes.get("/v1/models/:model", (c) => {
    const id = c.req.param("model");
    if (id !== model.id) throw new ApiError(404, "model_not_found", `The model "${id}" is not loaded here; this server serves "${model.id}".`, { param: "model" });
    return c.json({ id: model.id, object: "model", created: options.loadedAt, owned_by: "botpsy" });
  });

  routes.post("/v1/chat/completions", async (c) => {
    const body = await readJsonBody(c, limits);
    const prepared = prepareChatRequest(parseChatCompletionRequest(body), model.id);
    const leave = admission.enter();
    const completionId = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    const run = new CompletionRun(c.req.raw.signal, limits.requestTimeoutMs);
    const scanner = new StopSequenceScanner(prepared.stopSequences);
    let generation;
    try {
      generation = model.generate({ ...prepared.generate, signal: run.controller.signal });
    } catch (error) {
      run.end();
      leave();
      throw error;
    }

    if (!prepared.stream) {
      try {
        let text = "";
        let thoughts = "";
        const toolCalls: ToolCall[] = [];
        for await (const event of generation) {
          if (event.type === "text-delta") {
            text += scanner.push(event.text);
            if (scanner.stopped) run.stopAtSequence();
          } else if (event.type === "thought-delta") thoughts += event.text;
          else if (event.type === "tool-call" && !scanner.stopped) toolCalls.push(event.call);
        }
        text += scanner.flush();
        const result: GenerateResult = await generation.result;
        if (run.timedOut) throw timeoutError(limits);
        const structuredCall = prepared.structured ? toolCalls.find((call) => call.name === prepared.structured!.toolName) : undefined;
        const content = structuredCall ? structuredText(structuredCall, prepared) : text;
        const calls = structuredCall ? [] : toolCalls;
        return c.json({
          id: completionId,
          object: "chat.completion",
          created,
          model: model.id,
          system_fingerprint: null,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: content === "" && calls.length > 0 ? null : content,
                ...(thoughts !== "" ? { reasoning_content: thoughts } : {}),
                ...(calls.length > 0 ? { tool_calls: calls.map(toOpenAIToolCall) } : {}),
              },
              logprobs: null,
              finish_reason: structuredCall ? "stop" : finishReason(result.stopReason, calls.length > 0, scanner.stopped),
            },
          ],
          usage: toOpenAIUsage(result.usage),
        });
      } finally {
        run.end();
        leave();
      }
    }

    return streamSSE(c, async (stream) => {
      const chunk = (delta: Record<string, unknown>, finish: FinishReason | null): Record<string, unknown> => ({
        id: completionId,
        object: "chat.completion.chunk",
        created,
        model: model.id,
        system_fingerprint: null,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
      const send = (payload: unknown): Promise<void> => stream.writeSSE({ data: JSON.stringify(payload) });
      stream.onAbort(() => run.controller.abort(new Error("client closed the stream")));
      try {
        await send(chunk({ role: "assistant", content: "" }, null));
        let callIndex = 0;
        let structuredSent = false;
        for await (const event of generation) {
          if (stream.aborted) break;
          if (event.type === "text-delta") {
            const shown = scanner.push(event.text);
            if (shown !== "") await send(chunk({ content: shown }, null));
            if (scanner.stopped) run.stopAtSequence();
          } else if (event.type === "thought-delta") {
            await send(chunk({ reasoning_content: event.text }, null));
          } else if (event.type === "tool-call" && !scanner.stopped) {
            if (prepared.structured && event.call.name === prepared.structured.toolName) {
              structuredSent = true;
              await send(chunk({ content: structuredText(event.call, prepared) }, null));
            } else {
              await send(chunk({ tool_calls: [{ index: callIndex++, ...toOpenAIToolCall(event.call) }] }, null));
            }
          }
        }
        if (stream.aborted) return;
        const rest = scanner.flush();
        if (rest !== "") await send(chunk({ content: rest }, null));
        const result = await generation.result;
        if (run.timedOut) {
          await sendStreamError(stream, timeoutError(limits));
          return;
        }
        await send(chunk({}, structuredSent ? "stop" : finishReason(result.stopReason, callIndex > 0, scanner.stopped)));
        if (prepared.includeUsage) {
          await send({ id: completionId, object: "chat.completion.chunk", created, model: model.id, system_fingerprint: null, choices: [], usage: toOpenAIUsage(result.usage) });
        }
        await stream.writeSSE({ data: "[DONE]" });
      } catch (error) {
        if (!stream.aborted) await sendStreamError(stream, run.timedOut ? timeoutError(limits) : toApiError(error));
      } finally {
        run.end();
        leave();
        // The generation may still be winding down after an abort; its rejection is not news to anyone.
        generation.result.catch(() => undefined);
      }
    });
  });

  return routes;
}

/** An error after the stream started: the status is already sent, so it goes as an SSE message in OpenAI's shape. */
async function sendStreamError(stream: SSEStreamingApi, error: ApiError): Promise<void> {
  await stream.writeSSE({ data: JSON.stringify(error.body()) });
  await stream.writeSSE({ data: "[DONE]" });
}
