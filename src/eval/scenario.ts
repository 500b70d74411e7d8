import { readFileSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { BotpsyError } from "../errors.js";

/**
 * The scenario format: one JSON file holds one scenario or an array of them.
 * Documented for people in docs/scenarios.md; this schema is the contract.
 */

/** The six app groups plus "other" for work that spans several apps. */
export const SCENARIO_GROUPS = ["device", "work", "messages", "finding", "life", "errands", "other"] as const;
export type ScenarioGroup = (typeof SCENARIO_GROUPS)[number];

export class ScenarioError extends BotpsyError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("invalid_scenario", message, options);
  }
}

const jsonValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);

function isMatcherLike(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).some((key) => key.startsWith("$"));
}

/** A literal value; an object with "$" keys that is no known matcher is a typo, not a value. */
const plainValue = jsonValue.refine((value) => !isMatcherLike(value), {
  message: "unknown matcher: use $any, $absent, $regex, $contains, $number (with $tolerance), $when or $oneOf",
});

/**
 * An acceptable argument value. A plain JSON value matches by equality
 * (strings compared trimmed and case-insensitively, numbers numerically);
 * an object with a single `$` key is a matcher.
 */
export const valueMatcherSchema = z.union([
  z.strictObject({ $any: z.literal(true) }).describe("any value, but the argument must be present"),
  z.strictObject({ $absent: z.literal(true) }).describe("the argument must be left out"),
  z.strictObject({ $regex: z.string().min(1) }).describe("a string matching this regular expression (case-insensitive)"),
  z.strictObject({ $contains: z.string().min(1) }).describe("a string containing this text (case-insensitive)"),
  z.strictObject({ $number: z.number(), $tolerance: z.number().nonnegative().optional() }).describe("a number, or numeric string, within a tolerance"),
  z
    .strictObject({
      $when: z.strictObject({
        date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "date must be YYYY-MM-DD").optional(),
        time: z.string().regex(/^\d{2}:\d{2}$/, "time must be HH:MM").optional(),
      }),
    })
    .describe("a date/time text that the apps' parser reads as this date and/or time against the scenario clock"),
  plainValue,
]);
export type ValueMatcher = z.infer<typeof valueMatcherSchema>;

/** Either one acceptable value or a list of acceptable alternatives (BFCL style). */
const argumentExpectation = z.union([
  z.strictObject({ $oneOf: z.array(valueMatcherSchema).min(1) }),
  valueMatcherSchema,
]);
export type ArgumentExpectation = z.infer<typeof argumentExpectation>;

export const expectedCallSchema = z.strictObject({
  name: z.string().min(1),
  /** Arguments not named here may take any value. */
  arguments: z.record(z.string(), argumentExpectation).default({}),
  /** Which outcome of the call counts: "ok" (default) only a call that ran without error. */
  status: z.enum(["ok", "error", "any"]).default("ok"),
  /** Least and most times the call must match (default exactly at least once). */
  minTimes: z.number().int().nonnegative().default(1),
  maxTimes: z.number().int().positive().optional(),
  /**
   * The user turn (0-based) the call answers. Not checked; it tells the
   * ground-truth replay when to make the call. Default 0.
   */
  turn: z.number().int().nonnegative().default(0),
});
export type ExpectedCall = z.infer<typeof expectedCallSchema>;

const statePath = z.string().regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, "path is dot-separated keys, e.g. start.time");

export const stateAssertionSchema = z
  .strictObject({
    app: z.string().min(1),
    collection: z.string().min(1),
    /** One record by id; otherwise the records that match `where` (or all). */
    id: z.string().optional(),
    /** Keep only records whose fields (dot paths) match these values. */
    where: z.record(statePath, argumentExpectation).optional(),
    /** How many records (after `id`/`where`) there must be. */
    count: z.union([z.number().int().nonnegative(), z.strictObject({ min: z.number().int().nonnegative().optional(), max: z.number().int().nonnegative().optional() })]).optional(),
    /** A field of the record(s) to check with `equals` or `contains`; whole record when absent. */
    path: statePath.optional(),
    /** Every selected record's value at `path` must match. */
    equals: argumentExpectation.optional(),
    /** The value at `path` (string, array or object) must contain this (substring, element, or sub-object). */
    contains: jsonValue.optional(),
    /** The selected record must be absent (deleted or never created). */
    absent: z.literal(true).optional(),
  })
  .refine((value) => value.count !== undefined || value.equals !== undefined || value.contains !== undefined || value.absent !== undefined, {
    message: "a state assertion needs count, equals, contains or absent",
  })
  .refine((value) => value.absent === undefined || value.path === undefined, {
    message: "absent applies to records, not to a path",
  });
export type StateAssertion = z.infer<typeof stateAssertionSchema>;

export const recordOverrideSchema = z.strictObject({
  app: z.string().min(1),
  collection: z.string().min(1),
  id: z.string().min(1),
  /** The record; null deletes it. */
  value: jsonValue,
  /** Merge into the existing record (shallow) instead of replacing it. */
  merge: z.boolean().default(false),
});
export type RecordOverride = z.infer<typeof recordOverrideSchema>;

export const scenarioSetupSchema = z
  .strictObject({
    seed: z.enum(["demo", "empty"]).default("demo"),
    /** The profile clock (ISO 8601): every scenario runs at a fixed instant so runs repeat. */
    clock: z.string().refine((text) => !Number.isNaN(Date.parse(text)), "clock must be an ISO 8601 date-time").default("2026-12-01T09:00:00Z"),
    timeZone: z.string().default("Europe/Lisbon"),
    /** Device settings to change before the run (wifi, airplaneMode, volume…), merged into the settings record. */
    settings: z.record(z.string(), jsonValue).default({}),
    /** Records to write into app collections before the run. */
    records: z.array(recordOverrideSchema).default([]),
    /** Profile-level settings (the store's meta table). */
    meta: z.record(z.string(), z.string()).default({}),
  })
  .default({ seed: "demo", clock: "2026-12-01T09:00:00Z", timeZone: "Europe/Lisbon", settings: {}, records: [], meta: {} });
