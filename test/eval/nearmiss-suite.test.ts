import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadScenarioFile } from "../../src/eval/scenario.js";
import { groundTruthArgumentProblems, groundTruthFailures, namedToolSuite, offeredTools, replayGroundTruth, whyFailed } from "../support/scenario-suite-checks.js";

/**
 * The "nearmiss" suite: a few named tools (1 to 3) are offered, and either one
 * of them serves the request ("call") or none does although they are close in
 * topic ("abstain"). It measures calling when a tool fits and abstaining when
 * the offered tools only look as if they fit.
 */
const { directory, groups: GROUPS, files, scenarios, tools, settings } = namedToolSuite("nearmiss");
const calls = scenarios.filter((scenario) => scenario.tags.labels.includes("call"));

describe("the nearmiss suite", () => {
  it("has one file per app group", () => {
    expect(files.sort()).toEqual(GROUPS.map((group) => `${group}.json`).sort());
  });

  it.each(files)("%s is valid against the scenario schema and holds only its own group", (file) => {
    const inFile = loadScenarioFile(join(directory, file));
    expect(inFile.length).toBeGreaterThan(0);
    for (const scenario of inFile) expect(scenario.tags.group, scenario.id).toBe(file.replace(/\.json$/, ""));
  });

  it("has at least 10 call and 10 abstain cases in each group", () => {
    for (const group of GROUPS) {
      const ofGroup = scenarios.filter((scenario) => scenario.tags.group === group);
      expect(ofGroup.filter((scenario) => scenario.tags.labels.includes("call")).length, `${group} call`).toBeGreaterThanOrEqual(10);
      expect(ofGroup.filter((scenario) => scenario.tags.labels.includes("abstain")).length, `${group} abstain`).toBeGreaterThanOrEqual(10);
    }
  });

  it("labels, ids, tools and turns follow the suite's shape", () => {
    const problems: string[] = [];
    for (const scenario of scenarios) {
      const labels = scenario.tags.labels;
      const kind = labels[1];
      if (labels.length !== 2 || labels[0] !== "nearmiss" || (kind !== "call" && kind !== "abstain")) problems.push(`${scenario.id}: labels ${JSON.stringify(labels)}`);
      if (!scenario.id.startsWith(`nearmiss-${scenario.tags.group}-${kind}-`)) problems.push(`${scenario.id}: id does not start with nearmiss-${scenario.tags.group}-${kind}-`);
      if (scenario.tags.steps !== "single" || scenario.turns.length !== 1) problems.push(`${scenario.id}: not a single-turn, single-step case`);
      if (scenario.tags.source !== "handwritten") problems.push(`${scenario.id}: source ${scenario.tags.source}`);
      const names = offeredTools(scenario);
      if (names.length < 1 || names.length > 3) problems.push(`${scenario.id}: offers ${names.length} named tools (${JSON.stringify(scenario.tools)})`);
      if (new Set(names).size !== names.length) problems.push(`${scenario.id}: offers a tool twice`);
      if (kind === "call") {
        const expected = scenario.expect.calls ?? [];
        if (scenario.expect.noCall || expected.length !== 1) problems.push(`${scenario.id}: a call case expects exactly one call`);
        for (const call of expected) if (!names.includes(call.name)) problems.push(`${scenario.id}: expects ${call.name}, which is not offered`);
      }
      if (kind === "abstain" && (!scenario.expect.noCall || (scenario.expect.calls ?? []).length > 0)) problems.push(`${scenario.id}: an abstain case expects no call`);
    }
    expect(problems).toEqual([]);
  });

  it("has no two requests alike (case-insensitive) and no two ids alike", () => {
    const requests = scenarios.map((scenario) => scenario.turns[0]!.user.trim().toLowerCase());
    expect(new Set(requests).size).toBe(requests.length);
    const ids = scenarios.map((scenario) => scenario.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("names only existing tools, with arguments valid for their schemas", () => {
    const problems: string[] = [];
    for (const scenario of scenarios) {
      for (const name of offeredTools(scenario)) if (!tools.has(name)) problems.push(`${scenario.id}: offers unknown ${name}`);
      for (const call of scenario.expect.calls ?? []) if (!tools.has(call.name)) problems.push(`${scenario.id}: expects unknown tool ${call.name}`);
    }
    expect([...problems, ...groundTruthArgumentProblems(scenarios, tools)]).toEqual([]);
  });

  it("every scenario is solved by its own ground truth on the real apps", { timeout: 600_000 }, async () => {
    expect(await groundTruthFailures(scenarios, settings)).toEqual([]);
  });

  it("argument grounding refuses no ground-truth call of a call case: every value is in the request", { timeout: 600_000 }, async () => {
    const refused: string[] = [];
    for (const scenario of calls) {
      const result = await replayGroundTruth(scenario, settings);
      const guessed = result.calls.filter((call) => call.errorCode === "ungrounded_arguments");
      if (guessed.length > 0 || !result.success) refused.push(`${scenario.id}: ${guessed.map((call) => `${call.name}${JSON.stringify(call.arguments)}`).join(", ")} ${whyFailed(result)}`);
    }
    expect(refused).toEqual([]);
  });
});
