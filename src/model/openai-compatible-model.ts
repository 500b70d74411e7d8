import { InvalidInputError } from "../errors.js";
import { ContextOverflowError, InvalidToolCallError, ModelRequestError } from "./errors.js";
import { createGeneration } from "./generation.js";
import type {
  ChatMessage,
  ChatModel,
  GenerateRequest,
  GenerateResult,
  Generation,
  ModelEvent,
  StopReason,
  ToolCall,
  Usage,
} from "./types.js";

export interface OpenAICompatibleModelOptions {
  /** The API root, e.g. `http://127.0.0.1:8080/v1` (llama-server) or `http://localhost:11434/v1` (Ollama). */
  baseUrl: string;
  /** The model name the server expects. */
  model: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Name for reports. Default: the model name. */
  id?: string;
  /** Give up on a request after this long. Default 300 000 ms. */
  timeoutMs?: number;
  /** Set as each result's `servedBy` (where the turn ran), e.g. "openai:127.0.0.1:8080". Default: not set. */
  servedBy?: string;
}

interface StreamedToolCall {
  id: string | undefined;
  name: string;
  argumentsText: string;
}

interface ChunkUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

interface CompletionChunk {
  choices?: Array<{
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
    };
    finish_reason?: string | null;
  }>;
  usage?: ChunkUsage | null;
  error?: { message?: string };
}

/**
 * A model behind an OpenAI-compatible chat completions endpoint (llama-server,
 * vLLM, Ollama, or another botpsy). Always streams (SSE). Whether calls are
 * grammar-constrained is up to the server; this client checks every call's
 * name against the request's tools and that its arguments parse.
 */
export class OpenAICompatibleModel implements ChatModel {
  readonly id: string;
  private readonly endpoint: string;

  constructor(private readonly options: OpenAICompatibleModelOptions) {
    let root: URL;
    try {
      root = new URL(options.baseUrl);
    } catch (error) {
      throw new InvalidInputError(`"${options.baseUrl}" is not a valid base URL; give one like http://127.0.0.1:8080/v1.`, { cause: error });
    }
    this.endpoint = `${root.href.replace(/\/+$/, "")}/chat/completions`;
    this.id = options.id ?? options.model;
  }

  generate(request: GenerateRequest): Generation {
    return createGeneration((emit) => this.run(request, emit));
  }

  async dispose(): Promise<void> {
    // Nothing is held between requests.
  }

  private requestBody(request: GenerateRequest): Record<string, unknown> {
    // A server keeps no context of ours between requests: it gets the forms the model may call now.
    const tools = request.callableTools ?? request.tools ?? [];
    const body: Record<string, unknown> = {
      model: this.options.model,
      messages: request.messages.map(toWireMessage),
      stream: true,
      stream_options: { include_usage: true },
      temperature: request.temperature ?? 0,
      seed: request.seed ?? 1,
      max_tokens: request.maxTokens ?? 512,
    };
    if (request.topP !== undefined) body.top_p = request.topP;
    if (request.topK !== undefined) body.top_k = request.topK;
    if (tools.length > 0) {
      body.tools = tools.map((tool) => ({
        type: "function",
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
      const choice = request.toolChoice ?? "auto";
      body.tool_choice = typeof choice === "object" ? { type: "function", function: { name: choice.name } } : choice;
      body.parallel_tool_calls = request.parallelToolCalls ?? true;
    }
    return body;
  }

  private async run(request: GenerateRequest, emit: (event: ModelEvent) => void): Promise<GenerateResult> {
    const startedAt = performance.now();
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 300_000);
    const signal = request.signal !== undefined ? AbortSignal.any([request.signal, timeout]) : timeout;
    const toolNames = new Set((request.callableTools ?? request.tools ?? []).map((tool) => tool.name));
    let text = "";
    let thoughts = "";
    const streamed = new Map<number, StreamedToolCall>();
    let finishReason: string | undefined;
    let wireUsage: ChunkUsage | undefined;
    let firstOutputAt: number | undefined;
    let aborted = false;

    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "text/event-stream",
          ...(this.options.apiKey !== undefined ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
          ...(this.options.headers ?? {}),
        },
        body: JSON.stringify(this.requestBody(request)),
        signal,
      });
    } catch (error) {
      if (request.signal?.aborted === true) return this.abortedResult(startedAt, emit);
      if (timeout.aborted) throw new ModelRequestError(`${this.endpoint} did not answer within ${this.options.timeoutMs ?? 300_000} ms. Check the server, or raise timeoutMs.`, { cause: error, code: "model_timeout" });
      throw new ModelRequestError(`Cannot reach ${this.endpoint} (${describeNetworkError(error)}). Start the server or correct the base URL.`, { cause: error, code: "model_unreachable" });
    }
    if (!response.ok) throw await httpError(this.endpoint, response);
    if (response.body === null) throw new ModelRequestError(`${this.endpoint} answered with an empty body; check that it speaks the chat completions protocol.`);

