import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../src/errors.js";
import { toLlamaHistory } from "../../src/model/history.js";

describe("toLlamaHistory", () => {
  it("joins an assistant turn with calls, their results and the answer after them into one model response", () => {
    const history = toLlamaHistory([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather in Paris and Rome?" },
      {
        role: "assistant",
        content: "",
        thoughts: "two cities",
        toolCalls: [
          { id: "a", name: "get_weather", arguments: { city: "Paris" } },
          { id: "b", name: "get_weather", arguments: { city: "Rome" } },
        ],
      },
      { role: "tool", toolCallId: "b", name: "get_weather", content: '{"sky":"sun"}' },
      { role: "tool", toolCallId: "a", name: "get_weather", content: "rain" },
      { role: "assistant", content: "Rain in Paris, sun in Rome." },
    ]);
    expect(history).toEqual([
      { type: "system", text: "Be brief." },
      { type: "user", text: "Weather in Paris and Rome?" },
      {
        type: "model",
        response: [
          { type: "segment", segmentType: "thought", text: "two cities", ended: true },
          { type: "functionCall", name: "get_weather", params: { city: "Paris" }, result: "rain", startsNewChunk: true },
          { type: "functionCall", name: "get_weather", params: { city: "Rome" }, result: { sky: "sun" } },
          "Rain in Paris, sun in Rome.",
        ],
      },
    ]);
  });

  it("uses the exact text a call was generated as, so the cached context matches", () => {
    const raw = ["<tool_call>", '{"name": "x"}'];
    const history = toLlamaHistory(
      [
        { role: "user", content: "go" },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "x", arguments: {} }] },
        { role: "tool", toolCallId: "c1", name: "x", content: "done" },
      ],
      new Map([["c1", raw]]),
    );
    const model = history[1];
    expect(model?.type).toBe("model");
    expect(model?.type === "model" ? model.response[0] : undefined).toMatchObject({ rawCall: raw, result: "done" });
  });

  it("refuses results for unknown calls and calls left without results", () => {
    expect(() => toLlamaHistory([{ role: "user", content: "x" }, { role: "tool", toolCallId: "nope", name: "t", content: "" }])).toThrow(InvalidInputError);
    expect(() =>
      toLlamaHistory([
        { role: "user", content: "x" },
        { role: "assistant", content: "", toolCalls: [{ id: "a", name: "t", arguments: {} }] },
        { role: "user", content: "and?" },
      ]),
    ).toThrow(/no results \(a\)/);
    expect(() =>
      toLlamaHistory([
        { role: "user", content: "x" },
        { role: "assistant", content: "", toolCalls: [{ id: "a", name: "t", arguments: {} }] },
      ]),
    ).toThrow(/without results/);
  });
});
