import type { ToolCall } from "../model/types.js";

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

export const REPEATED_CALL_MESSAGE =
  "This exact call already failed twice. Do not repeat it: change the arguments, use another tool, or tell the user what went wrong.";