    try {
      for await (const data of readServerSentEvents(response.body, signal)) {
        if (data === "[DONE]") break;
        let chunk: CompletionChunk;
        try {
          chunk = JSON.parse(data) as CompletionChunk;
        } catch (error) {
          throw new ModelRequestError(`${this.endpoint} sent a stream event that is not JSON: ${data.slice(0, 120)}`, { cause: error, code: "model_protocol_error" });
        }
        if (chunk.error !== undefined) {
          throw new ModelRequestError(`${this.endpoint} reported an error mid-stream: ${chunk.error.message ?? "unknown"}.`);
        }
        if (chunk.usage) wireUsage = chunk.usage;
        for (const choice of chunk.choices ?? []) {
          const delta = choice.delta ?? {};
          if (typeof delta.reasoning_content === "string" && delta.reasoning_content !== "") {
            firstOutputAt ??= performance.now();
            thoughts += delta.reasoning_content;
            emit({ type: "thought-delta", text: delta.reasoning_content });
          }
          if (typeof delta.content === "string" && delta.content !== "") {
            firstOutputAt ??= performance.now();
            text += delta.content;
            emit({ type: "text-delta", text: delta.content });
          }
          for (const part of delta.tool_calls ?? []) {
            firstOutputAt ??= performance.now();
            const index = part.index ?? 0;
            const call = streamed.get(index) ?? { id: undefined, name: "", argumentsText: "" };
            if (part.id !== undefined) call.id = part.id;
            if (part.function?.name !== undefined) call.name += part.function.name;
            if (part.function?.arguments !== undefined) call.argumentsText += part.function.arguments;
            streamed.set(index, call);
          }
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
      }
    } catch (error) {
      if (request.signal?.aborted === true) aborted = true;
      else if (error instanceof ModelRequestError) throw error;
      else if (timeout.aborted) throw new ModelRequestError(`${this.endpoint} did not finish within ${this.options.timeoutMs ?? 300_000} ms.`, { cause: error, code: "model_timeout" });
      else throw new ModelRequestError(`The stream from ${this.endpoint} broke off (${describeNetworkError(error)}). Retry, or check the server.`, { cause: error, code: "model_unreachable" });
    }

    const toolCalls: ToolCall[] = [];
    if (!aborted) {
      for (const [index, call] of [...streamed.entries()].sort(([first], [second]) => first - second)) {
        if (!toolNames.has(call.name)) {
          throw new InvalidToolCallError(`${this.endpoint} returned a call to "${call.name}", which is not among the request's tools. Use a server that constrains tool calls, or retry.`);
        }
        let parsed: unknown;
        try {
          parsed = call.argumentsText.trim() === "" ? {} : JSON.parse(call.argumentsText);
        } catch (error) {
          throw new InvalidToolCallError(`${this.endpoint} returned arguments for "${call.name}" that are not JSON: ${call.argumentsText.slice(0, 200)}`, { cause: error });
        }
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
          throw new InvalidToolCallError(`${this.endpoint} returned arguments for "${call.name}" that are not a JSON object.`);
        }
        const toolCall: ToolCall = { id: call.id ?? `call_${index}`, name: call.name, arguments: parsed as Record<string, unknown> };
        toolCalls.push(toolCall);
        emit({ type: "tool-call", call: toolCall });
      }
    }

