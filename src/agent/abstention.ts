import type { CallRecord } from "./types.js";

/**
 * Whether a user turn that ended in a text answer counts as an abstention.
 *
 * The rule: when tools were offered and no call of the turn was served, the
 * model did not act on the request: it abstained. "Served" means a call ran
 * successfully, or the user declined it (then the user decided, not the
 * model). So a first reply in plain text is an abstention, and so is giving up
 * after every call failed or was blocked. With no tools offered, a text reply
 * is simply the answer.
 */
export function isAbstention(input: { toolsOffered: boolean; calls: readonly CallRecord[] }): boolean {
  if (!input.toolsOffered) return false;
  return !input.calls.some((record) => record.status === "ok" || (record.status === "declined" && record.error?.code === "declined_by_user"));
}
