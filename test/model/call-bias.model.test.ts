import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAdapterMetadata, recordedCallBias, type AdapterMetadata } from "../../src/model/lora-adapter.js";
import { LlamaChatModel } from "../../src/model/llama-chat-model.js";
import { parseCallBias, tunedModelId } from "../../src/model/shipped-adapter.js";
import { loadLocatedModel, locateModel } from "../../src/runtime.js";
import { calibratedAdapterPath as adapterPath, calibratedCopy, shippedRecord, TIMER } from "../support/calibration-fixture.js";

const modelPath = process.env.BOTPSY_TEST_MODEL!;

const REQUEST = [{ role: "user" as const, content: "Start a 12 minute timer called Tea" }];

describe("call bias: how much more evidence a model needs to open a call where it may answer in words", () => {
  let directory: string;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "botpsy-call-bias-"));
  });

  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it("reads --call-bias as a logit offset from -20 to 0 and refuses anything else, saying what to give", () => {
    expect(parseCallBias("-2")).toBe(-2);
    expect(parseCallBias("0")).toBe(0);
    expect(parseCallBias("-0.5")).toBe(-0.5);
    for (const bad of ["1", "abc", "-30", "", "Infinity"]) expect(() => parseCallBias(bad), bad).toThrow(/give a number from -20 to 0/);
    expect(tunedModelId("m", "/x/a.gguf", -2)).toBe("m+lora:a+call-bias:-2");
    expect(tunedModelId("m", undefined, 0)).toBe("m");
  });

  it("refuses a bias out of range when a model loads", async () => {
    await expect(LlamaChatModel.load({ modelPath, threads: 1, callBias: 3 })).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("weighs only a free choice: a strong bias turns the tuned model's call into words under tool choice auto, and a forced call still comes", async () => {
    const eager = await LlamaChatModel.load({ modelPath, contextSize: 2048, threads: 1, maxConversations: 1, lora: adapterPath });
    try {
      const free = await eager.generate({ messages: REQUEST, tools: [TIMER], toolChoice: "auto", maxTokens: 48 }).result;
      expect(free.toolCalls.map((call) => call.name)).toEqual(["start_timer"]);
    } finally {
      await eager.dispose();
    }
    const reluctant = await LlamaChatModel.load({ modelPath, contextSize: 2048, threads: 1, maxConversations: 1, lora: adapterPath, callBias: -20 });
    try {
      expect(reluctant.callBias).toBe(-20);
      const free = await reluctant.generate({ messages: REQUEST, tools: [TIMER], toolChoice: "auto", maxTokens: 48 }).result;
      expect(free.toolCalls).toEqual([]);
      expect(free.text.trim().length).toBeGreaterThan(0);
      const forced = await reluctant.generate({ messages: REQUEST, tools: [TIMER], toolChoice: "required", maxTokens: 48 }).result;
      expect(forced.toolCalls.map((call) => call.name)).toEqual(["start_timer"]);
    } finally {
      await reluctant.dispose();
    }
  });

  it("applies the calibration an adapter's record carries unless the command sets one", async () => {
    const record = shippedRecord();
    const { adapter: calibrated, models } = calibratedCopy(directory, modelPath, { ...record, callBias: -3 });
    expect(recordedCallBias(readAdapterMetadata(calibrated))).toBe(-3);
    const { callBias: _calibration, ...uncalibrated } = record;
    expect(recordedCallBias(uncalibrated as unknown as AdapterMetadata)).toBe(0);
    const located = await locateModel({ directory: models });
    const recorded = await loadLocatedModel(located, { threads: 1, maxConversations: 1, lora: calibrated });
    try {
      expect(recorded.callBias).toBe(-3);
      expect(recorded.id).toBe("smollm2-135m-instruct-q4_1+lora:calibrated+call-bias:-3");
    } finally {
      await recorded.dispose();
    }
    const overridden = await loadLocatedModel(located, { threads: 1, maxConversations: 1, lora: calibrated, callBias: 0 });
    try {
      expect(overridden.callBias).toBe(0);
      expect(overridden.id).toBe("smollm2-135m-instruct-q4_1+lora:calibrated");
    } finally {
      await overridden.dispose();
    }
  });
});
