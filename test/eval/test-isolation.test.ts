import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import config, { MODEL_LOADING_CALLS, MODEL_TEST_MARKERS, splitTestFiles, TEST_MODEL_VARIABLE } from "../../vitest.config.js";
import { makeTempDir } from "../support/temp-dir.js";

/**
 * A model-free check that the real-model tests cannot slow each other down:
 * they are found, they run one file at a time after the unit files, and every
 * model they load names its threads, one each (llama.cpp threads spin, so more
 * threads than free cores make every token slower; one thread is right for the
 * 135M test model on a busy two-core machine). This file names no model
 * loader itself, so that it stays a unit test.
 */

interface ProjectTest {
  name?: string;
  include?: string[];
  exclude?: string[];
  fileParallelism?: boolean;
  sequence?: { groupOrder?: number };
}

function projects(): ProjectTest[] {
  const list = (config.test?.projects ?? []) as { test?: ProjectTest }[];
  return list.map((project) => project.test ?? {});
}

/** The text of each call of `callee` in `source`: its balanced argument list. */
function callArguments(source: string, callee: string): string[] {
  const found: string[] = [];
  const pattern = new RegExp(`\\b${callee.replace(".", "\\.")}\\s*\\(`, "g");
  for (let match = pattern.exec(source); match !== null; match = pattern.exec(source)) {
    let depth = 1;
    let index = match.index + match[0].length;
    const start = index;
    while (index < source.length && depth > 0) {
      const character = source[index]!;
      if (character === "(") depth++;
      else if (character === ")") depth--;
      index++;
    }
    found.push(source.slice(start, index - 1));
  }
  return found;
}

/** Most threads a model test may ask for. */
const MAX_TEST_THREADS = 1;

