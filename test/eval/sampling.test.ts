import { describe, expect, it } from "vitest";
import { spreadOverGroups } from "../../src/eval/sampling.js";
import { resolveScenarioSuite } from "../../src/eval/suites.js";

describe("eval --limit as an even spread", () => {
  it("takes the groups in turn, keeps suite order, and picks the same cases every time", () => {
    const items = ["a1", "a2", "a3", "a4", "b1", "b2", "c1"];
    const group = (item: string): string => item[0]!;
    expect(spreadOverGroups(items, 3, group)).toEqual(["a1", "b1", "c1"]);
    expect(spreadOverGroups(items, 5, group)).toEqual(["a1", "a2", "b1", "b2", "c1"]);
    expect(spreadOverGroups(items, 6, group)).toEqual(["a1", "a2", "a3", "b1", "b2", "c1"]);
    expect(spreadOverGroups(items, 20, group)).toEqual(items);
  });

  it("gives every group of the apps suite cases where the first 8 were all alarms", () => {
    const { scenarios } = resolveScenarioSuite("apps");
    const groupOf = (scenario: (typeof scenarios)[number]): string => scenario.tags.group;
    const firstEight = new Set(scenarios.slice(0, 8).map(groupOf));
    const spread = new Set(spreadOverGroups(scenarios, 14, groupOf).map(groupOf));
    expect(spread.size).toBeGreaterThan(firstEight.size);
    expect(spread.size).toBe(new Set(scenarios.map(groupOf)).size);
  });
});
