import { describe, expect, it } from "vitest";
import type { ModelEvent } from "../../src/model/types.js";
import { estimateTokens, ScriptedModel } from "../../src/testing/scripted-model.js";

describe("ScriptedModel", () => {
  it("plays text and tool-call turns in order and records each request", async () => {
    const model = new ScriptedModel(["Hello there.", { toolCalls: [{ name: "list_notes" }] }]);
    const first = model.generate({ messages: [{ role: "user", content: "hi" }] });
    const events: ModelEvent[] = [];
    for await (const event of first) events.push(event);
    expect((await first.result).text).toBe("Hello there.");
    expect(events.filter((event) => event.type === "text-delta").map((event) => (event as { text: string }).text)).toEqual(["Hello ", "there."]);
    expect(events.at(-1)).toEqual({ type: "done", stopReason: "stop" });
    const second = await model.generate({ messages: [{ role: "user", content: "list" }] }).result;
    expect(second.stopReason).toBe("tool-calls");
    expect(second.toolCalls).toEqual([{ id: "call_1", name: "list_notes", arguments: {} }]);
    expect(model.requests.map((request) => request.messages[0]!.content)).toEqual(["hi", "list"]);
    expect(model.turnsPlayed).toBe(2);
  });

  it("lets a turn depend on the conversation", async () => {
    const model = new ScriptedModel([(request) => `You said ${request.messages.at(-1)!.content}`]);
    expect((await model.generate({ messages: [{ role: "user", content: "pears" }] }).result).text).toBe("You said pears");
  });

  it("fails clearly when the script runs out, unless told to repeat the last turn", async () => {
    const strict = new ScriptedModel(["only"]);
    await strict.generate({ messages: [] }).result;
    await expect(strict.generate({ messages: [] }).result).rejects.toMatchObject({ code: "script_exhausted" });
    const repeating = new ScriptedModel(["again"], { whenExhausted: "repeat-last" });
    await repeating.generate({ messages: [] }).result;
    expect((await repeating.generate({ messages: [] }).result).text).toBe("again");
  });

  it("estimates usage from the text and stops waiting when aborted", async () => {
    const model = new ScriptedModel([{ text: "slow", delayMs: 10_000 }]);
    const controller = new AbortController();
    const generation = model.generate({ messages: [{ role: "user", content: "12345678" }], signal: controller.signal });
    controller.abort();
    const result = await generation.result;
    expect(result.stopReason).toBe("aborted");
    expect(result.usage.promptTokens).toBe(estimateTokens("12345678") + estimateTokens("[]"));
  });
});
