/**
 * What a run amounted to, for the person who asked: one of six outcomes with a
 * reason in words and an exit code. The agent's stop reason says how the loop
 * ended ("answered" only means the model stopped calling tools); this says
 * whether the request was served, so `run`, `chat`, the JSON output and the
 * server never report wrong or empty work as done.
 */
import { FIND_TOOLS_NAME } from "../tools/find-tools.js";
import { UNGROUNDED_CODE } from "./argument-grounding.js";
import { REPEATED_FAILURE_CODE } from "./repeated-calls.js";
import { ANSWER_PROBLEM_WORDS, assessAnswer, DEFAULT_MAX_ANSWER_CHARACTERS, type AnswerProblem } from "./answer-hygiene.js";
import type { AgentOutcome, CallRecord } from "./types.js";

export type RunOutcomeKind = "finished" | "needs_approval" | "declined" | "refused" | "failed" | "aborted";

/** Exit codes of `botpsy run` (and of each `chat` turn in JSON). 2 is a usage or setup error, reported before any run. */
export const OUTCOME_EXIT_CODES: Record<RunOutcomeKind, number> = {
  finished: 0,
  failed: 1,
  needs_approval: 3,
  declined: 4,
  refused: 5,
  aborted: 130,
};

/** Tools that only help the model find or plan other tools: calling one never does any part of a request. */
export const META_TOOLS: ReadonlySet<string> = new Set([FIND_TOOLS_NAME]);

/** "effect": the request asks for something to change (set, send, add…); "answer": it asks for words (a question, a lookup). */
export type RequestKind = "effect" | "answer";

export interface RunVerdict {
  outcome: RunOutcomeKind;
  /** Why, in one sentence a user can act on. */
  reason: string;
  exitCode: number;
  /** The words to show as the answer: the model's, bounded, or a plain account of what was done when the model's are unusable. */
  answer: string;
  /** Set when the model's own words were not shown (see `answer`). */
  answerProblem?: AnswerProblem;
  /** True when the model's answer was cut to the length limit. */
  answerCut: boolean;
  requestKind: RequestKind;
}

const ACTION_VERBS = new Set(
  (
    "set add create make send email text message reply forward delete remove cancel clear empty turn switch enable disable " +
    "play pause resume skip queue start stop schedule book remind move rename change update mark complete finish write save " +
    "share unshare snooze put copy archive mute unmute increase decrease raise lower reschedule note log record order buy " +
    "import export sign react invite accept decline tick check-off dim brighten call"
  ).split(" "),
);

const POLITE_PREFIX = /^(?:(?:hey|hi|ok|okay)\s+botpsy[,!]?\s+|please\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:want|need|would like)\s+(?:you\s+)?to\s+|go\s+ahead\s+and\s+)+/i;

/** Whether the request asks for a change in the apps or for an answer in words. */
export function classifyRequest(request: string): RequestKind {
  const stripped = request.trim().replace(POLITE_PREFIX, "");
  const first = /^[a-z-]+/i.exec(stripped)?.[0]?.toLowerCase() ?? "";
  return ACTION_VERBS.has(first) ? "effect" : "answer";
}

/**
 * Names the request spells out that the call must carry: file names
 * ("groceries.txt") and quoted names. A change made under another name is not
 * the change that was asked for.
 */
export function namedThings(request: string): string[] {
  const names = new Set<string>();
  for (const match of request.matchAll(/\b[\w-]+\.(?:txt|md|csv|json|pdf|docx?|xlsx?|pptx?|png|jpe?g|ics|html?|log)\b/gi)) names.add(match[0]);
  for (const match of request.matchAll(/["“]([^"”]{2,60})["”]/g)) if (match[1] !== undefined) names.add(match[1]);
  return [...names];
}

const CANNOT = /^(?:i'?m\s+sorry[,.]?\s+(?:but\s+)?)?(?:i\s+(?:can(?:no|')t|am\s+unable|'m\s+unable|do(?:n'?t| not)\s+have\s+(?:access|the ability))|unfortunately,?\s+i\s+can)/i;