/** Problems with the threads of the models a test file loads; empty when every load names its threads, one at most. */
function threadProblems(file: string, source: string): string[] {
  const problems: string[] = [];
  for (const callee of MODEL_LOADING_CALLS) {
    for (const args of callArguments(source, callee)) {
      const threads = /\bthreads\s*:\s*(\d+)/.exec(args)?.[1];
      if (threads !== undefined && Number(threads) > MAX_TEST_THREADS) problems.push(`${file}: ${callee}(… threads: ${threads} …) asks for more than ${MAX_TEST_THREADS} thread`);
      // Even a load that is meant to fail names its threads, so that no load is left to llama.cpp's choice.
      if (threads === undefined) problems.push(`${file}: ${callee}(${args.trim().slice(0, 60)}…) loads a model without threads: ${MAX_TEST_THREADS}`);
    }
  }
  // The CLI started as a child process with a model must get --threads too (a model on an openai: server loads nothing here).
  const cliModels = source.match(/"--model",(?!\s*[`"]openai:)/g)?.length ?? 0;
  const cliThreads = [...source.matchAll(/"--threads",\s*"(\d+)"/g)].map((match) => Number(match[1]));
  if (cliThreads.some((threads) => threads > MAX_TEST_THREADS)) problems.push(`${file}: --threads above ${MAX_TEST_THREADS}`);
  if (cliThreads.length < cliModels) problems.push(`${file}: ${cliModels} CLI run(s) with --model but ${cliThreads.length} with --threads`);
  return problems;
}

describe("the model tests run alone, on one thread each", () => {
  const split = splitTestFiles();

  it("finds the files that load the real model, and only those", () => {
    expect(split.model).toContain("test/eval/bfcl-runner.model.test.ts");
    expect(split.unit).toContain("test/eval/test-isolation.test.ts");
    expect(split.unit).toContain("test/eval/bfcl-cli.test.ts");
    for (const file of split.unit) expect(MODEL_TEST_MARKERS.test(readFileSync(file, "utf8")), file).toBe(false);
    for (const file of split.model) {
      const text = readFileSync(file, "utf8");
      expect(file.endsWith(".model.test.ts") || MODEL_TEST_MARKERS.test(text) || text.includes("fixtures/"), file).toBe(true);
    }
  });

  it("sorts files by what they do: markers, the .model.test.ts name, or a fixture that loads the model", () => {
    const root = makeTempDir("botpsy-split-");
    mkdirSync(join(root, "area", "fixtures"), { recursive: true });
    const [firstLoader] = MODEL_LOADING_CALLS;
    writeFileSync(join(root, "area", "plain.test.ts"), 'it("adds", () => expect(1 + 1).toBe(2));\n');
    writeFileSync(join(root, "area", "loads.test.ts"), `const model = await ${firstLoader}({ threads: 1 });\n`);
    writeFileSync(join(root, "area", "path.test.ts"), `const path = process.env.${TEST_MODEL_VARIABLE};\n`);
    writeFileSync(join(root, "area", "named.model.test.ts"), "it('runs', () => {});\n");
    writeFileSync(join(root, "area", "fixtures", "child-run.ts"), `await ${firstLoader}({ threads: 1 });\n`);
    writeFileSync(join(root, "area", "spawns.test.ts"), 'spawn(process.execPath, ["--import", "tsx", "fixtures/child-run.ts"]);\n');
    const sorted = splitTestFiles(root);
    const names = (files: string[]): string[] => files.map((file) => file.slice(root.length + 1));
    expect(names(sorted.unit)).toEqual(["area/plain.test.ts"]);
    expect(names(sorted.model)).toEqual(["area/loads.test.ts", "area/named.model.test.ts", "area/path.test.ts", "area/spawns.test.ts"]);
  });

  it("runs model files one at a time, after the unit files, and keeps them out of the unit project", () => {
    const [unit, model] = [projects().find((project) => project.name === "unit"), projects().find((project) => project.name === "model")];
    expect(unit).toBeDefined();
    expect(model).toBeDefined();
    expect(model!.fileParallelism).toBe(false);
    expect(model!.sequence?.groupOrder ?? 0).toBeGreaterThan(unit!.sequence?.groupOrder ?? 0);
    expect(model!.include).toEqual(split.model);
    for (const file of split.model) expect(unit!.exclude).toContain(file);
  });

  it("loads every model of the model tests with threads named, one at most", () => {
    const problems = split.model.flatMap((file) => threadProblems(file, readFileSync(file, "utf8")));
    expect(problems).toEqual([]);
  });

  it("tells a load without a thread cap from one with it", () => {
    const [loader] = MODEL_LOADING_CALLS;
    const header = `const modelPath = process.env.${TEST_MODEL_VARIABLE};\n`;
    expect(threadProblems("ok.ts", `${header}await ${loader}({ model: modelPath!, threads: 1 });`)).toEqual([]);
    expect(threadProblems("missing.ts", `${header}await ${loader}({ model: modelPath! });`)).toHaveLength(1);
    expect(threadProblems("two.ts", `${header}await ${loader}({ modelPath, threads: 2 });`)).toEqual([`two.ts: ${loader}(… threads: 2 …) asks for more than 1 thread`]);
    expect(threadProblems("absent.ts", `${header}await ${loader}({ modelPath: join(directory, "absent.gguf") });`)).toHaveLength(1);
    expect(threadProblems("cli.ts", 'execFile(node, ["run", "--model", modelPath, "--threads", "1"]);')).toEqual([]);
    expect(threadProblems("cli.ts", 'execFile(node, ["run", "--model", `openai:${url}`]);')).toEqual([]);
    expect(threadProblems("cli.ts", 'execFile(node, ["run", "--model", modelPath]);')).toHaveLength(1);
    expect(threadProblems("cli.ts", 'execFile(node, ["run", "--model", modelPath, "--threads", "2"]);')).toEqual(["cli.ts: --threads above 1"]);
    expect(threadProblems("cli.ts", 'execFile(node, ["run", "--model", modelPath]);')).toEqual(["cli.ts: 1 CLI run(s) with --model but 0 with --threads"]);
  });
});
