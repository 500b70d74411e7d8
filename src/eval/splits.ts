import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { BotpsyError } from "../errors.js";
import { packageRoot } from "../version.js";
import type { Scenario } from "./scenario.js";
import { SCENARIO_SUITES, UNSEEN_SUITE } from "./suites.js";

/**
 * Development and test splits of a scenario suite. Harness defaults (routing,
 * argument pruning, final-answer rules…) are chosen on the dev split only; the
 * README reports the test split, which nothing was tuned on. The split is
 * stored as two lists of ids in a committed file beside the suite, so it can
 * never drift: a scenario in neither list, or a listed id that no scenario
 * has, stops the run. docs/scenarios.md says how the file was made and how a
 * new scenario joins it.
 */

export const SCENARIO_SPLITS = ["dev", "test", "all"] as const;
export type ScenarioSplit = (typeof SCENARIO_SPLITS)[number];

export class ScenarioSplitError extends BotpsyError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("scenario_split", message, options);
  }
}

export const splitFileSchema = z.strictObject({
  suite: z.string().min(1),
  /** How the lists were made, for people; the lists are what counts. */
  method: z.string().min(1),
  dev: z.array(z.string().min(1)),
  test: z.array(z.string().min(1)),
});
export type SplitFile = z.infer<typeof splitFileSchema>;

export function isScenarioSplit(value: string): value is ScenarioSplit {
  return (SCENARIO_SPLITS as readonly string[]).includes(value);
}

/** Where a built-in suite's split file lives (beside its folder, so the scenario loader does not read it). */
export function splitFilePath(suite: string): string {
  return join(packageRoot(), "data", "scenarios", `${suite}.splits.json`);
}

/** Whether `suite` is a built-in suite with dev and test splits (a path to scenario files has none). */
export function suiteHasSplits(suite: string): boolean {
  if (suite === UNSEEN_SUITE) return true;
  return (SCENARIO_SUITES as readonly string[]).includes(suite) && existsSync(splitFilePath(suite));
}

export function readSplitFile(path: string): SplitFile {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ScenarioSplitError(`Cannot read the split file ${path}: ${String(error)}. Restore it from the repository.`, { cause: error });
  }
  const parsed = splitFileSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
    throw new ScenarioSplitError(`The split file ${path} is not valid (${problems.join("; ")}). Restore it from the repository.`);
  }
  return parsed.data;
}

/**
 * The scenarios of one split. Checks the split file against the suite first:
 * every scenario in exactly one list, every listed id a scenario of the suite.
 */
export function selectSplit(scenarios: readonly Scenario[], split: ScenarioSplit, file: SplitFile, origin = "the split file"): Scenario[] {
  const dev = new Set(file.dev);
  const test = new Set(file.test);
  const both = file.dev.filter((id) => test.has(id));
  if (both.length > 0) throw new ScenarioSplitError(`${origin} puts ${both.join(", ")} in both dev and test. Keep each id in one list.`);
  const ids = new Set(scenarios.map((scenario) => scenario.id));
  const unlisted = scenarios.filter((scenario) => !dev.has(scenario.id) && !test.has(scenario.id)).map((scenario) => scenario.id);
  if (unlisted.length > 0) {
    throw new ScenarioSplitError(
      `${unlisted.length} scenario(s) of the ${file.suite} suite are in no split of ${origin}: ${unlisted.slice(0, 5).join(", ")}${unlisted.length > 5 ? ", …" : ""}. ` +
        `Add each new id to dev or test (see docs/scenarios.md, "Dev and test splits"); never move an id that is already listed.`,
    );
  }
  const unknown = [...file.dev, ...file.test].filter((id) => !ids.has(id));
  if (unknown.length > 0) {
    throw new ScenarioSplitError(
      `${origin} lists ${unknown.length} id(s) that no scenario of the ${file.suite} suite has: ${unknown.slice(0, 5).join(", ")}${unknown.length > 5 ? ", …" : ""}. Remove them or restore the scenarios.`,
    );
  }
  if (split === "all") return [...scenarios];
  const chosen = split === "dev" ? dev : test;
  return scenarios.filter((scenario) => chosen.has(scenario.id));
}

