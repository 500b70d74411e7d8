import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runBfcl } from "../../src/eval/bfcl/index.js";
import { createChatModel } from "../../src/model/index.js";

/**
 * BFCL on the real SmolLM2 model (a model test: it runs alone, after the unit
 * tests). One thread: llama.cpp threads spin-wait for each other, so on a busy
 * two-core machine a second thread made the same prompt some 50 times slower.
 */
describe("BFCL runner on the real small model", () => {
  it("runs three simple cases end to end", async () => {
    const modelPath = process.env.BOTPSY_TEST_MODEL;
    expect(modelPath, "BOTPSY_TEST_MODEL is set by the test setup").toBeTruthy();
    expect(existsSync(modelPath!)).toBe(true);
    const model = await createChatModel({ model: modelPath!, threads: 1 });
    try {
      const summary = await runBfcl({ categories: ["simple_python"], model, limit: 3, options: { maxTokens: 48 } });
      expect(summary.results).toHaveLength(3);
      for (const result of summary.results) {
        expect(result.errorType).not.toBe("model_error");
        expect(result.steps).toBe(1);
        expect(result.usage.promptTokens).toBeGreaterThan(0);
      }
      const score = summary.categories[0]!;
      expect(score.total).toBe(3);
      expect(score.correct).toBe(summary.results.filter((result) => result.valid).length);
    } finally {
      await model.dispose();
    }
  }, 900_000);
});
