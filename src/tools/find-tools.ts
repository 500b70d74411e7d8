import { z } from "zod";
import { defineTool, type Tool } from "./tool.js";
import type { ToolBox } from "./toolbox.js";

export const FIND_TOOLS_NAME = "find_tools";

export interface FoundTool {
  name: string;
  description: string;
}

export interface FindToolsResult {
  tools: FoundTool[];
}

/**
 * The tool a model calls when the tools it was given do not fit: it searches
 * the whole ToolBox, and the agent gives the tools found on the next turn.
 */
export function createFindToolsTool(toolbox: ToolBox): Tool {
  return defineTool({
    name: FIND_TOOLS_NAME,
    description: "Search for more tools when none of the tools you have fits the request. Give a few words saying what you need to do.",
    input: z.object({
      query: z.string().min(1).describe("What the tool should do, in a few words"),
    }),
    risk: "read",
    run: ({ query }): FindToolsResult => ({
      tools: toolbox.search(query, 5).map((tool) => ({ name: tool.name, description: tool.description })),
    }),
  });
}

/** The tool names a `find_tools` result loaded (none when the value is not such a result). */
export function foundToolNames(value: unknown): string[] {
  if (typeof value !== "object" || value === null || !("tools" in value)) return [];
  const tools = (value as { tools: unknown }).tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: unknown) =>
    typeof tool === "object" && tool !== null && typeof (tool as { name?: unknown }).name === "string" ? [(tool as { name: string }).name] : [],
  );
}