    const finishedAt = performance.now();
    const usage: Usage = {
      promptTokens: wireUsage?.prompt_tokens ?? 0,
      cachedPromptTokens: wireUsage?.prompt_tokens_details?.cached_tokens ?? 0,
      outputTokens: wireUsage?.completion_tokens ?? 0,
      reasoningTokens: wireUsage?.completion_tokens_details?.reasoning_tokens ?? 0,
    };
    const stopReason: StopReason = aborted
      ? "aborted"
      : toolCalls.length > 0
        ? "tool-calls"
        : finishReason === "length"
          ? "max-tokens"
          : "stop";
    emit({ type: "usage", usage });
    emit({ type: "done", stopReason });
    const firstAt = firstOutputAt ?? finishedAt;
    const generationSeconds = (finishedAt - firstAt) / 1000;
    const promptSeconds = (firstAt - startedAt) / 1000;
    return {
      text,
      thoughts,
      toolCalls,
      usage,
      timings: {
        totalMs: finishedAt - startedAt,
        timeToFirstTokenMs: firstAt - startedAt,
        outputTokensPerSecond: usage.outputTokens > 1 && generationSeconds > 0 ? (usage.outputTokens - 1) / generationSeconds : 0,
        promptTokensPerSecond: promptSeconds > 0 ? (usage.promptTokens - usage.cachedPromptTokens) / promptSeconds : 0,
      },
      stopReason,
      ...(this.options.servedBy !== undefined ? { servedBy: this.options.servedBy } : {}),
    };
  }

  private abortedResult(startedAt: number, emit: (event: ModelEvent) => void): GenerateResult {
    const usage: Usage = { promptTokens: 0, cachedPromptTokens: 0, outputTokens: 0, reasoningTokens: 0 };
    emit({ type: "usage", usage });
    emit({ type: "done", stopReason: "aborted" });
    const elapsed = performance.now() - startedAt;
    return {
      text: "",
      thoughts: "",
      toolCalls: [],
      usage,
      timings: { totalMs: elapsed, timeToFirstTokenMs: elapsed, outputTokensPerSecond: 0, promptTokensPerSecond: 0 },
      stopReason: "aborted",
    };
  }
}

function toWireMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "assistant":
      return {
        role: "assistant",
        content: message.content === "" && (message.toolCalls?.length ?? 0) > 0 ? null : message.content,
        ...((message.toolCalls?.length ?? 0) > 0
          ? {
              tool_calls: message.toolCalls!.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
              })),
            }
          : {}),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, name: message.name, content: message.content };
  }
}

/** Yields the `data:` payload of each server-sent event. */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const onAbort = (): void => {
    void reader.cancel().catch(() => undefined);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (true) {
      if (signal?.aborted) throw signal.reason;
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replaceAll("\r\n", "\n");
      let boundary = buffer.indexOf("\n\n");
      while (boundary >= 0) {
        const event = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const data = event
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).replace(/^ /, ""))
          .join("\n");
        if (data !== "") yield data;
        boundary = buffer.indexOf("\n\n");
      }
    }
    if (signal?.aborted) throw signal.reason;
    const rest = buffer.trim();
    if (rest.startsWith("data:")) yield rest.slice(5).trim();
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
}

async function httpError(endpoint: string, response: Response): Promise<Error> {
  const body = await response.text().catch(() => "");
  let detail = body.slice(0, 300);
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
    detail = (typeof parsed.error === "string" ? parsed.error : parsed.error?.message) ?? parsed.message ?? detail;
  } catch {
    // Not JSON: keep the raw text.
  }
  if (/context|too long|maximum.*tokens|exceeds/i.test(detail) && (response.status === 400 || response.status === 413)) {
    return new ContextOverflowError(undefined, undefined, { detail: `${endpoint}: ${detail}` });
  }
  const advice =
    response.status === 401 || response.status === 403
      ? "Check the API key (for an openai: model, BOTPSY_OPENAI_API_KEY)."
      : response.status === 404
        ? "Check the base URL (it usually ends in /v1) and the model name."
        : response.status >= 500
          ? "The server failed; check its log and retry."
          : "Check the request.";
  return new ModelRequestError(`${endpoint} answered HTTP ${response.status}: ${detail || response.statusText}. ${advice}`, {
    status: response.status,
    code: response.status === 401 || response.status === 403 ? "model_unauthorized" : "model_request_failed",
  });
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}
