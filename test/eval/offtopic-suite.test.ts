import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadScenarioFile, loadScenarios } from "../../src/eval/scenario.js";
import { suiteDirectory } from "../../src/eval/suites.js";
import { groundTruthFailures, namedToolSuite, offeredTools } from "../support/scenario-suite-checks.js";

/**
 * The "offtopic" suite: one to three named tools are offered and the request
 * is about something else altogether (a fact, a sum, a piece of advice), often
 * sharing a word with a tool ("the volume of a sphere" beside set_volume). No
 * offered tool serves it, so the right first turn is words. It is the shape
 * of BFCL's irrelevance category, written for botpsy's apps, so a call bias or
 * forced-call floor can be chosen against it without reading BFCL.
 */
const { directory, groups: GROUPS, files, scenarios, tools, settings } = namedToolSuite("offtopic");

/** Tools that would serve almost any question: never offered here. */
const GENERAL_TOOLS = ["search_web", "open_page", "find_tools"];

describe("the offtopic suite", () => {
  it("has one file per app group, each valid and holding only its own group", () => {
    expect(files.sort()).toEqual(GROUPS.map((group) => `${group}.json`).sort());
    for (const file of files) {
      const inFile = loadScenarioFile(join(directory, file));
      expect(inFile.length, file).toBeGreaterThanOrEqual(12);
      for (const scenario of inFile) expect(scenario.tags.group, scenario.id).toBe(file.replace(/\.json$/, ""));
    }
  });

  it("asks for no call in every case, with one to three existing tools offered and none of the general ones", () => {
    const problems: string[] = [];
    for (const scenario of scenarios) {
      const names = offeredTools(scenario);
      if (JSON.stringify(scenario.tags.labels) !== JSON.stringify(["offtopic", "abstain"])) problems.push(`${scenario.id}: labels ${JSON.stringify(scenario.tags.labels)}`);
      if (!scenario.id.startsWith(`offtopic-${scenario.tags.group}-`)) problems.push(`${scenario.id}: id does not start with offtopic-${scenario.tags.group}-`);
      if (scenario.tags.steps !== "single" || scenario.turns.length !== 1 || scenario.tags.source !== "handwritten") problems.push(`${scenario.id}: not one handwritten turn`);
      if (scenario.expect.noCall !== true || (scenario.expect.calls ?? []).length > 0) problems.push(`${scenario.id}: does not expect no call`);
      if (names.length < 1 || names.length > 3 || new Set(names).size !== names.length) problems.push(`${scenario.id}: offers ${JSON.stringify(names)}`);
      for (const name of names) {
        if (!tools.has(name)) problems.push(`${scenario.id}: offers unknown ${name}`);
        if (GENERAL_TOOLS.includes(name)) problems.push(`${scenario.id}: offers ${name}, which serves almost any question`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("has no two requests or ids alike, and no request of the nearmiss suite", () => {
    const requests = scenarios.map((scenario) => scenario.turns[0]!.user.trim().toLowerCase());
    expect(new Set(requests).size).toBe(requests.length);
    expect(new Set(scenarios.map((scenario) => scenario.id)).size).toBe(scenarios.length);
    const nearmiss = new Set(loadScenarios(suiteDirectory("nearmiss")).map((scenario) => scenario.turns[0]!.user.trim().toLowerCase()));
    expect(requests.filter((request) => nearmiss.has(request))).toEqual([]);
  });

  it("every scenario is solved by its own ground truth (no call) on the real apps", { timeout: 600_000 }, async () => {
    expect(await groundTruthFailures(scenarios, settings)).toEqual([]);
  });
});
