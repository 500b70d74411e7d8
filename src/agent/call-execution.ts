import { z } from "zod";
import { BotpsyError, errorMessage } from "../errors.js";
import { previewCall as previewCallChanges, untilAborted } from "../policy/preview.js";
import type { CallError, ToolOutcome } from "../policy/types.js";
import type { StoreTransaction } from "../store/store.js";
import { ToolError, type Tool, type ToolContext } from "../tools/tool.js";
import type { AgentWorld } from "./world.js";

export const DEFAULT_TOOL_TIMEOUT_MS = 10_000;

export interface CallEnvironment {
  /** The world the call acts on (a profile). */
  profile: AgentWorld;
  sessionId: string;
  /** The run's signal: aborting it stops every call in flight. */
  signal: AbortSignal;
  /** The run and the call, given to the action so its audit entry commits with it. */
  runId?: string;
  callId?: string;
}

class DeadlineExceeded extends Error {}

/**
 * Run one call (`args` as the model wrote them; they are parsed here). Reads run outside any write transaction so that
 * several can run at once; every other call is one journaled, undoable action
 * through the profile. A call that outlives its timeout (or the run) is cut
 * off: its promise is abandoned and its transaction rolled back.
 */
export async function executeCall(tool: Tool, args: unknown, environment: CallEnvironment): Promise<ToolOutcome> {
  const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  try {
    const value = await withDeadline(timeoutMs, environment.signal, (signal) => {
      if (tool.risk === "read") {
        const parsed: unknown = tool.input.parse(args);
        return environment.profile.store.read((store) => tool.run(parsed, contextFor(environment, store, signal, false)));
      }
      const bounded: Tool = { ...tool, run: (parsed, context) => untilAborted(() => tool.run(parsed, context), context.signal) };
      const { sessionId, runId, callId } = environment;
      return environment.profile.runTool(bounded, args, { signal, sessionId, runId, callId }).then((outcome) => outcome.value);
    });
    return { status: "ok", value };
  } catch (error) {
    return { status: "error", error: describeFailure(tool, error, timeoutMs, environment.signal) };
  }
}

/**
 * What a call would do, in words, for an approval request: the policy's
 * risk-aware sentence ("Will send to Frank the text …", "Will charge 42.00 EUR
 * …") from the tool's own `describe` and a rolled-back dry run, bounded by
 * the tool's timeout and the run's signal. When the dry run already fails,
 * that failure comes back too: such a call goes back to the model as that
 * failure, never to the user for an approval that could only end in the same
 * error.
 */
export async function previewCallChecked(
  tool: Tool,
  args: Record<string, unknown>,
  environment: CallEnvironment,
): Promise<{ preview: string; failure?: CallError }> {
  const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const { profile } = environment;
  try {
    const preview = await withDeadline(timeoutMs, environment.signal, (signal) =>
      previewCallChanges({ store: profile.store, now: profile.environment.now, timeZone: profile.environment.timeZone }, tool, args, {
        sessionId: environment.sessionId,
        signal,
      }),
    );
    if (preview.error === undefined) return { preview: preview.text };
    if (environment.signal.aborted) return { preview: preview.text, failure: { code: "aborted", message: `The run was stopped before ${tool.name} finished.` } };
    return {
      preview: preview.text,
      failure: { code: preview.errorCode ?? "tool_failed", message: preview.error, ...(preview.retryWith !== undefined ? { retryWith: preview.retryWith } : {}) },
    };
  } catch (error) {
    const failure = describeFailure(tool, error, timeoutMs, environment.signal);
    return { preview: `${tool.name} would fail: ${failure.message}`, failure };
  }
}

function contextFor(environment: CallEnvironment, store: StoreTransaction, signal: AbortSignal, dryRun: boolean): ToolContext {
  const { profile } = environment;
  return { signal, sessionId: environment.sessionId, store, now: profile.environment.now, timeZone: profile.environment.timeZone, dryRun };
}

async function withDeadline<T>(timeoutMs: number, parent: AbortSignal, work: (signal: AbortSignal) => Promise<T> | T): Promise<T> {
  const controller = new AbortController();
  const onParentAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener("abort", onParentAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new DeadlineExceeded()), timeoutMs);
  try {
    return await untilAborted(() => work(controller.signal), controller.signal);
  } finally {
    clearTimeout(timer);
    parent.removeEventListener("abort", onParentAbort);
  }
}


function describeFailure(tool: Tool, error: unknown, timeoutMs: number, runSignal: AbortSignal): CallError {
  if (error instanceof DeadlineExceeded) {
    return {
      code: "tool_timeout",
      message: `${tool.name} did not finish within ${formatSeconds(timeoutMs)} and was stopped. Try once more later, or use another tool.`,
    };
  }
  if (runSignal.aborted) return { code: "aborted", message: `The run was stopped before ${tool.name} finished.` };
  if (error instanceof z.ZodError) return { code: "invalid_arguments", message: invalidArgumentsMessage(tool, error) };
  if (error instanceof ToolError && error.retryWith !== undefined) return { code: error.code, message: error.message, retryWith: error.retryWith };
  if (error instanceof BotpsyError) return { code: error.code, message: error.message };
  return { code: "tool_failed", message: `${tool.name} failed: ${errorMessage(error)}` };
}

/** Zod issues in words the model can act on: which parameter, what was wrong. */
export function invalidArgumentsMessage(tool: Tool, error: z.ZodError): string {
  const problems = error.issues.slice(0, 5).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "arguments";
    return `${where}: ${issue.message}`;
  });
  return `Invalid arguments for ${tool.name}: ${problems.join("; ")}. Call it again with arguments that match its parameters.`;
}

function formatSeconds(milliseconds: number): string {
  return milliseconds % 1000 === 0 ? `${milliseconds / 1000} s` : `${milliseconds} ms`;
}
