import { BotpsyError } from "../errors.js";
import { createGeneration } from "../model/generation.js";
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
} from "../model/types.js";

/** A tool call as a script writes it; the id is invented when absent. */
export interface ScriptedToolCall {
  name: string;
  arguments?: Record<string, unknown>;
  id?: string;
}

/** What one scripted model turn produces. */
export interface ScriptedReply {
  text?: string;
  thoughts?: string;
  toolCalls?: ScriptedToolCall[];
  /** Wait this long before answering (aborting the request ends the wait). */
  delayMs?: number;
  /** Overrides of the usage the double estimates. */
  usage?: Partial<Usage>;
}

/**
 * One turn of a script: a plain answer, a reply, or a function that looks at
 * the request (the conversation so far, the tools offered) and decides.
 */
export type ScriptedTurn = string | ScriptedReply | ((request: GenerateRequest, turnIndex: number) => string | ScriptedReply);

export interface ScriptedModelOptions {
  /** Default "scripted-model". */
  id?: string;
  /**
   * What happens when a request arrives after the last turn was played:
   * "error" (default) fails the request; "repeat-last" plays the last turn again.
   */
  whenExhausted?: "error" | "repeat-last";
}

export class ScriptExhaustedError extends BotpsyError {
  constructor(turns: number) {
    super(
      "script_exhausted",
      `The scripted model was asked for turn ${turns + 1} but its script has ${turns} turns. Add turns to the script or use whenExhausted: "repeat-last".`,
    );
  }
}

/**
 * A deterministic `ChatModel` test double: it plays a script of turns in order
 * and records every request it received. It does no inference; usage figures
 * are estimates (one token per four characters) so that sums and compaction
 * can be checked.
 */
export class ScriptedModel implements ChatModel {
  readonly id: string;
  /** Every request received, in order (messages copied as they were then). */
  readonly requests: GenerateRequest[] = [];
  /** Conversations the caller asked to forget. */
  readonly endedConversations: string[] = [];
  private readonly turns: ScriptedTurn[];
  private readonly whenExhausted: "error" | "repeat-last";
  private nextTurn = 0;
  private callCounter = 0;
  private disposed = false;

  constructor(turns: ScriptedTurn[], options: ScriptedModelOptions = {}) {
    this.turns = [...turns];
    this.id = options.id ?? "scripted-model";
    this.whenExhausted = options.whenExhausted ?? "error";
  }

  /** How many turns have been played. */
  get turnsPlayed(): number {
    return this.nextTurn;
  }

  /** Append turns to the script (a test may extend it between runs). */
  push(...turns: ScriptedTurn[]): void {
    this.turns.push(...turns);
  }

  generate(request: GenerateRequest): Generation {
    const recorded: GenerateRequest = { ...request, messages: structuredClone(request.messages), tools: request.tools ? [...request.tools] : undefined, callableTools: request.callableTools ? [...request.callableTools] : undefined };
    this.requests.push(recorded);
    return createGeneration((emit) => this.play(recorded, request.signal, emit));
  }

  private async play(request: GenerateRequest, signal: AbortSignal | undefined, emit: (event: ModelEvent) => void): Promise<GenerateResult> {
    if (this.disposed) throw new BotpsyError("model_disposed", "The scripted model was disposed; create a new one.");
    const started = Date.now();
    const turnIndex = this.nextTurn;
    let turn = this.turns[turnIndex];
    if (turn === undefined) {
      if (this.whenExhausted === "repeat-last" && this.turns.length > 0) turn = this.turns[this.turns.length - 1]!;
      else throw new ScriptExhaustedError(this.turns.length);
    }
    this.nextTurn++;
    const reply = normaliseTurn(typeof turn === "function" ? turn(request, turnIndex) : turn);
    const promptTokens = estimateTokens(request.messages.map(messageText).join("\n") + JSON.stringify(request.tools ?? []));

    const aborted = (): GenerateResult => {
      const usage: Usage = { promptTokens, cachedPromptTokens: 0, outputTokens: 0, reasoningTokens: 0 };
      emit({ type: "usage", usage });
      emit({ type: "done", stopReason: "aborted" });
      return { text: "", thoughts: "", toolCalls: [], usage, timings: timingsSince(started), stopReason: "aborted" };
    };
    if (signal?.aborted) return aborted();
    if (reply.delayMs !== undefined && reply.delayMs > 0) {
      const completed = await waitUnlessAborted(reply.delayMs, signal);
      if (!completed) return aborted();
    }

    const thoughts = reply.thoughts ?? "";
    const text = reply.text ?? "";
    if (thoughts !== "") emit({ type: "thought-delta", text: thoughts });
    for (const piece of splitIntoDeltas(text)) emit({ type: "text-delta", text: piece });
    const toolCalls: ToolCall[] = (reply.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${++this.callCounter}`,
      name: call.name,
      arguments: call.arguments ?? {},
    }));
    for (const call of toolCalls) emit({ type: "tool-call", call });
    const thoughtTokens = estimateTokens(thoughts);
    const usage: Usage = {
      promptTokens,
      cachedPromptTokens: 0,
      outputTokens: estimateTokens(text) + thoughtTokens + estimateTokens(JSON.stringify(toolCalls)),
      reasoningTokens: thoughtTokens,
      ...reply.usage,
    };
    const stopReason: StopReason = toolCalls.length > 0 ? "tool-calls" : "stop";
    emit({ type: "usage", usage });
    emit({ type: "done", stopReason });
    return { text, thoughts, toolCalls, usage, timings: timingsSince(started), stopReason };
  }

  endConversation(conversationId: string): void {
    this.endedConversations.push(conversationId);
  }

  dispose(): Promise<void> {
    this.disposed = true;
    return Promise.resolve();
  }
}

function normaliseTurn(turn: string | ScriptedReply): ScriptedReply {
  return typeof turn === "string" ? { text: turn } : turn;
}

function messageText(message: ChatMessage): string {
  if (message.role === "assistant") return message.content + JSON.stringify(message.toolCalls ?? []);
  return message.content;
}

/** One token per four characters: a stable stand-in for a tokenizer. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function splitIntoDeltas(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function timingsSince(started: number): GenerateResult["timings"] {
  return { totalMs: Date.now() - started, timeToFirstTokenMs: 0, outputTokensPerSecond: 0, promptTokensPerSecond: 0 };
}

function waitUnlessAborted(milliseconds: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, milliseconds);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
