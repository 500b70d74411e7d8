import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAdapterMetadata, recordedForcedCallFloor, type AdapterMetadata } from "../../src/model/lora-adapter.js";
import { LlamaChatModel } from "../../src/model/llama-chat-model.js";
import { parseForcedCallFloor, tunedModelId } from "../../src/model/shipped-adapter.js";
import { callMarginLead, type GenerateRequest } from "../../src/model/types.js";
import { loadLocatedModel, locateModel } from "../../src/runtime.js";
import { calibratedAdapterPath as adapterPath, calibratedCopy, shippedRecord, TIMER } from "../support/calibration-fixture.js";

const modelPath = process.env.BOTPSY_TEST_MODEL!;
const SERVED: GenerateRequest = { messages: [{ role: "user", content: "Start a 12 minute timer called Tea" }], tools: [TIMER], maxTokens: 40 };
const UNSERVED: GenerateRequest = { messages: [{ role: "user", content: "Write me a haiku about autumn leaves" }], tools: [TIMER], maxTokens: 40 };

/** Loads the tuned model; with `reportCallMargin`, every request it is given asks for its call margin. */
async function withModel<T>(options: { callBias?: number; forcedCallFloor?: number; reportCallMargin?: boolean }, use: (model: LlamaChatModel) => Promise<T>): Promise<T> {
  const { reportCallMargin, ...load } = options;
  const model = await LlamaChatModel.load({ modelPath, contextSize: 2048, threads: 1, maxConversations: 1, lora: adapterPath, ...load });
  if (reportCallMargin === true) {
    const generate = model.generate.bind(model);
    model.generate = (request) => generate({ ...request, reportCallMargin: true });
  }
  try {
    return await use(model);
  } finally {
    await model.dispose();
  }
}

