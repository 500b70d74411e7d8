import type { CaseResult } from "./results.js";

/**
 * BFCL figures of a results file, aggregated the way the leaderboard does:
 * per category the share of cases passed; "non-live" the unweighted mean of
 * simple, multiple, parallel and parallel_multiple, where simple is itself the
 * unweighted mean of the simple categories of each language run (Python,
 * JavaScript, Java); "live" the mean over all live AST cases (weighted by
 * case count, as the leaderboard weights its live categories); multi-turn
 * the unweighted mean of the multi-turn categories.
 */

/** The suite name BFCL results carry in the common results format. */
export const BFCL_SUITE = "bfcl";

export interface BfclCategoryRow {
  /** The category as the data names it (`simple_python`, `multi_turn_base`, `live_simple`…). */
  category: string;
  /** The name the leaderboard table uses (`simple`, `javascript`, `multi_turn_base`…). */
  title: string;
  total: number;
  passed: number;
  rate: number | undefined;
}

export interface BfclScores {
  /** Built-in categories first in leaderboard order, then any other category run (live files…). */
  categories: BfclCategoryRow[];
  /** Unweighted mean of the simple categories run (python, javascript, java). */
  simple: number | undefined;
  /** Unweighted mean of simple, multiple, parallel, parallel_multiple; undefined unless all four were run. */
  nonLive: number | undefined;
  /** What non-live is made of, for the report to say so. */
  nonLiveParts: string[];
  /** Cases of live_simple, live_multiple, live_parallel, live_parallel_multiple together; undefined when none ran. */
  live: number | undefined;
  /** Correct abstentions in the irrelevance category (live_irrelevance, when run, is a row of its own). */
  irrelevance: number | undefined;
  /** Unweighted mean of multi_turn_base and multi_turn_miss_func; undefined unless both were run. */
  multiTurn: number | undefined;
  multiTurnParts: string[];
}

/** Figures published for other models, shown beside a run's own (percent, full categories). */
export interface PublishedBfclFigures {
  model: string;
  source: string;
  nonLive?: number;
  irrelevance?: number;
  multiTurn?: number;
}

export type PublishedFigure = "nonLive" | "irrelevance" | "multiTurn";

export const PUBLISHED_BFCL: readonly PublishedBfclFigures[] = [
  { model: "Qwen3-0.6B (FC)", source: "BFCL v4 leaderboard", nonLive: 71.79, irrelevance: 80.84, multiTurn: 3.62 },
  { model: "Qwen3-1.7B (FC)", source: "BFCL v4 leaderboard", nonLive: 82.92, irrelevance: 76.54, multiTurn: 11.0 },
  { model: "BotPsy 0.8B", source: "its model card", irrelevance: 86.1, multiTurn: 46.1 },
];

/** Leaderboard order of the categories botpsy ships, with their table names. */
const CATEGORY_TITLES: readonly (readonly [string, string])[] = [
  ["simple_python", "simple"],
  ["multiple", "multiple"],
  ["parallel", "parallel"],
  ["parallel_multiple", "parallel_multiple"],
  ["simple_javascript", "javascript"],
  ["simple_java", "java"],
  ["irrelevance", "irrelevance"],
  ["multi_turn_base", "multi_turn_base"],
  ["multi_turn_miss_func", "multi_turn_miss_func"],
];

const SIMPLE_CATEGORIES = ["simple_python", "simple_javascript", "simple_java"];
const NON_LIVE_PARTS = ["simple", "multiple", "parallel", "parallel_multiple"];
const LIVE_AST_CATEGORIES = ["live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"];
const MULTI_TURN_CATEGORIES = ["multi_turn_base", "multi_turn_miss_func"];

export function bfclCategoryTitle(category: string): string {
  return CATEGORY_TITLES.find(([name]) => name === category)?.[1] ?? category;
}

function mean(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/**
 * The BFCL figures of these results (the last result of each case counts);
 * undefined when none of them is a BFCL result.
 */
export function computeBfclScores(input: readonly CaseResult[]): BfclScores | undefined {
  const latest = new Map<string, CaseResult>();
  for (const result of input) if (result.suite === BFCL_SUITE) latest.set(result.caseId, result);
  if (latest.size === 0) return undefined;

  const counts = new Map<string, { total: number; passed: number }>();
  for (const result of latest.values()) {
    const count = counts.get(result.group) ?? { total: 0, passed: 0 };
    count.total++;
    if (result.success) count.passed++;
    counts.set(result.group, count);
  }
  const known = CATEGORY_TITLES.map(([name]) => name).filter((name) => counts.has(name));
  const others = [...counts.keys()].filter((name) => !CATEGORY_TITLES.some(([known]) => known === name)).sort();
  const categories: BfclCategoryRow[] = [...known, ...others].map((category) => {
    const count = counts.get(category)!;
    return { category, title: bfclCategoryTitle(category), ...count, rate: count.total === 0 ? undefined : count.passed / count.total };
  });
  const rateOf = (category: string): number | undefined => categories.find((row) => row.category === category)?.rate;
  const pooled = (names: readonly string[]): number | undefined => {
    const rows = categories.filter((row) => names.includes(row.category));
    const total = rows.reduce((sum, row) => sum + row.total, 0);
    return total === 0 ? undefined : rows.reduce((sum, row) => sum + row.passed, 0) / total;
  };

  const simpleRates = SIMPLE_CATEGORIES.map(rateOf).filter((rate): rate is number => rate !== undefined);
  const simple = mean(simpleRates);
  const nonLiveRates = [simple, rateOf("multiple"), rateOf("parallel"), rateOf("parallel_multiple")];
  const nonLive = nonLiveRates.every((rate) => rate !== undefined) ? mean(nonLiveRates as number[]) : undefined;
  const multiTurnRates = MULTI_TURN_CATEGORIES.map(rateOf);
  const multiTurn = multiTurnRates.every((rate) => rate !== undefined) ? mean(multiTurnRates as number[]) : undefined;
  const simpleParts = SIMPLE_CATEGORIES.filter((category) => rateOf(category) !== undefined).map((category) => category.replace("simple_", ""));

  return {
    categories,
    simple,
    nonLive,
    nonLiveParts: NON_LIVE_PARTS.map((part) => (part === "simple" && simpleParts.length > 0 ? `simple (${simpleParts.join(", ")})` : part)),
    live: pooled(LIVE_AST_CATEGORIES),
    irrelevance: rateOf("irrelevance"),
    multiTurn,
    multiTurnParts: [...MULTI_TURN_CATEGORIES],
  };
}
