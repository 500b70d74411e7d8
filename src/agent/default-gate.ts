import type { GateInput, GateVerdict, PermissionGate } from "../policy/types.js";
import type { Risk } from "../tools/tool.js";

/**
 * The gate the agent uses when none is given: it decides by risk alone.
 * Reading and ordinary writes (both undoable) run; anything that sends,
 * spends, changes settings or destroys asks the user first. The policy layer
 * supplies a gate with user rules and provenance checks.
 */
export class RiskGate implements PermissionGate {
  private readonly allowed: ReadonlySet<Risk>;

  constructor(options: { allow?: readonly Risk[] } = {}) {
    this.allowed = new Set(options.allow ?? ["read", "write"]);
  }

  decide(input: GateInput): GateVerdict {
    if (this.allowed.has(input.risk)) return { decision: "allow", reason: `${input.risk} calls run without asking`, rule: "default:risk" };
    return { decision: "ask", reason: `${input.risk} calls need your approval`, rule: "default:risk" };
  }
}
