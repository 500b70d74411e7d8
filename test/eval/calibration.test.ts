import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { calibrate, calibrateFiles, formatCalibration, runCallBiasOf, successAt } from "../../src/eval/calibration.js";
import type { FirstTurnRecord } from "../../src/eval/first-turn.js";
import type { CaseResult, RunRecord } from "../../src/eval/results.js";
import { parseForcedCallFloor } from "../../src/model/shipped-adapter.js";
import { makeTempDir } from "../support/temp-dir.js";

function result(caseId: string, abstainCase: boolean, success: boolean, firstTurn?: FirstTurnRecord): CaseResult {
  return {
    type: "case",
    suite: "nearmiss",
    caseId,
    settingsKey: "k",
    modelId: "m",
    group: "device",
    steps: "single",
    source: "handwritten",
    labels: [],
    abstainCase,
    injected: false,
    success,
    checks: [],
    calls: [],
    answer: "",
    stopReason: "answered",
    usage: { promptTokens: 0, cachedPromptTokens: 0, outputTokens: 0, reasoningTokens: 0 },
    modelTurns: 1,
    ...(firstTurn !== undefined ? { firstTurn } : {}),
    durationMs: 1,
    finishedAt: "2026-12-03T00:00:00.000Z",
  };
}

const margin = (opening: number, following = 5) => ({ opening, following });

/** A results file's run line for a model id, as `botpsy eval run` writes it. */
function runRecord(id: string, suite: string, cases: number): RunRecord {
  return {
    type: "run",
    settingsKey: "k",
    settings: { suite, model: { id }, options: { thinking: "off", seed: 1, temperature: 0, maxSteps: 10, maxTokens: 512 }, botpsyVersion: "0" },
    startedAt: "2026-12-04T00:00:00.000Z",
    cases,
    alreadyDone: 0,
    concurrency: 1,
  } as RunRecord;
}

