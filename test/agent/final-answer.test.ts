import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { composeAnswerFromCalls, isReadableAnswer, MarkupFilter, stripTemplateMarkup } from "../../src/agent/final-answer.js";
import type { AgentEvent, CallRecord } from "../../src/agent/types.js";
import type { Profile } from "../../src/apps/profile.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { openNotesProfile } from "./fixtures/notes-app.js";

describe("stripTemplateMarkup", () => {
  it("removes imitated result and call blocks with their content", () => {
    expect(stripTemplateMarkup('<tool_response>{"id":"alarm-1"}</tool_response>')).toBe("");
    expect(stripTemplateMarkup('I set it. <tool_call>{"name":"x"}</tool_call>')).toBe("I set it.");
    // A block the model never closed runs to the end.
    expect(stripTemplateMarkup('The alarm is set.\n<tool_response>{"time":"07:00"')).toBe("The alarm is set.");
  });

  it("removes special tokens and role turns of chat templates", () => {
    expect(stripTemplateMarkup("<|im_start|>assistant\nYour alarm is set.<|im_end|>")).toBe("Your alarm is set.");
    expect(stripTemplateMarkup("Done.<|im_end|>\n<|im_start|>user\nthanks<|im_end|>")).toBe("Done.");
    expect(stripTemplateMarkup("[TOOL_CALLS] Sent.</s>")).toBe("Sent.");
  });

  it("removes echoes of the tool list the prompt carries", () => {
    expect(stripTemplateMarkup('You can call this tool:\n- find_contact(query: "Frank"): Find a contact.')).toBe("");
    expect(stripTemplateMarkup("I added eggs.\n- add_to_shopping_list(eggs: 4): Add an item")).toBe("I added eggs.");
    // Prose that mentions a function call inline stays.
    expect(stripTemplateMarkup("I called set_alarm(7) for you.")).toBe("I called set_alarm(7) for you.");
  });

  it("keeps ordinary angle brackets and text", () => {
    expect(stripTemplateMarkup("3 < 5 and 7 > 2")).toBe("3 < 5 and 7 > 2");
    expect(stripTemplateMarkup("Your meeting is at 3 pm.")).toBe("Your meeting is at 3 pm.");
  });
});

describe("isReadableAnswer", () => {
  it("wants words, not copied JSON or leftover punctuation", () => {
    expect(isReadableAnswer("Alarm set for 07:00.")).toBe(true);
    expect(isReadableAnswer('{"time":"07:00","label":""}')).toBe(false);
    expect(isReadableAnswer("[1, 2]")).toBe(false);
    expect(isReadableAnswer("")).toBe(false);
    expect(isReadableAnswer(" . , ")).toBe(false);
    expect(isReadableAnswer("{ not json but words here")).toBe(true);
  });

  it("counts figures as words, so a short answer with the facts is kept", () => {
    expect(isReadableAnswer("Done: 06:45, 18:00.")).toBe(true);
    expect(isReadableAnswer("Balance: 2,450.75")).toBe(true);
    expect(isReadableAnswer("Done.")).toBe(false);
  });
});

describe("composeAnswerFromCalls", () => {
  const record = (name: string, status: CallRecord["status"], result?: unknown): CallRecord => ({
    call: { id: name, name, arguments: {} },
    risk: "write",
    status,
    ...(result !== undefined ? { result } : {}),
    durationMs: 1,
    step: 1,
  });

  it("says what the last successful call did, from its result's plain fields", () => {
    const answer = composeAnswerFromCalls([
      record("list_alarms", "ok", { alarms: [{}, {}], count: 2 }),
      record("set_alarm", "ok", { id: "alarm-3", time: "07:00", repeat: "once", nextRing: "2026-12-05 07:00", details: { a: 1 } }),
      record("set_timer", "error"),
    ]);
    expect(answer).toBe("Done: set alarm. id: alarm-3; time: 07:00; repeat: once; next ring: 2026-12-05 07:00.");
  });

  it("counts lists and cuts long results", () => {
    expect(composeAnswerFromCalls([record("list_alarms", "ok", [{}, {}, {}])])).toBe("Done: list alarms. 3 items.");
    expect(composeAnswerFromCalls([record("get_page", "ok", { text: "x".repeat(1000) })])!.length).toBeLessThan(270);
    expect(composeAnswerFromCalls([record("ping", "ok", null)])).toBe("Done: ping.");
  });

  it("has nothing to say when no call succeeded", () => {
    expect(composeAnswerFromCalls([record("set_alarm", "error"), record("send_note", "declined")])).toBeUndefined();
    expect(composeAnswerFromCalls([])).toBeUndefined();
  });
});

describe("MarkupFilter", () => {
  it("streams plain text and holds back from the first possible markup to the end of the turn", () => {
    const filter = new MarkupFilter();
    expect(filter.push("Your alarm ")).toBe("Your alarm ");
    expect(filter.push("is set. <tool_")).toBe("is set. ");
    expect(filter.push('response>{"id":1}</tool_response>')).toBe("");
    expect(filter.end()).toBe("");
    expect(filter.shown).toBe("Your alarm is set. ");
  });

  it("gives back held text that was not markup", () => {
    const filter = new MarkupFilter();
    expect(filter.push("3")).toBe("3");
    expect(filter.push(" < 5")).toBe(" ");
    expect(filter.end()).toBe("< 5");
  });
});

describe("the final answer in the agent", () => {
  let profile: Profile;
  beforeEach(() => {
    profile = openNotesProfile();
  });
  afterEach(() => profile.close());

  async function runToEnd(agent: Agent, request: string): Promise<{ text: string; outcome: Awaited<ReturnType<Agent["run"]>["outcome"]> }> {
    const run = agent.run(request);
    const events: AgentEvent[] = [];
    for await (const event of run) events.push(event);
    const text = events.flatMap((event) => (event.type === "text-delta" ? [event.text] : [])).join("");
    return { text, outcome: await run.outcome };
  }

  it("replaces an answer made only of imitated results with what was done, and never shows the markup", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add_note", arguments: { text: "buy milk" } }] },
      '<tool_response>{"id": "note-1"}</tool_response>',
    ]);
    const { text, outcome } = await runToEnd(new Agent({ model, profile }), "Add a note: buy milk");
    expect(outcome.stopReason).toBe("answered");
    expect(outcome.answer).toBe("Done: add note. id: note-1.");
    expect(text).toBe("Done: add note. id: note-1.");
    expect(text).not.toContain("tool_response");
    // The history keeps the composed answer, so a later turn does not learn the imitation.
    const turns = new Agent({ model: new ScriptedModel([]), profile }).sessions.turns(outcome.sessionId);
    expect(turns.flat().at(-1)).toMatchObject({ role: "assistant", content: "Done: add note. id: note-1." });
  });

  it("keeps the model's words when some are readable, without the markup around them", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add_note", arguments: { text: "buy milk" } }] },
      "I added the note.<|im_end|>\n<|im_start|>user\nthanks",
    ]);
    const { text, outcome } = await runToEnd(new Agent({ model, profile }), "Add a note: buy milk");
    expect(outcome.answer).toBe("I added the note.");
    expect(text.trim()).toBe("I added the note.");
  });

  it("composes nothing when no call succeeded: the run stays an abstention", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "connect_printer", arguments: { name: "hall" } }] }, "<tool_response>{}</tool_response>"]);
    const { outcome } = await runToEnd(new Agent({ model, profile }), "connect the hall printer");
    expect(outcome.stopReason).toBe("abstained");
    expect(outcome.answer).toBe("");
    expect(outcome.calls[0]!.status).toBe("error");
  });
});
