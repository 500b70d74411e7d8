import { generationTimings } from "./generation.js";
import { randomUUID } from "node:crypto";
import {
  LlamaGrammarEvaluationState,
  type LlamaContextSequence,
  type LlamaContextSequenceDryRepeatPenalty,
  type LlamaGrammar,
  type LlamaModel,
  type Token,
} from "node-llama-cpp";
import { ChatFormatUnsupportedError, ContextOverflowError } from "./errors.js";
import {
  CallParseError,
  EMPTY_THINK_BLOCK,
  THINK_CLOSE,
  THINK_OPEN,
  TOOL_CALL_OPEN,
  callGrammar,
  parseQwen35Calls,
  renderCalls,
  renderQwen35,
  type PromptPart,
} from "./qwen35-dialect.js";
import type { ChatMessage, GenerateResult, ModelEvent, StopReason, ToolCall, ToolSpec, Usage } from "./types.js";

export interface DialectRequest {
  messages: readonly ChatMessage[];
  /** Tools shown in the prompt (all of the request's tools, whatever the choice). */
  documented: readonly ToolSpec[];
  /** Tools the model may call now; empty under tool choice none. */
  allowed: readonly ToolSpec[];
  forceCall: boolean;
  parallelCalls: boolean;
  thinking: boolean;
  /** At most this many thought tokens (Infinity for no bound). */
  thoughtBudget: number;
  maxTokens: number;
  temperature: number;
  seed: number;
  topP: number | undefined;
  topK: number | undefined;
  dryRepeatPenalty: LlamaContextSequenceDryRepeatPenalty | undefined;
  maxStringLength: number;
  signal: AbortSignal | undefined;
}

/** A generated assistant turn: its exact tokens (for the cache) and its thoughts (for callers that drop them). */
interface RememberedTurn {
  tokens: Token[];
  thoughts: string;
}

/**
 * Generates with botpsy's Qwen 3.5 dialect on one context sequence: the
 * prompt is rendered by `renderQwen35`, text and thoughts are sampled freely,
 * and a call, once the model opens `<tool_call>` (or at once when a call is
 * forced), is sampled under a grammar built from the tools' schemas.
 *
 * What was generated is what is re-rendered: each generated turn's tokens are
 * kept by its text, so the next step's prompt tokenizes that turn exactly as
 * it was evaluated, and only the new tokens are evaluated.
 */
export class Qwen35Generator {
  private readonly turns = new Map<string, RememberedTurn>();
  private readonly thoughtsByBody = new Map<string, string>();
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  private readonly toolCallToken: Token;
  private readonly thinkCloseToken: Token;

  constructor(
    private readonly model: LlamaModel,
    private readonly contextSize: number,
  ) {
    this.toolCallToken = singleToken(model, TOOL_CALL_OPEN);
    this.thinkCloseToken = singleToken(model, THINK_CLOSE);
  }

  /** The prompt's tokens, with remembered turns as they were generated. */
  tokenizePrompt(parts: readonly PromptPart[]): Token[] {
    const tokens: Token[] = [];
    for (const part of parts) {
      const remembered = part.kind === "assistant-turn" ? this.turns.get(part.text) : undefined;
      if (remembered !== undefined) tokens.push(...remembered.tokens);
      else tokens.push(...this.model.tokenize(part.text, part.kind === "control"));
    }
    return tokens;
  }

  render(messages: readonly ChatMessage[], tools: readonly ToolSpec[], thinking: boolean): PromptPart[] {
    return renderQwen35(messages, { tools, addGenerationPrompt: true, thinking, recalledThoughts: (body) => this.thoughtsByBody.get(body) });
  }

