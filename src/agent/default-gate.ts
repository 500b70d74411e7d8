import type { ApprovalStore } from "../policy/approvals.js";
import { callKey } from "../policy/approvals.js";
import { recordInApprovals } from "../policy/gate.js";
import type { ApprovalDecision, ApprovalRequest, GateInput, GateVerdict, PermissionGate } from "../policy/types.js";
import type { Risk } from "../tools/tool.js";

/**
 * The gate the agent uses when none is given: it decides by risk alone.
 * Reading and ordinary writes (both undoable) run; anything that sends,
 * spends, changes settings or destroys asks the user first, unless the run's
 * own approval record holds exactly that call or the user approved its call
 * pattern for the session or for good (kept in the profile's approvals, the
 * same record the policy gate reads). The policy layer supplies a gate with
 * user rules and provenance checks.
 */
export class RiskGate implements PermissionGate {
  private readonly allowed: ReadonlySet<Risk>;
  private readonly approvals: ApprovalStore | undefined;

  constructor(options: { allow?: readonly Risk[]; approvals?: ApprovalStore } = {}) {
    this.allowed = new Set(options.allow ?? ["read", "write"]);
    this.approvals = options.approvals;
  }

  decide(input: GateInput): GateVerdict {
    if (this.allowed.has(input.risk)) return { decision: "allow", reason: `${input.risk} calls run without asking`, rule: "default:risk" };
    const key = callKey(input.call);
    const inRun = input.runApprovals?.find((approval) => approval.approved && approval.spent !== true && callKey(approval.call) === key);
    if (inRun) return { decision: "allow", reason: "approved by you in this run", rule: `run approval ${inRun.requestId}` };
    const stored = this.approvals?.find(input.call, input.sessionId);
    if (stored) {
      if (stored.scope === "once") this.approvals!.consume(stored.id);
      return { decision: "allow", reason: `approved by you (${stored.scope})`, rule: `approval #${stored.id}` };
    }
    return { decision: "ask", reason: `${input.risk} calls need your approval`, rule: "default:risk" };
  }

  recordDecisions(requests: readonly ApprovalRequest[], decisions: readonly ApprovalDecision[], context: { sessionId: string }): void {
    if (this.approvals) recordInApprovals(this.approvals, requests, decisions, context.sessionId);
  }
}
