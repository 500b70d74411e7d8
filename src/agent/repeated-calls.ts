import type { ToolCall } from "../model/types.js";
import type { CallRecord } from "./types.js";

/**
 * Small models often retry a failing call unchanged. After the same call
 * (same tool, same arguments) failed `limit` times in one user turn, the
 * agent refuses to run it again and tells the model to change approach.
 */
export class RepeatedFailureGuard {
  private readonly failures: Map<string, number>;
  readonly limit: number;

  constructor(limit = 2, failures: Record<string, number> = {}) {
    this.limit = limit;
    this.failures = new Map(Object.entries(failures));
  }

  shouldStop(call: ToolCall): boolean {
    return (this.failures.get(callKey(call)) ?? 0) >= this.limit;
  }

  recordFailure(call: ToolCall): void {
    const key = callKey(call);
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
  }

  toJSON(): Record<string, number> {
    return Object.fromEntries(this.failures);
  }
}

/**
 * A call the model writes again after it failed with a fix its tool named
 * (`retryWith`: "No booking \"porto\". The one that matches is booking-2"),
 * with that fix: a small model told which id to use often writes the same
 * call once more; the second time, it runs as the tool said it should. Only
 * the latest failure of the very same call counts, and only a fix for
 * arguments the call has. The call itself otherwise.
 */
export function withToolFix(call: ToolCall, earlier: readonly CallRecord[]): ToolCall {
  const key = callKey(call);
  const last = earlier.findLast((record) => callKey(record.call) === key);
  const fix = last?.status === "error" ? last.error?.retryWith : undefined;
  if (fix === undefined || !Object.keys(fix).every((name) => name in call.arguments)) return call;
  return { ...call, arguments: { ...call.arguments, ...fix } };
}

/** Tool name plus arguments with keys sorted, so key order does not make two calls differ. */
export function callKey(call: ToolCall): string {
  return `${call.name}:${stableJson(call.arguments)}`;
}

