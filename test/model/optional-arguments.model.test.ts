import { describe, expect, it } from "vitest";
import { LlamaChatModel } from "../../src/model/llama-chat-model.js";
import { parseOptionalArguments, tunedModelId } from "../../src/model/shipped-adapter.js";
import type { ToolSpec } from "../../src/model/types.js";
import { calibratedAdapterPath as adapterPath } from "../support/calibration-fixture.js";

const modelPath = process.env.BOTPSY_TEST_MODEL!;

const TIMER: ToolSpec = {
  name: "start_timer",
  description: "Start a countdown timer.",
  parameters: {
    type: "object",
    properties: {
      minutes: { type: "integer", description: "How many minutes" },
      label: { type: "string", description: "A name for the timer" },
      sound: { type: "string", enum: ["bell", "chime", "none"], description: "What it plays when it ends" },
    },
    required: ["minutes"],
  },
};

const REQUEST = [{ role: "user" as const, content: "Start a 12 minute timer" }];

describe("optional arguments: who decides which optional parameters a call writes", () => {
  it("reads --optional-arguments and names a non-default choice in the model id", () => {
    expect(parseOptionalArguments("written")).toBe("written");
    expect(parseOptionalArguments("chosen")).toBe("chosen");
    for (const bad of ["", "all", "Chosen"]) expect(() => parseOptionalArguments(bad), bad).toThrow(/give written .* or chosen/);
    expect(tunedModelId("m", "/x/a.gguf", -3, undefined, "chosen")).toBe("m+lora:a+call-bias:-3+optional-arguments:chosen");
    expect(tunedModelId("m", "/x/a.gguf", -3, undefined, "written")).toBe("m+lora:a+call-bias:-3");
  });

  it("written: the grammar makes the call fill every parameter; chosen: the model leaves out those it does not lean to, and the call still parses", async () => {
    const calls: Record<string, Record<string, unknown>> = {};
    for (const optionalArguments of ["written", "chosen"] as const) {
      const model = await LlamaChatModel.load({ modelPath, contextSize: 2048, threads: 1, maxConversations: 1, lora: adapterPath, optionalArguments });
      try {
        expect(model.optionalArguments).toBe(optionalArguments);
        const result = await model.generate({ messages: REQUEST, tools: [TIMER], toolChoice: "required", maxTokens: 64 }).result;
        expect(result.toolCalls.map((call) => call.name)).toEqual(["start_timer"]);
        calls[optionalArguments] = result.toolCalls[0]!.arguments;
      } finally {
        await model.dispose();
      }
    }
    expect(Object.keys(calls.written!)).toEqual(["minutes", "label", "sound"]);
    expect(calls.chosen!.minutes).toBe(12);
    // Greedy and seeded: this model goes on to a label and closes before the sound.
    expect(Object.keys(calls.chosen!)).toEqual(["minutes", "label"]);
  });
});
