import { describe, expect, it } from "vitest";
import { assessAnswer, boundAnswer, isRepetitive } from "../../src/agent/answer-hygiene.js";
import { classifyRequest, judgeRun, namedThings, OUTCOME_EXIT_CODES } from "../../src/agent/outcome.js";
import type { AgentOutcome, CallRecord } from "../../src/agent/types.js";

function outcome(fields: Partial<AgentOutcome>): AgentOutcome {
  return {
    runId: "run-1",
    sessionId: "s-1",
    stopReason: "answered",
    answer: "",
    calls: [],
    usage: { promptTokens: 1, cachedPromptTokens: 0, outputTokens: 1, reasoningTokens: 0 },
    steps: 2,
    durationMs: 1,
    pendingApprovals: [],
    ...fields,
  };
}

function record(name: string, risk: CallRecord["risk"], status: CallRecord["status"], args: Record<string, unknown> = {}, error?: CallRecord["error"]): CallRecord {
  return { call: { id: `call-${name}`, name, arguments: args }, risk, status, durationMs: 1, step: 1, ...(error ? { error } : {}), ...(status === "ok" ? { result: { ok: true } } : {}) };
}

describe("run outcomes", () => {
  it("tells requests for a change from questions", () => {
    expect(classifyRequest("Set an alarm for 7 am tomorrow")).toBe("effect");
    expect(classifyRequest("Could you please turn off wifi")).toBe("effect");
    expect(classifyRequest("Remind me to call the dentist by Friday")).toBe("effect");
    expect(classifyRequest("What is 2+2?")).toBe("answer");
    expect(classifyRequest("Show me my alarms")).toBe("answer");
  });

  it("does not count a run that stopped to ask for values it would have guessed as done, for a change or a question", () => {
    const asked = "I did not run get_stock_price: I could not find its symbol in what you said, and I will not guess it. Tell me the symbol, or ask me something else.";
    const guessed = record("get_stock_price", "read", "error", { symbol: "AAPL" }, { code: "ungrounded_arguments", message: 'Not run: the user never gave symbol ("AAPL")' });
    const question = judgeRun(outcome({ stopReason: "abstained", answer: asked, calls: [guessed] }), "What is the stock trading at?");
    expect(question).toMatchObject({ outcome: "failed", exitCode: 1, answer: asked });
    expect(question.reason).toBe("Not done: get_stock_price needs values botpsy could not find in the request; it asked for them instead of guessing.");
    const change = judgeRun(outcome({ stopReason: "abstained", answer: asked, calls: [{ ...guessed, risk: "write" }] }), "Buy some shares");
    expect(change).toMatchObject({ outcome: "failed", answer: asked });
  });

  it("finishes a change only when a call that changes something succeeded; find_tools never counts", () => {
    const set = record("set_alarm", "write", "ok", { time: "07:00" });
    const finished = judgeRun(outcome({ answer: "Your alarm is set for 7:00.", calls: [record("find_tools", "read", "ok"), set] }), "Set an alarm for 7 am");
    expect(finished).toMatchObject({ outcome: "finished", exitCode: 0, answer: "Your alarm is set for 7:00." });

    const onlySearched = judgeRun(outcome({ answer: "Done: find tools. tools: 5 items", calls: [record("find_tools", "read", "ok")] }), "Set an alarm for 7 am");
    expect(onlySearched).toMatchObject({ outcome: "failed", exitCode: 1 });
    expect(onlySearched.reason).toMatch(/Not done: only searched for tools \(find_tools\)/);
    expect(onlySearched.answer).not.toContain("Done: find tools");
    const searchedForAnswer = judgeRun(outcome({ answer: "Done: find tools. tools: 5 items", calls: [record("find_tools", "read", "ok")] }), "What's on my calendar tomorrow?");
    expect(searchedForAnswer).toMatchObject({ outcome: "failed", answer: "The model produced no usable answer (it wrote no answer)." });

    const failedWrite = judgeRun(outcome({ stopReason: "abstained", calls: [record("set_alarm", "write", "error", {}, { code: "invalid_time", message: "bad time" })] }), "Set an alarm");
    expect(failedWrite.outcome).toBe("failed");
    expect(failedWrite.reason).toContain("invalid_time");

    const wordsOnly = judgeRun(outcome({ answer: "Sure, I set your alarm!" }), "Set an alarm for 7");
    expect(wordsOnly.outcome).toBe("failed");
    expect(wordsOnly.answer).toContain("no tool was used");
  });

  it("says which error was still standing when a change was not done, not the first one a retry fixed", () => {
    const calls = [
      record("set_alarm", "write", "error", { time: "2026-12-01" }, { code: "invalid_time", message: "Give a time of day." }),
      record("set_alarm", "write", "error", { time: "07:00", repeat: "0" }, { code: "invalid_repeat", message: "Use daily or weekdays." }),
      record("set_alarm", "write", "skipped", { time: "07:00", repeat: "0" }, { code: "repeated_call", message: "This exact call already failed twice." }),
    ];
    const verdict = judgeRun(outcome({ calls }), "Set an alarm for 7");
    expect(verdict).toMatchObject({ outcome: "failed", exitCode: 1 });
    expect(verdict.reason).toBe("Not done: set_alarm did not succeed (invalid_repeat: Use daily or weekdays.).");
    // The step limit's note on a call it did not run says nothing of what was wrong either.
    const atLimit = [...calls.slice(0, 2), record("set_alarm", "write", "skipped", { time: "07:00", repeat: "0" }, { code: "step_limit", message: "Not run: the limit of 10 steps was reached." })];
    expect(judgeRun(outcome({ stopReason: "step_limit", calls: atLimit }), "Set an alarm for 7").reason).toBe("Not done: set_alarm did not succeed (invalid_repeat: Use daily or weekdays.).");
  });

  it("fails a change made under another name than the request gave", () => {
    const wrongFile = judgeRun(outcome({ answer: "Created.", calls: [record("write_file", "write", "ok", { path: "herb_path.txt", content: "eggs" })] }), "Create a file called groceries.txt with eggs");
    expect(wrongFile.outcome).toBe("failed");
    expect(wrongFile.reason).toContain('"groceries.txt"');
    expect(namedThings('Write "Packing list" to notes.md')).toEqual(["notes.md", "Packing list"]);
  });

  it("finishes a question answered in words, with or without tools; fails an unusable answer", () => {
    expect(judgeRun(outcome({ stopReason: "abstained", answer: "2 + 2 = 4" }), "What is 2+2?")).toMatchObject({ outcome: "finished", exitCode: 0 });
    const looked = judgeRun(outcome({ answer: "You have 2 events tomorrow.", calls: [record("list_events", "read", "ok")] }), "What's on my calendar tomorrow?");
    expect(looked).toMatchObject({ outcome: "finished", reason: "Answered after list_events." });
    const looping = judgeRun(outcome({ answer: "Business: Business: Business: Business: Business: Business:", calls: [record("list_events", "read", "ok")] }), "What's on my calendar?");
    expect(looping).toMatchObject({ outcome: "failed", answerProblem: "repetition" });
    expect(looping.answer).toMatch(/^The model produced no usable answer \(it repeated itself\)\. What was done: list_events\./);
    expect(judgeRun(outcome({ answer: "" }), "What is the capital of France?").outcome).toBe("failed");
    expect(judgeRun(outcome({ answer: "I'm sorry, but I can't access your calendar." }), "What's on my calendar?").outcome).toBe("failed");
  });

  it("reports approval, decline, refusal, error and abort with their own exit codes", () => {
    const request = { id: "approval-1-1", call: { id: "c", name: "send_email", arguments: {} }, risk: "send" as const, preview: "send", reason: "send needs approval" };
    const paused = judgeRun(outcome({ stopReason: "awaiting_approval", pendingApprovals: [request] }), "Email Frank");
    expect(paused).toMatchObject({ outcome: "needs_approval", exitCode: 3 });
    expect(paused.reason).toContain("run-1");
    const declined = judgeRun(outcome({ answer: "OK.", calls: [record("send_email", "send", "declined", {}, { code: "declined_by_user", message: "declined" })] }), "Email Frank");
    expect(declined).toMatchObject({ outcome: "declined", exitCode: 4 });
    const refused = judgeRun(outcome({ calls: [record("delete_email", "destructive", "declined", {}, { code: "blocked_by_policy", message: "blocked by policy: never delete" })] }), "Delete all my email");
    expect(refused).toMatchObject({ outcome: "refused", exitCode: 5 });
    expect(judgeRun(outcome({ stopReason: "error", error: { code: "model_failed", message: "The model crashed." } }), "Hi").outcome).toBe("failed");
    expect(judgeRun(outcome({ stopReason: "aborted" }), "Hi")).toMatchObject({ outcome: "aborted", exitCode: 130 });
    expect(new Set(Object.values(OUTCOME_EXIT_CODES)).size).toBe(Object.keys(OUTCOME_EXIT_CODES).length);
  });

  it("replaces the unusable words of a finished change with what was done", () => {
    const verdict = judgeRun(outcome({ answer: "<|im_start|>user\nthanks<|im_end|>", calls: [record("set_alarm", "write", "ok", { time: "07:00" })] }), "Set an alarm for 7");
    expect(verdict).toMatchObject({ outcome: "finished", answerProblem: "template_imitation", answer: "What was done: set_alarm (time 07:00)." });
  });
});

