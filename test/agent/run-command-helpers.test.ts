import { OUTCOME_EXIT_CODES } from "../../src/agent/outcome.js";
import { describe, expect, it } from "vitest";
import type { AgentOutcome, ApprovalRequest, CallRecord } from "../../src/agent/types.js";
import { judgeRun } from "../../src/agent/outcome.js";
import { parseApproveOption } from "../../src/cli/approval-input.js";
import { decideApprovals, outcomeJson, parseMaxSteps, parsePeerTimeout, parseThreads, RunPrinter } from "../../src/cli/commands/run.js";

const request: ApprovalRequest = {
  id: "approval-1-1",
  call: { id: "call_1", name: "send_email", arguments: { to: "frank@example.com" } },
  risk: "send",
  preview: "send_email would create email/outbox out-1",
  reason: "send calls need your approval",
};

describe("botpsy run helpers", () => {
  it("approves everything with --yes, asks [y/N] otherwise, and has no decision without a terminal", async () => {
    expect(await decideApprovals([request], { yes: true })).toEqual([{ requestId: "approval-1-1", approved: true }]);
    const questions: string[] = [];
    const answers = ["y", ""];
    const ask = (question: string): Promise<string> => {
      questions.push(question);
      return Promise.resolve(answers.shift() ?? "");
    };
    expect(await decideApprovals([request, { ...request, id: "approval-1-2" }], { ask })).toEqual([
      { requestId: "approval-1-1", approved: true },
      { requestId: "approval-1-2", approved: false },
    ]);
    expect(questions[0]).toContain("[y/N]");
    expect(questions[0]).toContain("send_email");
    expect(await decideApprovals([request], {})).toBeUndefined();
    // Input that ended (a pipe with no more answers) decides nothing: the run stays paused.
    expect(await decideApprovals([request], { ask: () => Promise.resolve(undefined) })).toBeUndefined();
  });

  it("takes --approve yes|no (or --yes) as a standing decision for scripts", async () => {
    expect(parseApproveOption({ approve: "no" })).toEqual({ approved: false, source: "--approve no" });
    expect(parseApproveOption({ yes: true })).toEqual({ approved: true, source: "--yes" });
    expect(parseApproveOption({})).toBeUndefined();
    expect(() => parseApproveOption({ approve: "maybe" })).toThrow(/--approve must be "yes" or "no"/);
    expect(() => parseApproveOption({ yes: true, approve: "no" })).toThrow(/contradict/);
    expect(await decideApprovals([request], { standing: { approved: false, source: "--approve no" } })).toEqual([{ requestId: "approval-1-1", approved: false }]);
  });

  it("with a standing decision prints the call and the decision once, not a question and the call twice", () => {
    let printed = "";
    const printer = new RunPrinter((text) => (printed += text), { standingDecision: { approved: true, source: "--yes" } });
    printer.event({ type: "tool-call", call: request.call, risk: "send", step: 1 });
    printer.event({ type: "approval-request", request });
    // The resumed run announces the same call again.
    printer.event({ type: "tool-call", call: request.call, risk: "send", step: 1 });
    printer.event({ type: "tool-result", call: request.call, result: { id: "out-1" }, durationMs: 3 });
    expect(printed).toBe(
      ['→ send_email {"to":"frank@example.com"} [send]', "  approved by --yes: send_email would create email/outbox out-1", '  ✓ send_email: {"id":"out-1"} (3 ms)', ""].join("\n"),
    );
    expect(printed).not.toContain("needs approval");
  });

  it("prints calls, results, errors and approval requests as they happen; the answer only at the end", () => {
    let printed = "";
    const printer = new RunPrinter((text) => (printed += text));
    printer.event({ type: "text-delta", text: "Let me check" });
    printer.event({ type: "tool-call", call: request.call, risk: "send", step: 1 });
    printer.event({ type: "tool-result", call: request.call, result: { id: "out-1" }, durationMs: 3 });
    printer.event({ type: "tool-error", call: request.call, error: { code: "offline", message: "No network." }, durationMs: 1 });
    printer.event({ type: "approval-request", request });
    expect(printed).toBe(
      [
        '→ send_email {"to":"frank@example.com"} [send]',
        '  ✓ send_email: {"id":"out-1"} (3 ms)',
        "  ✗ send_email: offline: No network.",
        "? send_email needs approval (send calls need your approval)",
        "  send_email would create email/outbox out-1",
        "",
      ].join("\n"),
    );
  });

  it("exits 0 only when the task finished, and rejects bad numbers", () => {
    expect(OUTCOME_EXIT_CODES.finished).toBe(0);
    for (const outcome of ["needs_approval", "declined", "refused", "failed", "aborted"] as const) expect(OUTCOME_EXIT_CODES[outcome]).not.toBe(0);
    expect(parseMaxSteps("4")).toBe(4);
    expect(parseMaxSteps(undefined)).toBeUndefined();
    expect(() => parseMaxSteps("0")).toThrow(/--max-steps/);
    expect(() => parseThreads("two")).toThrow(/--threads/);
    expect(parsePeerTimeout("60")).toBe(60_000);
    expect(parsePeerTimeout(undefined)).toBeUndefined();
    expect(() => parsePeerTimeout("0")).toThrow(/--peer-timeout must be a number of seconds from 1 to 600/);
    expect(() => parsePeerTimeout("soon")).toThrow(/--peer-timeout/);
  });

  it("says whether an abstained run made no call or made calls that all failed", () => {
    const outcome = (calls: CallRecord[]): AgentOutcome => ({
      runId: "run-1",
      sessionId: "s",
      stopReason: "abstained",
      answer: "",
      calls,
      usage: { promptTokens: 1, cachedPromptTokens: 0, outputTokens: 1, reasoningTokens: 0 },
      steps: 2,
      durationMs: 1,
      pendingApprovals: [],
    });
    const failed: CallRecord = { call: request.call, risk: "send", status: "error", error: { code: "invalid_repeat", message: "bad" }, durationMs: 1, step: 1 };

    let printed = "";
    const run = outcome([failed]);
    new RunPrinter((text) => (printed += text)).outcome(run, judgeRun(run, "Send Frank the agenda"));
    expect(printed).toContain("[failed] Not done: send_email did not succeed (invalid_repeat: bad).");

    const answered = { ...outcome([]), answer: "2 + 2 = 4" };
    const verdict = judgeRun(answered, "What is 2+2?");
    expect(outcomeJson(answered, verdict)).toMatchObject({ outcome: "finished", exitCode: 0, answer: "2 + 2 = 4", stopReason: "abstained" });
  });
});
