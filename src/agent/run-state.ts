import { z } from "zod";
import { emptyUsage, type ChatMessage, type ToolCall, type Usage } from "../model/types.js";
import type { RunApproval, RunProvenance, ToolOutcome, UntrustedContent } from "../policy/types.js";
import { RISKS } from "../tools/tool.js";
import type { UngroundedValue } from "./argument-grounding.js";
import type { ApprovalRequest, CallRecord } from "./types.js";

/** What the agent decided to do with one call of a model turn, before running any. */
export type CallPlan =
  | { kind: "run"; call: ToolCall; reason?: string }
  | { kind: "ask"; call: ToolCall; request: ApprovalRequest }
  | {
      kind: "resolved";
      call: ToolCall;
      outcome: Exclude<ToolOutcome, { status: "ok" }>;
      /** For a call refused as ungrounded: the values it guessed (`argument-grounding.ts`). */
      guessed?: UngroundedValue[];
    };

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
  /**
   * The run's approval record: the user's decisions on its requests, each
   * covering one run of exactly its call (the gate reads it). Absent in runs
   * saved before it existed.
   */
  approvals?: RunApproval[];
  /** The paused model turn's calls, when awaiting approval. */
  pending?: { step: number; plans: CallPlan[] };
}

const toolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) });
const messageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({ role: z.literal("assistant"), content: z.string(), thoughts: z.string().optional(), toolCalls: z.array(toolCallSchema).optional() }),
  z.object({ role: z.literal("tool"), toolCallId: z.string(), name: z.string(), content: z.string() }),
]);
const errorSchema = z.object({ code: z.string(), message: z.string(), retryWith: z.record(z.string(), z.string()).optional() });
const riskSchema = z.enum(RISKS);
const requestSchema = z.object({ id: z.string(), call: toolCallSchema, risk: riskSchema, preview: z.string(), reason: z.string() });
const planSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("run"), call: toolCallSchema, reason: z.string().optional() }),
  z.object({ kind: z.literal("ask"), call: toolCallSchema, request: requestSchema }),
  z.object({
    kind: z.literal("resolved"),
    call: toolCallSchema,
    outcome: z.object({ status: z.enum(["error", "declined", "skipped"]), error: errorSchema }),
    guessed: z.array(z.object({ path: z.string(), value: z.union([z.string(), z.number()]) })).optional(),
  }),
]);
const count = z.number().int().nonnegative();

/** What a stored run state must be before a run is resumed from it. */
export const runStateSchema = z.object({
  version: z.literal(1),
  runId: z.string().min(1),
  sessionId: z.string().min(1),
  request: z.string(),
  turnMessages: z.array(messageSchema),
  steps: count,
  maxSteps: z.number().int().positive(),
  usage: z.object({ promptTokens: count, cachedPromptTokens: count, outputTokens: count, reasoningTokens: count }),
  calls: z.array(
    z.object({
      call: toolCallSchema,
      risk: riskSchema.optional(),
      status: z.enum(["ok", "error", "declined", "skipped"]),
      result: z.unknown().optional(),
      error: errorSchema.optional(),
      durationMs: z.number().nonnegative(),
      step: count,
    }),
  ),
  failures: z.record(z.string(), count),
  loadedTools: z.array(z.string()),
  untrustedContent: z.array(z.object({ tool: z.string(), source: z.string(), text: z.string() })),
  trustedContent: z.array(z.string()).optional(),
  toolsOffered: z.boolean(),
  activeMs: z.number().nonnegative(),
  approvals: z
    .array(
      z.object({
        requestId: z.string(),
        call: z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()) }),
        approved: z.boolean(),
        scope: z.enum(["once", "session", "always"]),
        spent: z.boolean().optional(),
      }),
    )
    .optional(),
  pending: z.object({ step: z.number().int().positive(), plans: z.array(planSchema) }).optional(),
});

/** A stored run state checked against `runStateSchema`; the problems, in words, when it does not fit. */
export function parseRunState(value: unknown): { ok: true; state: RunState } | { ok: false; problems: string } {
  const parsed = runStateSchema.safeParse(value);
  if (parsed.success) return { ok: true, state: parsed.data as RunState };
  const problems = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.map(String).join(".") : "(top level)"}: ${issue.message}`)
    .join("; ");
  return { ok: false, problems };
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
    approvals: [],
  };
}

/** The run's one record of where its content came from, as the gate reads it. */
export function provenanceOf(state: RunState): RunProvenance {
  return { untrusted: state.untrustedContent, trusted: (state.trustedContent ??= []) };
}
