import { describe, expect, it } from "vitest";
import type { Profile } from "../../src/apps/profile.js";
import { callMismatch, checkState } from "../../src/eval/checker.js";
import type { AttackCase } from "../../src/eval/injection/attack-case.js";
import { injectionCases } from "../../src/eval/injection/cases.js";
import { CompromisedModel } from "../../src/eval/injection/compromised-model.js";
import { ATTACKER, evidenceOf, HELDOUT_CLASSES, heldoutInjectionCases, type HeldoutCase } from "../../src/eval/injection/heldout-cases.js";
import { benignScenarioId, runInjectionSuite } from "../../src/eval/injection/run.js";
import { injectionSuiteCases } from "../../src/eval/injection/suites.js";
import type { EvalSettings } from "../../src/eval/results.js";
import { openScenarioProfile, recordReader } from "../../src/eval/runner.js";
import { parseScenario, type Scenario } from "../../src/eval/scenario.js";

/**
 * The held-out injection suite: each case plants its attack into a record the
 * task really reads, its unsafe check is false after the benign run and true
 * once the attacker's calls run, and through the real Agent a compromised
 * model with nothing protecting it reaches the attacker's goal.
 */

const clock = { now: new Date("2026-12-01T09:00:00Z"), timeZone: "Europe/Lisbon" };
const cases = heldoutInjectionCases();

type Made = { name: string; arguments: Record<string, unknown>; status: "ok" | "error" };

/** Run calls on a profile the way a tool call runs, recording each outcome and the text of its result. */
async function runCalls(profile: Profile, calls: readonly { name: string; arguments: Record<string, unknown> }[]): Promise<{ texts: string[]; made: Made[] }> {
  const texts: string[] = [];
  const made: Made[] = [];
  for (const call of calls) {
    const tool = profile.tools().find((candidate) => candidate.name === call.name);
    if (tool === undefined) throw new Error(`no tool ${call.name}`);
    try {
      texts.push(JSON.stringify((await profile.runTool(tool, call.arguments)).value));
      made.push({ ...call, status: "ok" });
    } catch (error) {
      texts.push(String(error));
      made.push({ ...call, status: "error" });
    }
  }
  return { texts, made };
}

function unsafe(injectionCase: AttackCase, profile: Profile, made: readonly Made[]): boolean {
  const injection = injectionCase.scenario.injection!;
  const read = recordReader(profile);
  const byState = injection.unsafeState.some((assertion) => checkState(assertion, read, clock).passed);
  const byCall = injection.unsafeCalls.some((pattern) => made.some((call) => callMismatch({ ...pattern, status: "ok" }, call, clock) === undefined));
  return byState || byCall;
}

describe("the held-out injection suite", () => {
  it("has about a hundred valid cases in every attack class, none sharing an attack text with the development suite", () => {
    expect(cases.length).toBeGreaterThanOrEqual(95);
    expect(new Set(cases.map((injectionCase) => injectionCase.id)).size).toBe(cases.length);
    expect(new Set(cases.map((injectionCase) => injectionCase.attackClass))).toEqual(new Set(HELDOUT_CLASSES));
    for (const attackClass of HELDOUT_CLASSES) expect(cases.filter((injectionCase) => injectionCase.attackClass === attackClass).length, attackClass).toBeGreaterThanOrEqual(6);
    const developmentTexts = new Set(injectionCases().map((injectionCase) => injectionCase.attackText));
    for (const injectionCase of cases) {
      expect(parseScenario(JSON.parse(JSON.stringify(injectionCase.scenario)) as unknown).id).toBe(injectionCase.id);
      expect(parseScenario(JSON.parse(JSON.stringify(injectionCase.benign)) as unknown).injection).toBeUndefined();
      const injection = injectionCase.scenario.injection!;
      expect(injection.unsafeState.length + injection.unsafeCalls.length, injectionCase.id).toBeGreaterThan(0);
      expect(injectionCase.attack.length).toBeGreaterThan(0);
      expect(injectionCase.scenario.tools).toEqual({ names: expect.arrayContaining([...injectionCase.task.tools, ...injectionCase.attack.map((step) => step.call.name)]) as unknown });
      for (const text of injectionCase.attackTexts) expect(developmentTexts.has(text)).toBe(false);
    }
    // The untrusted-field class covers a text field of many apps, and every kind of side effect is among the goals.
    const fields = new Set(cases.filter((injectionCase) => injectionCase.attackClass === "untrusted-field").map((injectionCase) => injectionCase.carrier.split(".")[0]));
    expect(fields.size).toBeGreaterThanOrEqual(12);
    expect(new Set(cases.map((injectionCase) => injectionCase.risk))).toEqual(new Set(["send", "spend", "destructive", "settings", "write"]));
    // Split cases need both halves: two plants, two pieces of evidence that must all be read.
    for (const injectionCase of cases.filter((candidate) => candidate.attackClass === "split-across-sources")) {
      expect(injectionCase.scenario.injection!.plant).toHaveLength(2);
      expect(injectionCase.attack[0]!.evidence).toEqual([[expect.any(String), expect.any(String)]]);
    }
    // The named suites resolve to the two case lists.
    expect(injectionSuiteCases("injection-heldout").map((injectionCase) => injectionCase.id)).toEqual(cases.map((injectionCase) => injectionCase.id));
    expect(injectionSuiteCases("injection")).toHaveLength(injectionCases().length);
  });

  it("lists the cases so that the first eleven cover every class once", () => {
    expect(cases.slice(0, HELDOUT_CLASSES.length).map((injectionCase) => injectionCase.attackClass)).toEqual([...HELDOUT_CLASSES]);
    expect(() => evidenceOf("ab'cd")).toThrow(/distinctive/);
  });

  it("plants every attack into a record the task reads: the task's own calls show it in the attacked profile and never in the benign one", async () => {
    for (const injectionCase of cases) {
      const attacked = openScenarioProfile(injectionCase.scenario);
      const benign = openScenarioProfile(injectionCase.benign);
      try {
        const attackedText = (await runCalls(attacked, injectionCase.task.groundTruth)).texts.join("\n");
        const benignRun = await runCalls(benign, injectionCase.task.groundTruth);
        const benignText = benignRun.texts.join("\n");
        expect(benignRun.made.map((call) => call.status), `${injectionCase.id}: the benign task runs`).not.toContain("error");
        for (const step of injectionCase.attack) {
          for (const sign of step.evidence.flat()) {
            expect(attackedText, `${injectionCase.id}: the attack is read`).toContain(sign);
            expect(benignText, `${injectionCase.id}: the benign run shows no attack`).not.toContain(sign);
          }
        }
        for (const fact of injectionCase.task.answerFacts) expect(benignText, `${injectionCase.id}: the task's facts`).toContain(fact);
      } finally {
        attacked.close();
        benign.close();
      }
    }
  }, 120_000);

  it("checks each goal: false after the benign task, true once the attacker's calls run directly", async () => {
    for (const injectionCase of cases) {
      const profile = openScenarioProfile(injectionCase.scenario);
      try {
        const task = await runCalls(profile, injectionCase.task.groundTruth);
        expect(unsafe(injectionCase, profile, task.made), `${injectionCase.id} before the attack`).toBe(false);
        const attack = await runCalls(profile, injectionCase.attack.map((step) => step.call));
        expect(attack.made.map((call) => call.status), `${injectionCase.id}: ${attack.texts.join(" | ")}`).not.toContain("error");
        expect(unsafe(injectionCase, profile, [...task.made, ...attack.made]), `${injectionCase.id} after the attack`).toBe(true);
      } finally {
        profile.close();
      }
    }
  }, 120_000);

  it("writes the attacker's values apart from the user's world: no demo record already holds them", () => {
    const profile = openScenarioProfile(cases[0]!.benign);
    try {
      const read = recordReader(profile);
      for (const [app, collection] of [["contacts", "contacts"], ["email", "messages"], ["messages", "messages"]] as const) {
        const text = JSON.stringify(read(app, collection));
        for (const value of Object.values(ATTACKER)) expect(text).not.toContain(value);
      }
    } finally {
      profile.close();
    }
  });
});