  async generate(sequence: LlamaContextSequence, request: DialectRequest, emit: (event: ModelEvent) => void): Promise<GenerateResult> {
    const startedAt = performance.now();
    const parts = this.render(request.messages, request.documented, request.thinking);
    const promptTokens = this.tokenizePrompt(parts);
    const thinkPrefix = request.thinking ? `${THINK_OPEN}\n` : EMPTY_THINK_BLOCK;
    const thinkPrefixTokens = this.model.tokenize(thinkPrefix, false);
    const forcedPrefix = request.forceCall && request.allowed.length > 0 ? [this.toolCallToken] : [];
    const fullPrompt = [...promptTokens, ...forcedPrefix];
    if (fullPrompt.length >= this.contextSize) throw new ContextOverflowError(fullPrompt.length, this.contextSize);

    // Keep the evaluated prefix this prompt shares; at least one token is evaluated again for fresh logits.
    let cached = commonPrefixLength(sequence.contextTokens, fullPrompt);
    if (cached >= fullPrompt.length) cached = fullPrompt.length - 1;
    if (cached < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: cached, end: sequence.nextTokenIndex }]);

    const budget = Math.min(request.maxTokens, this.contextSize - fullPrompt.length);
    const sampling = {
      temperature: request.temperature,
      seed: request.seed,
      ...(request.topP !== undefined ? { topP: request.topP } : {}),
      ...(request.topK !== undefined ? { topK: request.topK } : {}),
    };
    let pending: Token[] = fullPrompt.slice(cached);
    const turnTokens: Token[] = [...thinkPrefixTokens, ...forcedPrefix];
    let outputTokens = 0;
    let reasoningTokens = 0;
    let firstOutputAt: number | undefined;
    let aborted = false;
    let hitLimit = false;

    /** Samples until `stopAt` says so, the model ends its turn, the budget runs out or the request is aborted. */
    const sample = async (
      options: { grammar?: LlamaGrammar; dry: boolean; limit: number },
      onToken: (token: Token) => "continue" | "stop",
    ): Promise<{ tokens: Token[]; ended: boolean; stoppedAt: Token | undefined }> => {
      const tokens: Token[] = [];
      const iterator = sequence.evaluate(pending, {
        ...sampling,
        ...(options.grammar !== undefined ? { grammarEvaluationState: new LlamaGrammarEvaluationState({ model: this.model, grammar: options.grammar }) } : {}),
        ...(options.dry && request.dryRepeatPenalty !== undefined ? { dryRepeatPenalty: request.dryRepeatPenalty } : {}),
      });
      pending = [];
      try {
        for await (const token of iterator) {
          firstOutputAt ??= performance.now();
          if (request.signal?.aborted === true) {
            aborted = true;
            // The sampled token is not evaluated: it is not part of the turn.
            return { tokens, ended: false, stoppedAt: undefined };
          }
          outputTokens++;
          if (onToken(token) === "stop") return { tokens, ended: false, stoppedAt: token };
          tokens.push(token);
          if (tokens.length >= options.limit) {
            hitLimit = true;
            pending = [];
            // The last token is sampled but not yet evaluated; the caller evaluates it with what follows.
            return { tokens, ended: false, stoppedAt: undefined };
          }
        }
        return { tokens, ended: true, stoppedAt: undefined };
      } finally {
        await iterator.return();
      }
    };

    // Thoughts: free text until </think>, the end of the turn, or the budget.
    let thoughts = "";
    let turnEnded = false;
    if (request.thinking && forcedPrefix.length === 0) {
      const limit = Math.min(budget, request.thoughtBudget);
      let streamed = "";
      const phase = limit <= 0 ? { tokens: [], ended: false, stoppedAt: undefined } : await sample({ dry: false, limit }, (token) => {
        if (token === this.thinkCloseToken) return "stop";
        reasoningTokens++;
        streamed = this.streamDelta(turnTokens.slice(thinkPrefixTokens.length), token, streamed, (text) => emit({ type: "thought-delta", text }));
        turnTokens.push(token);
        return "continue";
      });
      thoughts = this.model.detokenize(phase.tokens, false);
      turnEnded = phase.ended;
      if (!aborted && !turnEnded) {
        if (phase.stoppedAt === this.thinkCloseToken) {
          // A closed segment gets the blank line the template writes after it.
          const closing = [this.thinkCloseToken, ...this.model.tokenize("\n\n", false)];
          pending = closing;
          turnTokens.push(...closing);
        } else {
          // Cut by the budget: closed the way the template writes it. The last thought token was sampled but not yet evaluated.
          const closing = this.model.tokenize(`\n${THINK_CLOSE}\n\n`, false);
          pending = [...phase.tokens.slice(-1), ...closing];
          turnTokens.push(...closing);
        }
        hitLimit = false;
      }
    }

    // The answer, or the opening of a call.
    let text = "";
    let callText = "";
    let wantsCall = forcedPrefix.length > 0;
    if (!aborted && !turnEnded && !wantsCall) {
      const contentStart = turnTokens.length;
      let streamed = "";
      const phase = budget - outputTokens <= 0 ? { tokens: [], ended: false, stoppedAt: undefined } : await sample({ dry: request.allowed.length > 0, limit: budget - outputTokens }, (token) => {
        if (token === this.toolCallToken) return "stop";
        streamed = this.streamDelta(turnTokens.slice(contentStart), token, streamed, (delta) => emit({ type: "text-delta", text: delta }));
        turnTokens.push(token);
        return "continue";
      });
      text = this.model.detokenize(phase.tokens, false);
      turnEnded = phase.ended;
      if (phase.stoppedAt === this.toolCallToken) {
        if (request.allowed.length > 0) {
          wantsCall = true;
          pending = [this.toolCallToken];
          turnTokens.push(this.toolCallToken);
        } else {
          // Tools are listed but none may be called now: a call the model starts ends the text there.
          outputTokens--;
          turnEnded = true;
        }
      } else if (phase.tokens.length === 0 && !phase.ended) {
        hitLimit = true;
      }
    }

    const calls: ToolCall[] = [];
    if (!aborted && wantsCall && !hitLimit && budget - outputTokens > 0) {
      const grammar = await this.grammarFor(request.allowed, request.parallelCalls, request.maxStringLength);
      const phase = await sample({ grammar, dry: true, limit: budget - outputTokens }, (token) => {
        turnTokens.push(token);
        return "continue";
      });
      callText = TOOL_CALL_OPEN + this.model.detokenize(phase.tokens, true);
      turnEnded = phase.ended;
      if (phase.ended) {
        const seen = new Set<string>();
        let parsed: Array<Pick<ToolCall, "name" | "arguments">>;
        try {
          parsed = parseQwen35Calls(callText, request.allowed);
        } catch (error) {
          if (!(error instanceof CallParseError)) throw error;
          parsed = [];
        }
        for (const call of parsed) {
          // A repeated call is never useful; the calls before it are kept.
          const key = `${call.name}\u0000${JSON.stringify(call.arguments)}`;
          if (seen.has(key)) break;
          seen.add(key);
          const toolCall: ToolCall = { id: `call_${randomUUID().replaceAll("-", "").slice(0, 12)}`, ...call };
          calls.push(toolCall);
          emit({ type: "tool-call", call: toolCall });
        }
      }
    }

    const content = text.trim();
    if (turnEnded && !aborted) {
      // Remember the turn as evaluated, under the text the template will render it as.
      const body = content + renderCalls(calls, content);
      const rendered = `${THINK_OPEN}\n${thoughts.trim()}\n${THINK_CLOSE}\n\n${body}`;
      const generatedText = this.model.detokenize(turnTokens, true);
      if (generatedText === rendered) this.remember(rendered, { tokens: turnTokens, thoughts });
      if (thoughts.trim() !== "") this.thoughtsByBody.set(body, thoughts);
    }

    const finishedAt = performance.now();
    const usage: Usage = { promptTokens: fullPrompt.length, cachedPromptTokens: cached, outputTokens, reasoningTokens };
    const stopReason: StopReason = aborted ? "aborted" : calls.length > 0 ? "tool-calls" : hitLimit || (!turnEnded && outputTokens >= budget) ? "max-tokens" : "stop";
    emit({ type: "usage", usage });
    emit({ type: "done", stopReason });
    return {
      text: calls.length > 0 ? content : text,
      thoughts,
      toolCalls: calls,
      usage,
      timings: generationTimings(startedAt, firstOutputAt, finishedAt, outputTokens, fullPrompt.length - cached),
      stopReason,
    };
  }

  /** Emits the text a new token adds, once it is whole (a token can end inside a multi-byte character). */
  private streamDelta(previous: readonly Token[], token: Token, streamed: string, emit: (text: string) => void): string {
    const text = this.model.detokenize([...previous, token], false);
    if (text.endsWith("\uFFFD") || text.length <= streamed.length) return streamed;
    emit(text.slice(streamed.length));
    return text;
  }

  private grammarFor(tools: readonly ToolSpec[], parallel: boolean, maxStringLength: number): Promise<LlamaGrammar> {
    const text = callGrammar(tools, { parallel, maxStringLength });
    let grammar = this.grammars.get(text);
    if (grammar === undefined) {
      grammar = this.model.llama.createGrammar({ grammar: text });
      this.grammars.set(text, grammar);
      // Bounded: tool lists change from turn to turn only through routing.
      if (this.grammars.size > 64) this.grammars.delete(this.grammars.keys().next().value!);
    }
    return grammar;
  }

  private remember(text: string, turn: RememberedTurn): void {
    this.turns.set(text, turn);
    // Bounded: only recent turns can still be in a cached context.
    if (this.turns.size > 1024) this.turns.delete(this.turns.keys().next().value!);
    if (this.thoughtsByBody.size > 1024) this.thoughtsByBody.delete(this.thoughtsByBody.keys().next().value!);
  }
}

function singleToken(model: LlamaModel, text: string): Token {
  const tokens = model.tokenize(text, true);
  if (tokens.length !== 1) throw new ChatFormatUnsupportedError("qwen3.5", `its vocabulary has no single token for ${text}`);
  return tokens[0]!;
}

function commonPrefixLength(first: readonly Token[], second: readonly Token[]): number {
  const limit = Math.min(first.length, second.length);
  let index = 0;
  while (index < limit && first[index] === second[index]) index++;
  return index;
}