describe("calibration: call biases and forced-call floors weighed from the recorded margins", () => {
  it("releases a forced turn below the floor (an abstention then), and turns a free call into words when the bias outweighs its opening lead", () => {
    const forcedNearMiss = result("a", true, false, { choice: "named", callMargin: margin(0.3) });
    expect(successAt(forcedNearMiss, 0, null)).toBe(false);
    expect(successAt(forcedNearMiss, 0, 0.25)).toBe(false);
    expect(successAt(forcedNearMiss, 0, 0.5)).toBe(true);
    const forcedServed = result("b", false, true, { choice: "required", callMargin: margin(2, 0.4) });
    // The lead is the smaller of the two: a later prefix token the model would not write counts.
    expect(successAt(forcedServed, 0, 0.5)).toBe(false);
    expect(successAt(forcedServed, 0, 0.25)).toBe(true);
    const freeCall = result("c", false, true, { choice: "auto", callMargin: margin(1.5) });
    expect(successAt(freeCall, -1, null)).toBe(true);
    expect(successAt(freeCall, -2, null)).toBe(false);
    const freeWordsAnyway = result("d", true, true, { choice: "auto", callMargin: margin(1.5, -2) });
    expect(successAt(freeWordsAnyway, -6, null)).toBe(true);
    // No margin: counted as it ran.
    expect(successAt(result("e", false, true, { choice: "auto" }), -6, 3)).toBe(true);
    expect(successAt(result("f", false, true), -6, 3)).toBe(true);
  });

  it("chooses the most successes; a tie goes to no floor, then the lower floor, then the bias nearer 0", () => {
    const results = [
      result("served", false, true, { choice: "named", callMargin: margin(1) }),
      result("near-miss", true, false, { choice: "named", callMargin: margin(0.2) }),
      result("free-near-miss", true, false, { choice: "auto", callMargin: margin(0.5) }),
    ];
    const grid = calibrate(results, [0, -1, -2], [null, 0.5, 0.75]);
    expect(grid.cells).toHaveLength(9);
    expect(grid.best).toEqual({ callBias: -1, forcedCallFloor: 0.5, successes: 3, calls: 1, abstentions: 2 });
    expect(grid.cells.find((cell) => cell.callBias === 0 && cell.forcedCallFloor === null)!.successes).toBe(1);
    // The forced served case leads the forced near miss: complete separation.
    expect(grid.forcedSeparation).toEqual({ calls: 1, abstentions: 1, auc: 1 });
    // Level on successes: no floor wins.
    const level = calibrate([result("x", false, true, { choice: "named", callMargin: margin(1) })], [0, -1], [null, 0.5]);
    expect(level.best).toMatchObject({ callBias: 0, forcedCallFloor: null });
    expect(() => calibrate([])).toThrow(/no case results/);
    expect(() => calibrate(results, [1])).toThrow(/0 or below/);
  });

  it("reads a results file, refusing a run that had its own bias or floor, and prints the grid with the best cell starred", () => {
    const directory = makeTempDir("botpsy-calibrate-");
    const run = (id: string) => runRecord(id, "nearmiss", 2);
    const cases = [result("served", false, true, { choice: "named", callMargin: margin(1) }), result("near-miss", true, false, { choice: "named", callMargin: margin(0.2) })];
    const good = join(directory, "good.jsonl");
    writeFileSync(good, [run("m+lora:a"), ...cases].map((line) => JSON.stringify(line)).join("\n") + "\n");
    const calibration = calibrateFiles([good]);
    expect(calibration.best).toMatchObject({ callBias: 0, forcedCallFloor: 0.25, successes: 2 });
    const text = formatCalibration(calibration);
    expect(text).toContain("m+lora:a: 2 cases");
    expect(text).toContain("2* (1/1)");
    expect(text).toContain("--call-bias 0 --forced-call-floor 0.25");
    expect(text).toContain("separates the 1 call cases from the 1 abstention cases with AUC 1");
    const floored = join(directory, "floored.jsonl");
    writeFileSync(floored, [run("m+lora:a+call-floor:0.5"), ...cases].map((line) => JSON.stringify(line)).join("\n") + "\n");
    expect(() => calibrateFiles([floored])).toThrow(/--forced-call-floor none/);

    // Parts of one model's runs are weighed together; a case run in two files counts once, as it last ran.
    const part = join(directory, "part.jsonl");
    const more = [result("served-2", false, true, { choice: "named", callMargin: margin(2) }), result("near-miss", true, true, { choice: "named", callMargin: margin(-1) })];
    writeFileSync(part, [run("m+lora:a"), ...more].map((line) => JSON.stringify(line)).join("\n") + "\n");
    const together = calibrateFiles([good, part]);
    expect(together).toMatchObject({ modelId: "m+lora:a", cases: 3, callCases: 2, abstentionCases: 1 });
    expect(together.forcedSeparation).toMatchObject({ calls: 2, abstentions: 1, auc: 1 });
    const other = join(directory, "other.jsonl");
    writeFileSync(other, [run("m+lora:b"), ...more].map((line) => JSON.stringify(line)).join("\n") + "\n");
    expect(() => calibrateFiles([good, other])).toThrow(/calibrate one model's runs at a time/);
    expect(() => calibrateFiles([])).toThrow(/at least one results file/);
  });

  it("weighs a run made at a call bias at that bias and the stronger ones only, together with the same model's runs at bias 0", () => {
    // Opening lead 4: a free call at bias 0 and at -3, words from -4 on (the lead must stay above 0).
    const freeOffTopic = result("off", true, false, { choice: "auto", callMargin: margin(4) });
    expect(successAt(freeOffTopic, -3, null, -3)).toBe(false);
    expect(successAt(freeOffTopic, -4, null, -3)).toBe(true);
    // Lead 2: the run at -3 answered in words already; it stays as it ran.
    const wordsAtRun = result("words", true, true, { choice: "auto", callMargin: margin(2) });
    expect(successAt(wordsAtRun, -6, null, -3)).toBe(true);

    const directory = makeTempDir("botpsy-calibrate-biased-");
    const run = (id: string) => runRecord(id, "apps", 1);
    const biased = join(directory, "biased.jsonl");
    writeFileSync(biased, [run("m+lora:a+call-bias:-3"), { ...freeOffTopic, modelId: "m+lora:a+call-bias:-3" }].map((line) => JSON.stringify(line)).join("\n") + "\n");
    const atZero = join(directory, "zero.jsonl");
    const served = result("served", false, true, { choice: "named", callMargin: margin(1) });
    writeFileSync(atZero, [run("m+lora:a"), { ...served, modelId: "m+lora:a" }].map((line) => JSON.stringify(line)).join("\n") + "\n");
    const together = calibrateFiles([biased, atZero]);
    expect(together.modelId).toBe("m+lora:a");
    expect([...new Set(together.cells.map((cell) => cell.callBias))]).toEqual([-3, -4, -5, -6, -8]);
    expect(together.best).toMatchObject({ callBias: -4, forcedCallFloor: null, successes: 2 });
    expect(together.cells.find((cell) => cell.callBias === -3 && cell.forcedCallFloor === null)!.successes).toBe(1);
    // Asked directly for a weaker bias than a case was run at: refused, saying how to get it.
    expect(() => calibrate([{ ...freeOffTopic, modelId: "m+call-bias:-3" }], [0], [null], (one) => runCallBiasOf(one.modelId))).toThrow(/-3 or below only.*--call-bias 0/);
    expect(runCallBiasOf("m+lora:a+call-bias:-2.5+call-floor:1")).toBe(-2.5);
    expect(runCallBiasOf("m+lora:a")).toBe(0);
  });

  it("reads --forced-call-floor none as no floor, whatever an adapter records", () => {
    expect(parseForcedCallFloor("none")).toBeNull();
    expect(parseForcedCallFloor(" None ")).toBeNull();
  });
});
