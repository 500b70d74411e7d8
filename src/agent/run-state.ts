import type { ChatMessage, ToolCall, Usage } from "../model/types.js";
import type { ToolOutcome } from "./tool-result-format.js";
import type { ApprovalRequest, CallRecord } from "./types.js";

/** What the agent decided to do with one call of a model turn, before running any. */
export type CallPlan =
  | { kind: "run"; call: ToolCall; reason?: string }
  | { kind: "ask"; call: ToolCall; request: ApprovalRequest }
  | { kind: "resolved"; call: ToolCall; outcome: Exclude<ToolOutcome, { status: "ok" }> };

/**
 * Everything needed to continue a run, as JSON: saved in the store when a run
 * pauses for approval, so another process can resume it.
 */
export interface RunState {
  version: 1;
  runId: string;
  sessionId: string;
  /** The request of this user turn. */
  request: string;
  /** Messages of this user turn so far (user, assistant, tool). */
  turnMessages: ChatMessage[];
  /** Model turns taken in this user turn. */
  steps: number;
  maxSteps: number;
  usage: Usage;
  calls: CallRecord[];
  /** Repeated-failure counts by call key. */
  failures: Record<string, number>;
  /** Tools `find_tools` loaded in this user turn. */
  loadedTools: string[];
  /** Untrusted content read so far (the gate checks provenance against it). */
  untrustedContent: { tool: string; source: string; text: string }[];
  /** Whether any turn of this run offered tools (the abstention rule needs it). */
  toolsOffered: boolean;
  /** Milliseconds spent running before the pause (time waiting for a person excluded). */
  activeMs: number;
  /** The paused model turn's calls, when awaiting approval. */
  pending?: { step: number; plans: CallPlan[] };
}
