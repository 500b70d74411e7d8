import type { ApprovalStore, StoredApproval } from "./approvals.js";
import type { Policy, PolicyVerdict } from "./policy.js";
import { findTaintedArguments, SIDE_EFFECTING_RISKS, type TaintFinding } from "./provenance.js";
import { requestMentionsAction } from "./intent.js";
import type { ContactDirectory } from "./rules.js";
import type { GateInput, GateVerdict, PermissionGate } from "./types.js";

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
 * exactly once right before running the call.
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
    if (this.options.checkProvenance !== false && SIDE_EFFECTING_RISKS.includes(input.risk)) {
      // The run's one record of provenance, as the agent passes it with the call.
      const untrusted = input.untrustedContent;
      const trusted = input.trustedContent ?? [];
      const userText = input.userText;
      tainted = findTaintedArguments({ args: input.call.arguments, userText, untrusted, trusted });
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
    }
    if (decision === "ask" && this.options.approvals) {
      // A call whose values an attacker may have planted is covered only by an approval of that exact call.
      const approval = this.options.approvals.find(input.call, input.sessionId, { standing: tainted.length === 0 });
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
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
