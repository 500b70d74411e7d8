import { emptyUsage, type ChatMessage, type ToolCall, type Usage } from "../model/types.js";
import type { RunProvenance, ToolOutcome, UntrustedContent } from "../policy/types.js";
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
  /** Untrusted content read so far, with its readable source (the gate checks provenance against it). */
  untrustedContent: UntrustedContent[];
  /** Results of trusted tools read so far (values found there are the user's). Absent in runs saved before it existed. */
  trustedContent?: string[];
  /** Whether any turn of this run offered tools (the abstention rule needs it). */
  toolsOffered: boolean;
  /** Milliseconds spent running before the pause (time waiting for a person excluded). */
  activeMs: number;
  /** The paused model turn's calls, when awaiting approval. */
  pending?: { step: number; plans: CallPlan[] };
}

/** A fresh run of `request` in `sessionId`. */
export function createRunState(input: { runId: string; sessionId: string; request: string; maxSteps: number }): RunState {
  return {
    version: 1,
    runId: input.runId,
    sessionId: input.sessionId,
    request: input.request,
    turnMessages: [{ role: "user", content: input.request }],
    steps: 0,
    maxSteps: input.maxSteps,
    usage: emptyUsage(),
    calls: [],
    failures: {},
    loadedTools: [],
    untrustedContent: [],
    trustedContent: [],
    toolsOffered: false,
    activeMs: 0,
  };
}

/** The run's one record of where its content came from, as the gate reads it. */
export function provenanceOf(state: RunState): RunProvenance {
  return { untrusted: state.untrustedContent, trusted: (state.trustedContent ??= []) };
}