describe("answer hygiene", () => {
  it("detects repetition, template imitation and code nobody asked for", () => {
    expect(isRepetitive("I'm sorry for your loss, my god. ".repeat(6))).toBe(true);
    expect(isRepetitive("Line one is here\nLine one is here\nLine one is here")).toBe(true);
    expect(isRepetitive("You have two events tomorrow: a call with Lena at 16:00 and lunch with Maria at 12:30.")).toBe(false);
    expect(assessAnswer("User: what time is it?\nAssistant: 9", "what time is it").problem).toBe("template_imitation");
    expect(assessAnswer("```python\nprint(4)\n```", "What is 2+2?").problem).toBe("unrequested_code");
    expect(assessAnswer("```python\nprint(4)\n```", "Write a python script that prints 4").usable).toBe(true);
    expect(assessAnswer("   ", "hi")).toMatchObject({ usable: false, problem: "empty" });
  });

  it("bounds a long answer at a sentence end and says it was cut", () => {
    const long = "This is a sentence. ".repeat(10).trim();
    const bounded = boundAnswer(long, 50);
    expect(bounded.length).toBeLessThanOrEqual(52);
    expect(bounded.endsWith("sentence. …")).toBe(true);
    expect(assessAnswer(long, "tell me", 50).cut).toBe(true);
    expect(assessAnswer("short", "tell me", 50)).toMatchObject({ cut: false, text: "short" });
  });
});
