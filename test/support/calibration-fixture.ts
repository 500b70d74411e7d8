import { copyFileSync, linkSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { shippedAdaptersDirectory } from "../../src/model/shipped-adapter.js";
import type { ToolSpec } from "../../src/model/types.js";

/**
 * What the calibration tests (call bias, forced-call floor) share: the
 * SmolLM2 adapter whose margins they were measured on (botpsy-v3, shipped as
 * an option since botpsy-v4x2 became the default), one timer tool, and a profile-like
 * folder holding a copy of the adapter with a record of the test's own.
 */
export const CALIBRATED_ADAPTER = "smollm2-135m-instruct-q4_1-botpsy-v3";
export const calibratedAdapterPath = join(shippedAdaptersDirectory(), `${CALIBRATED_ADAPTER}.gguf`);

export const TIMER: ToolSpec = {
  name: "start_timer",
  description: "Start a countdown timer.",
  parameters: {
    type: "object",
    properties: { duration: { type: "string", description: "How long, e.g. 10 minutes" }, label: { type: "string" } },
    required: ["duration"],
  },
};

/** The shipped adapter's record, as read from its file. */
export function shippedRecord(): Record<string, unknown> {
  return JSON.parse(readFileSync(`${calibratedAdapterPath}.json`, "utf8")) as Record<string, unknown>;
}

/**
 * Under `directory`: `adapters/calibrated.gguf`, a copy of the shipped
 * adapter whose record carries `record`, and `models/` holding the test
 * model (linked) under its catalog file name. Returns both paths.
 */
export function calibratedCopy(directory: string, modelPath: string, record: Record<string, unknown>): { adapter: string; models: string } {
  const adapters = join(directory, "adapters");
  const models = join(directory, "models");
  mkdirSync(adapters, { recursive: true });
  mkdirSync(models, { recursive: true });
  const adapter = join(adapters, "calibrated.gguf");
  copyFileSync(calibratedAdapterPath, adapter);
  writeFileSync(`${adapter}.json`, JSON.stringify(record));
  linkSync(modelPath, join(models, "SmolLM2-135M-Instruct.Q4_1.gguf"));
  return { adapter, models };
}
