import { z } from "zod";
import { normalizeToolSpecs } from "../model/json-schema.js";
import type { ChatMessage, GenerateRequest, JsonSchema, Thinking, ToolCall, ToolChoice, ToolSpec } from "../model/types.js";
import { ApiError } from "./api-error.js";

/**
 * The body of `POST /v1/chat/completions`, as much of OpenAI's as a local
 * model can honour. Fields that change the answer in a way botpsy cannot
 * follow (n > 1, logprobs, images) are refused by name rather than ignored;
 * fields that only annotate (user, metadata, store) are accepted and ignored.
 */
const textPart = z.object({ type: z.literal("text"), text: z.string() });
const messageContent = z.union([z.string(), z.array(textPart)]);

const toolCallSchema = z.object({
  id: z.string().min(1).max(256),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1).max(64), arguments: z.string() }),
});

const messageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: messageContent }),
  z.object({ role: z.literal("developer"), content: messageContent }),
  z.object({ role: z.literal("user"), content: messageContent }),
  z.object({
    role: z.literal("assistant"),
    content: messageContent.nullish(),
    tool_calls: z.array(toolCallSchema).max(64).nullish(),
    reasoning_content: z.string().nullish(),
  }),
  z.object({ role: z.literal("tool"), content: messageContent, tool_call_id: z.string().min(1).max(256) }),
]);

const toolSchema = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string().min(1).max(64),
    description: z.string().max(4096).nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  }),
});

const toolChoiceSchema = z.union([
  z.enum(["auto", "none", "required"]),
  z.object({ type: z.literal("function"), function: z.object({ name: z.string().min(1).max(64) }) }),
]);

const responseFormatSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    json_schema: z.object({
      name: z.string().min(1).max(64),
      description: z.string().max(4096).nullish(),
      schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().nullish(),
    }),
  }),
]);

const tokenCount = z.int().min(1).max(131_072);

export const chatCompletionRequestSchema = z.object({
  model: z.string().min(1).max(256),
  messages: z.array(messageSchema).min(1).max(2048),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  tools: z.array(toolSchema).max(256).nullish(),
  tool_choice: toolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  response_format: responseFormatSchema.nullish(),
  max_tokens: tokenCount.nullish(),
  max_completion_tokens: tokenCount.nullish(),
  stop: z.union([z.string().min(1).max(256), z.array(z.string().min(1).max(256)).max(4)]).nullish(),
  seed: z.int().min(-(2 ** 31)).max(2 ** 32 - 1).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  top_k: z.int().min(0).max(1000).nullish(),
  n: z.literal(1).nullish(),
  logprobs: z.literal(false).nullish(),
  reasoning_effort: z.enum(["none", "minimal", "low", "medium", "high"]).nullish(),
  user: z.string().max(256).nullish(),
});

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

/** How a `response_format` with a schema is produced: as one forced call of a tool whose parameters are that schema. */
export interface StructuredOutput {
  toolName: string;
  /** The schema was not an object, so it sits under `value` of the call's arguments. */
  wrapped: boolean;
}

/** A chat completion request turned into what `ChatModel.generate` takes, plus what the server does around it. */
export interface PreparedChatRequest {
  model: string;
  stream: boolean;
  includeUsage: boolean;
  generate: Omit<GenerateRequest, "signal">;
  stopSequences: string[];
  structured: StructuredOutput | undefined;
}

/** Deepest nesting allowed in a tool call's arguments (a grammar-built call never needs more; a hostile one may). */
export const MAX_ARGUMENT_DEPTH = 16;

/** Prefix of the tool that carries a `response_format` schema (never offered beside the caller's tools, so names cannot clash). */
const STRUCTURED_TOOL_PREFIX = "respond_with_";

export function parseChatCompletionRequest(body: unknown): ChatCompletionRequest {
  const parsed = chatCompletionRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const param = issue.path.map(String).join(".");
  throw new ApiError(400, "invalid_request", `${param === "" ? "The request" : param}: ${issue.message}. See the OpenAI chat completions reference for this field.`, {
    param: param === "" ? null : param,
  });
}

