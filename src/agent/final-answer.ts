import type { CallRecord } from "./types.js";

/**
 * Chat-template markup a small model imitates in its text after it has seen
 * tool results: whole blocks whose content is never meant for the user, then
 * lone tags and special tokens.
 */
const MARKUP_BLOCKS = [
  /<tool_response>[\s\S]*?(<\/tool_response>|$)/gi,
  /<tool_call>[\s\S]*?(<\/tool_call>|$)/gi,
  /<tool_result>[\s\S]*?(<\/tool_result>|$)/gi,
  /<function_call>[\s\S]*?(<\/function_call>|$)/gi,
  /<think>[\s\S]*?(<\/think>|$)/gi,
  /<\|im_start\|>\s*(system|user|tool|ipython)\b[\s\S]*?(<\|im_end\|>|$)/gi,
];
const MARKUP_TOKENS = [
  /<\|[a-z_]+\|>/gi,
  /<\/?(tool_response|tool_call|tool_result|tools|function_call|functions|think|response|result|data)\s*>/gi,
  /\[\/?(TOOL_CALLS|TOOL_RESULTS|AVAILABLE_TOOLS|INST)\]/g,
  /<\/?s>/g,
  /^\s*assistant\s*\n/gim,
  // Echoes of the tool list the chat format writes into the prompt.
  /^\s*(you can call (these|this) tools?|to call a tool, reply with only|if no tool fits, answer in plain text)\b.*$/gim,
  /^\s*-?\s*[a-z][a-z0-9]*(_[a-z0-9]+)+\s*\([^)\n]*\)\s*(:.*)?$/gim,
];

/**
 * The model's text without template imitation. Only recognised markup goes;
 * a plain "<" (as in "3 < 5") stays.
 */
export function stripTemplateMarkup(text: string): string {
  let cleaned = text;
  for (const block of MARKUP_BLOCKS) cleaned = cleaned.replace(block, " ");
  for (const token of MARKUP_TOKENS) cleaned = cleaned.replace(token, " ");
  return cleaned
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/[ \t]{2,}/g, " ")
    .trim();
}

/**
 * Whether a text answer says anything a person can read: a few words or figures, not a
 * JSON object a model copied from a result, nor punctuation left by markup.
 */
export function isReadableAnswer(text: string): boolean {
  const trimmed = text.trim();
  if (/^[[{]/.test(trimmed)) {
    try {
      JSON.parse(trimmed);
      return false;
    } catch {
      // Not JSON: judge it by its words.
    }
  }
  // Figures count as words: "Done: 06:45, 18:00." says something.
  const words = trimmed.match(/[\p{L}\p{N}][\p{L}\p{N}:.,'-]*[\p{L}\p{N}]|\p{L}{2,}/gu) ?? [];
  return words.length >= 2;
}

const SUMMARY_LIMIT = 240;

/**
 * A short answer from what was done, for when the model's own words are not
 * readable: the last successful call, named, with the plain fields of its
 * result. Says only what the result says; nothing is made up.
 */
export function composeAnswerFromCalls(calls: readonly CallRecord[]): string | undefined {
  const last = [...calls].reverse().find((record) => record.status === "ok");
  if (!last) return undefined;
  const summary = summariseValue(last.result);
  const done = `Done: ${last.call.name.replace(/_/g, " ")}`;
  return summary === "" ? `${done}.` : `${done}. ${summary}`;
}

function summariseValue(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return cut(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? "" : "s"}.`;
  if (typeof value !== "object") return "";
  const parts: string[] = [];
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const label = key.replace(/_/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
    if (typeof field === "string" && field !== "") parts.push(`${label}: ${field}`);
    else if (typeof field === "number" || typeof field === "boolean") parts.push(`${label}: ${String(field)}`);
    else if (Array.isArray(field)) parts.push(`${label}: ${field.length} item${field.length === 1 ? "" : "s"}`);
  }
  return parts.length === 0 ? "" : cut(`${parts.join("; ")}.`);
}

function cut(text: string): string {
  return text.length <= SUMMARY_LIMIT ? text : `${text.slice(0, SUMMARY_LIMIT - 1)}…`;
}

/**
 * Passes streamed text through until something that may be markup starts
 * ("<", "[" or "{" — a copied result), then holds the rest of the turn back; `end` returns the held
 * part cleaned. So a caller printing deltas never shows imitated template
 * tokens, and ordinary text still streams.
 */
export class MarkupFilter {
  private held = "";
  private emitted = "";

  /** The part of `delta` that can be shown now. */
  push(delta: string): string {
    if (this.held !== "") {
      this.held += delta;
      return "";
    }
    const start = delta.search(/[<[{]/);
    if (start === -1) {
      this.emitted += delta;
      return delta;
    }
    this.held = delta.slice(start);
    const shown = delta.slice(0, start);
    this.emitted += shown;
    return shown;
  }

  /** What is left to show once the turn is complete: the held part, cleaned. */
  end(): string {
    const rest = stripTemplateMarkup(this.held);
    this.held = "";
    if (rest === "") return "";
    const separator = this.emitted === "" || /\s$/.test(this.emitted) ? "" : " ";
    this.emitted += separator + rest;
    return separator + rest;
  }

  /** Everything shown so far (and by `end`). */
  get shown(): string {
    return this.emitted;
  }
}