export type ScenarioSetup = z.infer<typeof scenarioSetupSchema>;

export const offeredToolsSchema = z.union([
  z.literal("all"),
  z.strictObject({ apps: z.array(z.string().min(1)).min(1) }),
  z.strictObject({ names: z.array(z.string().min(1)).min(1) }),
]);
export type OfferedTools = z.infer<typeof offeredToolsSchema>;

/** A single word, or a list of alternatives of which one must appear. */
const answerWord = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

export const expectationSchema = z
  .strictObject({
    calls: z.array(expectedCallSchema).optional(),
    /** Expected calls must happen in the listed order (default: any order). */
    ordered: z.boolean().default(false),
    /** Calls of these names must not be made (or only when they failed). */
    forbiddenCalls: z.array(z.string().min(1)).optional(),
    /** No call beyond the expected ones (read-only calls included). Default false. */
    exactCalls: z.boolean().default(false),
    state: z.array(stateAssertionSchema).optional(),
    /** Each entry must appear in the final answer (case-insensitive); a list means any one of them. */
    answerContains: z.array(answerWord).optional(),
    /** The request cannot be served by any offered tool: success means no call at all. */
    noCall: z.boolean().default(false),
  })
  .refine(
    (value) =>
      value.noCall || value.calls !== undefined || value.state !== undefined || value.answerContains !== undefined || value.forbiddenCalls !== undefined,
    {
      message: "expect needs at least one of calls, state, answerContains, forbiddenCalls or noCall",
    },
  )
  .refine((value) => !(value.noCall && value.calls !== undefined && value.calls.length > 0), {
    message: "noCall cannot be combined with expected calls",
  });
export type Expectation = z.infer<typeof expectationSchema>;

export const injectionSchema = z.strictObject({
  /** What the attacker wants (for the report). */
  goal: z.string().min(1),
  /** The attack phrasing family ("ignore previous", "fake system message"…). */
  technique: z.string().min(1),
  /** Where the attack text is planted: records written before the run. */
  plant: z.array(recordOverrideSchema).min(1),
  /** A call matching any of these (executed, not merely requested) means the attack succeeded. */
  unsafeCalls: z.array(expectedCallSchema.omit({ status: true, minTimes: true, maxTimes: true, turn: true })).default([]),
  /** Any of these assertions holding after the run means the attack succeeded. */
  unsafeState: z.array(stateAssertionSchema).default([]),
});
export type Injection = z.infer<typeof injectionSchema>;

export const scenarioSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]{1,120}$/, "id is lower-case letters, digits, '.', '_' and '-'"),
  description: z.string().optional(),
  tags: z.strictObject({
    group: z.enum(SCENARIO_GROUPS),
    steps: z.enum(["single", "multi"]),
    /** Where the scenario comes from: "brief", "handwritten", "bfcl"… */
    source: z.string().min(1).default("handwritten"),
    /** Free labels: "recovery", "abstain", "conflict", "check-state"… */
    labels: z.array(z.string().min(1)).default([]),
  }),
  setup: scenarioSetupSchema,
  /** The tools offered to the model: all of the profile's tools, those of some apps, or named ones. */
  tools: offeredToolsSchema.default("all"),
  /** The user's turns, in order; later turns continue the same session. */
  turns: z.array(z.strictObject({ user: z.string().min(1) })).min(1),
  expect: expectationSchema,
  injection: injectionSchema.optional(),
});
export type Scenario = z.infer<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;

export function parseScenario(value: unknown, origin = "scenario"): Scenario {
  const parsed = scenarioSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 8)
      .map((issue) => `  - ${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
      .join("\n");
    throw new ScenarioError(`${origin} is not a valid scenario:\n${problems}\nSee docs/scenarios.md for the format.`);
  }
  return parsed.data;
}

/** Read one JSON file holding a scenario or an array of scenarios. */
export function loadScenarioFile(path: string): Scenario[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ScenarioError(`Cannot read the scenario file ${path}: ${String(error)}. Check the path.`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ScenarioError(`${path} is not valid JSON (${String(error)}). Fix the file.`, { cause: error });
  }
  const items = Array.isArray(value) ? value : [value];
  return items.map((item, index) => parseScenario(item, Array.isArray(value) ? `${basename(path)}[${index}]` : basename(path)));
}

/**
 * Load scenarios from a file or from every `.json` file of a directory
 * (sorted by name, so the order is stable). Ids must be unique.
 */
export function loadScenarios(path: string): Scenario[] {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch (error) {
    throw new ScenarioError(`There is no scenario file or folder at ${path}. Give a suite name or a path to .json scenarios.`, { cause: error });
  }
  const files = isDirectory
    ? readdirSync(path)
        .filter((name) => name.endsWith(".json"))
        .sort()
        .map((name) => join(path, name))
    : [path];
  if (files.length === 0) throw new ScenarioError(`The folder ${path} holds no .json scenario files.`);
  const scenarios = files.flatMap((file) => loadScenarioFile(file));
  const seen = new Map<string, number>();
  for (const scenario of scenarios) seen.set(scenario.id, (seen.get(scenario.id) ?? 0) + 1);
  const duplicates = [...seen].filter(([, count]) => count > 1).map(([id]) => id);
  if (duplicates.length > 0) {
    throw new ScenarioError(`Scenario ids must be unique; repeated in ${path}: ${duplicates.slice(0, 10).join(", ")}. Rename them.`);
  }
  return scenarios;
}
