import { errorMessage } from "../errors.js";
import { argumentBoundsProblem } from "../model/argument-bounds.js";
import type { ChatMessage, ToolCall } from "../model/types.js";
import type { GateInput, GateVerdict, PermissionGate } from "../policy/types.js";
import { FIND_TOOLS_NAME } from "../tools/find-tools.js";
import { toolSpec, type Risk, type Tool } from "../tools/tool.js";
import type { ToolBox } from "../tools/toolbox.js";
import { invalidArgumentsMessage, previewCallChecked, type CallEnvironment } from "./call-execution.js";
import { groundCallArguments } from "./argument-grounding.js";
import { mapLeaves } from "./argument-leaves.js";
import { groundCallDates } from "./date-grounding.js";
import { ECHOED_CALL_MESSAGE, echoesEarlierCall, REPEATED_CALL_MESSAGE, withToolFix, type RepeatedFailureGuard } from "./repeated-calls.js";
import { provenanceOf, type CallPlan, type RunState } from "./run-state.js";

export interface CallPlanningContext {
  toolbox: ToolBox;
  gate: PermissionGate;
  guard: RepeatedFailureGuard;
  environment: CallEnvironment;
  /** The session's finished turns (their user messages are the user's words too). */
  earlierTurns: ChatMessage[][];
  /** Refuse calls whose values nothing in the conversation carries (`argument-grounding.ts`). Default true. */
  argumentGrounding?: boolean;
}

/**
 * What the gate is told of one call: the run's context, its one record of
 * provenance, the calls the run made or planned before (for the per-run
 * limits) and the run's unspent approvals.
 */
export function gateInputFor(
  state: RunState,
  call: ToolCall,
  tool: Tool,
  step: number,
  earlierTurns: readonly (readonly ChatMessage[])[],
  plannedBefore: { plans: readonly CallPlan[]; riskOf: (toolName: string) => Risk | undefined } = { plans: [], riskOf: () => undefined },
): GateInput {
  const provenance = provenanceOf(state);
  const made = state.calls.filter((record) => record.status === "ok").map((record) => ({ tool: record.call.name, risk: record.risk }));
  // Calls planned earlier in this turn count too, by their tool's risk.
  const planned = plannedBefore.plans.filter((plan) => plan.kind !== "resolved").map((plan) => ({ tool: plan.call.name, risk: plannedBefore.riskOf(plan.call.name) }));
  return {
    call,
    app: tool.app,
    risk: tool.risk,
    sessionId: state.sessionId,
    run: { runId: state.runId, sessionId: state.sessionId, step },
    userText: userTextOf(state, earlierTurns),
    untrustedContent: provenance.untrusted,
    trustedContent: provenance.trusted,
    runCalls: [...made, ...planned],
    runApprovals: (state.approvals ?? []).filter((approval) => approval.spent !== true),
    ...(tool.egressArguments ? { egressArguments: tool.egressArguments } : {}),
  };
}

/**
 * The call with the spaces around its strings taken off (`depot: " Leeds"`,
 * `from_account: " Everyday Checking"`): a small model often opens a value
 * with the token that carries a space before its word, and an app looking
 * the value up does not find it with the space. Done before anything else
 * reads the call, so a repeated call and the one before it compare as the
 * same call. A string of spaces only is left as it is.
 */
export function withSpacesTrimmed(call: ToolCall): ToolCall {
  let trimmed = false;
  const args = mapLeaves(call.arguments, (value) => {
    if (typeof value !== "string") return value;
    const inner = value.trim();
    if (inner === "" || inner === value) return value;
    trimmed = true;
    return inner;
  }) as Record<string, unknown>;
  return trimmed ? { ...call, arguments: args } : call;
}

/**
 * Decide, for every call of a model turn, what happens to it; nothing runs
 * yet. An unknown tool, a call that failed too often, or arguments that do
 * not parse are resolved at once as errors; otherwise the gate decides, with
 * the run's context and its one record of provenance: deny resolves the call
 * as declined, ask makes an approval request with a preview, allow runs it.
 */
