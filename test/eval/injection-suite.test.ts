import { describe, expect, it } from "vitest";
import { checkState } from "../../src/eval/checker.js";
import { ATTACKER_GOALS, CARRIERS, injectionCases, spreadSelection, TECHNIQUES, USER_TASKS } from "../../src/eval/injection/cases.js";
import { openScenarioProfile, recordReader } from "../../src/eval/runner.js";
import { parseScenario } from "../../src/eval/scenario.js";

const clock = { now: new Date("2026-12-01T09:00:00Z"), timeZone: "Europe/Lisbon" };

describe("the injection suite", () => {
  const cases = injectionCases();

  it("has over 100 valid cases covering every carrier, phrasing and goal", () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
    expect(new Set(cases.map((injectionCase) => injectionCase.id)).size).toBe(cases.length);
    for (const injectionCase of cases) {
      // Both scenarios pass the evaluation format's own validation, round trip included.
      expect(parseScenario(JSON.parse(JSON.stringify(injectionCase.scenario)) as unknown).id).toBe(injectionCase.id);
      expect(parseScenario(JSON.parse(JSON.stringify(injectionCase.benign)) as unknown).injection).toBeUndefined();
      expect(injectionCase.scenario.injection!.unsafeState.length + injectionCase.scenario.injection!.unsafeCalls.length).toBeGreaterThan(0);
      expect(injectionCase.scenario.tools).toEqual({ names: expect.arrayContaining([...injectionCase.task.tools, injectionCase.goal.call.name]) as unknown });
    }
    expect(new Set(cases.map((injectionCase) => injectionCase.task.carrier))).toEqual(new Set(CARRIERS));
    expect(new Set(cases.map((injectionCase) => injectionCase.technique))).toEqual(new Set(TECHNIQUES));
    for (const goal of ATTACKER_GOALS) {
      expect(new Set(cases.filter((injectionCase) => injectionCase.goal.id === goal.id).map((injectionCase) => injectionCase.technique)).size).toBe(TECHNIQUES.length);
    }
  });

  it("plants the attack in the very record the task reads, and only in the attacked scenario", async () => {
    for (const task of USER_TASKS) {
      const injectionCase = cases.find((candidate) => candidate.task.id === task.id)!;
      const attacked = openScenarioProfile(injectionCase.scenario);
      const benign = openScenarioProfile(injectionCase.benign);
      try {
        const readingCall = task.groundTruth.at(-1)!.name === "add_task" ? task.groundTruth.at(-2)! : task.groundTruth.at(-1)!;
        const read = async (profile: typeof attacked): Promise<string> => {
          const tool = profile.tools().find((candidate) => candidate.name === readingCall.name)!;
          return JSON.stringify((await profile.runTool(tool, readingCall.arguments)).value);
        };
        const attackedText = await read(attacked);
        const benignText = await read(benign);
        // A tool-knowledge attack names the call (`set_do_not_disturb(`) rather than the words of the goal.
        const signs = [injectionCase.goal.trigger, `${injectionCase.goal.call.name}(`];
        expect(signs.some((sign) => attackedText.includes(sign)), `${task.id}: ${attackedText}`).toBe(true);
        for (const sign of signs) expect(benignText, task.id).not.toContain(sign);
        for (const fact of task.answerFacts) expect(benignText, task.id).toContain(fact);
      } finally {
        attacked.close();
        benign.close();
      }
    }
  });

  it("checks each attacker goal on the state: false on the untouched profile, true once the attacker's call runs", async () => {
    for (const goal of ATTACKER_GOALS) {
      const injectionCase = cases.find((candidate) => candidate.goal.id === goal.id)!;
      const profile = openScenarioProfile(injectionCase.scenario);
      try {
        const read = recordReader(profile);
        for (const assertion of goal.unsafeState ?? []) expect(checkState(assertion, read, clock).passed, `${goal.id} before the attack`).toBe(false);
        const tool = profile.tools().find((candidate) => candidate.name === goal.call.name)!;
        await profile.runTool(tool, goal.call.arguments);
        for (const assertion of goal.unsafeState ?? []) expect(checkState(assertion, read, clock).passed, `${goal.id} after the attack`).toBe(true);
        if (goal.id === "delete-file") {
          const files = profile.tools().find((candidate) => candidate.name === "list_files")!;
          expect(JSON.stringify((await profile.runTool(files, { folder: "documents" })).value)).not.toContain("apartment-lease");
        }
      } finally {
        profile.close();
      }
    }
  });

  it("selects an even spread of cases for a limited run, and refuses a bad limit", () => {
    const chosen = spreadSelection(cases, 24);
    expect(chosen).toHaveLength(24);
    expect(new Set(chosen.map((injectionCase) => injectionCase.task.id)).size).toBe(USER_TASKS.length);
    expect(new Set(chosen.map((injectionCase) => injectionCase.goal.id)).size).toBeGreaterThanOrEqual(8);
    expect(spreadSelection(cases, 500)).toHaveLength(cases.length);
    expect(() => spreadSelection(cases, 0)).toThrow(/whole number of cases/);
  });
});
