import type { ChatMessage, ToolCall } from "../model/types.js";
import type { ToolResultFormatter } from "../policy/types.js";
import type { ToolBox } from "../tools/toolbox.js";
import { isAbstention } from "./abstention.js";
import { toolMessage } from "./execution.js";
import { composeAnswerFromCalls, isReadableAnswer } from "./final-answer.js";
import { callKey } from "./repeated-calls.js";
import type { RunState } from "./run-state.js";
import type { AgentStopReason } from "./types.js";

/** How a model reply without calls ends the run. */
export interface FinalAnswer {
  stopReason: Extract<AgentStopReason, "answered" | "abstained">;
  answer: string;
  /** Set when the answer was composed from the calls because the model's words were not readable. */
  composed?: string;
}

/**
 * A reply in words ends the run: answered, or abstained when tools were
 * offered and no call was served. After calls a small model often writes no
 * words, only imitated results; then the answer says what was done.
 */
export function resolveFinalAnswer(state: RunState, replyText: string, options: { composeUnreadable?: boolean } = {}): FinalAnswer {
  const trimmed = replyText.trim();
  const composed = options.composeUnreadable === false || isReadableAnswer(trimmed) ? undefined : composeAnswerFromCalls(state.calls);
  const answer = composed ?? trimmed;
  const abstained = isAbstention({ toolsOffered: state.toolsOffered, calls: state.calls });
  return { stopReason: abstained ? "abstained" : "answered", answer, ...(composed !== undefined ? { composed } : {}) };
}

/**
 * Whether every call of a turn repeats, with the same arguments, a call that
 * already succeeded in this run, and nothing but successful reads happened
 * since (`find_tools`, a look-up): the model did what it set out to do and is
 * looping, straight (`set_wifi`, `set_wifi`) or through a search
 * (`find_tools`, `set_bluetooth`, `find_tools`, `set_bluetooth`). A failed
 * call or a successful write in between ends nothing: reading again after
 * an error or after a change is how a task goes on. (Two identical calls
 * that a request really wants, "skip two songs", are rarer than the loop; a
 * tool that takes a count does it in one call.)
 */
export function repeatsSucceededCalls(state: RunState, calls: readonly ToolCall[], step: number): boolean {
  if (calls.length === 0) return false;
  const keys = new Set(calls.map(callKey));
  const lastSuccess = new Map<string, number>();
  for (const record of state.calls) if (record.status === "ok" && record.step < step && keys.has(callKey(record.call))) lastSuccess.set(callKey(record.call), record.step);
  if (lastSuccess.size < keys.size) return false;
  const since = Math.min(...lastSuccess.values());
  return state.calls.every((record) => record.step <= since || keys.has(callKey(record.call)) || (record.status === "ok" && record.risk === "read"));
}

/** The step cap is checked before any call runs: a call whose result no model turn will read must not act. */
export function reachedStepLimit(state: RunState, step: number): boolean {
  return step >= state.maxSteps;
}

/** Record the calls of the last allowed turn as skipped, each with its tool message; returns the run's error. */
export function skipCallsAtStepLimit(
  state: RunState,
  calls: readonly ToolCall[],
  step: number,
  toolbox: ToolBox,
  format: ToolResultFormatter,
): { code: string; message: string } {
  for (const call of calls) {
    const tool = toolbox.get(call.name);
    const error = { code: "step_limit", message: `Not run: the limit of ${state.maxSteps} steps was reached.` };
    state.calls.push({ call, risk: tool?.risk, status: "skipped", error, durationMs: 0, step });
    state.turnMessages.push(toolMessage(format, tool, call, { status: "skipped", error }, { runId: state.runId, sessionId: state.sessionId, step }));
  }
  return {
    code: "step_limit",
    message: `Stopped after ${state.maxSteps} model turns without a final answer. Raise the step limit or split the request.`,
  };
}

/** Backends invent ids, but a script or a remote server may repeat one; results are matched by id. */
export function uniqueCallIds(calls: readonly ToolCall[], earlier: readonly ChatMessage[], step: number): ToolCall[] {
  const seen = new Set<string>();
  for (const message of earlier) if (message.role === "assistant") for (const call of message.toolCalls ?? []) seen.add(call.id);
  return calls.map((call, index) => {
    let id = call.id;
    if (id === "" || seen.has(id)) id = `call-${step}-${index + 1}`;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}