describe("call margin, and the floor a forced call must clear", () => {
  let directory: string;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "botpsy-call-floor-"));
  });

  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it("reads --forced-call-floor as a logit margin from -20 to 20 and refuses anything else, saying what to give", async () => {
    expect(parseForcedCallFloor("0")).toBe(0);
    expect(parseForcedCallFloor("0.5")).toBe(0.5);
    expect(parseForcedCallFloor("-2")).toBe(-2);
    for (const bad of ["-21", "21", "abc", "", "Infinity"]) expect(() => parseForcedCallFloor(bad), bad).toThrow(/give a number from -20 to 20/);
    expect(tunedModelId("m", "/x/a.gguf", -2, 0.5)).toBe("m+lora:a+call-bias:-2+call-floor:0.5");
    expect(tunedModelId("m", "/x/a.gguf", 0, 0)).toBe("m+lora:a+call-floor:0");
    await expect(LlamaChatModel.load({ modelPath, threads: 1, forcedCallFloor: 30 })).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("measures the margin before any bias, and greedy decoding writes a call exactly when the bias leaves every prefix token ahead", async () => {
    const served = await withModel({ reportCallMargin: true }, async (model) => {
      const call = await model.generate({ ...SERVED, toolChoice: "auto" }).result;
      const words = await model.generate({ ...UNSERVED, toolChoice: "auto" }).result;
      expect(call.toolCalls.map((made) => made.name)).toEqual(["start_timer"]);
      expect(call.callMargin!.opening).toBeGreaterThan(0);
      expect(call.callMargin!.following).toBeGreaterThan(0);
      expect(words.toolCalls).toEqual([]);
      expect(callMarginLead(words.callMargin!)).toBeLessThan(0);
      return call.callMargin!;
    });
    // A bias just short of the opening token's lead still lets the call open; just past it, the model answers in words.
    await withModel({ reportCallMargin: true, callBias: -(served.opening - 0.25) }, async (model) => {
      const result = await model.generate({ ...SERVED, toolChoice: "auto" }).result;
      expect(result.callMargin!.opening).toBeCloseTo(served.opening, 3);
      expect(result.callMargin!.following).toBeCloseTo(served.following, 3);
      expect(result.toolCalls.map((call) => call.name)).toEqual(["start_timer"]);
    });
    await withModel({ callBias: -(served.opening + 0.25) }, async (model) => {
      const result = await model.generate({ ...SERVED, toolChoice: "auto" }).result;
      expect(result.callMargin).toBeUndefined();
      expect(result.toolCalls).toEqual([]);
    });
  });

  it("measuring changes nothing the model writes, free or forced", async () => {
    const plain = await withModel({}, async (model) => [
      await model.generate({ ...SERVED, toolChoice: "auto" }).result,
      await model.generate({ ...UNSERVED, toolChoice: "required" }).result,
      await model.generate({ ...UNSERVED, toolChoice: "auto", maxTokens: 160 }).result,
    ]);
    const measured = await withModel({ reportCallMargin: true }, async (model) => [
      await model.generate({ ...SERVED, toolChoice: "auto" }).result,
      await model.generate({ ...UNSERVED, toolChoice: "required" }).result,
      await model.generate({ ...UNSERVED, toolChoice: "auto", maxTokens: 160 }).result,
    ]);
    for (const [index, result] of measured.entries()) {
      expect(result.callMargin).toBeDefined();
      expect(result.text).toBe(plain[index]!.text);
      expect(result.toolCalls.map(({ name, arguments: args }) => ({ name, args }))).toEqual(plain[index]!.toolCalls.map(({ name, arguments: args }) => ({ name, args })));
      expect(result.usage.promptTokens).toBe(plain[index]!.usage.promptTokens);
      expect(result.usage.cachedPromptTokens).toBe(plain[index]!.usage.cachedPromptTokens);
      expect(result.usage.outputTokens).toBe(plain[index]!.usage.outputTokens);
    }
  });

  it("makes a forced call only where the model's own lead for it clears the floor; below, the turn answers in words", async () => {
    const margin = await withModel({ reportCallMargin: true }, async (model) => {
      const forced = await model.generate({ ...UNSERVED, toolChoice: "required" }).result;
      expect(forced.toolCalls).toHaveLength(1);
      expect(forced.releasedForcedCall).toBeUndefined();
      return callMarginLead(forced.callMargin!);
    });
    expect(margin).toBeLessThan(-0.5);
    // Each request below runs first on a freshly loaded model, as the margin was measured: a prompt
    // read partly from the KV cache of an earlier request gives logits that differ in the decimals
    // (on some CPUs by half a logit here), and the floor sits a quarter of a logit from the margin.
    const above = (request: GenerateRequest) => withModel({ forcedCallFloor: margin + 0.25 }, async (model) => model.generate(request).result);
    // A caller's own "required" is honoured whatever the floor: only the router's guess may be released.
    const demanded = await above({ ...UNSERVED, toolChoice: "required" });
    expect(demanded.releasedForcedCall).toBeUndefined();
    expect(demanded.toolCalls).toHaveLength(1);
    const released = await above({ ...UNSERVED, toolChoice: "required", routedChoice: true });
    expect(released.releasedForcedCall).toBe(true);
    expect(released.toolCalls).toEqual([]);
    expect(released.text.trim().length).toBeGreaterThan(0);
    // A named tool is forced the same way; a request the model leans to calling clears the floor.
    const named = await above({ ...UNSERVED, toolChoice: { name: "start_timer" }, routedChoice: true });
    expect(named.releasedForcedCall).toBe(true);
    const served = await above({ ...SERVED, toolChoice: "required", routedChoice: true });
    expect(served.releasedForcedCall).toBeUndefined();
    expect(served.toolCalls.map((call) => call.name)).toEqual(["start_timer"]);
    await withModel({ forcedCallFloor: margin - 0.25 }, async (model) => {
      const kept = await model.generate({ ...UNSERVED, toolChoice: "required", routedChoice: true }).result;
      expect(kept.releasedForcedCall).toBeUndefined();
      expect(kept.toolCalls).toHaveLength(1);
    });
  });

  it("above 0 the floor asks more than the model's own lean: a call it leans to only a little is released, and the released turn cannot open one", async () => {
    const lead = await withModel({ reportCallMargin: true }, async (model) => callMarginLead((await model.generate({ ...SERVED, toolChoice: "required" }).result).callMargin!));
    expect(lead).toBeGreaterThan(0);
    await withModel({ forcedCallFloor: lead + 0.25 }, async (model) => {
      const released = await model.generate({ ...SERVED, toolChoice: "required", routedChoice: true }).result;
      expect(released.releasedForcedCall).toBe(true);
      expect(released.toolCalls).toEqual([]);
      expect(released.text.trim().length).toBeGreaterThan(0);
      expect(released.text).not.toContain("<tool_call>");
    });
  });

  it("applies the floor an adapter's record carries unless the command sets one", async () => {
    const record = shippedRecord();
    const { adapter: calibrated, models } = calibratedCopy(directory, modelPath, { ...record, callBias: 0, forcedCallFloor: 2 });
    expect(recordedForcedCallFloor(readAdapterMetadata(calibrated))).toBe(2);
    expect(recordedForcedCallFloor(record as unknown as AdapterMetadata)).toBeUndefined();
    const located = await locateModel({ directory: models });
    const recorded = await loadLocatedModel(located, { threads: 1, maxConversations: 1, lora: calibrated });
    try {
      expect(recorded.forcedCallFloor).toBe(2);
      expect(recorded.id).toBe("smollm2-135m-instruct-q4_1+lora:calibrated+call-floor:2");
    } finally {
      await recorded.dispose();
    }
    const none = await loadLocatedModel(located, { threads: 1, maxConversations: 1, lora: calibrated, forcedCallFloor: null });
    try {
      expect(none.forcedCallFloor).toBeUndefined();
      expect(none.id).toBe("smollm2-135m-instruct-q4_1+lora:calibrated");
    } finally {
      await none.dispose();
    }
    const overridden = await loadLocatedModel(located, { threads: 1, maxConversations: 1, lora: calibrated, forcedCallFloor: 5 });
    try {
      expect(overridden.forcedCallFloor).toBe(5);
      expect(overridden.id).toBe("smollm2-135m-instruct-q4_1+lora:calibrated+call-floor:5");
    } finally {
      await overridden.dispose();
    }
  });
});