/** Checks a request against the loaded model and turns it into a generation request. */
export function prepareChatRequest(request: ChatCompletionRequest, modelId: string): PreparedChatRequest {
  if (request.model !== modelId) {
    throw new ApiError(404, "model_not_found", `The model "${request.model}" is not loaded here; this server serves "${modelId}" (GET /v1/models lists it).`, {
      param: "model",
    });
  }
  const messages = toChatMessages(request.messages);
  let tools: ToolSpec[] = (request.tools ?? []).map((tool) => ({
    name: tool.function.name,
    description: tool.function.description ?? "",
    parameters: (tool.function.parameters as JsonSchema | null | undefined) ?? { type: "object", properties: {} },
  }));
  let toolChoice: ToolChoice = toToolChoice(request.tool_choice ?? undefined, tools);
  let structured: StructuredOutput | undefined;
  const format = request.response_format;
  if (format && format.type !== "text") {
    if (tools.length > 0 && toolChoice !== "none") {
      throw new ApiError(400, "invalid_request", "response_format with a schema cannot be combined with tools the model may call; send one or the other.", {
        param: "response_format",
      });
    }
    const schema: JsonSchema = format.type === "json_schema" ? (format.json_schema.schema as JsonSchema) : { type: "object", additionalProperties: true };
    const wrapped = schema.type !== "object";
    const name = `${STRUCTURED_TOOL_PREFIX}${format.type === "json_schema" ? format.json_schema.name.replace(/[^A-Za-z0-9_]/g, "_") : "json"}`.slice(0, 64);
    const description = format.type === "json_schema" ? (format.json_schema.description ?? `Answer with a ${format.json_schema.name} object.`) : "Answer with a JSON object.";
    tools = [{ name, description, parameters: wrapped ? { type: "object", properties: { value: schema }, required: ["value"] } : schema }];
    toolChoice = { name };
    structured = { toolName: name, wrapped };
  }
  if (toolChoice === "none") tools = [];
  // Validated here so a schema the grammar cannot follow is the caller's 400, named, before any queueing.
  if (tools.length > 0) {
    try {
      normalizeToolSpecs(tools);
    } catch (error) {
      throw new ApiError(400, "invalid_tool_schema", error instanceof Error ? error.message : String(error), { param: structured ? "response_format" : "tools", cause: error });
    }
  }
  const stop = request.stop === undefined || request.stop === null ? [] : typeof request.stop === "string" ? [request.stop] : request.stop;
  const generate: Omit<GenerateRequest, "signal"> = {
    messages,
    ...(tools.length > 0 ? { tools, toolChoice: toolChoice === "none" ? "auto" : toolChoice } : {}),
    ...(request.parallel_tool_calls !== undefined && request.parallel_tool_calls !== null ? { parallelToolCalls: request.parallel_tool_calls } : {}),
    ...optional("maxTokens", request.max_completion_tokens ?? request.max_tokens),
    ...optional("seed", request.seed),
    ...optional("temperature", request.temperature),
    ...optional("topP", request.top_p),
    ...optional("topK", request.top_k),
    thinking: toThinking(request.reasoning_effort ?? undefined),
  };
  return {
    model: modelId,
    stream: request.stream === true,
    includeUsage: request.stream_options?.include_usage === true,
    generate,
    stopSequences: stop,
    structured,
  };
}

function optional<Key extends string, Value>(key: Key, value: Value | null | undefined): Partial<Record<Key, Value>> {
  return value === undefined || value === null ? {} : ({ [key]: value } as Record<Key, Value>);
}

function toThinking(effort: ChatCompletionRequest["reasoning_effort"] | undefined): Thinking {
  if (effort === undefined || effort === null || effort === "none") return "off";
  return "on";
}

function toToolChoice(choice: ChatCompletionRequest["tool_choice"] | undefined, tools: readonly ToolSpec[]): ToolChoice {
  if (choice === undefined || choice === null) return "auto";
  if (typeof choice === "string") {
    if (choice === "required" && tools.length === 0) {
      throw new ApiError(400, "invalid_request", 'tool_choice "required" needs at least one tool in "tools".', { param: "tool_choice" });
    }
    return choice;
  }
  const name = choice.function.name;
  if (!tools.some((tool) => tool.name === name)) {
    throw new ApiError(400, "invalid_request", `tool_choice names "${name}", which is not among the tools: ${tools.map((tool) => tool.name).join(", ") || "(none)"}.`, {
      param: "tool_choice",
    });
  }
  return { name };
}

function contentText(content: string | { type: "text"; text: string }[] | null | undefined): string {
  if (content === undefined || content === null) return "";
  return typeof content === "string" ? content : content.map((part) => part.text).join("");
}

function toChatMessages(messages: ChatCompletionRequest["messages"]): ChatMessage[] {
  const callNames = new Map<string, string>();
  return messages.map((message, index): ChatMessage => {
    switch (message.role) {
      case "system":
      case "developer":
        return { role: "system", content: contentText(message.content) };
      case "user":
        return { role: "user", content: contentText(message.content) };
      case "assistant": {
        const toolCalls: ToolCall[] = (message.tool_calls ?? []).map((call, callIndex) => {
          callNames.set(call.id, call.function.name);
          return { id: call.id, name: call.function.name, arguments: parseArguments(call.function.arguments, `messages.${index}.tool_calls.${callIndex}.function.arguments`) };
        });
        return {
          role: "assistant",
          content: contentText(message.content),
          ...(message.reasoning_content ? { thoughts: message.reasoning_content } : {}),
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
        };
      }
      case "tool": {
        const name = callNames.get(message.tool_call_id);
        if (name === undefined) {
          throw new ApiError(400, "invalid_request", `messages.${index}: tool_call_id "${message.tool_call_id}" answers no tool call of an earlier assistant message.`, {
            param: `messages.${index}.tool_call_id`,
          });
        }
        return { role: "tool", toolCallId: message.tool_call_id, name, content: contentText(message.content) };
      }
    }
  });
}

function parseArguments(text: string, param: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_request", `${param} is not valid JSON; send the arguments as a JSON object string.`, { param });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ApiError(400, "invalid_request", `${param} must be a JSON object.`, { param });
  }
  if (jsonDepth(value) > MAX_ARGUMENT_DEPTH) {
    throw new ApiError(400, "arguments_too_deep", `${param} nests deeper than ${MAX_ARGUMENT_DEPTH} levels.`, { param });
  }
  return value as Record<string, unknown>;
}

/** Depth of a JSON value (a scalar is 0), measured without recursion so a hostile value cannot exhaust the stack. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (current === null || typeof current !== "object") continue;
    const childDepth = depth + 1;
    if (childDepth > deepest) deepest = childDepth;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === "object") pending.push({ value: child, depth: childDepth });
    }
  }
  return deepest;
}