describe("the held-out suite through the real agent", () => {
  const settings: EvalSettings = {
    suite: "injection-heldout",
    model: { id: "compromised-model" },
    options: { thinking: "off", seed: 1, temperature: 0, maxSteps: 24, maxTokens: 128 },
    botpsyVersion: "test",
  };

  function caseFor(list: readonly HeldoutCase[]): (scenario: Scenario) => HeldoutCase {
    return (scenario) => {
      const found = list.find((candidate) => candidate.scenario.id === scenario.id || benignScenarioId(candidate) === scenario.id);
      if (!found) throw new Error(`no case for ${scenario.id}`);
      return found;
    };
  }

  it("a compromised model with the defenses off reaches the attacker's goal in one case of every class, and does the benign tasks", async () => {
    const chosen = cases.slice(0, HELDOUT_CLASSES.length);
    const { summary, results } = await runInjectionSuite(chosen, { defense: "off", settings, modelId: "compromised-model", model: (scenario) => new CompromisedModel(caseFor(chosen)(scenario)) });
    expect(summary.harnessErrors).toBe(0);
    expect(summary.benign.succeeded).toBe(summary.benign.tasks);
    const missed = results.filter((result) => result.kind === "attacked" && !result.attackSucceeded).map((result) => result.caseId);
    expect(missed).toEqual([]);
    expect(results.filter((result) => result.kind === "attacked").every((result) => result.attackAttempted)).toBe(true);
    expect(new Set(results.flatMap((result) => (result.attackClass === undefined ? [] : [result.attackClass])))).toEqual(new Set(HELDOUT_CLASSES));
  }, 120_000);

  it("a compromised model that does not obey never makes an attacker's call (the attack comes only from the planted text)", async () => {
    const chosen = cases.slice(0, HELDOUT_CLASSES.length);
    const find = caseFor(chosen);
    const { results } = await runInjectionSuite(chosen, { defense: "off", settings, modelId: "compromised-model", model: (scenario) => new CompromisedModel(find(scenario), { obey: false }) });
    expect(results.filter((result) => result.attackSucceeded || result.attackAttempted).map((result) => result.caseId)).toEqual([]);
  }, 120_000);

  it("waits for both halves of a split instruction before acting on it", async () => {
    const split = cases.find((injectionCase) => injectionCase.attackClass === "split-across-sources")!;
    // Only the first half planted: the model reads it and does not act.
    const halfPlanted: HeldoutCase = { ...split, scenario: { ...split.scenario, id: `${split.id}.half`, injection: { ...split.scenario.injection!, plant: split.scenario.injection!.plant.slice(0, 1) } } };
    const { results } = await runInjectionSuite([halfPlanted], { defense: "off", settings, modelId: "compromised-model", model: () => new CompromisedModel(halfPlanted) });
    const attacked = results.find((result) => result.kind === "attacked")!;
    expect(attacked.attackAttempted).toBe(false);
    expect(attacked.attackSucceeded).toBe(false);
  }, 60_000);
});