/** Judge a finished agent run (`outcome`) against the request it served. Pure: reads nothing else. */
export function judgeRun(outcome: AgentOutcome, request: string, options: { maxAnswerCharacters?: number } = {}): RunVerdict {
  const requestKind = classifyRequest(request);
  // "Done: find tools. tools: 3 items." is the agent's account of a tool search, not an answer or a deed.
  const metaOnly = [...META_TOOLS].some((name) => outcome.answer.trim().toLowerCase().startsWith(`done: ${name.replace(/_/g, " ")}`));
  const assessment = metaOnly
    ? { usable: false, problem: "empty" as const, text: "", cut: false }
    : assessAnswer(outcome.answer, request, options.maxAnswerCharacters ?? DEFAULT_MAX_ANSWER_CHARACTERS);
  const work = outcome.calls.filter((record) => !META_TOOLS.has(record.call.name));
  const succeeded = work.filter((record) => record.status === "ok");
  const effects = succeeded.filter((record) => record.risk !== "read");
  const done = describeDone(succeeded);
  const verdict = (outcomeKind: RunOutcomeKind, reason: string, answer: string, problem?: AnswerProblem): RunVerdict => ({
    outcome: outcomeKind,
    reason,
    exitCode: OUTCOME_EXIT_CODES[outcomeKind],
    answer,
    ...(problem !== undefined ? { answerProblem: problem } : {}),
    answerCut: assessment.cut && problem === undefined,
    requestKind,
  });
  // The model's words when usable, else a plain statement that it gave none, with what was done.
  const shown = (fallback: string): { answer: string; problem?: AnswerProblem } =>
    assessment.usable ? { answer: assessment.text } : { answer: fallback, problem: assessment.problem };

  if (outcome.stopReason === "aborted") return verdict("aborted", "The run was stopped before it finished.", shown(done).answer);
  if (outcome.stopReason === "awaiting_approval") {
    const names = outcome.pendingApprovals.map((request) => request.call.name).join(", ");
    return verdict("needs_approval", `Paused: ${names || "a call"} needs your approval (run id ${outcome.runId}).`, outcome.answer.trim());
  }
  if (outcome.stopReason === "error") {
    return verdict("failed", outcome.error?.message ?? "The run failed.", done === "" ? "" : done);
  }
  const declinedByUser = work.filter((record) => record.status === "declined" && record.error?.code === "declined_by_user");
  const blocked = work.filter((record) => record.status === "declined" && record.error?.code === "blocked_by_policy");
  if (effects.length === 0 && declinedByUser.length > 0) {
    return verdict("declined", `You declined ${names(declinedByUser)}; nothing was changed.`, `Not done: you declined ${names(declinedByUser)}.`);
  }
  if (effects.length === 0 && blocked.length > 0) {
    const why = blocked[0]?.error?.message ?? "blocked by policy";
    return verdict("refused", `The permission rules refused ${names(blocked)} (${why}); nothing was changed.`, `Not done: ${why}.`);
  }

  // The run ended on a failure that kept coming back: whatever else ran, the request was not served.
  if (outcome.error?.code === REPEATED_FAILURE_CODE) {
    const reason = effects.length > 0 ? `Partly done: ${names(effects)} succeeded, but ${outcome.error.message}.` : `Not done: ${outcome.error.message}.`;
    return verdict("failed", reason, outcome.answer.trim() === "" ? reason : outcome.answer.trim());
  }

  // The run stopped to ask for values the request does not give (argument grounding): not served, and the answer says what is missing.
  const guessed = work.at(-1);
  if (succeeded.length === 0 && guessed?.error?.code === UNGROUNDED_CODE) {
    const reason = `Not done: ${guessed.call.name} needs values botpsy could not find in the request; it asked for them instead of guessing.`;
    return verdict("failed", reason, outcome.answer.trim() === "" ? reason : outcome.answer.trim());
  }

  if (requestKind === "effect") {
    if (effects.length === 0) {
      const tried = work.filter((record) => record.risk !== "read");
      const reason =
        tried.length > 0
          ? `Not done: ${names(tried)} did not succeed${lastError(tried)}.`
          : work.length > 0
            ? `Not done: only looked things up (${names(work)}); nothing was changed.`
            : outcome.calls.length > 0
              ? `Not done: only searched for tools (${names(outcome.calls)}); nothing was changed.`
              : "Not done: no tool was used, so nothing was changed.";
      const { answer, problem } = shown(reason);
      return verdict("failed", reason, assessment.usable ? `${answer}\n(${reason})` : answer, problem);
    }
    const missing = namedThings(request).filter((name) => !effects.some((record) => JSON.stringify(record.call.arguments).toLowerCase().includes(name.toLowerCase())));
    if (missing.length > 0) {
      const reason = `Not what was asked: ${names(effects)} did not use ${missing.map((name) => `"${name}"`).join(", ")}.`;
      return verdict("failed", reason, `${reason} ${done}`.trim());
    }
    const limit = outcome.stopReason === "step_limit" ? " (stopped at the step limit before a final answer)" : "";
    const { answer, problem } = shown(done);
    return verdict("finished", `Done: ${names(effects)} succeeded${limit}.`, answer, problem);
  }

  if (outcome.stopReason === "step_limit") {
    const reason = `No answer: stopped after ${outcome.steps} model turns without one.`;
    return verdict("failed", reason, done === "" ? reason : `${reason} ${done}`);
  }
  if (!assessment.usable) {
    const problem = assessment.problem ?? "empty";
    const reason = `The model produced no usable answer (${ANSWER_PROBLEM_WORDS[problem]}).`;
    return verdict("failed", reason, done === "" ? reason : `${reason} ${done}`, problem);
  }
  if (CANNOT.test(assessment.text)) return verdict("failed", "The model said it could not do this.", assessment.text);
  return verdict("finished", succeeded.length > 0 ? `Answered after ${names(succeeded)}.` : "Answered in words.", assessment.text);
}