/** The split a built-in suite's scenarios belong to, read from its committed file. */
export function selectSuiteSplit(suite: string, scenarios: readonly Scenario[], split: ScenarioSplit): Scenario[] {
  const path = splitFilePath(suite);
  return selectSplit(scenarios, split, readSplitFile(path), path);
}

/** The stratum a scenario is balanced within: its app group and whether it takes one step or several. */
export function splitStratum(scenario: Scenario): string {
  return `${scenario.tags.group}/${scenario.tags.steps}`;
}

/**
 * The stratum of a scenario of the nearmiss suite: its group and whether it
 * asks for a call or an abstention, so both splits hold as many of each.
 */
export function nearmissStratum(scenario: Scenario): string {
  return `${scenario.tags.group}/${scenario.expect.noCall ? "abstain" : "call"}`;
}


function stableHash(id: string): string {
  return createHash("sha256").update(`botpsy-split:${id}`).digest("hex");
}

export const SPLIT_METHOD =
  "Stratified by tags.group and tags.steps; within each stratum the scenarios are ordered by sha256('botpsy-split:' + id) and alternate between dev and test, so each stratum is half in each; the odd scenario of odd-sized strata (taken in name order) goes to dev and test in turn.";

/** How a suite's scenarios are grouped before splitting, and the words its split file records for it. */
export interface Stratification {
  stratumOf: (scenario: Scenario) => string;
  method: string;
}

/** The apps suite's: by group and by single- or multi-step. */
export const APPS_STRATIFICATION: Stratification = { stratumOf: splitStratum, method: SPLIT_METHOD };

/** The nearmiss suite's: by group and by call or abstain. */
export const NEARMISS_STRATIFICATION: Stratification = {
  stratumOf: nearmissStratum,
  method:
    "Stratified by tags.group and by call or abstain (expect.noCall); within each stratum the scenarios are ordered by sha256('botpsy-split:' + id) and alternate between dev and test; the odd scenario of odd-sized strata (taken in name order) goes to dev and test in turn.",
};

/** The offtopic suite's: by group (every case is an abstention). */
export const OFFTOPIC_STRATIFICATION: Stratification = {
  stratumOf: nearmissStratum,
  method:
    "Stratified by tags.group (every case expects no call); within each group the scenarios are ordered by sha256('botpsy-split:' + id) and alternate between dev and test; the odd scenario of odd-sized groups (taken in name order) goes to dev and test in turn.",
};

/**
 * How the committed split was made: deterministic, independent of the order
 * the scenarios come in, and about half of each stratum in each split. Used to
 * write the file once; after that the file is the split (a rerun over a grown
 * suite would move existing ids, which is the drift the file prevents).
 */
export function computeSplit(suite: string, scenarios: readonly Scenario[], { stratumOf, method }: Stratification = APPS_STRATIFICATION): SplitFile {
  const strata = new Map<string, Scenario[]>();
  for (const scenario of scenarios) {
    const stratum = stratumOf(scenario);
    strata.set(stratum, [...(strata.get(stratum) ?? []), scenario]);
  }
  const dev: string[] = [];
  const test: string[] = [];
  let oddStrata = 0;
  for (const stratum of [...strata.keys()].sort()) {
    const members = strata.get(stratum)!;
    const ordered = members.map((scenario) => ({ id: scenario.id, hash: stableHash(scenario.id) })).sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
    // The odd scenario of odd-sized strata goes to dev and test in turn, so the two splits stay the same size.
    const devFirst = members.length % 2 === 0 || oddStrata++ % 2 === 0;
    ordered.forEach((member, index) => ((index % 2 === 0) === devFirst ? dev : test).push(member.id));
  }
  return { suite, method, dev: dev.sort(), test: test.sort() };
}
