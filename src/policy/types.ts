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
  | { status: "error" | "declined" | "skipped"; error: { code: string; message: string } };

/**
 * Turns a call's outcome into the text of the tool message the model reads.
 * `tool` is the live tool (undefined for an unknown name); `run` says whose result it is.
 */
export type ToolResultFormatter = (tool: Tool | undefined, outcome: ToolOutcome, call: ToolCall, run: RunContext) => string;
