import { existsSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../version.js";
import { loadScenarios, ScenarioError, type Scenario } from "./scenario.js";

/** Built-in scenario suites in the botpsy format, by name. */
export const SCENARIO_SUITES = ["apps"] as const;

/** The prompt-injection suite, built in code (`eval/injection/cases.ts`) rather than from files. */
export const INJECTION_SUITE = "injection";

/** Where a built-in suite's scenario files live. */
export function suiteDirectory(name: string): string {
  return join(packageRoot(), "data", "scenarios", name);
}

/**
 * A suite name ("apps") or a path to a .json file or a folder of them.
 * Returns the suite's name for the results and its scenarios.
 */
export function resolveScenarioSuite(nameOrPath: string): { suite: string; scenarios: Scenario[] } {
  if ((SCENARIO_SUITES as readonly string[]).includes(nameOrPath)) {
    return { suite: nameOrPath, scenarios: loadScenarios(suiteDirectory(nameOrPath)) };
  }
  if (existsSync(nameOrPath)) return { suite: nameOrPath, scenarios: loadScenarios(nameOrPath) };
  throw new ScenarioError(
    `"${nameOrPath}" is neither a suite (${[...SCENARIO_SUITES, "bfcl", "injection"].join(", ")}) nor a scenario file or folder. Check the name or the path.`,
  );
}
