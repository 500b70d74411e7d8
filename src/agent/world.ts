import type { Store } from "../store/store.js";
import type { Tool } from "../tools/tool.js";

/**
 * What the agent needs of the user's world, as an interface the agent owns:
 * a store (sessions and paused runs live there, and every call runs in one of
 * its transactions), a source of tools and a clock. A profile of apps is one;
 * a test or a benchmark can give another.
 */
export interface AgentWorld {
  readonly store: Store;
  readonly environment: {
    now(): Date;
    readonly timeZone: string;
  };
  /** Every tool the world offers (the default ToolBox holds them all). */
  tools(): Tool[];
  /** Run one call that may change state as one journaled, undoable action. */
  runTool(tool: Tool, args: unknown, options: { signal?: AbortSignal; sessionId?: string; runId?: string; callId?: string }): Promise<{ value: unknown }>;
}
