import { z } from "zod";
import { BotpsyError } from "../errors.js";
import { RISKS, type Risk } from "../tools/tool.js";
import type { Decision } from "./types.js";

/**
 * The rule language of `policy.json`.
 *
 * A rule names a decision (`allow`, `ask`, `deny`) and what it applies to; every
 * field it sets must match (fields left out match anything):
 *
 *   {
 *     "name": "no-big-spend",          optional, shown in reasons and the audit log
 *     "decision": "deny",
 *     "app": "shop",                   glob or list of globs over the app name
 *     "tool": "checkout*",             glob or list of globs over the tool name
 *     "risk": "spend",                 one risk class or a list
 *     "when": [                        conditions on argument values, all must hold
 *       { "argument": "amount", "greaterThan": 100 }
 *     ],
 *     "reason": "Spending over 100 in one go is not allowed."   optional, shown to the user
 *   }
 *
 * A condition selects values with `argument`: a dotted path into the arguments
 * whose segments may be globs (`to`, `payment.amount`, `recipient*`, `*` for
 * every top-level argument); arrays are looked into, so `to` covers a list of
 * recipients. In a rule that allows, a condition holds only when EVERY selected
 * value passes every test it sets (`to: ["Frank", "x@evil.example"]` is not
 * "in contacts"); in a rule that asks or denies, ONE value that passes is
 * enough. A rule that loosens must fit the whole call, one that tightens fires
 * on any part of it. The tests:
 *   equals: <json value>     deep equality (strings case-insensitively)
 *   matches: "<glob>"        or "/<regex>/<flags>"; over the value as text
 *   greaterThan / lessThan   numbers, or strings that are numbers ("42.00")
 *   notInContacts: true      a string that is no known contact's name, address or number
 *   inContacts: true         the opposite
 * `exists: false` holds when the path selects nothing; a condition whose path
 * selects nothing is false otherwise.
 *
 * Precedence: among the user's rules that match a call, deny beats ask beats
 * allow. When none matches, the built-in rules decide (settings that cut the
 * device off ask), then the default of the call's risk class.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);

export const DECISIONS = ["allow", "ask", "deny"] as const;
const decisionSchema = z.enum(DECISIONS);
const riskSchema = z.enum(RISKS);
const globList = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

export const conditionSchema = z
  .strictObject({
    argument: z.string().min(1),
    equals: jsonValue.optional(),
    matches: z.string().min(1).optional(),
    greaterThan: z.number().optional(),
    lessThan: z.number().optional(),
    notInContacts: z.literal(true).optional(),
    inContacts: z.literal(true).optional(),
    exists: z.boolean().optional(),
  })
  .refine(
    (condition) =>
      condition.equals !== undefined ||
      condition.matches !== undefined ||
      condition.greaterThan !== undefined ||
      condition.lessThan !== undefined ||
      condition.notInContacts !== undefined ||
      condition.inContacts !== undefined ||
      condition.exists !== undefined,
    { message: "a condition needs a test: equals, matches, greaterThan, lessThan, notInContacts, inContacts or exists" },
  )
  .refine((condition) => condition.matches === undefined || compilePattern(condition.matches) !== undefined, {
    message: "matches is not a valid /regex/",
    path: ["matches"],
  });

export const ruleSchema = z.strictObject({
  name: z.string().min(1).optional(),
  decision: decisionSchema,
  app: globList.optional(),
  tool: globList.optional(),
  risk: z.union([riskSchema, z.array(riskSchema).min(1)]).optional(),
  when: z.array(conditionSchema).optional(),
  reason: z.string().min(1).optional(),
});

export const policyFileSchema = z.strictObject({
  version: z.literal(1).optional(),
  rules: z.array(ruleSchema).optional(),
  /** Overrides of the decision per risk class when no rule matches. */
  defaults: z.partialRecord(riskSchema, decisionSchema).optional(),
  /**
   * What to do with a side-effecting call whose target or payload comes from
   * untrusted content and not from the user: "ask" (default) or "deny".
   */
  untrustedArguments: z.enum(["ask", "deny"]).optional(),
  /**
   * How many calls of a risk class one run makes without asking; the next one
   * asks (bulk damage through calls that are each allowed). Defaults:
   * `DEFAULT_PER_RUN_LIMITS`.
   */
  perRunLimits: z.partialRecord(riskSchema, z.number().int().min(1)).optional(),
});

export type Condition = z.output<typeof conditionSchema>;
export type Rule = z.output<typeof ruleSchema>;
export type PolicyFile = z.output<typeof policyFileSchema>;

export class PolicyError extends BotpsyError {}

