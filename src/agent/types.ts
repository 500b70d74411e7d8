import type { ToolCall, Usage } from "../model/types.js";
import type { ApprovalRequest, CallError } from "../policy/types.js";
import type { Risk } from "../tools/tool.js";

export type AgentStopReason = "answered" | "abstained" | "step_limit" | "aborted" | "awaiting_approval" | "error";

/** One executed (or refused) tool call, as the outcome reports it. */
export interface CallRecord {
  call: ToolCall;
  risk: Risk | undefined;
  /** "ok": ran; "error": ran and failed or could not run; "declined": the user or a rule said no; "skipped": never ran. */
  status: "ok" | "error" | "declined" | "skipped";
  result?: unknown;
  error?: CallError;
  durationMs: number;
  step: number;
}

// The approval record is the policy layer's; the agent's callers read these names from here too.
export type { ApprovalDecision, ApprovalRequest, ApprovalScope } from "../policy/types.js";

export type AgentEvent =
  | { type: "step"; step: number }
  /** A model turn is whole; `ranOn` is where it was generated: "local", or the backend's `servedBy` ("peer:home", "openai:…"). */
  | { type: "model-turn"; step: number; ranOn: string }
  | { type: "text-delta"; text: string }
  | { type: "thought-delta"; text: string }
  | { type: "tool-call"; call: ToolCall; risk: Risk | undefined; step: number }
  | { type: "tool-result"; call: ToolCall; result: unknown; durationMs: number }
  | { type: "tool-error"; call: ToolCall; error: { code: string; message: string }; durationMs: number }
  | { type: "approval-request"; request: ApprovalRequest }
  | { type: "done"; outcome: AgentOutcome };

export interface AgentOutcome {
  runId: string;
  sessionId: string;
  stopReason: AgentStopReason;
  /** The final words of the model (also the abstention text). */
  answer: string;
  calls: CallRecord[];
  usage: Usage;
  /** Model turns in this run. */
  steps: number;
  durationMs: number;
  pendingApprovals: ApprovalRequest[];
  error?: { code: string; message: string };
}

export interface AgentRun extends AsyncIterable<AgentEvent> {
  readonly runId: string;
  readonly outcome: Promise<AgentOutcome>;
}
