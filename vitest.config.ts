import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Two projects, so that the real-model tests do not fight each other for the
 * CPU: llama.cpp threads spin while they wait, and two model processes on a
 * two-core machine make a 135M model take seconds per token. "unit" files run
 * in parallel first; "model" files (those that load a llama.cpp model) run
 * after them, one file at a time.
 *
 * A test file is a model test when its name ends in `.model.test.ts`, when its
 * text names the test model or a way to load a llama model, or when it runs a
 * fixture that does. Found by reading the files, so a new model test cannot
 * slip into the parallel group by forgetting a naming rule.
 */

/** The calls that load a llama.cpp model (and so start its threads). */
export const MODEL_LOADING_CALLS = ["createChatModel", "loadLlamaModel", "loadDefaultModel", "LlamaChatModel.load", "getLlama"] as const;

/** The variable test/global-setup.ts sets to the real model's path. */
export const TEST_MODEL_VARIABLE = "BOTPSY_TEST_MODEL";

/** What in a file's text shows that it loads (or has a child process load) the real model. */
export const MODEL_TEST_MARKERS = new RegExp(
  [TEST_MODEL_VARIABLE, "LlamaChatModel", ...MODEL_LOADING_CALLS.filter((call) => !call.includes("."))].map((name) => `\\b${name}\\b`).join("|"),
);

export const TEST_ROOT = "test";

function typeScriptFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : typeScriptFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Test files under `root`, split into those that load the real model and the rest (paths relative to the repository). */
export function splitTestFiles(root: string = TEST_ROOT): { unit: string[]; model: string[] } {
  const files = typeScriptFiles(root).sort();
  // Training tests (`*.tune.test.ts`) install gigabytes and run minutes: they have their own config, vitest.tune.config.ts.
  const tests = files.filter((file) => file.endsWith(".test.ts") && !file.endsWith(".tune.test.ts"));
  // Helpers a test runs as a child process, or imports, that load the model themselves.
  const modelHelpers = files.filter((file) => !file.endsWith(".test.ts") && !file.endsWith("global-setup.ts") && MODEL_TEST_MARKERS.test(readFileSync(file, "utf8")));
  const model: string[] = [];
  const unit: string[] = [];
  for (const file of tests) {
    const text = readFileSync(file, "utf8");
    const loadsModel =
      file.endsWith(".model.test.ts") || MODEL_TEST_MARKERS.test(text) || modelHelpers.some((helper) => text.includes(basename(helper, ".ts")));
    (loadsModel ? model : unit).push(file);
  }
  return { unit, model };
}

const { model: modelTestFiles } = splitTestFiles();

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    globalSetup: ["test/global-setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...modelTestFiles, "test/**/*.tune.test.ts"],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "model",
          // A pattern that matches nothing keeps the project valid when no file loads the model.
          include: modelTestFiles.length > 0 ? modelTestFiles : ["test/**/*.model.test.ts"],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
