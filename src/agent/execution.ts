import type { ChatMessage, ToolCall } from "../model/types.js";
import { describeSource, describeWritableFields, splitWritableText } from "../policy/provenance.js";
import { resultTrustOf } from "../policy/result-format.js";
import type { RunContext, ToolOutcome, ToolResultFormatter } from "../policy/types.js";
import { foundToolNames, FIND_TOOLS_NAME } from "../tools/find-tools.js";
import type { Tool } from "../tools/tool.js";
import type { ToolBox } from "../tools/toolbox.js";
import { executeCall, type CallEnvironment } from "./call-execution.js";
import { unknownToolMessage } from "./call-planning.js";
import type { RepeatedFailureGuard } from "./repeated-calls.js";
import { provenanceOf, type CallPlan, type RunState } from "./run-state.js";
import { AgentStateError } from "./session-store.js";
import type { AgentEvent, CallRecord } from "./types.js";

export interface ExecutionContext {
  toolbox: ToolBox;
  guard: RepeatedFailureGuard;
  environment: CallEnvironment;
  formatToolResult: ToolResultFormatter;
  emit: (event: AgentEvent) => void;
  /** Told of every state-changing call that succeeded (the gate keeps the taint of what it stored). */
  afterCall?: (tool: Tool, call: ToolCall, outcome: ToolOutcome, step: number) => void;
}

/**
 * Run the planned calls of one model turn. Consecutive reads run concurrently
 * (they change nothing, so their order cannot matter); a call that changes
 * state runs alone, in the order the model gave, so a later call sees its
 * effect. Results enter the conversation in call order; each is recorded in
 * the run's provenance by the trust of the live tool that produced it.
 */
export async function executePlans(state: RunState, plans: readonly CallPlan[], step: number, context: ExecutionContext): Promise<void> {
  const { toolbox, environment, emit } = context;
  const run: RunContext = { runId: state.runId, sessionId: state.sessionId, step };
  const messages: ChatMessage[] = new Array<ChatMessage>(plans.length);
  const records: CallRecord[] = new Array<CallRecord>(plans.length);
  const settle = (index: number, tool: Tool | undefined, call: ToolCall, outcome: ToolOutcome, durationMs: number): void => {
    const record: CallRecord = { call, risk: tool?.risk, status: outcome.status, durationMs, step };
    if (outcome.status === "ok") {
      record.result = outcome.value;
      emit({ type: "tool-result", call, result: outcome.value, durationMs });
      if (call.name === FIND_TOOLS_NAME) state.loadedTools.push(...foundToolNames(outcome.value));
      // Before its own result joins the record: the values it wrote are in that result, as if the user's.
      if (tool !== undefined && tool.risk !== "read") context.afterCall?.(tool, call, outcome, step);
      recordProvenance(state, tool, call, outcome.value);
    } else {
      record.error = outcome.error;
      emit({ type: "tool-error", call, error: outcome.error, durationMs });
      if (outcome.status === "error") context.guard.recordFailure(call);
    }
    records[index] = record;
    messages[index] = toolMessage(context.formatToolResult, tool, call, outcome, run);
  };
  const runOne = async (index: number, call: ToolCall): Promise<void> => {
    const tool = toolbox.get(call.name);
    const begun = performance.now();
    const outcome: ToolOutcome = tool
      ? await executeCall(tool, call.arguments, { ...environment, runId: state.runId, callId: call.id })
      : { status: "error", error: { code: "unknown_tool", message: unknownToolMessage(toolbox, call.name) } };
    settle(index, tool, call, outcome, Math.round(performance.now() - begun));
  };

  let concurrentReads: Promise<void>[] = [];
  for (const [index, plan] of plans.entries()) {
    if (plan.kind === "resolved") {
      settle(index, toolbox.get(plan.call.name), plan.call, plan.outcome, 0);
      continue;
    }
    if (plan.kind === "ask") throw new AgentStateError("approval_missing", `Call ${plan.call.name} has no decision; it cannot run.`);
    const tool = toolbox.get(plan.call.name);
    if (tool?.risk === "read") {
      concurrentReads.push(runOne(index, plan.call));
      continue;
    }
    await Promise.all(concurrentReads);
    concurrentReads = [];
    await runOne(index, plan.call);
  }
  await Promise.all(concurrentReads);
  state.calls.push(...records);
  state.turnMessages.push(...messages);
}

/**
 * Note where a result's content came from, once: the trust is the live
 * tool's, looked up at call time, so a tool added to the ToolBox later
 * (an MCP import) is tracked like any other.
 */
export function recordProvenance(state: RunState, tool: Tool | undefined, call: ToolCall, value: unknown): void {
  const provenance = provenanceOf(state);
  if (resultTrustOf(tool) === "untrusted") {
    provenance.untrusted.push({ tool: call.name, source: describeSource(call.name, value, tool?.app), text: JSON.stringify(value ?? null) });
    return;
  }
  // Trust is by field: the notes, descriptions and bodies of a trusted app's records are written by others too.
  const { fields, rest } = splitWritableText(value);
  provenance.trusted.push(JSON.stringify(rest ?? null));
  if (fields.length > 0) {
    provenance.untrusted.push({ tool: call.name, source: describeWritableFields(call.name, fields), text: JSON.stringify(fields.map((field) => field.text)) });
  }
}

/** The tool message of one call, written by the run's formatter with the run's context. */
export function toolMessage(format: ToolResultFormatter, tool: Tool | undefined, call: ToolCall, outcome: ToolOutcome, run: RunContext): ChatMessage {
  return { role: "tool", toolCallId: call.id, name: call.name, content: format(tool, outcome, call, run) };
}
