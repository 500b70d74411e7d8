import { errorMessage, InvalidInputError } from "../errors.js";
import type { ToolCall } from "../model/types.js";
import type { ApprovalDecision, GateVerdict } from "../policy/types.js";
import type { CallPlan, RunState } from "./run-state.js";
import { AgentStateError } from "./session-store.js";

export const DECLINED_MESSAGE = "The user declined this call. Do not try it again; finish, or ask the user what to do instead.";

/**
 * Check the user's decisions against a paused run: every approval request
 * must have a decision, and no decision may name another request. Returns
 * the decisions by request id.
 */
export function checkDecisions(state: RunState, decisions: readonly ApprovalDecision[]): Map<string, ApprovalDecision> {
  const pending = state.pending;
  if (!pending) throw new AgentStateError("run_not_paused", `Run "${state.runId}" has no calls waiting for approval.`);
  const asks = pending.plans.filter((plan): plan is Extract<CallPlan, { kind: "ask" }> => plan.kind === "ask");
  const byId = new Map<string, ApprovalDecision>();
  for (const decision of decisions) {
    if (!asks.some((plan) => plan.request.id === decision.requestId)) {
      throw new InvalidInputError(
        `Run "${state.runId}" has no approval request "${decision.requestId}". Its requests: ${asks.map((plan) => plan.request.id).join(", ")}.`,
        { code: "unknown_approval" },
      );
    }
    byId.set(decision.requestId, decision);
  }
  const missing = asks.filter((plan) => !byId.has(plan.request.id));
  if (missing.length > 0) {
    throw new InvalidInputError(`Decide every request of run "${state.runId}": ${missing.map((plan) => plan.request.id).join(", ")} has no decision.`, {
      code: "missing_approval",
    });
  }
  return byId;
}

/**
 * Write the user's decisions into the run's approval record, then decide the
 * paused turn's calls again through the gate (`decide`), which lets an
 * approved call run because the record holds exactly that call. A declined
 * call is resolved as declined; so is an approved one the gate now denies (a
 * rule changed while the run waited). An approval covers one run of its call.
 */
export function applyDecisions(state: RunState, byId: ReadonlyMap<string, ApprovalDecision>, decide: (call: ToolCall) => GateVerdict): CallPlan[] {
  const plans = state.pending?.plans ?? [];
  const record = (state.approvals ??= []);
  for (const plan of plans) {
    if (plan.kind !== "ask") continue;
    const decision = byId.get(plan.request.id)!;
    record.push({
      requestId: plan.request.id,
      call: { name: plan.call.name, arguments: plan.call.arguments },
      approved: decision.approved,
      scope: decision.scope ?? "once",
    });
  }
  return plans.map((plan): CallPlan => {
    if (plan.kind !== "ask") return plan;
    const decision = byId.get(plan.request.id)!;
    if (!decision.approved) {
      return { kind: "resolved", call: plan.call, outcome: { status: "declined", error: { code: "declined_by_user", message: DECLINED_MESSAGE } } };
    }
    let verdict: GateVerdict;
    try {
      verdict = decide(plan.call);
    } catch (error) {
      verdict = { decision: "deny", reason: `the permission check failed (${errorMessage(error)})` };
    }
    const approval = record.find((item) => item.requestId === plan.request.id);
    if (approval) approval.spent = true;
    if (verdict.decision === "deny") {
      return { kind: "resolved", call: plan.call, outcome: { status: "declined", error: { code: "blocked_by_policy", message: `blocked by policy: ${verdict.reason}` } } };
    }
    // "ask" again can only come from a gate that does not read the run's record: the user has just approved exactly this call.
    return { kind: "run", call: plan.call, reason: verdict.decision === "allow" ? verdict.reason : "approved by the user" };
  });
}