/** Validate a parsed policy document; the error names the field (`rules[2].when[0].greaterThan`). */
export function parsePolicyFile(value: unknown, source = "the policy"): PolicyFile {
  const parsed = policyFileSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  throw new PolicyError(
    "policy_invalid",
    `${source} is not valid: ${problems.join("; ")}. Fix the field named (see "botpsy policy show" for the rule language) and retry.`,
  );
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(top level)";
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text === "" ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

/** The strictest of two decisions: deny beats ask beats allow. */
export function strictest(a: Decision, b: Decision): Decision {
  return DECISIONS.indexOf(a) >= DECISIONS.indexOf(b) ? a : b;
}

/** A glob (`*`, `?`) or `/regex/flags` as a RegExp; undefined when the regex does not compile. */
export function compilePattern(pattern: string): RegExp | undefined {
  const regex = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  if (regex) {
    try {
      return new RegExp(regex[1]!, regex[2]);
    } catch {
      return undefined;
    }
  }
  return globToRegExp(pattern);
}

export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (const character of glob) {
    if (character === "*") source += ".*";
    else if (character === "?") source += ".";
    else source += character.replace(/[.+^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "is");
}

function matchesGlobs(value: string | undefined, globs: string | string[] | undefined): boolean {
  if (globs === undefined) return true;
  if (value === undefined) return false;
  const list = Array.isArray(globs) ? globs : [globs];
  return list.some((glob) => globToRegExp(glob).test(value));
}

/** Answers whether a name, address or number belongs to one of the user's contacts. */
export interface ContactDirectory {
  isKnown(value: string): boolean;
}

export interface CallFacts {
  tool: string;
  app: string | undefined;
  risk: Risk;
  arguments: Record<string, unknown>;
}

export interface MatchContext {
  contacts?: ContactDirectory;
}

/** The values `path` selects in `args` (glob segments, arrays looked into). */
export function selectValues(args: unknown, path: string): unknown[] {
  let current: unknown[] = [args];
  for (const segment of path.split(".")) {
    const pattern = globToRegExp(segment);
    const next: unknown[] = [];
    for (const value of current.flatMap(flattenArrays)) {
      if (value === null || typeof value !== "object") continue;
      for (const [key, child] of Object.entries(value)) if (pattern.test(key)) next.push(child);
    }
    current = next;
  }
  return current.flatMap(flattenArrays).filter((value) => value !== undefined);
}

function flattenArrays(value: unknown): unknown[] {
  return Array.isArray(value) ? value.flatMap(flattenArrays) : [value];
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (typeof a === "string" && typeof b === "string") return a.toLowerCase() === b.toLowerCase();
  if (typeof a === "number" || typeof b === "number") {
    const left = asNumber(a);
    const right = asNumber(b);
    return left !== undefined && left === right;
  }
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

function passes(value: unknown, condition: Condition, context: MatchContext): boolean {
  if (condition.equals !== undefined && !deepEqual(value, condition.equals)) return false;
  if (condition.matches !== undefined) {
    const pattern = compilePattern(condition.matches);
    const text = typeof value === "string" ? value : JSON.stringify(value);
    if (!pattern || !pattern.test(text)) return false;
  }
  if (condition.greaterThan !== undefined) {
    const number = asNumber(value);
    if (number === undefined || !(number > condition.greaterThan)) return false;
  }
  if (condition.lessThan !== undefined) {
    const number = asNumber(value);
    if (number === undefined || !(number < condition.lessThan)) return false;
  }
  if (condition.notInContacts || condition.inContacts) {
    if (typeof value !== "string") return false;
    // Without a directory nobody is known: the safe reading for "not in contacts".
    const known = context.contacts?.isKnown(value) ?? false;
    if (condition.notInContacts && known) return false;
    if (condition.inContacts && !known) return false;
  }
  return true;
}

/**
 * Whether `condition` holds over the values it selects: "every" (a rule that
 * allows) needs all of them to pass, "some" (a rule that asks or denies) one.
 */
export function conditionHolds(
  condition: Condition,
  args: Record<string, unknown>,
  context: MatchContext,
  quantifier: "every" | "some" = "some",
): boolean {
  const values = selectValues(args, condition.argument);
  if (condition.exists !== undefined) {
    if (condition.exists !== values.length > 0) return false;
    const onlyExists =
      condition.equals === undefined &&
      condition.matches === undefined &&
      condition.greaterThan === undefined &&
      condition.lessThan === undefined &&
      !condition.notInContacts &&
      !condition.inContacts;
    if (onlyExists) return true;
  }
  if (quantifier === "every") return values.length > 0 && values.every((value) => passes(value, condition, context));
  return values.some((value) => passes(value, condition, context));
}

export function ruleMatches(rule: Rule, call: CallFacts, context: MatchContext): boolean {
  if (!matchesGlobs(call.app, rule.app)) return false;
  if (!matchesGlobs(call.tool, rule.tool)) return false;
  if (rule.risk !== undefined) {
    const risks = Array.isArray(rule.risk) ? rule.risk : [rule.risk];
    if (!risks.includes(call.risk)) return false;
  }
  const quantifier = rule.decision === "allow" ? "every" : "some";
  return (rule.when ?? []).every((condition) => conditionHolds(condition, call.arguments, context, quantifier));
}

/** A short readable form of a rule for `policy show` and reasons. */
export function describeRule(rule: Rule): string {
  const parts: string[] = [rule.decision];
  const list = (value: string | string[]): string => (Array.isArray(value) ? value.join("|") : value);
  if (rule.app !== undefined) parts.push(`app=${list(rule.app)}`);
  if (rule.tool !== undefined) parts.push(`tool=${list(rule.tool)}`);
  if (rule.risk !== undefined) parts.push(`risk=${list(rule.risk)}`);
  for (const condition of rule.when ?? []) parts.push(describeCondition(condition));
  return parts.join(" ");
}

function describeCondition(condition: Condition): string {
  const tests: string[] = [];
  if (condition.equals !== undefined) tests.push(`== ${JSON.stringify(condition.equals)}`);
  if (condition.matches !== undefined) tests.push(`~ ${condition.matches}`);
  if (condition.greaterThan !== undefined) tests.push(`> ${condition.greaterThan}`);
  if (condition.lessThan !== undefined) tests.push(`< ${condition.lessThan}`);
  if (condition.notInContacts) tests.push("not in contacts");
  if (condition.inContacts) tests.push("in contacts");
  if (condition.exists !== undefined) tests.push(condition.exists ? "present" : "absent");
  return `${condition.argument} ${tests.join(" and ")}`;
}
