import MiniSearch, { type SearchResult } from "minisearch";

/**
 * The BM25 index over tools that both the ToolBox (which tools a turn gets)
 * and the router (whether a request points at a tool) search: one tokenizer,
 * one set of fields and one boost, so the two agree on what a word matches.
 * Each keeps its own prefix and fuzzy reach, tuned for its own job.
 */

/** One tool as indexed: its name words, description and parameter text. */
export interface IndexedTool {
  id: string;
  name: string;
  description: string;
  parameters: string;
}

/** How far a search reaches past exact terms: prefixes from some length on, fuzzy matches from a longer one. */
export interface ToolIndexReach {
  /** Terms at least this long also match as prefixes. */
  prefixFrom: number;
  /** Terms at least this long also match fuzzily… */
  fuzzyFrom: number;
  /** …within this share of their length in edits. */
  fuzziness: number;
}

/** The words of names written as snake_case or camelCase, and of plain text. */
export function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
}

const STOP_WORDS = new Set([
  "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "how", "i", "in", "is", "it", "me",
  "my", "of", "on", "or", "please", "the", "this", "to", "what", "with", "you", "your",
]);

/**
 * Lower case, no stop words, a light plural strip so "alarms" finds "alarm".
 * Numbers are dropped: "at 7" says nothing about which tool fits.
 */
export function normaliseTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (STOP_WORDS.has(lower) || /^\d+$/.test(lower)) return null;
  if (lower.length > 4 && lower.endsWith("ies")) return `${lower.slice(0, -3)}y`;
  if (lower.length > 3 && lower.endsWith("s") && !lower.endsWith("ss")) return lower.slice(0, -1);
  return lower;
}

/** The index's tokenizer: how both indexed text and queries become terms. */
export const TOOL_INDEX_TOKENIZER = {
  tokenize: (text: string): string[] => splitWords(text),
  processTerm: normaliseTerm,
} as const;

const FIELDS = ["name", "description", "parameters"] as const;
/** A word of a tool's name counts three times one of its description or parameters. */
const BOOST = { name: 3, description: 1, parameters: 1 } as const;

/** Parameter names and their descriptions, as one text, from a JSON schema's `properties`. */
export function parameterText(properties: unknown): string {
  return Object.entries((properties ?? {}) as Record<string, { description?: unknown }>)
    .map(([name, schema]) => `${name} ${typeof schema.description === "string" ? schema.description : ""}`)
    .join(" ");
}

/** A BM25 index over `tools`. */
export function buildToolIndex(tools: readonly IndexedTool[]): MiniSearch<IndexedTool> {
  const index = new MiniSearch<IndexedTool>({ fields: [...FIELDS], idField: "id", ...TOOL_INDEX_TOKENIZER });
  index.addAll(tools);
  return index;
}

/** The tools that match any term of `query`, by BM25 score, best first. */
export function searchToolIndex(index: MiniSearch<IndexedTool>, query: string, reach: ToolIndexReach): SearchResult[] {
  return index.search(query, {
    boost: { ...BOOST },
    prefix: (term) => term.length >= reach.prefixFrom,
    fuzzy: (term) => (term.length >= reach.fuzzyFrom ? reach.fuzziness : false),
    combineWith: "OR",
  });
}
