import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { EvalCommandDependencies } from "../../src/cli/commands/eval.js";
import { loadScenarios, parseScenario, SCENARIO_GROUPS, type Scenario } from "../../src/eval/scenario.js";
import { caseResults, readResults, runRecords } from "../../src/eval/results.js";
import { computeSplit, NEARMISS_STRATIFICATION, nearmissStratum, OFFTOPIC_STRATIFICATION, readSplitFile, ScenarioSplitError, selectSplit, splitFilePath, splitStratum, suiteHasSplits } from "../../src/eval/splits.js";
import { suiteDirectory } from "../../src/eval/suites.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { makeTempDir } from "../support/temp-dir.js";
import { botpsyEval } from "./eval-command.js";

const scenarios = loadScenarios(suiteDirectory("apps"));
const committed = readSplitFile(splitFilePath("apps"));

function countBy(items: readonly Scenario[], key: (scenario: Scenario) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

describe("the committed dev and test splits of the apps suite", () => {
  const dev = selectSplit(scenarios, "dev", committed);
  const test = selectSplit(scenarios, "test", committed);

  it("are disjoint and together hold every scenario exactly once", () => {
    expect(scenarios).toHaveLength(302);
    const devIds = new Set(committed.dev);
    expect(committed.test.filter((id) => devIds.has(id))).toEqual([]);
    expect([...committed.dev, ...committed.test].sort()).toEqual(scenarios.map((scenario) => scenario.id).sort());
    expect(new Set([...committed.dev, ...committed.test]).size).toBe(302);
    expect(dev.length + test.length).toBe(302);
    expect(selectSplit(scenarios, "all", committed)).toHaveLength(302);
  });

  it("are about half each, and every group, and every group's single- and multi-step scenarios, appear in both", () => {
    expect(Math.abs(dev.length - test.length)).toBeLessThanOrEqual(2);
    const strata = countBy(scenarios, splitStratum);
    const devStrata = countBy(dev, splitStratum);
    const testStrata = countBy(test, splitStratum);
    for (const [stratum, total] of strata) {
      expect(devStrata.get(stratum) ?? 0, stratum).toBeGreaterThan(0);
      expect(testStrata.get(stratum) ?? 0, stratum).toBeGreaterThan(0);
      expect(Math.abs((devStrata.get(stratum) ?? 0) - (testStrata.get(stratum) ?? 0)), `${stratum} of ${total}`).toBeLessThanOrEqual(1);
    }
    for (const group of SCENARIO_GROUPS) {
      expect(dev.some((scenario) => scenario.tags.group === group), group).toBe(true);
      expect(test.some((scenario) => scenario.tags.group === group), group).toBe(true);
    }
  });

  it("were made by a method that is deterministic, ignores the scenarios' order, and halves every stratum", () => {
    const made = computeSplit("apps", scenarios);
    expect(made).toEqual(computeSplit("apps", [...scenarios].reverse()));
    expect(made.dev.length + made.test.length).toBe(scenarios.length);
    const devIds = new Set(made.dev);
    for (const [stratum, total] of countBy(scenarios, splitStratum)) {
      const inDev = scenarios.filter((scenario) => splitStratum(scenario) === stratum && devIds.has(scenario.id)).length;
      expect(Math.abs(inDev - (total - inDev)), stratum).toBeLessThanOrEqual(1);
    }
    // The file, not the method, is the split from now on: a grown suite adds ids to it and never reruns this.
    expect(committed.method).toBe(made.method);
  });

  it("live beside the suite's folder, where the scenario loader does not read them", () => {
    expect(splitFilePath("apps")).toBe(join(suiteDirectory("apps") + ".splits.json"));
    expect(suiteHasSplits("apps")).toBe(true);
    expect(suiteHasSplits("data/scenarios/apps")).toBe(false);
    expect(JSON.parse(readFileSync(splitFilePath("apps"), "utf8"))).toMatchObject({ suite: "apps" });
  });
});

describe.each([
  ["nearmiss", NEARMISS_STRATIFICATION],
  ["offtopic", OFFTOPIC_STRATIFICATION],
] as const)("the committed dev and test splits of the %s suite", (suite, stratification) => {
  const scenarios = loadScenarios(suiteDirectory(suite));
  const file = readSplitFile(splitFilePath(suite));
  const dev = selectSplit(scenarios, "dev", file);
  const test = selectSplit(scenarios, "test", file);

  it("cover the suite once, and hold as many cases of every stratum (group, and call or abstain) in each split", () => {
    expect(file.suite).toBe(suite);
    expect(dev.length + test.length).toBe(scenarios.length);
    expect(new Set([...file.dev, ...file.test]).size).toBe(scenarios.length);
    const devStrata = countBy(dev, nearmissStratum);
    const testStrata = countBy(test, nearmissStratum);
    for (const [stratum, total] of countBy(scenarios, nearmissStratum)) {
      expect(Math.abs((devStrata.get(stratum) ?? 0) - (testStrata.get(stratum) ?? 0)), `${stratum} of ${total}`).toBeLessThanOrEqual(1);
    }
    expect(suiteHasSplits(suite)).toBe(true);
  });

  it("were made by a stratified method that ignores the scenarios' order", () => {
    const made = computeSplit(suite, scenarios, stratification);
    expect(made).toEqual(computeSplit(suite, [...scenarios].reverse(), stratification));
    expect(made.dev.length + made.test.length).toBe(scenarios.length);
    // The file, not the method, is the split from now on: a grown suite adds ids to it and never reruns this.
    expect(file.method).toBe(made.method);
  });
});

describe("selecting a split", () => {
  const a = parseScenario({ id: "device-a", tags: { group: "device", steps: "single" }, turns: [{ user: "a" }], expect: { noCall: true } });
  const b = parseScenario({ id: "device-b", tags: { group: "device", steps: "single" }, turns: [{ user: "b" }], expect: { noCall: true } });
  const file = { suite: "tiny", method: "by hand", dev: ["device-a"], test: ["device-b"] };

  it("returns the split's scenarios in the suite's order", () => {
    expect(selectSplit([a, b], "dev", file).map((scenario) => scenario.id)).toEqual(["device-a"]);
    expect(selectSplit([a, b], "test", file).map((scenario) => scenario.id)).toEqual(["device-b"]);
    expect(selectSplit([b, a], "all", file).map((scenario) => scenario.id)).toEqual(["device-b", "device-a"]);
  });

  it("stops when the file and the suite disagree, saying what to fix", () => {
    const c = parseScenario({ id: "device-c", tags: { group: "device", steps: "single" }, turns: [{ user: "c" }], expect: { noCall: true } });
    expect(() => selectSplit([a, b, c], "test", file)).toThrow(ScenarioSplitError);
    expect(() => selectSplit([a, b, c], "test", file)).toThrow(/device-c.*Add each new id to dev or test/);
    expect(() => selectSplit([a], "dev", file)).toThrow(/device-b.*Remove them or restore/);
    expect(() => selectSplit([a, b], "dev", { ...file, test: ["device-a", "device-b"] })).toThrow(/both dev and test/);
  });
});

describe("botpsy eval run apps --split", () => {
  const loader: EvalCommandDependencies = {
    loadModel: async () => ({ model: new ScriptedModel(["I cannot help with that."], { id: "silent", whenExhausted: "repeat-last" }), info: { id: "silent" } }),
  };

  it("runs only the chosen split's scenarios and records the split in the settings (all when not given)", async () => {
    const directory = makeTempDir("botpsy-split-cli-");
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      for (const split of ["dev", "test", undefined] as const) {
        const out = join(directory, `${split ?? "default"}.jsonl`);
        await botpsyEval(["run", "apps", "--limit", "3", ...(split !== undefined ? ["--split", split] : []), "--out", out], loader);
        const lines = readResults(out);
        expect(runRecords(lines)[0]?.settings.options.split).toBe(split ?? "all");
        const ran = caseResults(lines).map((result) => result.caseId);
        expect(ran).toHaveLength(3);
        const allowed = split === undefined ? [...committed.dev, ...committed.test] : committed[split];
        for (const id of ran) expect(allowed, id).toContain(id);
      }
    } finally {
      stderr.mockRestore();
    }
  });

  it("refuses an unknown split, and a split for a suite that has none", async () => {
    const out = join(makeTempDir("botpsy-split-cli-"), "x.jsonl");
    await expect(botpsyEval(["run", "apps", "--split", "train", "--out", out], loader)).rejects.toThrow(/--split must be dev, test, all, not "train"/);
    await expect(botpsyEval(["run", "injection", "--split", "dev", "--out", out], loader)).rejects.toThrow(/--split is an option of suites with dev and test splits/);
    await expect(botpsyEval(["run", join(suiteDirectory("apps"), "device.json"), "--split", "test", "--out", out], loader)).rejects.toThrow(/--split is an option/);
  });
});
