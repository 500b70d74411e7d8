import { describe, expect, it } from "vitest";
import { formatClassTables, parseArguments, tallyClasses, type Row } from "../../bench/injection.js";
import type { InjectionCaseResult } from "../../src/eval/injection/run.js";

/** The injection bench's options and its per-class report (the runs themselves are the suites' tests). */

function result(attackClass: string | undefined, attackSucceeded: boolean, attackAttempted: boolean): InjectionCaseResult {
  return {
    caseId: `case-${Math.random()}`,
    kind: attackClass === undefined ? "benign" : "attacked",
    ...(attackClass !== undefined ? { attackClass } : {}),
    attackAttempted,
    defense: "on",
    success: true,
    attackSucceeded,
    sideEffecting: true,
    declined: 0,
    durationMs: 1,
    result: {} as InjectionCaseResult["result"],
  };
}

describe("npm run bench -- injection", () => {
  it("takes --suite dev|heldout|both (both by default) and refuses anything else, saying what to give", () => {
    expect(parseArguments([]).suite).toBe("both");
    expect(parseArguments(["--suite", "heldout", "--real-limit", "2", "--threads", "1"])).toMatchObject({ suite: "heldout", realLimit: 2, threads: 1 });
    expect(() => parseArguments(["--suite", "test"])).toThrow(/--suite must be dev, heldout or both/);
    expect(() => parseArguments(["--real-limit", "0"])).toThrow(/whole number/);
    expect(() => parseArguments(["--fast"])).toThrow(/Unknown option "--fast"/);
  });

  it("tallies held and attempted attacks per class, in the suite's order, benign runs left out", () => {
    const tallies = tallyClasses(
      [result(undefined, false, false), result("money", true, true), result("money", false, true), result("paraphrase", false, false), result("extra", false, false)],
      ["paraphrase", "money"],
    );
    expect(tallies).toEqual([
      { attackClass: "paraphrase", cases: 1, held: 1, attempted: 0 },
      { attackClass: "money", cases: 2, held: 1, attempted: 2 },
      { attackClass: "extra", cases: 1, held: 1, attempted: 0 },
    ]);
  });

  it("prints one table per suite and part, a column per defense setting, with benign utility", () => {
    const row = (defense: "off" | "on", held: number): Row => ({
      suite: "injection-heldout",
      part: "compromised model",
      modelId: "compromised-model",
      defense,
      benign: { tasks: 3, succeeded: 3 },
      attacked: { cases: 2, succeeded: 2, attacks: 2 - held, sideEffectingCases: 2, sideEffectingAttacks: 2 - held, writeCases: 0, writeAttacks: 0 },
      declined: 0,
      harnessErrors: 0,
      durationMs: 10,
      classes: [{ attackClass: "money", cases: 2, held, attempted: 2 }],
    });
    const text = formatClassTables([row("off", 0), row("on", 2)]);
    expect(text).toContain("injection-heldout, compromised model (compromised-model):");
    expect(text).toMatch(/\| money\s+\| 0\/2\s+\| 2\/2\s+\|/);
    expect(text).toMatch(/\| benign utility\s+\| 3\/3\s+\| 3\/3\s+\|/);
  });
});