export async function planCalls(state: RunState, calls: readonly ToolCall[], step: number, context: CallPlanningContext): Promise<CallPlan[]> {
  const plans: CallPlan[] = [];
  const { profile } = context.environment;
  for (const [index, written] of calls.entries()) {
    // Bounded first: everything after this walks the arguments.
    const outOfBounds = argumentBoundsProblem(written.arguments);
    if (outOfBounds !== undefined) {
      plans.push({ kind: "resolved", call: written, outcome: { status: "error", error: { code: "invalid_arguments", message: outOfBounds } } });
      continue;
    }
    // A day or time that contradicts the request's own words is corrected, or sent back to the model.
    const named = context.toolbox.get(written.name);
    const grounding = groundCallDates(withSpacesTrimmed(written), state.request, { now: profile.environment.now(), timeZone: profile.environment.timeZone }, named ? toolSpec(named).parameters : undefined);
    // A call written again after its tool named the fix runs with the fix.
    let call = withToolFix(grounding.call, state.calls);
    if (grounding.kind === "contradiction") {
      plans.push({ kind: "resolved", call, outcome: { status: "error", error: grounding.error } });
      continue;
    }
    const tool = context.toolbox.get(call.name);
    if (!tool) {
      plans.push({ kind: "resolved", call, outcome: { status: "error", error: { code: "unknown_tool", message: unknownToolMessage(context.toolbox, call.name) } } });
      continue;
    }
    if (echoesEarlierCall(call, calls.slice(0, index), userTextOf(state, context.earlierTurns))) {
      plans.push({ kind: "resolved", call, outcome: { status: "skipped", error: { code: "echoed_call", message: ECHOED_CALL_MESSAGE } } });
      continue;
    }
    if (context.guard.shouldStop(call)) {
      plans.push({ kind: "resolved", call, outcome: { status: "skipped", error: { code: "repeated_call", message: REPEATED_CALL_MESSAGE } } });
      continue;
    }
    const parsed = tool.input.safeParse(call.arguments);
    if (!parsed.success) {
      plans.push({
        kind: "resolved",
        call,
        outcome: { status: "error", error: { code: "invalid_arguments", message: invalidArgumentsMessage(tool, parsed.error) } },
      });
      continue;
    }
    if (context.argumentGrounding !== false && call.name !== FIND_TOOLS_NAME) {
      const values = groundCallArguments(call, tool, groundingSourceOf(state, context.earlierTurns));
      if (values.kind === "guessed") {
        plans.push({ kind: "resolved", call, outcome: { status: "error", error: values.error }, guessed: values.guessed });
        continue;
      }
      call = values.call;
    }
    let verdict: GateVerdict;
    try {
      verdict = context.gate.decide(gateInputFor(state, call, tool, step, context.earlierTurns, { plans, riskOf: (name) => context.toolbox.get(name)?.risk }));
    } catch (error) {
      verdict = { decision: "deny", reason: `the permission check failed (${errorMessage(error)})` };
    }
    if (verdict.decision === "deny") {
      plans.push({
        kind: "resolved",
        call,
        outcome: { status: "declined", error: { code: "blocked_by_policy", message: `blocked by policy: ${verdict.reason}` } },
      });
      continue;
    }
    if (verdict.decision === "ask") {
      const { preview, failure } = await previewCallChecked(tool, call.arguments, context.environment);
      // A call whose dry run already fails is the model's to fix, not the user's to approve.
      if (failure !== undefined && failure.code !== "aborted") {
        plans.push({ kind: "resolved", call, outcome: { status: "error", error: failure } });
        continue;
      }
      plans.push({ kind: "ask", call, request: { id: `approval-${step}-${index + 1}`, call, risk: tool.risk, preview, reason: verdict.reason } });
      continue;
    }
    plans.push({ kind: "run", call, reason: verdict.reason });
  }
  return plans;
}

/** What a call's values may come from: the user's words, this run's results, the session's earlier turns. */
export function groundingSourceOf(state: RunState, earlierTurns: readonly (readonly ChatMessage[])[]): { userText: string; results: string[] } {
  const results: string[] = [];
  for (const message of earlierTurns.flat()) if (message.role !== "user" && message.role !== "system") results.push(message.content);
  for (const message of state.turnMessages) if (message.role === "tool") results.push(message.content);
  return { userText: userTextOf(state, earlierTurns), results };
}

/** What the model is told when it names a tool that does not exist: the tools it may use instead. */
export function unknownToolMessage(toolbox: ToolBox, name: string): string {
  const names = toolbox.list().map((tool) => tool.name);
  const shown = names.slice(0, 30).join(", ");
  const more = toolbox.retrievalActive ? ` Call ${FIND_TOOLS_NAME} to search for others.` : "";
  return `There is no tool "${name}". Use one of: ${shown}${names.length > 30 ? ", …" : ""}.${more}`;
}

/** Every user message of the session so far, this run's included. */
export function userTextOf(state: RunState, earlierTurns: readonly (readonly ChatMessage[])[]): string {
  const texts: string[] = [];
  for (const message of [...earlierTurns.flat(), ...state.turnMessages]) if (message.role === "user") texts.push(message.content);
  return texts.join("\n");
}