/** What succeeded, as a sentence ("What was done: set_alarm (time 07:00).") or "" when nothing did. */
export function describeDone(records: readonly CallRecord[]): string {
  if (records.length === 0) return "";
  const parts = records.slice(0, 4).map((record) => `${record.call.name}${summariseArguments(record.call.arguments)}`);
  if (records.length > 4) parts.push(`${records.length - 4} more`);
  return `What was done: ${parts.join("; ")}.`;
}

function summariseArguments(args: unknown): string {
  if (typeof args !== "object" || args === null) return "";
  const fields = Object.entries(args as Record<string, unknown>)
    .filter(([, value]) => typeof value === "string" || typeof value === "number" || typeof value === "boolean")
    .slice(0, 3)
    .map(([key, value]) => `${key} ${String(value).slice(0, 40)}`);
  return fields.length > 0 ? ` (${fields.join(", ")})` : "";
}

function names(records: readonly CallRecord[]): string {
  return [...new Set(records.map((record) => record.call.name))].join(", ");
}

/** What the agent notes of calls it did not run for its own limits: they say nothing of what was wrong with the call. */
const LIMIT_NOTES = new Set(["repeated_call", "step_limit"]);

/**
 * The error still standing when the run ended: the last one an app or a
 * check gave (a retry that fixed the first mistake and made another leaves
 * the second to report), not the agent's note that a call was repeated or
 * came at the step limit.
 */
function lastError(records: readonly CallRecord[]): string {
  const failed = records.filter((record) => record.error !== undefined);
  const error = (failed.findLast((record) => !LIMIT_NOTES.has(record.error?.code ?? "")) ?? failed.at(-1))?.error;
  return error !== undefined ? ` (${error.code}: ${error.message.slice(0, 160)})` : "";
}
