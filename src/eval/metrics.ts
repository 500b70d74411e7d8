import { computeBfclScores, type BfclScores } from "./bfcl-scores.js";
import type { CaseResult } from "./results.js";
import { SCENARIO_GROUPS } from "./scenario.js";

/** A count of successes out of a total; `rate` is undefined when there is nothing to count. */
export interface Score {
  total: number;
  passed: number;
  rate: number | undefined;
}

export interface Distribution {
  count: number;
  mean: number | undefined;
  median: number | undefined;
  p90: number | undefined;
  max: number | undefined;
}

export interface Metrics {
  cases: number;
  overall: Score;
  /** Per group (the six plus "other", and any other group a suite uses), single requests and multi-step tasks. */
  groups: Record<string, { single: Score; multi: Score }>;
  /** Mean of the multi-step success rates over the seven groups that have multi-step cases. */
  multiStepAverage: number | undefined;
  singleStepAverage: number | undefined;
  /** Cases that expect no call, and how many the model rightly abstained on. */
  irrelevance: Score;
  calls: { total: number; invalid: number; invented: number; invalidOrInventedRate: number | undefined };
  /** Reasoning tokens spent over successful cases, divided by their number. */
  reasoningTokensPerCorrect: number | undefined;
  outputTokensPerCase: Distribution;
  /** Model turns in successful cases. */
  turnsToCompletion: Distribution;
  /** Wall time per case, in milliseconds. */
  timePerCase: Distribution;
  /** Injected cases, and how many ended with the attacker's goal reached; undefined when none has an injection. */
  unsafe: Score | undefined;
  /** Harness failures (not the model's): cases that could not be run. */
  harnessErrors: number;
  /** Leaderboard figures (per category, non-live, multi-turn), when the results hold BFCL cases. */
  bfcl?: BfclScores;
}

export function score(passed: number, total: number): Score {
  return { total, passed, rate: total === 0 ? undefined : passed / total };
}

export function distribution(values: readonly number[]): Distribution {
  if (values.length === 0) return { count: 0, mean: undefined, median: undefined, p90: undefined, max: undefined };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (fraction: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
  return {
    count: sorted.length,
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    median: sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2,
    p90: at(0.9),
    max: sorted[sorted.length - 1]!,
  };
}

function mean(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/**
 * The figures of one run. When a case appears more than once (a resumed run
 * that redid it), the last result counts.
 */
export function computeMetrics(input: readonly CaseResult[]): Metrics {
  const latest = new Map<string, CaseResult>();
  for (const result of input) latest.set(`${result.suite}\u0000${result.caseId}`, result);
  const results = [...latest.values()];

  const groupNames = [...SCENARIO_GROUPS, ...new Set(results.map((result) => result.group).filter((group) => !(SCENARIO_GROUPS as readonly string[]).includes(group)))];
  const groups: Metrics["groups"] = {};
  for (const group of groupNames) {
    const of = (steps: "single" | "multi"): Score => {
      const cases = results.filter((result) => result.group === group && result.steps === steps && !result.abstainCase);
      return score(cases.filter((result) => result.success).length, cases.length);
    };
    groups[group] = { single: of("single"), multi: of("multi") };
  }
  const rates = (steps: "single" | "multi"): number[] =>
    SCENARIO_GROUPS.map((group) => groups[group]?.[steps].rate).filter((rate): rate is number => rate !== undefined);

  const abstain = results.filter((result) => result.abstainCase);
  const calls = results.flatMap((result) => result.calls);
  const invalid = calls.filter((call) => call.invalid).length;
  const invented = calls.filter((call) => call.invented).length;
  const correct = results.filter((result) => result.success);
  const injected = results.filter((result) => result.injected);

  return {
    cases: results.length,
    overall: score(correct.length, results.length),
    groups,
    multiStepAverage: mean(rates("multi")),
    singleStepAverage: mean(rates("single")),
    irrelevance: score(abstain.filter((result) => result.success).length, abstain.length),
    calls: {
      total: calls.length,
      invalid,
      invented,
      invalidOrInventedRate: calls.length === 0 ? undefined : (invalid + invented) / calls.length,
    },
    reasoningTokensPerCorrect: correct.length === 0 ? undefined : correct.reduce((sum, result) => sum + result.usage.reasoningTokens, 0) / correct.length,
    outputTokensPerCase: distribution(results.map((result) => result.usage.outputTokens)),
    turnsToCompletion: distribution(correct.map((result) => result.modelTurns)),
    timePerCase: distribution(results.map((result) => result.durationMs)),
    unsafe: injected.length === 0 ? undefined : score(injected.filter((result) => result.unsafe === true).length, injected.length),
    harnessErrors: results.filter((result) => result.error !== undefined).length,
    ...withBfcl(computeBfclScores(results)),
  };
}

function withBfcl(bfcl: BfclScores | undefined): { bfcl?: BfclScores } {
  return bfcl === undefined ? {} : { bfcl };
}

export function formatRate(rate: number | undefined): string {
  return rate === undefined ? "–" : `${(rate * 100).toFixed(1)}%`;
}
