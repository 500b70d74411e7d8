import { InvalidInputError } from "../errors.js";
import { callKey, type ApprovalStore, type StoredApproval } from "./approvals.js";
import type { Policy, PolicyVerdict } from "./policy.js";
import { findEgress, findTaintedArguments, SIDE_EFFECTING_RISKS, type TaintFinding } from "./provenance.js";
import { requestMentionsAction } from "./intent.js";
import type { ContactDirectory } from "./rules.js";
import type { TaintStore } from "./taint.js";
import type { ApprovalDecision, ApprovalRequest, GateInput, GateVerdict, PermissionGate, ToolOutcome } from "./types.js";

export interface PolicyGateOptions {
  policy: Policy;
  /** Stored approvals; without them every `ask` stays `ask`. */
  approvals?: ApprovalStore;
  contacts?: ContactDirectory;
  /**
   * Sources the input guard flagged in the run of a call: its side-effecting
   * calls ask even when a rule allows them.
   */
  flaggedSources?: (input: GateInput) => readonly string[];
  /**
   * Escalate side-effecting calls whose arguments come from untrusted content
   * (and calls in sessions the guard flagged). Default true; off only to
   * measure what the defenses are worth.
   */
  checkProvenance?: boolean;
  /** Values stored from untrusted content: a later side effect that uses one asks. Without it taint ends with the run. */
  taint?: TaintStore;
  /** Keeps the user's decisions (the safety layer stores and audits them); default: stored in `approvals`. */
  onDecisions?: (requests: readonly ApprovalRequest[], decisions: readonly ApprovalDecision[], context: { sessionId: string; runId: string }) => void;
  /** Called with every verdict (the safety layer writes it to the audit log). */
  onVerdict?: (input: GateInput, verdict: DetailedVerdict) => void;
}

/** A verdict with the details behind it (for the audit log and the approval request). */
export interface DetailedVerdict extends GateVerdict {
  /** What the rules alone said. */
  policy: PolicyVerdict;
  /** Arguments traced to untrusted content. */
  tainted: TaintFinding[];
  /** The stored approval that turned an `ask` into `allow`. */
  approval?: StoredApproval;
}

/**
 * The permission gate: the rules decide; a side-effecting call whose target or
 * payload comes from untrusted content is escalated to `ask` (or denied, by
 * policy); an `ask` becomes `allow` only with a stored approval that covers it.
 * `deny` is final: no approval overrides it.
 *
 * A "once" approval is spent by the `allow` it produces, so call `decide`
 * exactly once right before running the call. The gate is the one place that
 * decides: a call the user approved on a paused run is decided again on
 * resume, and runs because the run's approval record holds that exact call.
 * Writes are checked too (a planted value stored now is sent later), reads
 * that fetch an address the model composed are sends, and each run makes at
 * most the policy's `perRunLimits` calls of a risk class without asking.
 */
export class PolicyGate implements PermissionGate {
  readonly policy: Policy;
  private readonly options: PolicyGateOptions;

  constructor(options: PolicyGateOptions) {
    this.policy = options.policy;
    this.options = options;
  }

  decide(input: GateInput): GateVerdict {
    const verdict = this.explain(input, { consume: true });
    this.options.onVerdict?.(input, verdict);
    const runId = input.run?.runId;
    if (verdict.decision === "allow" && input.risk !== "read" && verdict.tainted.length > 0 && runId !== undefined && this.options.taint) {
      // Stored with the write's own commit, so that a crash cannot keep the value and lose its taint.
      this.options.taint.expect(verdict.tainted, { tool: input.call.name, sessionId: input.sessionId, runId, callId: input.call.id });
    }
    const { decision, reason, rule } = verdict;
    return rule === undefined ? { decision, reason } : { decision, reason, rule };
  }

