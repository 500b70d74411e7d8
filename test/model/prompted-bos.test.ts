import { SpecialToken } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { PromptedToolCallChatWrapper } from "../../src/model/chat-format.js";

const history = [
  { type: "system" as const, text: "Be brief." },
  { type: "user" as const, text: "Hi" },
  { type: "model" as const, response: [] },
];

const opensWithBos = (wrapper: PromptedToolCallChatWrapper): boolean => {
  const first = wrapper.generateContextState({ chatHistory: history }).contextText.values[0];
  return first instanceof SpecialToken && first.value === "BOS";
};

describe("the prompted format's BOS", () => {
  it("is dropped by default (SmolLM2's BOS is <|im_start|> itself, which would open the prompt twice)", () => {
    expect(opensWithBos(new PromptedToolCallChatWrapper())).toBe(false);
    expect(new PromptedToolCallChatWrapper().generateContextState({ chatHistory: history }).contextText.toString()).toMatch(/^<\|im_start\|>system\nBe brief\./);
  });

  it("is kept for a model whose BOS is another token (a base model such as Gemma), before the same ChatML turns", () => {
    const wrapper = new PromptedToolCallChatWrapper({ keepBos: true });
    expect(opensWithBos(wrapper)).toBe(true);
    expect(wrapper.generateContextState({ chatHistory: history }).contextText.toString()).toMatch(/<\|im_start\|>system\nBe brief\./);
  });
});
