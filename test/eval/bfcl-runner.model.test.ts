import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runBfclSuite } from "../../src/eval/bfcl-suite.js";
import type { EvalSettings } from "../../src/eval/results.js";
import { createChatModel } from "../../src/model/index.js";

/**
 * BFCL through the agent on the real SmolLM2 model (a model test: it runs
 * alone, after the unit tests). One thread: llama.cpp threads spin-wait for
 * each other, so on a busy two-core machine a second thread made the same
 * prompt some 50 times slower.
 */
describe("BFCL through the agent on the real small model", () => {
  it("runs three simple cases and an irrelevance case end to end", async () => {
    const modelPath = process.env.BOTPSY_TEST_MODEL;
    expect(modelPath, "BOTPSY_TEST_MODEL is set by the test setup").toBeTruthy();
    expect(existsSync(modelPath!)).toBe(true);
    const model = await createChatModel({ model: modelPath!, threads: 1 });
    const directory = mkdtempSync(join(tmpdir(), "botpsy-bfcl-model-"));
    const settings: EvalSettings = {
      suite: "bfcl",
      model: { id: model.id },
      options: { thinking: "off", seed: 1, temperature: 0, maxSteps: 20, maxTokens: 48 },
      botpsyVersion: "test",
    };
    try {
      const simple = await runBfclSuite({ categories: ["simple_python"], model, settings, out: join(directory, "simple.jsonl"), limit: 3, progress: false });
      expect(simple.results).toHaveLength(3);
      for (const result of simple.results) {
        expect(result.error, JSON.stringify(result.error)).toBeUndefined();
        expect(result.modelTurns).toBeGreaterThanOrEqual(1);
        expect(result.modelTurns).toBeLessThanOrEqual(2);
        expect(result.usage.promptTokens).toBeGreaterThan(0);
        expect(result.checks).toHaveLength(1);
        expect(result.checks[0]!.passed).toBe(result.success);
      }
      const irrelevance = await runBfclSuite({ categories: ["irrelevance"], model, settings, out: join(directory, "irrelevance.jsonl"), limit: 1, progress: false });
      expect(irrelevance.results).toHaveLength(1);
      expect(irrelevance.results[0]!.error).toBeUndefined();
      expect(irrelevance.results[0]!.success).toBe(irrelevance.results[0]!.calls.length === 0);
    } finally {
      await model.dispose();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 900_000);
});
