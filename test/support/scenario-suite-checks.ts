import { botpsyAgentFactory } from "../../src/eval/agent-factory.js";
import { groundTruthTurns } from "../../src/eval/ground-truth.js";
import { settingsKey, type CaseResult, type EvalSettings } from "../../src/eval/results.js";
import { runScenario } from "../../src/eval/runner.js";
import type { Scenario } from "../../src/eval/scenario.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import type { Tool } from "../../src/tools/tool.js";

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
