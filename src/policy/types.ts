import type { ToolCall } from "../model/types.js";
import type { Risk } from "../tools/tool.js";

export type Decision = "allow" | "ask" | "deny";

/** Where a value in the conversation came from. */
export type Origin =
  | { kind: "user" }
  | { kind: "trusted-tool"; tool: string }
  | { kind: "untrusted"; tool: string; source: string };

export interface GateInput {
  call: ToolCall;
  app: string | undefined;
  risk: Risk;
  sessionId: string | undefined;
  /** The user's own words in this conversation (for provenance checks). */
  userText: string;
  /** Text of untrusted content the model has read in this conversation, with its source. */
  untrustedContent: { tool: string; source: string; text: string }[];
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
