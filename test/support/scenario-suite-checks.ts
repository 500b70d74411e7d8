import { readdirSync } from "node:fs";
import { Profile } from "../../src/apps/profile.js";
import { botpsyAgentFactory } from "../../src/eval/agent-factory.js";
import { groundTruthTurns } from "../../src/eval/ground-truth.js";
import { settingsKey, type CaseResult, type EvalSettings } from "../../src/eval/results.js";
import { runScenario } from "../../src/eval/runner.js";
import { loadScenarios, SCENARIO_GROUPS, type Scenario } from "../../src/eval/scenario.js";
import { suiteDirectory } from "../../src/eval/suites.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import type { Tool } from "../../src/tools/tool.js";

/**
 * A handwritten suite that offers named tools (nearmiss, offtopic): its folder,
 * the app groups it has one file for, its files and scenarios, every app tool
 * by name (from an empty profile), and the settings its ground-truth replays
 * run with.
 */
export function namedToolSuite(suite: "nearmiss" | "offtopic") {
  const directory = suiteDirectory(suite);
  const profile = Profile.open({ databasePath: ":memory:", name: "catalog", seed: "empty" });
  const tools = new Map(profile.tools().map((tool) => [tool.name, tool]));
  profile.close();
  const settings: EvalSettings = {
    suite,
    model: { id: "ground-truth-script" },
    options: { thinking: "off", seed: 1, temperature: 0, maxSteps: 12, maxTokens: 512 },
    botpsyVersion: "test",
  };
  return {
    directory,
    groups: SCENARIO_GROUPS.filter((name) => name !== "other"),
    files: readdirSync(directory).filter((name) => name.endsWith(".json")),
    scenarios: loadScenarios(directory),
    tools,
    settings,
  };
}

/** The tools a scenario names (none when it offers them all). */
export function offeredTools(scenario: Scenario): string[] {
  const tools = scenario.tools;
  return tools !== "all" && "names" in tools ? tools.names : [];
}

/** Runs a scenario with its own ground truth as the model. */
export function replayGroundTruth(scenario: Scenario, settings: EvalSettings): Promise<CaseResult> {
  return runScenario(scenario, {
    model: () => new ScriptedModel(groundTruthTurns(scenario).flat()),
    agentFactory: botpsyAgentFactory,
    settings,
    settingsKey: settingsKey(settings),
  });
}

/** What a failed result's checks say, for a test's failure list. */
export function whyFailed(result: CaseResult): string {
  return result.error?.message ?? result.checks.filter((check) => !check.passed).map((check) => check.detail).join("; ");
}

/**
 * The ground truth's calls (the first concrete alternative of each argument)
 * against the tools' schemas: a call whose arguments fail the schema, or name
 * an argument the tool does not have.
 */
export function groundTruthArgumentProblems(scenarios: readonly Scenario[], tools: ReadonlyMap<string, Tool>): string[] {
  const problems: string[] = [];
  for (const scenario of scenarios) {
    for (const reply of groundTruthTurns(scenario).flat()) {
      for (const call of reply.toolCalls ?? []) {
        const tool = tools.get(call.name);
        if (!tool) continue;
        const parsed = tool.input.safeParse(call.arguments ?? {});
        if (!parsed.success) problems.push(`${scenario.id}: ${call.name}(${JSON.stringify(call.arguments)}): ${parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`).join("; ")}`);
        const known = Object.keys((tool.input as unknown as { shape?: Record<string, unknown> }).shape ?? {});
        for (const name of Object.keys(call.arguments ?? {})) if (known.length > 0 && !known.includes(name)) problems.push(`${scenario.id}: ${call.name} has no argument ${name}`);
      }
    }
  }
  return problems;
}

/**
 * The scenarios their own ground truth does not solve on the real apps, with
 * argument grounding off: the ground truth knows the profile's state without
 * looking it up (an id, the fuel that fits), which grounding rightly refuses
 * from a model.
 */
export async function groundTruthFailures(scenarios: readonly Scenario[], settings: EvalSettings): Promise<string[]> {
  const oracle: EvalSettings = { ...settings, options: { ...settings.options, harness: { grounding: "off" } } };
  const failures: string[] = [];
  for (const scenario of scenarios) {
    const result = await replayGroundTruth(scenario, oracle);
    if (!result.success) failures.push(`${scenario.id}: ${whyFailed(result)} | calls: ${result.calls.map((call) => `${call.name}:${call.errorCode ?? call.status}`).join(", ")}`);
  }
  return failures;
}
