import { existsSync, readFileSync } from "node:fs";
import { policyPath } from "../config.js";
import type { Risk } from "../tools/tool.js";
import {
  describeRule,
  parsePolicyFile,
  PolicyError,
  ruleMatches,
  strictest,
  type CallFacts,
  type MatchContext,
  type PolicyFile,
  type Rule,
} from "./rules.js";
import type { Decision } from "./types.js";

/** What each risk class gets when no rule matches. Reads and undoable writes run; the rest asks. */
export const DEFAULT_DECISIONS: Readonly<Record<Risk, Decision>> = {
  read: "allow",
  write: "allow",
  settings: "allow",
  send: "ask",
  spend: "ask",
  destructive: "ask",
};

/**
 * Calls of a risk class one run may make before the next asks. Ten deletions
 * in one run are a pattern no single rule sees.
 */
export const DEFAULT_PER_RUN_LIMITS: Readonly<Partial<Record<Risk, number>>> = { write: 10, destructive: 5 };

/**
 * Settings that cut the device off the world ask even though other settings
 * run freely: after them the user may not be reachable, and the agent cannot
 * send anything either.
 */
export const BUILT_IN_RULES: readonly Rule[] = [
  {
    name: "built-in: airplane mode on",
    decision: "ask",
    risk: "settings",
    tool: ["*airplane*"],
    when: [{ argument: "*", equals: true }],
    reason: "Turning airplane mode on cuts the device off; it needs your approval.",
  },
  {
    name: "built-in: network off",
    decision: "ask",
    risk: "settings",
    tool: ["*wifi*", "*wi_fi*", "*mobile_data*", "*cellular*", "*network*"],
    when: [{ argument: "*", equals: false }],
    reason: "Turning the network off cuts the device off; it needs your approval.",
  },
  {
    name: "built-in: setting that cuts the device off",
    decision: "ask",
    risk: "settings",
    tool: ["*setting*"],
    when: [
      { argument: "*", matches: "/^(airplane|airplane_mode|airplaneMode|wifi|wi-fi|mobile_data|mobileData|network)$/i" },
    ],
    reason: "Changing connectivity settings can cut the device off; it needs your approval.",
  },
];

export interface PolicyVerdict {
  decision: Decision;
  reason: string;
  /** The rule that decided; absent when the risk default did. */
  rule?: string;
  /** Where the deciding rule came from. */
  layer: "user" | "built-in" | "default";
}

/**
 * The user's rules over the built-in ones over the risk defaults. Among the
 * user's matching rules the strictest wins (deny, then ask, then allow); the
 * next layer is consulted only when no rule of the layer above matches.
 */
export class Policy {
  readonly rules: readonly Rule[];
  readonly defaults: Readonly<Record<Risk, Decision>>;
  readonly untrustedArguments: "ask" | "deny";
  /** Calls of a risk class one run makes without asking (see `DEFAULT_PER_RUN_LIMITS`). */
  readonly perRunLimits: Readonly<Partial<Record<Risk, number>>>;
  /** Where the rules were read from, for `policy show`; undefined when built in code. */
  readonly source: string | undefined;

  constructor(file: PolicyFile = {}, source?: string) {
    this.rules = file.rules ?? [];
    this.defaults = { ...DEFAULT_DECISIONS, ...file.defaults };
    this.untrustedArguments = file.untrustedArguments ?? "ask";
    this.perRunLimits = { ...DEFAULT_PER_RUN_LIMITS, ...file.perRunLimits };
    this.source = source;
  }

  /** The defaults alone (no policy file). */
  static defaultPolicy(): Policy {
    return new Policy({});
  }

  /** Validate and build from a parsed document. */
  static fromJson(value: unknown, source = "the policy"): Policy {
    return new Policy(parsePolicyFile(value, source), source);
  }

  /**
   * Read `BOTPSY_HOME/policy.json` (or `path`). A missing file means the
   * defaults; a file that does not parse or validate is an error naming the field.
   */
  static load(path = policyPath()): Policy {
    if (!existsSync(path)) return new Policy({}, undefined);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new PolicyError("policy_unreadable", `Cannot read the policy file ${path}: ${String(error)}. Check its permissions.`, {
        cause: error,
      });
    }
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (error) {
      throw new PolicyError(
        "policy_invalid",
        `The policy file ${path} is not valid JSON (${error instanceof Error ? error.message : String(error)}). Fix it or remove it to use the defaults.`,
        { cause: error },
      );
    }
    return Policy.fromJson(value, `The policy file ${path}`);
  }

  evaluate(call: CallFacts, context: MatchContext = {}): PolicyVerdict {
    const user = this.strictestMatch(this.rules, call, context, "rules");
    if (user) return { ...user, layer: "user" };
    const builtIn = this.strictestMatch(BUILT_IN_RULES, call, context, "built-in");
    if (builtIn) return { ...builtIn, layer: "built-in" };
    const decision = this.defaults[call.risk];
    return {
      decision,
      reason: decision === "allow" ? `${call.risk} calls are allowed by default` : `${call.risk} calls ${decision === "ask" ? "need your approval" : "are denied"} by default`,
      layer: "default",
    };
  }

  private strictestMatch(
    rules: readonly Rule[],
    call: CallFacts,
    context: MatchContext,
    label: string,
  ): { decision: Decision; reason: string; rule: string } | undefined {
    let best: { decision: Decision; reason: string; rule: string } | undefined;
    rules.forEach((rule, index) => {
      if (!ruleMatches(rule, call, context)) return;
      const name = rule.name ?? `${label}[${index}]`;
      if (best && strictest(best.decision, rule.decision) === best.decision) return;
      best = { decision: rule.decision, rule: name, reason: rule.reason ?? `rule "${name}" (${describeRule(rule)})` };
    });
    return best;
  }

  toJSON(): PolicyFile & { builtInRules: readonly Rule[] } {
    return {
      version: 1,
      rules: [...this.rules],
      defaults: { ...this.defaults },
      untrustedArguments: this.untrustedArguments,
      perRunLimits: { ...this.perRunLimits },
      builtInRules: BUILT_IN_RULES,
    };
  }
}
