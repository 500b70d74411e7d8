import { LlamaLogLevel } from "node-llama-cpp";
import { afterEach, describe, expect, it, vi } from "vitest";
import { llamaLogOptions, recentLlamaLog, setLlamaLogVerbose } from "../../src/model/llama-log.js";

afterEach(() => {
  setLlamaLogVerbose(false);
  vi.restoreAllMocks();
});

describe("llama.cpp's log lines", () => {
  it("stay out of the output unless verbose, and the last ones are kept", () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((text: string | Uint8Array) => {
      written.push(String(text));
      return true;
    });
    const { logger, logLevel } = llamaLogOptions();
    expect(logLevel).toBe(LlamaLogLevel.warn);
    logger(LlamaLogLevel.error, "llama_model_load: error loading model\n");
    expect(written).toEqual([]);
    expect(recentLlamaLog().at(-1)).toBe("[llama.cpp error] llama_model_load: error loading model");
    setLlamaLogVerbose(true);
    logger(LlamaLogLevel.warn, "n_ctx_per_seq < n_ctx_train");
    expect(written).toEqual(["[llama.cpp warn] n_ctx_per_seq < n_ctx_train\n"]);
  });
});
