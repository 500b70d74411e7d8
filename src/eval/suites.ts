import { existsSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../version.js";
import { loadScenarios, ScenarioError, type Scenario } from "./scenario.js";

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
    `"${nameOrPath}" is neither a suite (${[...SCENARIO_SUITES, "bfcl", "injection", "injection-heldout"].join(", ")}) nor a scenario file or folder. Check the name or the path.`,
  );
}
