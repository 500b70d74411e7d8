import { InvalidInputError } from "../errors.js";
import type { ToolChoice, ToolSpec } from "../model/types.js";
import { buildToolIndex, normaliseTerm, parameterText, searchToolIndex, splitWords, type IndexedTool, type ToolIndexReach } from "./tool-index.js";

export interface RouteDecision {
  toolChoice: ToolChoice;
  /** The best-matching tool and how many distinct request terms it matched. */
  bestTool: string | undefined;
  matchedTerms: number;
  /** Share of the request's content terms the best tool matched (0..1). */
  coverage: number;
  /** The next tool in the ranking, when any other tool matched a term. */
  runnerUp?: { tool: string; matchedTerms: number; score: number };
  /** The best tool's BM25 score. */
  score: number;
  /** Every tool that matched a request term, best first. */
  ranked: string[];
}

export interface ToolRouterOptions {
  /** Force a call when the best tool matches at least this many distinct request terms. Default 2. */
  minimumMatchedTerms?: number;
  /** …or when it matches at least this share of the request's content terms. Default 0.5. */
  minimumCoverage?: number;
  /**
   * When a call is forced and the best tool dominates — it matched more
   * distinct request terms than the runner-up and its score is at least this
   * many times the runner-up's — the choice names it (`{ name }`) instead of
   * "required". `false` never names a tool. Default 2.
   */
  namedToolDominance?: number | false;
  /**
   * Also force a call when the request says a word of a dominant tool's name,
   * however few of its words that covers ("the weather in Lisbon tomorrow").
   * Default false: it helps choose a tool, but on BFCL's irrelevance cases
   * (requests no offered function serves) it cost 3 of 25 correct abstentions.
   */
  clearOnDominantName?: boolean;
}

/** The router reaches less far than the ToolBox: a loose match here forces a call, not just offers a tool. */
const ROUTER_REACH: ToolIndexReach = { prefixFrom: 5, fuzzyFrom: 7, fuzziness: 0.15 };

/**
 * Decides, before the first model turn of a request, whether the request
 * clearly asks for one of the offered tools. Small models asked to choose
 * freely between answering and calling almost always answer in words (a 135M
 * model called a tool in 0 of 50 requests that needed one); forcing a call
 * when the request's own words point at a tool, and leaving the choice free
 * otherwise, keeps abstention possible for requests no tool serves.
 *
 * The request points at a tool when the best match covers enough of its
 * words (or, with `clearOnDominantName`, when it says a word of one tool's
 * name and that tool dominates the ranking). A dominant tool is named in the choice (`{ name }`): a small
 * model forced to call "some" tool still picks a wrong one about as often as
 * the right one.
 */
export function routeToolChoice(request: string, tools: readonly ToolSpec[], options: ToolRouterOptions = {}): RouteDecision {
  const minimumMatchedTerms = options.minimumMatchedTerms ?? 2;
  const minimumCoverage = options.minimumCoverage ?? 0.5;
  const queryTerms = new Set(splitWords(request).map(normaliseTerm).filter((term): term is string => term !== null && term.length > 1));
  const namedToolDominance = options.namedToolDominance ?? 2;
  if (namedToolDominance !== false && !(Number.isFinite(namedToolDominance) && namedToolDominance >= 1)) {
    throw new InvalidInputError(`namedToolDominance ${String(namedToolDominance)} is not usable: give a ratio of 1 or more, or false.`, { code: "invalid_option" });
  }
  const nothing: RouteDecision = { toolChoice: "auto", bestTool: undefined, matchedTerms: 0, coverage: 0, score: 0, ranked: [] };
  if (tools.length === 0 || queryTerms.size === 0) return nothing;
  const index = buildToolIndex(tools.map(indexedSpec));
  const results = searchToolIndex(index, [...queryTerms].join(" "), ROUTER_REACH);
  // Ranked by distinct request terms matched, then by score: a tool that
  // matches two of the request's words beats one that matches one word often.
  const ranking = results
    .map((result) => ({
      id: String(result.id),
      matched: new Set(result.queryTerms).size,
      score: result.score,
      namedInRequest: Object.values(result.match).some((fields) => fields.includes("name")),
    }))
    .sort((a, b) => b.matched - a.matched || b.score - a.score);
  const best = ranking[0];
  if (!best) return nothing;
  const second = ranking[1];
  const coverage = best.matched / queryTerms.size;
  const dominant =
    namedToolDominance !== false && (second === undefined || (best.matched > second.matched && best.score >= namedToolDominance * second.score));
  // A request that says a word of one tool's name, and of no close rival, asks for that tool ("the weather in Lisbon tomorrow").
  const clear =
    best.matched >= minimumMatchedTerms || coverage >= minimumCoverage || (options.clearOnDominantName === true && dominant && best.namedInRequest);
  return {
    toolChoice: !clear ? "auto" : dominant ? { name: best.id } : "required",
    bestTool: best.id,
    matchedTerms: best.matched,
    coverage,
    score: best.score,
    ranked: ranking.map((entry) => entry.id),
    ...(second ? { runnerUp: { tool: second.id, matchedTerms: second.matched, score: second.score } } : {}),
  };
}

function indexedSpec(spec: ToolSpec): IndexedTool {
  return { id: spec.name, name: spec.name, description: spec.description, parameters: parameterText(spec.parameters.properties) };
}
