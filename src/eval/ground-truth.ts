import type { ScriptedReply } from "../testing/scripted-model.js";
import type { ArgumentExpectation, Scenario } from "./scenario.js";

/**
 * The ground truth of a scenario as a script of model turns: each expected
 * call in its listed order (one call per turn, so a failing call's error comes
 * back before the next), then an answer holding the words the scenario wants.
 * It proves a scenario can be solved on the real apps; played by
 * `ScriptedModel`, it is a test double, never a measurement of a model.
 */
export function groundTruthTurns(scenario: Scenario): ScriptedReply[][] {
  const perTurn: ScriptedReply[][] = scenario.turns.map(() => []);
  for (const call of scenario.expect.calls ?? []) {
    const turn = perTurn[Math.min(call.turn, perTurn.length - 1)]!;
    const args: Record<string, unknown> = {};
    for (const [name, expectation] of Object.entries(call.arguments)) {
      const value = concreteValue(expectation);
      if (value !== undefined) args[name] = value;
    }
    for (let time = 0; time < Math.max(1, call.minTimes); time++) turn.push({ toolCalls: [{ name: call.name, arguments: args }] });
  }
  const words = (scenario.expect.answerContains ?? []).map((word) => (typeof word === "string" ? word : word[0]!));
  const answer = scenario.expect.noCall ? "Sorry, I cannot do that with the tools I have." : words.length > 0 ? `Done: ${words.join(", ")}.` : "Done.";
  for (const turn of perTurn) turn.push({ text: answer });
  return perTurn;
}

/** The first concrete value a scenario accepts; undefined for "leave it out" and for pure matchers. */
export function concreteValue(expectation: ArgumentExpectation): unknown {
  if (typeof expectation === "object" && expectation !== null && !Array.isArray(expectation)) {
    if ("$oneOf" in expectation && Array.isArray(expectation.$oneOf)) {
      for (const alternative of expectation.$oneOf as ArgumentExpectation[]) {
        const value = concreteValue(alternative);
        if (value !== undefined) return value;
      }
      return undefined;
    }
    if (Object.keys(expectation).some((key) => key.startsWith("$"))) {
      if ("$number" in expectation) return expectation.$number;
      return undefined;
    }
  }
  return expectation;
}
