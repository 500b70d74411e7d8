import type { ChatMessage } from "../model/types.js";
import { stableJson } from "./repeated-calls.js";

export interface CompactionOptions {
  /** Finished turns (newest first) kept whole, tool calls and results included. Default 0. */
  keepFullTurns?: number;
  /** At most this many earlier turns enter the prompt at all. Default 12. */
  maxTurns?: number;
  /** Characters of each tool result kept in a summary. Default 160. */
  resultCharacters?: number;
}

/**
 * Earlier user turns as the model sees them. A finished tool chain is long
 * (the calls, the raw results) but what later turns need is short: which
 * tools ran with what, what came back (ids above all), and the answer. So each
 * finished turn becomes its user message and one assistant message: a
 * one-line summary of the calls, then the answer.
 */
export function compactTurns(turns: readonly (readonly ChatMessage[])[], options: CompactionOptions = {}): ChatMessage[] {
  const keepFullTurns = options.keepFullTurns ?? 0;
  const maxTurns = options.maxTurns ?? 12;
  const resultCharacters = options.resultCharacters ?? 160;
  const recent = maxTurns <= 0 ? [] : turns.slice(-maxTurns);
  const messages: ChatMessage[] = [];
  recent.forEach((turn, index) => {
    const keepWhole = index >= recent.length - keepFullTurns;
    messages.push(...(keepWhole ? turn : compactTurn(turn, resultCharacters)));
  });
  return messages;
}

export function compactTurn(turn: readonly ChatMessage[], resultCharacters = 160): ChatMessage[] {
  const hasCalls = turn.some((message) => message.role === "assistant" && (message.toolCalls?.length ?? 0) > 0);
  if (!hasCalls) return turn.filter((message) => message.role !== "tool");
  const results = new Map<string, string>();
  for (const message of turn) if (message.role === "tool") results.set(message.toolCallId, message.content);
  const summaries: string[] = [];
  let answer = "";
  const kept: ChatMessage[] = [];
  for (const message of turn) {
    if (message.role === "user" || message.role === "system") kept.push(message);
    if (message.role !== "assistant") continue;
    for (const call of message.toolCalls ?? []) {
      const result = results.get(call.id) ?? "no result";
      summaries.push(`${call.name}(${stableJson(call.arguments)}) -> ${shorten(result, resultCharacters)}`);
    }
    if ((message.toolCalls?.length ?? 0) === 0 && message.content.trim() !== "") answer = message.content;
  }
  const summary = `[Earlier tool calls: ${summaries.join("; ")}]`;
  kept.push({ role: "assistant", content: answer === "" ? summary : `${summary}\n${answer}` });
  return kept;
}

function shorten(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…`;
}
