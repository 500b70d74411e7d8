/**
 * Whether the model's final words are an answer a person can use. A small
 * model, once it has lost the thread, loops on a phrase, imitates the chat
 * template it was trained on ("User: … Assistant: …"), or writes code nobody
 * asked for; printing that as the answer would tell the user something false.
 */

/** Longest final answer shown in full; longer ones are cut at a sentence or line end before it. */
export const DEFAULT_MAX_ANSWER_CHARACTERS = 1500;

export type AnswerProblem = "empty" | "repetition" | "template_imitation" | "unrequested_code";

export interface AnswerAssessment {
  /** False when the text is empty or degenerate: it must not be shown as the answer. */
  usable: boolean;
  problem?: AnswerProblem;
  /** The text as it may be shown: trimmed and bounded to the length limit. */
  text: string;
  /** True when `text` was cut to the length limit. */
  cut: boolean;
}

export const ANSWER_PROBLEM_WORDS: Record<AnswerProblem, string> = {
  empty: "it wrote no answer",
  repetition: "it repeated itself",
  template_imitation: "it imitated a conversation instead of answering",
  unrequested_code: "it wrote code that was not asked for",
};

const TEMPLATE_MARKERS = [
  /<\|[a-z_]+\|>/i,
  /<\/?(?:tool_call|tool_response|start_of_turn|end_of_turn|s)>/i,
  /\[\/?INST\]/,
  /^#{2,3}\s*(?:Instruction|Response|Input|Human|Assistant)\b/im,
  /^(?:User|Human|System|Assistant|AI|Bot)\s*:/im,
];

const CODE_SIGNS = [/```/, /^\s*(?:def|class|import|from\s+\S+\s+import|function|const|let|var|public|private|#include|package)\b[^\n]*[({:=;]/m, /^\s*(?:print|console\.log)\(/m];

const CODE_WORDS = /\b(?:code|script|program|python|javascript|typescript|java|function|regex|sql|snippet|html|css|bash|shell|command line|json|csv)\b/i;

/** Judge `answer` as a reply to `request`; bound it to `maxCharacters`. */
export function assessAnswer(answer: string, request: string, maxCharacters = DEFAULT_MAX_ANSWER_CHARACTERS): AnswerAssessment {
  const text = answer.trim();
  if (text === "") return { usable: false, problem: "empty", text: "", cut: false };
  const problem = degenerateProblem(text, request);
  const bounded = boundAnswer(text, maxCharacters);
  return problem === undefined ? { usable: true, text: bounded, cut: bounded !== text } : { usable: false, problem, text: bounded, cut: bounded !== text };
}

function degenerateProblem(text: string, request: string): AnswerProblem | undefined {
  if (isRepetitive(text)) return "repetition";
  if (TEMPLATE_MARKERS.some((marker) => marker.test(text))) return "template_imitation";
  if (!CODE_WORDS.test(request) && CODE_SIGNS.some((sign) => sign.test(text))) return "unrequested_code";
  return undefined;
}

/**
 * A phrase said over and over: the same line three times or more, a run of one
 * short piece repeated back to back, or long text made of few distinct word
 * triples ("Business: Business: Business…").
 */
export function isRepetitive(text: string): boolean {
  if (/(.{4,}?)(?:\s*\1){3,}/s.test(text)) return true;
  const lines = text.split(/\n+/).map((line) => line.trim().toLowerCase()).filter((line) => line.length >= 8);
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  if ([...counts.values()].some((count) => count >= 3)) return true;
  const words = text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  if (words.length < 40) return false;
  const triples = new Set<string>();
  for (let index = 0; index + 2 < words.length; index++) triples.add(`${words[index]} ${words[index + 1]} ${words[index + 2]}`);
  return triples.size / (words.length - 2) < 0.5;
}

/** The answer cut at the last sentence or line end before the limit (a hard cut when there is none), marked with "…". */
export function boundAnswer(text: string, maxCharacters = DEFAULT_MAX_ANSWER_CHARACTERS): string {
  if (text.length <= maxCharacters) return text;
  const head = text.slice(0, maxCharacters);
  const boundary = Math.max(head.lastIndexOf("\n"), head.lastIndexOf(". "), head.lastIndexOf("! "), head.lastIndexOf("? "));
  const kept = boundary >= maxCharacters / 2 ? head.slice(0, boundary + 1) : head;
  return `${kept.trimEnd()} …`;
}
