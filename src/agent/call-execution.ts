import { z } from "zod";
import type { Profile } from "../apps/profile.js";
import { BotpsyError, errorMessage } from "../errors.js";
import type { Change, StoreTransaction } from "../store/store.js";
import type { Tool, ToolContext } from "../tools/tool.js";
import type { ToolOutcome } from "./tool-result-format.js";

export const DEFAULT_TOOL_TIMEOUT_MS = 10_000;

export interface CallEnvironment {
  profile: Profile;
  sessionId: string;
  /** The run's signal: aborting it stops every call in flight. */
  signal: AbortSignal;
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
      return environment.profile.runTool(bounded, args, { signal, sessionId: environment.sessionId }).then((outcome) => outcome.value);
    });
    return { status: "ok", value };
  } catch (error) {
    return { status: "error", error: describeFailure(tool, error, timeoutMs, environment.signal) };
  }
}

/**
 * What a call would do, in words, for an approval request: the tool's own
 * `describe`, else a dry run (rolled back) whose changes are listed.
 */
export async function previewCall(tool: Tool, args: unknown, environment: CallEnvironment): Promise<string> {
  return (await previewCallChecked(tool, args, environment)).preview;
}

/**
 * `previewCall`, and the failure when the dry run (or the description) already
 * fails: such a call goes back to the model as that failure, never to the user
 * for an approval that could only end in the same error.
 */
export async function previewCallChecked(tool: Tool, args: unknown, environment: CallEnvironment): Promise<{ preview: string; failure?: { code: string; message: string } }> {
  const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  try {
    const parsed: unknown = tool.input.parse(args);
    if (tool.describe) {
      const describe = tool.describe.bind(tool);
      return { preview: await environment.profile.store.read((store) => describe(parsed, contextFor(environment, store, environment.signal, true))) };
    }
    const changes = await withDeadline(timeoutMs, environment.signal, async (signal) => {
      const outcome = await environment.profile.store.action(
        { tool: tool.name, args, sessionId: environment.sessionId },
        (store) => untilAborted(() => tool.run(parsed, contextFor(environment, store, signal, true)), signal),
        { dryRun: true },
      );
      return outcome.changes;
    });
    return { preview: describeChanges(tool, changes) };
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

/** The work's result, or a rejection as soon as `signal` aborts (a hung tool cannot hold the run). */
function untilAborted<T>(work: () => Promise<T> | T, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve()
      .then(work)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function describeFailure(tool: Tool, error: unknown, timeoutMs: number, runSignal: AbortSignal): { code: string; message: string } {
  if (error instanceof DeadlineExceeded) {
    return {
      code: "tool_timeout",
      message: `${tool.name} did not finish within ${formatSeconds(timeoutMs)} and was stopped. Try once more later, or use another tool.`,
    };
  }
  if (runSignal.aborted) return { code: "aborted", message: `The run was stopped before ${tool.name} finished.` };
  if (error instanceof z.ZodError) return { code: "invalid_arguments", message: invalidArgumentsMessage(tool, error) };
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

/** Stored changes as sentences: "create calendar/events evt-3 {…}", "change … title: "a" → "b"". */
export function describeChanges(tool: Tool, changes: readonly Change[]): string {
  if (changes.length === 0) return `${tool.name} makes no change to stored data: ${tool.description}`;
  const lines = changes.slice(0, 8).map((change) => {
    const where = `${change.app}/${change.collection} ${change.recordId}`;
    if (change.before === null) return `create ${where}: ${shorten(JSON.stringify(change.after), 200)}`;
    if (change.after === null) return `delete ${where}: ${shorten(JSON.stringify(change.before), 120)}`;
    return `change ${where}: ${fieldDifferences(change.before, change.after)}`;
  });
  if (changes.length > 8) lines.push(`and ${changes.length - 8} more changes`);
  return `${tool.name} would ${lines.join("; ")}`;
}

function fieldDifferences(before: unknown, after: unknown): string {
  if (typeof before !== "object" || typeof after !== "object" || before === null || after === null) {
    return `${shorten(JSON.stringify(before), 80)} → ${shorten(JSON.stringify(after), 80)}`;
  }
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const differences: string[] = [];
  for (const key of keys) {
    const a = JSON.stringify((before as Record<string, unknown>)[key]);
    const b = JSON.stringify((after as Record<string, unknown>)[key]);
    if (a !== b) differences.push(`${key}: ${shorten(a ?? "none", 60)} → ${shorten(b ?? "none", 60)}`);
  }
  return differences.length > 0 ? differences.join(", ") : "no visible difference";
}

function shorten(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…`;
}