  /** The verdict with its reasons; `consume: false` leaves a "once" approval unspent (for `policy check`). */
  explain(input: GateInput, options: { consume?: boolean } = {}): DetailedVerdict {
    const policy = this.policy.evaluate(
      { tool: input.call.name, app: input.app, risk: input.risk, arguments: input.call.arguments },
      { contacts: this.options.contacts },
    );
    const base = { policy, tainted: [] as TaintFinding[] };
    if (policy.decision === "deny") return { ...base, decision: "deny", reason: policy.reason, rule: policy.rule };

    let decision = policy.decision;
    let reason = policy.reason;
    let rule = policy.rule;
    let tainted: TaintFinding[] = [];
    const defenses = this.options.checkProvenance !== false;
    const sideEffecting = SIDE_EFFECTING_RISKS.includes(input.risk);
    const userText = input.userText;
    const untrusted = input.untrustedContent;
    if (defenses && (sideEffecting || input.risk === "write")) tainted = this.taintOf(input);
    if (defenses && sideEffecting) {
      if (tainted.length > 0) {
        const first = tainted[0]!;
        if (this.policy.untrustedArguments === "deny") {
          return { ...base, tainted, decision: "deny", reason: `${capitalise(first.reason)}; the policy denies such calls.`, rule: "untrustedArguments" };
        }
        decision = "ask";
        reason = capitalise(first.reason);
        rule = "provenance";
      } else {
        const flagged = this.options.flaggedSources?.(input) ?? [];
        const lastRead = untrusted.at(-1);
        if (flagged.length > 0 && decision === "allow") {
          decision = "ask";
          reason = `Content from ${flagged[0]} tried to give instructions; this ${input.risk} call needs your approval.`;
          rule = "guard";
        } else if (decision === "allow" && lastRead !== undefined && !requestMentionsAction(userText, input.call.name, input.app)) {
          decision = "ask";
          reason = `You did not ask for ${input.call.name.replace(/_/g, " ")}, and it comes after reading ${lastRead.source}; it needs your approval.`;
          rule = "off-task";
        }
      }
    } else if (defenses && input.risk === "write" && tainted.length > 0 && decision === "allow" && !requestMentionsAction(userText, input.call.name, input.app)) {
      // A write stores what it is given: a planted value written into a contact is sent to later.
      decision = "ask";
      reason = `You did not ask for ${input.call.name.replace(/_/g, " ")}, and ${tainted[0]!.reason}; it needs your approval.`;
      rule = "provenance";
    } else if (defenses && input.risk === "read" && decision === "allow") {
      const leaks = findEgress({
        args: input.call.arguments,
        arguments: input.egressArguments ?? [],
        userText,
        content: [...(input.trustedContent ?? []), ...untrusted.map((item) => item.text)],
      });
      if (leaks.length > 0) {
        decision = "ask";
        reason = capitalise(leaks[0]!.reason);
        rule = "egress";
      }
    }
    const limit = this.policy.perRunLimits[input.risk];
    if (decision === "allow" && limit !== undefined && input.runCalls !== undefined) {
      const made = input.runCalls.filter((call) => call.risk === input.risk).length;
      if (made >= limit) {
        decision = "ask";
        reason = `This run already made ${made} ${input.risk} calls (the limit without asking is ${limit}); this one needs your approval.`;
        rule = "per-run limit";
      }
    }
    if (decision === "ask") {
      const key = callKey(input.call);
      const inRun = input.runApprovals?.find((approval) => approval.approved && approval.spent !== true && callKey(approval.call) === key);
      if (inRun) {
        return { ...base, tainted, decision: "allow", reason: `approved by you in this run — ${reason}`, rule: `run approval ${inRun.requestId}` };
      }
    }
    if (decision === "ask" && this.options.approvals) {
      // A call whose values an attacker may have planted is covered only by an approval of that exact call.
      const approval = this.options.approvals.find(input.call, input.sessionId, { standing: tainted.length === 0 && rule !== "egress" });
      if (approval) {
        if (approval.scope === "once" && options.consume !== false) this.options.approvals.consume(approval.id);
        return {
          ...base,
          tainted,
          decision: "allow",
          reason: `approved by you (${approval.scope === "once" ? "once" : approval.scope === "session" ? "for this session" : "always"}) — ${reason}`,
          rule: `approval #${approval.id}`,
          approval,
        };
      }
    }
    return rule === undefined ? { ...base, tainted, decision, reason } : { ...base, tainted, decision, reason, rule };
  }

  /** Arguments traced to untrusted content: copied in this run, or stored earlier from it. */
  private taintOf(input: GateInput): TaintFinding[] {
    const direct = findTaintedArguments({
      args: input.call.arguments,
      userText: input.userText,
      untrusted: input.untrustedContent,
      trusted: input.trustedContent ?? [],
    });
    const stored = this.options.taint?.findStored(input.call.arguments, input.userText) ?? [];
    const seen = new Set(direct.map((finding) => `${finding.argument}\u0000${finding.value}`));
    return [...direct, ...stored.filter((finding) => !seen.has(`${finding.argument}\u0000${finding.value}`))];
  }

  /** Keep the user's decisions: stored by the caller's hook (the safety layer audits them), else in the approvals. */
  recordDecisions(requests: readonly ApprovalRequest[], decisions: readonly ApprovalDecision[], context: { sessionId: string; runId: string }): void {
    if (this.options.onDecisions) {
      this.options.onDecisions(requests, decisions, context);
      return;
    }
    if (!this.options.approvals) return;
    recordInApprovals(this.options.approvals, requests, decisions, context.sessionId);
  }

  /** After a write ran: the values it stored from untrusted content keep their taint. */
  afterCall(input: GateInput, outcome: ToolOutcome): void {
    if (input.risk === "read" || this.options.checkProvenance === false || !this.options.taint) return;
    const runId = input.run?.runId;
    if (runId !== undefined && this.options.taint.settle(runId, input.call.id, outcome.status === "ok")) return;
    if (outcome.status !== "ok") return;
    const findings = this.taintOf(input);
    if (findings.length === 0) return;
    this.options.taint.record(findings, { tool: input.call.name, sessionId: input.sessionId, runId: input.run?.runId });
  }
}

/** Store decisions in the approval record: a "once" is spent at once (the run's own record lets the call run), a standing scope is kept per call pattern. */
export function recordInApprovals(
  approvals: ApprovalStore,
  requests: readonly ApprovalRequest[],
  decisions: readonly ApprovalDecision[],
  sessionId: string,
): StoredApproval[] {
  const stored: StoredApproval[] = [];
  for (const decision of decisions) {
    const request = requests.find((candidate) => candidate.id === decision.requestId);
    if (!request) {
      throw new InvalidInputError(`There is no approval request "${decision.requestId}"; requests: ${requests.map((item) => item.id).join(", ")}.`, {
        code: "unknown_approval",
      });
    }
    const scope = decision.scope ?? "once";
    const approval = approvals.record({ call: request.call, sessionId, scope, approved: decision.approved, requestId: request.id, reason: request.reason });
    if (scope === "once" && decision.approved) approvals.consume(approval.id);
    stored.push(approval);
  }
  return stored;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
