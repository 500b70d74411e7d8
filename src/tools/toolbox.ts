import type MiniSearch from "minisearch";
import { BotpsyError } from "../errors.js";
import { createFindToolsTool, FIND_TOOLS_NAME } from "./find-tools.js";
import { toolSpec, type Tool } from "./tool.js";
import { buildToolIndex, parameterText, searchToolIndex, type IndexedTool, type ToolIndexReach } from "./tool-index.js";

// The index's words, importable from here as before.
export { normaliseTerm, splitWords } from "./tool-index.js";

export interface ToolBoxOptions {
  /**
   * Up to this many tools, every tool is given to the model on every turn.
   * Above it, only the tools relevant to the turn (plus `find_tools`). Default 24.
   */
  threshold?: number;
  /** How many retrieved tools a turn gets when retrieval is active. Default 8. */
  limit?: number;
}

export interface ToolSelectionOptions {
  /** Tools to give the model whatever the retrieval says (loaded by `find_tools`, already used this turn). */
  include?: Iterable<string>;
  /** Override of the box's `limit` for this selection. */
  limit?: number;
}

export class ToolBoxError extends BotpsyError {}

export interface RankedTool {
  tool: Tool;
  score: number;
  /** The query's terms this tool matched. */
  terms: string[];
}

/** The ToolBox reaches further than the router: offering one tool too many costs little. */
const TOOLBOX_REACH: ToolIndexReach = { prefixFrom: 4, fuzzyFrom: 6, fuzziness: 0.2 };

/**
 * Holds the tools an agent may call. A small model reads every tool it is
 * given on every turn, and its accuracy falls as the list grows; so above a
 * threshold the box gives the model only the tools a BM25 search over names,
 * descriptions and parameter names finds relevant to the turn, and a
 * `find_tools` tool to load others.
 */
export class ToolBox {
  readonly threshold: number;
  readonly limit: number;
  private readonly tools = new Map<string, Tool>();
  private readonly findTools: Tool;
  private index: MiniSearch<IndexedTool> | undefined;

  constructor(tools: Iterable<Tool> = [], options: ToolBoxOptions = {}) {
    const threshold = options.threshold ?? 24;
    const limit = options.limit ?? 8;
    if (!Number.isInteger(threshold) || threshold < 0) {
      throw new ToolBoxError("invalid_option", `ToolBox threshold ${threshold} is not usable: give a whole number of tools, 0 or more.`);
    }
    if (!Number.isInteger(limit) || limit < 1) {
      throw new ToolBoxError("invalid_option", `ToolBox limit ${limit} is not usable: give a whole number of tools, 1 or more.`);
    }
    this.threshold = threshold;
    this.limit = limit;
    this.findTools = createFindToolsTool(this);
    this.add(...tools);
  }

  /** Add tools; a name already held is an error (two tools must never share a name). */
  add(...tools: Tool[]): this {
    const adding = new Set<string>();
    for (const tool of tools) {
      if (tool.name === FIND_TOOLS_NAME) {
        throw new ToolBoxError("duplicate_tool", `"${FIND_TOOLS_NAME}" is reserved for the ToolBox's own search tool; rename the tool.`);
      }
      if (this.tools.has(tool.name) || adding.has(tool.name)) {
        throw new ToolBoxError(
          "duplicate_tool",
          `A tool named "${tool.name}" is already in the ToolBox${tool.app ? ` (adding it for app ${tool.app})` : ""}; give one of them another name or a prefix.`,
        );
      }
      adding.add(tool.name);
    }
    for (const tool of tools) this.tools.set(tool.name, tool);
    this.index = undefined;
    return this;
  }

  remove(name: string): boolean {
    const removed = this.tools.delete(name);
    if (removed) this.index = undefined;
    return removed;
  }

  /** The tool of that name, `find_tools` included while retrieval is active. */
  get(name: string): Tool | undefined {
    if (name === FIND_TOOLS_NAME) return this.retrievalActive ? this.findTools : undefined;
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** Every tool held (without `find_tools`), in the order added. */
  list(): Tool[] {
    return [...this.tools.values()];
  }

  get size(): number {
    return this.tools.size;
  }

  /** Whether the box holds more tools than its threshold, so turns get a retrieved subset. */
  get retrievalActive(): boolean {
    return this.tools.size > this.threshold;
  }

  /** The held tools ranked by BM25 relevance to `query`, best first; tools with no matching term are left out. */
  search(query: string, limit = this.limit): Tool[] {
    return this.rank(query, limit).map((ranked) => ranked.tool);
  }

  /** Like `search`, with each tool's BM25 score and the query terms it matched. */
  rank(query: string, limit = this.limit): RankedTool[] {
    const index = this.ensureIndex();
    const results = searchToolIndex(index, query, TOOLBOX_REACH);
    const found: RankedTool[] = [];
    for (const result of results) {
      const tool = this.tools.get(String(result.id));
      if (tool) found.push({ tool, score: result.score, terms: result.queryTerms });
      if (found.length >= limit) break;
    }
    return found;
  }

  /**
   * The tools to give the model for a turn about `query`: all of them up to
   * the threshold; above it the best `limit` matches, the ones asked to be
   * included, and `find_tools`.
   */
  select(query: string, options: ToolSelectionOptions = {}): Tool[] {
    if (!this.retrievalActive) return this.list();
    const chosen = new Map<string, Tool>();
    for (const name of options.include ?? []) {
      const tool = this.tools.get(name);
      if (tool) chosen.set(name, tool);
    }
    for (const tool of this.search(query, options.limit ?? this.limit)) chosen.set(tool.name, tool);
    chosen.set(FIND_TOOLS_NAME, this.findTools);
    return [...chosen.values()];
  }

  private ensureIndex(): MiniSearch<IndexedTool> {
    if (this.index) return this.index;
    this.index = buildToolIndex(this.list().map(indexedTool));
    return this.index;
  }
}

function indexedTool(tool: Tool): IndexedTool {
  const parameters = parameterText(toolSpec(tool).parameters.properties);
  return { id: tool.name, name: `${tool.name} ${tool.app ?? ""}`, description: tool.description, parameters };
}
