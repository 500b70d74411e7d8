import { linkSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentOutcome, AgentRun } from "../src/agent/types.js";
import type { Profile } from "../src/apps/profile.js";
import { findCatalogEntry, SMOLLM2_ID } from "../src/model/catalog.js";
import { shippedAdaptersDirectory } from "../src/model/shipped-adapter.js";
import { Policy } from "../src/policy/policy.js";
import { PolicyGate } from "../src/policy/gate.js";
import { assembleRuntime, createRuntime, loadLocatedModel, locateModel } from "../src/runtime.js";
import { ScriptedModel } from "../src/testing/scripted-model.js";
import { openNotesProfile, outboxOf } from "./agent/fixtures/notes-app.js";

let profile: Profile;
let directory: string;

beforeEach(() => {
  profile = openNotesProfile();
  directory = mkdtempSync(join(tmpdir(), "botpsy-runtime-"));
});

afterEach(() => {
  profile.close();
  rmSync(directory, { recursive: true, force: true });
});

async function finish(run: AgentRun): Promise<AgentOutcome> {
  for await (const _event of run) {
    // Drain the events: the outcome is what the tests check.
  }
  return run.outcome;
}

const sendCall = { name: "send_note", arguments: { to: "frank@example.com", text: "see you at 3" } };

describe("the runtime assembly", () => {
  it("puts the safety layer in by default: the policy gate decides, the fences write results, resume records the decision", async () => {
    const model = new ScriptedModel([{ toolCalls: [sendCall] }, "Sent."]);
    const runtime = assembleRuntime({ profile, model, safety: { policy: Policy.defaultPolicy() } });
    expect(runtime.gate).toBeInstanceOf(PolicyGate);
    expect(runtime.agent.gate).toBe(runtime.gate);
    expect(runtime.toolbox.list().map((tool) => tool.name)).toEqual(profile.tools().map((tool) => tool.name));

    const paused = await finish(runtime.run("send Frank: see you at 3"));
    expect(paused.stopReason).toBe("awaiting_approval");
    expect(outboxOf(profile)).toEqual([]);
    const resumed = await finish(runtime.resume(paused.runId, [{ requestId: paused.pendingApprovals[0]!.id, approved: true }]));
    expect(resumed.stopReason).toBe("answered");
    expect(outboxOf(profile)).toHaveLength(1);
    const approvals = runtime.safety!.audit.entries().filter((entry) => entry.kind === "approval");
    expect(approvals).toHaveLength(1);
    expect(approvals[0]!.runId).toBe(paused.runId);
  });

  it("approves every call when asked to, with no safety layer (how the apps suite measures the model alone)", async () => {
    const model = new ScriptedModel([{ toolCalls: [sendCall] }, "Sent."]);
    const runtime = assembleRuntime({ profile, model, safety: { approveAll: true }, agent: { maxSteps: 3 } });
    expect(runtime.safety).toBeUndefined();
    const outcome = await finish(runtime.run("send Frank: see you at 3"));
    expect(outcome.stopReason).toBe("answered");
    expect(outboxOf(profile)).toHaveLength(1);
    expect(runtime.agent.maxSteps).toBe(3);
  });

  it("offers only the tools it is given, and leaves a loaded model to its owner", async () => {
    const model = new ScriptedModel(["Nothing to do."]);
    const runtime = await createRuntime({ profile, model, tools: profile.tools().filter((tool) => tool.name === "list_notes"), safety: { approveAll: true } });
    expect(runtime.toolbox.list().map((tool) => tool.name)).toEqual(["list_notes"]);
    await runtime.close();
    expect(runtime.model).toBe(model);
  });
});

describe("model resolution", () => {
  it("takes the best model present when none is named, without pulling", async () => {
    // The real file (a placeholder would fail the size and sha256 check and be fetched again).
    const testModel = process.env.BOTPSY_TEST_MODEL;
    if (testModel === undefined) throw new Error("BOTPSY_TEST_MODEL is not set: run the tests through vitest's global setup.");
    linkSync(testModel, join(directory, "SmolLM2-135M-Instruct.Q4_1.gguf"));
    const located = await locateModel({ directory });
    expect(located).toEqual({ id: SMOLLM2_ID, path: join(directory, "SmolLM2-135M-Instruct.Q4_1.gguf"), pulled: false, chatFormat: "prompted", entry: findCatalogEntry(SMOLLM2_ID) });
  });

  it("loads a catalog model with the adapter asked for (the id names it), by default with the one botpsy ships and its calibration, and without one for --lora none or a path", async () => {
    const testModel = process.env.BOTPSY_TEST_MODEL!;
    linkSync(testModel, join(directory, "SmolLM2-135M-Instruct.Q4_1.gguf"));
    const located = await locateModel({ directory });
    const adapter = join(shippedAdaptersDirectory(), "smollm2-135m-instruct-q4_1-botpsy-v1.gguf");
    const tuned = await loadLocatedModel(located, { threads: 1, maxConversations: 1, lora: adapter });
    try {
      expect(tuned.id).toBe(`${SMOLLM2_ID}+lora:smollm2-135m-instruct-q4_1-botpsy-v1`);
    } finally {
      await tuned.dispose();
    }
    const shipped = await loadLocatedModel(located, { threads: 1, maxConversations: 1 });
    try {
      // The shipped adapter's record carries its call bias (v4's, fixed before its dev runs).
      expect(shipped.id).toBe(`${SMOLLM2_ID}+lora:smollm2-135m-instruct-q4_1-botpsy-v4x2+call-bias:-5`);
      expect(shipped.callBias).toBe(-5);
    } finally {
      await shipped.dispose();
    }
    const untuned = await loadLocatedModel(located, { threads: 1, maxConversations: 1, lora: "none" });
    try {
      expect(untuned.id).toBe(SMOLLM2_ID);
      expect(untuned.callBias).toBe(0);
    } finally {
      await untuned.dispose();
    }
    expect((await locateModel({ name: testModel, directory })).entry).toBeUndefined();
  });

  it("takes a GGUF path as given, named by its file", async () => {
    const path = join(directory, "my-model.Q8_0.gguf");
    writeFileSync(path, "");
    expect(await locateModel({ name: path, directory })).toEqual({ id: "my-model.Q8_0", path, pulled: false });
  });

  it("refuses a path that does not exist, saying how to get a model", async () => {
    await expect(locateModel({ name: join(directory, "absent.gguf"), directory })).rejects.toMatchObject({ code: "model_file_missing" });
  });

  it("refuses a name that is no model, listing the catalog", async () => {
    await expect(locateModel({ name: "no-such-model", directory })).rejects.toMatchObject({ code: "unknown_model" });
  });
});
