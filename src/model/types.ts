/** JSON Schema as tools describe their parameters (the subset botpsy understands is in `tools/json-schema.ts`). */
export type JsonSchema = { [key: string]: unknown };

export interface ToolCall {
  /** Unique within a conversation; backends invent one when the format has none. */
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** What the model is told about a tool: no code, only the contract. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; thoughts?: string; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; name: string; content: string };

/** Who decides which optional parameters a call writes: see `LlamaChatModelOptions.optionalArguments`. */
export const OPTIONAL_ARGUMENTS = ["written", "chosen"] as const;
export type OptionalArguments = (typeof OPTIONAL_ARGUMENTS)[number];

export type ToolChoice = "auto" | "required" | "none" | { name: string };

/** Whether a tool choice forces a call: "required", or a named tool. */
export function isForcedChoice(choice: ToolChoice | undefined): choice is "required" | { name: string } {
  return choice === "required" || typeof choice === "object";
}

/** `off`: no reasoning segment; `on`: the model may think freely; `{ budget }`: at most that many thought tokens. */
export type Thinking = "off" | "on" | { budget: number };

export interface GenerateOptions {
  /** Default 0 (greedy): small models call tools far more reliably so. */
  temperature?: number;
  /** Default 1. Fixed so that a run can be repeated exactly. */
  seed?: number;
  topP?: number;
  topK?: number;
  /** Default 512. */
  maxTokens?: number;
  /** Default "off". */
  thinking?: Thinking;
  /** Default "auto". */
  toolChoice?: ToolChoice;
  /**
   * The forced tool choice is the agent's router's guess from the request's
   * words, not a caller's requirement: a model's forced-call floor
   * (`LlamaChatModelOptions.forcedCallFloor`) may release only such a turn.
   * Default false.
   */
  routedChoice?: boolean;
  /**
   * Measure this turn's call margin and report it (`GenerateResult.callMargin`)
   * even where nothing depends on it: for evaluations that choose a call bias
   * and a forced-call floor. A model that can (llama.cpp, thinking off, a
   * turn that may call) pays for it by evaluating the turn's new prompt
   * tokens twice and reading the distribution at each token of the call
   * prefix; others ignore it. Default false.
   */
  reportCallMargin?: boolean;
  /** Allow several tool calls in one assistant turn. Default: true for native formats, false for the prompted one (a small model repeats itself). */
  parallelToolCalls?: boolean;
  signal?: AbortSignal;
  /**
   * Names the conversation this request continues. A backend that keeps
   * evaluated context (llama) reuses it, so turn N+1 only evaluates new tokens.
   */
  conversationId?: string;
}

export interface GenerateRequest extends GenerateOptions {
  messages: ChatMessage[];
  /** The tools the prompt documents. */
  tools?: ToolSpec[];
  /**
   * The forms the model may call this turn, when narrower than `tools`: some
   * of them by name, possibly with fewer optional parameters. The prompt
   * still documents `tools`, so a narrowed turn leaves the evaluated context
   * of the conversation valid for the next one. Default: `tools`.
   */
  callableTools?: ToolSpec[];
}

export interface Usage {
  /** Every prompt token of this request, cached or not. */
  promptTokens: number;
  /** Prompt tokens that were already evaluated and reused from a cache. */
  cachedPromptTokens: number;
  /** Tokens the model produced (text, thoughts and tool calls). */
  outputTokens: number;
  /** The part of `outputTokens` spent on thoughts. */
  reasoningTokens: number;
}

export interface Timings {
  totalMs: number;
  /** Until the first output token (text, thought or call). */
  timeToFirstTokenMs: number;
  /** Output tokens per second over the generation phase. */
  outputTokensPerSecond: number;
  /** Prompt tokens evaluated per second (cached ones excluded). */
  promptTokensPerSecond: number;
}

export type StopReason = "stop" | "tool-calls" | "max-tokens" | "aborted";

export type ModelEvent =
  | { type: "text-delta"; text: string }
  | { type: "thought-delta"; text: string }
  | { type: "tool-call"; call: ToolCall }
  | { type: "usage"; usage: Usage }
  | { type: "done"; stopReason: StopReason };

export interface GenerateResult {
  text: string;
  thoughts: string;
  toolCalls: ToolCall[];
  usage: Usage;
  timings: Timings;
  stopReason: StopReason;
  /** How far greedy decoding was from writing a call at the turn's start (`CallMargin`). Only where the model measured it. */
  callMargin?: CallMargin;
  /** A forced call the model was let out of (`LlamaChatModelOptions.forcedCallFloor`): it answered in words. */
  releasedForcedCall?: boolean;
  /** Where the turn was generated when not by a model on this machine: e.g. "peer:home", "openai:127.0.0.1:8080". */
  servedBy?: string;
}

/**
 * How far greedy decoding is from writing a call at a turn's start, in
 * logits, before any bias: at each token of the call prefix, that token's
 * logit less the best other token's. `opening` is the first token's lead
 * (the one `callBias` shifts); `following` the smallest lead of the prefix's
 * later tokens. Greedy decoding writes the call prefix exactly when
 * `opening + callBias` and `following` are both above 0 — for a prompted
 * format whose prefix opens with "<", `opening` alone is not a call: "<"
 * opens many texts.
 */
export interface CallMargin {
  opening: number;
  following: number;
}

/** The model's lead for writing a call, all prefix tokens counted: negative where greedy decoding writes words. */
export function callMarginLead(margin: CallMargin): number {
  return Math.min(margin.opening, margin.following);
}

/** Whether greedy decoding, free to answer in words, opens a call at this margin under a call bias. */
export function opensCallAt(margin: CallMargin, callBias: number): boolean {
  return margin.opening + callBias > 0 && margin.following > 0;
}

/** Whether a forced-call floor releases a forced call at this margin: the model's lead falls short of it. */
export function belowCallFloor(margin: CallMargin, floor: number): boolean {
  return callMarginLead(margin) < floor;
}

/** A running generation: iterate it for events, or await `result` (or both). */
export interface Generation extends AsyncIterable<ModelEvent> {
  readonly result: Promise<GenerateResult>;
}

export interface ChatModel {
  /** A stable name for reports: catalog id, file name or remote model name. */
  readonly id: string;
  generate(request: GenerateRequest): Generation;
  /** Forget a conversation's cached context. */
  endConversation?(conversationId: string): void;
  dispose(): Promise<void>;
}

export function emptyUsage(): Usage {
  return { promptTokens: 0, cachedPromptTokens: 0, outputTokens: 0, reasoningTokens: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    cachedPromptTokens: a.cachedPromptTokens + b.cachedPromptTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}
