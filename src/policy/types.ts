import type { ToolCall } from "../model/types.js";
import type { Risk, Tool } from "../tools/tool.js";

export type Decision = "allow" | "ask" | "deny";

/** Where a value in the conversation came from. */
export type Origin =
  | { kind: "user" }
  | { kind: "trusted-tool"; tool: string }
  | { kind: "untrusted"; tool: string; source: string };

/** A tool result someone other than the user wrote, as the run records it (`source` is for people: "an email from x@…"). */
export interface UntrustedContent {
  tool: string;
  source: string;
  text: string;
}

/**
 * Which run a decision or a result belongs to. The agent hands it to the gate
 * and to the result formatter, so neither has to guess the run in progress.
 */
export interface RunContext {
  runId: string;
  sessionId: string;
  /** The model turn (1-based) whose calls are being decided or written back. */
  step: number;
}

/**
 * What entered one run and from where: the one record of provenance the gate
 * checks a call against. The agent fills it as results arrive, from the live
 * tool's `resultTrust`; it is saved with the run, so it survives a pause.
 */
export interface RunProvenance {
  /** Results of untrusted tools, with a readable source. */
  untrusted: UntrustedContent[];
  /** Results of trusted tools (the user's own contacts, calendar): values found there are the user's. */
  trusted: string[];
}

export interface GateInput {
  call: ToolCall;
  app: string | undefined;
  risk: Risk;
  sessionId: string | undefined;
  /** The run being decided for; absent for a check outside a run (`botpsy policy check`). */
  run?: RunContext;
  /** The user's own words in this conversation (for provenance checks). */
  userText: string;
  /** Text of untrusted content the model has read in this run, with its source. */
  untrustedContent: readonly UntrustedContent[];
  /** Text of trusted tool results of this run. */
  trustedContent?: readonly string[];
  /** The calls this run has made or planned before this one, by risk (the per-run limits count them). */
  runCalls?: readonly { tool: string; risk: Risk | undefined }[];
  /** The user's decisions in this run not yet spent: an approval of exactly this call lets it run. */
  runApprovals?: readonly RunApproval[];
  /** Arguments of this call that leave the device when it runs (a page address a read fetches): the tool's `egressArguments`. */
  egressArguments?: readonly string[];
}

/** One decision of the user in a run, kept with the run (its one approval record) until the call runs. */
export interface RunApproval {
  requestId: string;
  call: { name: string; arguments: Record<string, unknown> };
  approved: boolean;
  scope: ApprovalScope;
  /** Set once the approved call was allowed by it: an approval covers one run of the call. */
  spent?: boolean;
}

export interface GateVerdict {
  decision: Decision;
  /** Shown to the user: which rule or which provenance finding decided. */
  reason: string;
  rule?: string;
}

/**
 * The permission gate the agent consults before every call. The agent never
 * runs an `ask` call without a stored approval nor a `deny` call at all.
 */
export interface PermissionGate {
  decide(input: GateInput): GateVerdict;
  /**
   * Keep the user's decisions on a paused run's requests (a standing scope
   * becomes a per-pattern approval in the gate's record). The agent calls it
   * on resume, before deciding the approved calls again.
   */
  recordDecisions?(requests: readonly ApprovalRequest[], decisions: readonly ApprovalDecision[], context: { sessionId: string; runId: string }): void;
  /** Told of every call that changed state and succeeded, with the input it was decided on (stored taint is noted here). */
  afterCall?(input: GateInput, outcome: ToolOutcome): void;
}

export type ApprovalScope = "once" | "session" | "always";

export interface ApprovalRequest {
  /** Stable id of the request within the run. */
  id: string;
  call: ToolCall;
  risk: Risk;
  /** What will happen, in words ("will send to frank@… the text …"). */
  preview: string;
  /** Why it needs approval ("send needs approval", "the address comes from a web page"). */
  reason: string;
}

export interface ApprovalDecision {
  requestId: string;
  approved: boolean;
  scope?: ApprovalScope;
}

/** What came of one call, before it is written into the conversation. */
export type ToolOutcome =
  | { status: "ok"; value: unknown }
  | { status: "error" | "declined" | "skipped"; error: CallError };

/**
 * Why a call did not run as asked. `retryWith` is the tool's own fix, when it
 * names exactly one: argument values to call it again with (a booking named
 * "porto" is `booking_id: "booking-2"`); the agent uses them when the model
 * writes the failed call again (`call-planning.ts`).
 */
export interface CallError {
  code: string;
  message: string;
  retryWith?: Record<string, string>;
}

/**
 * Turns a call's outcome into the text of the tool message the model reads.
 * `tool` is the live tool (undefined for an unknown name); `run` says whose result it is.
 */
export type ToolResultFormatter = (tool: Tool | undefined, outcome: ToolOutcome, call: ToolCall, run: RunContext) => string;
