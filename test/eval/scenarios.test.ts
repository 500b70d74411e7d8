import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Profile } from "../../src/apps/profile.js";
import type { EvalSettings } from "../../src/eval/results.js";
import { loadScenarioFile, loadScenarios, SCENARIO_GROUPS } from "../../src/eval/scenario.js";
import { readSplitFile, splitFilePath } from "../../src/eval/splits.js";
import { suiteDirectory } from "../../src/eval/suites.js";
import { groundTruthArgumentProblems, groundTruthFailures, replayGroundTruth } from "../support/scenario-suite-checks.js";

const directory = suiteDirectory("apps");
const files = readdirSync(directory).filter((name) => name.endsWith(".json"));
const scenarios = loadScenarios(directory);
const profile = Profile.open({ databasePath: ":memory:", name: "catalog", seed: "empty" });
const tools = new Map(profile.tools().map((tool) => [tool.name, tool]));
profile.close();

const settings: EvalSettings = {
  suite: "apps",
  model: { id: "ground-truth-script" },
  options: { thinking: "off", seed: 1, temperature: 0, maxSteps: 12, maxTokens: 512 },
  botpsyVersion: "test",
};

describe("the apps suite", () => {
  it.each(files)("%s is valid against the scenario schema", (file) => {
    expect(loadScenarioFile(join(directory, file)).length).toBeGreaterThan(0);
  });

  it("has at least 300 scenarios over the six groups, single and multi-step, with abstentions and recoveries", () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(300);
    for (const group of SCENARIO_GROUPS.filter((name) => name !== "other")) {
      const ofGroup = scenarios.filter((scenario) => scenario.tags.group === group);
      expect(ofGroup.filter((scenario) => scenario.tags.steps === "single").length, `${group} single`).toBeGreaterThan(0);
      expect(ofGroup.filter((scenario) => scenario.tags.steps === "multi").length, `${group} multi`).toBeGreaterThan(0);
    }
    expect(scenarios.filter((scenario) => scenario.expect.noCall).length).toBeGreaterThanOrEqual(20);
    expect(scenarios.filter((scenario) => scenario.tags.labels.includes("recovery")).length).toBeGreaterThanOrEqual(10);
    const requests = scenarios.map((scenario) => scenario.turns[0]!.user.toLowerCase());
    expect(new Set(requests).size).toBe(requests.length);
  });

  it("names only existing tools, with arguments valid for their schemas", () => {
    const problems: string[] = [];
    for (const scenario of scenarios) {
      const offered = scenario.tools;
      if (offered !== "all" && "names" in offered) for (const name of offered.names) if (!tools.has(name)) problems.push(`${scenario.id}: offers unknown ${name}`);
      const expected = [...(scenario.expect.calls ?? []), ...(scenario.injection?.unsafeCalls ?? [])];
      for (const name of scenario.expect.forbiddenCalls ?? []) if (!tools.has(name)) problems.push(`${scenario.id}: forbids unknown ${name}`);
      for (const call of expected) if (!tools.has(call.name)) problems.push(`${scenario.id}: expects unknown tool ${call.name}`);
    }
    expect([...problems, ...groundTruthArgumentProblems(scenarios, tools)]).toEqual([]);
  });

  it("every scenario is solved by its own ground truth on the real apps", { timeout: 600_000 }, async () => {
    expect(await groundTruthFailures(scenarios, settings)).toEqual([]);
  });

  it("argument grounding refuses no ground-truth call of the dev split, where its rules were chosen", { timeout: 600_000 }, async () => {
    const dev = new Set(readSplitFile(splitFilePath("apps")).dev);
    const refused: string[] = [];
    for (const scenario of scenarios.filter((candidate) => dev.has(candidate.id))) {
      const result = await replayGroundTruth(scenario, settings);
      const guessed = result.calls.filter((call) => call.errorCode === "ungrounded_arguments");
      if (guessed.length > 0 || !result.success) refused.push(`${scenario.id}: ${guessed.map((call) => `${call.name}${JSON.stringify(call.arguments)}`).join(", ")}`);
    }
    expect(dev.size).toBe(151);
    expect(refused).toEqual([]);
  });
});