export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${stableJson(entry)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The error a run ends with when a failure keeps coming back (`standingFailure`). */
export const REPEATED_FAILURE_CODE = "repeated_failure";

/** A failure the run stops on: the tool, how often it failed so, and its last error. */
export interface StandingFailure {
  tool: string;
  attempts: number;
  error: { code: string; message: string };
}

/**
 * Whether the calls of this step show a failure the model is not getting
 * past, so the run should end and say what failed rather than go on:
 * a call refused because that exact call already failed `limit` times
 * (the model wrote it once more), or a tool that has now failed `limit` + 1
 * times in this user turn with the same kind of error (the same code) however
 * its arguments changed. A small model after such a failure otherwise retries
 * with new guesses to the step limit, or searches for tools and runs an
 * unrelated one. A failure that names a fix the model takes (one or two
 * tries) never reaches either count.
 */
export function standingFailure(calls: readonly CallRecord[], step: number, limit: number): StandingFailure | undefined {
  const failures = calls.filter((record) => record.status === "error" && record.error !== undefined);
  const summary = (tool: string, code?: string): StandingFailure | undefined => {
    const same = failures.filter((record) => record.call.name === tool && (code === undefined || record.error!.code === code));
    const last = same.at(-1);
    return last === undefined ? undefined : { tool, attempts: same.length, error: last.error! };
  };
  for (const record of calls) {
    if (record.step !== step) continue;
    if (record.status === "skipped" && record.error?.code === "repeated_call") {
      const failed = summary(record.call.name);
      if (failed !== undefined) return failed;
    }
  }
  for (const record of failures) {
    if (record.step !== step) continue;
    const failed = summary(record.call.name, record.error!.code);
    if (failed !== undefined && failed.attempts > limit) return failed;
  }
  return undefined;
}

/** The run's error for a standing failure: what failed, how often, and the app's last words on it. */
export function standingFailureError(failure: StandingFailure): { code: string; message: string } {
  return {
    code: REPEATED_FAILURE_CODE,
    message: `${failure.tool} failed ${failure.attempts} times (${failure.error.code}: ${failure.error.message.slice(0, 200)})`,
  };
}

/** The words a run ends with on a standing failure, from the app's own error: nothing made up. */
export function standingFailureAnswer(failure: StandingFailure): string {
  return `I stopped trying: ${failure.tool.replace(/_/g, " ")} failed ${failure.attempts} times. The last error: ${failure.error.message}`;
}

export const REPEATED_CALL_MESSAGE =
  "This exact call already failed twice. Do not repeat it: change the arguments, use another tool, or tell the user what went wrong.";

/** Lower case, spaces squeezed, trimmed: how two written values are compared. */
function plain(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

/** Where `part` occurs in `text` as whole words (start offsets). */
function wordOccurrences(text: string, part: string): number[] {
  const found: number[] = [];
  if (part === "") return found;
  const escaped = part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  for (const match of text.matchAll(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "gu"))) found.push(match.index);
  return found;
}

/**
 * Whether `shorter`, a whole-word part of `longer`, is only ever said in the
 * user's words as part of `longer` ("Doe" of "John Doe"): then a value of
 * "Doe" is the longer value cut short, not a second thing the user named.
 */
function onlyInsideOf(shorter: string, longer: string, userText: string): boolean {
  const offset = wordOccurrences(longer, shorter)[0];
  if (offset === undefined) return false;
  const insideLonger = new Set(wordOccurrences(userText, longer).map((start) => start + offset));
  return wordOccurrences(userText, shorter).every((start) => insideLonger.has(start));
}

/** Whether a value is the earlier one again, or one of the two the other cut short (see `echoesEarlierCall`); `cut` is set when one was. */
function echoedValue(earlier: unknown, later: unknown, userText: string, cut: { found: boolean }): boolean {
  if (typeof earlier === "string" && typeof later === "string") {
    // Case counts ("AA" and "aa" are two genotypes); spaces around do not.
    if (earlier.replace(/\s+/g, " ").trim() === later.replace(/\s+/g, " ").trim()) return true;
    const [a, b] = [plain(earlier), plain(later)];
    const [shorter, longer] = a.length < b.length ? [a, b] : [b, a];
    if (shorter === "" || shorter.length === longer.length || !onlyInsideOf(shorter, longer, userText)) return false;
    cut.found = true;
    return true;
  }
  if (Array.isArray(earlier) && Array.isArray(later)) {
    return earlier.length === later.length && earlier.every((item, index) => echoedValue(item, later[index], userText, cut));
  }
  if (earlier !== null && later !== null && typeof earlier === "object" && typeof later === "object") {
    return echoedArguments(earlier as Record<string, unknown>, later as Record<string, unknown>, userText, cut);
  }
  return stableJson(earlier) === stableJson(later);
}

function echoedArguments(earlier: Record<string, unknown>, later: Record<string, unknown>, userText: string, cut: { found: boolean }): boolean {
  const keys = new Set([...Object.keys(earlier), ...Object.keys(later)]);
  for (const key of keys) {
    if (!(key in earlier) || !(key in later)) return false;
    if (!echoedValue(earlier[key], later[key], userText, cut)) return false;
  }
  return true;
}

/**
 * Whether a call echoes one made before it in the same model turn: the same
 * tool with the same values but one cut short to a part the user only said
 * inside the whole ("Doe" after "John Doe", "Lakers" after "Los Angeles
 * Lakers"), or the other way round. A small model allowed several calls a
 * turn often writes its one call twice so. The same call again is not an
 * echo (asked for two random numbers, two calls are right), and neither are
 * two things the user named each on their own ("milk and oat milk").
 */
export function echoesEarlierCall(call: ToolCall, earlier: readonly ToolCall[], userText: string): boolean {
  const words = plain(userText);
  return earlier.some((before) => {
    const cut = { found: false };
    return before.name === call.name && echoedArguments(before.arguments, call.arguments, words, cut) && cut.found;
  });
}

export const ECHOED_CALL_MESSAGE = "Not run: the same call as one before it in this turn, with a value cut short. Each call of a turn must ask for something the others do not.";
