import { existsSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../version.js";
import { loadScenarios, ScenarioError, type Scenario } from "./scenario.js";
import type { ScenarioSplit } from "./splits.js";

/**
 * Built-in scenario suites in the botpsy format, by name: "apps" (tasks over
 * all the tools, single and multi-step), "nearmiss" (one to three tools
 * offered; one of them serves the request, or none does though they are
 * close in topic: when to call and when to abstain) and "offtopic" (one to
 * three tools offered and a request on another subject altogether, often
 * sharing a word with a tool: abstentions only, the shape of BFCL's
 * irrelevance category, written for botpsy's apps and disjoint from it).
 */
export const SCENARIO_SUITES = ["apps", "nearmiss", "offtopic"] as const;

/**
 * The prompt-injection suites, built in code rather than from files: the
 * development suite (`eval/injection/cases.ts`) and the held-out one
 * (`eval/injection/heldout-cases.ts`).
 */
export const INJECTION_SUITE = "injection";
export { INJECTION_SUITES, isInjectionSuite } from "./injection/attack-case.js";

/**
 * Calls on tools no training example has: a request, one to three function
 * documents of tools that are neither botpsy's apps nor any tool of the
 * training recipes, and the one expected call. Written in BFCL's file format
 * (a file of cases, `possible_answer/` beside it) and run and scored as BFCL
 * files are (the same AST checker), with dev and test files.
 */
export const UNSEEN_SUITE = "unseen";

/** The folder of the unseen suite's files. */
export function unseenSuiteDirectory(): string {
  return join(packageRoot(), "data", "unseen");
}

/** The unseen suite's files of one split ("all": both). */
export function unseenSuiteFiles(split: ScenarioSplit): string[] {
  const splits = split === "all" ? ["dev", "test"] : [split];
  return splits.map((name) => join(unseenSuiteDirectory(), `unseen_${name}.json`));
}

/** Where a built-in suite's scenario files live. */
export function suiteDirectory(name: string): string {
  return join(packageRoot(), "data", "scenarios", name);
}

/**
 * A suite name ("apps", "nearmiss", "offtopic") or a path to a .json file or a folder of them.
 * Returns the suite's name for the results and its scenarios.
 */
export function resolveScenarioSuite(nameOrPath: string): { suite: string; scenarios: Scenario[] } {
  if ((SCENARIO_SUITES as readonly string[]).includes(nameOrPath)) {
    return { suite: nameOrPath, scenarios: loadScenarios(suiteDirectory(nameOrPath)) };
  }
  if (existsSync(nameOrPath)) return { suite: nameOrPath, scenarios: loadScenarios(nameOrPath) };
  throw new ScenarioError(
    `"${nameOrPath}" is neither a suite (${[...SCENARIO_SUITES, UNSEEN_SUITE, "bfcl", "injection", "injection-heldout"].join(", ")}) nor a scenario file or folder. Check the name or the path.`,
  );
}
