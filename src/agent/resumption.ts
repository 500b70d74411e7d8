import { InvalidInputError } from "../errors.js";
import type { ApprovalDecision, ApprovalScope } from "../policy/types.js";
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
 * The paused turn's plans with the decisions applied: a declined call is
 * resolved as declined, an approved one runs. `grant` is told of each
 * approval with a standing scope ("session", "always").
 */
export function applyDecisions(
  state: RunState,
  byId: ReadonlyMap<string, ApprovalDecision>,
  grant: (toolName: string, scope: Exclude<ApprovalScope, "once">) => void,
): CallPlan[] {
  const plans = state.pending?.plans ?? [];
  return plans.map((plan): CallPlan => {
    if (plan.kind !== "ask") return plan;
    const decision = byId.get(plan.request.id)!;
    if (!decision.approved) {
      return { kind: "resolved", call: plan.call, outcome: { status: "declined", error: { code: "declined_by_user", message: DECLINED_MESSAGE } } };
    }
    if (decision.scope === "session" || decision.scope === "always") grant(plan.call.name, decision.scope);
    return { kind: "run", call: plan.call, reason: "approved by the user" };
  });
}
