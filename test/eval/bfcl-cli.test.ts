import { spawn } from "node:child_process";
import { chromium } from "playwright-core";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EvalCommandDependencies, EvalModelRequest } from "../../src/cli/commands/eval.js";
import { GroundTruthModel } from "../../src/eval/bfcl/ground-truth-model.js";
import { BFCL_CATEGORIES, loadBfclCategory, readJsonLines } from "../../src/eval/bfcl/loader.js";
import { computeMetrics } from "../../src/eval/metrics.js";
import { caseResults, readResults, runRecords } from "../../src/eval/results.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import type { ChatModel } from "../../src/model/types.js";
import { botpsyEval } from "./eval-command.js";
import { chromiumExecutable } from "../support/chromium.js";

/**
 * `botpsy eval run bfcl` through the command's own parsing and action, with
 * the model loader swapped for test doubles: GroundTruthModel (answers with
 * each case's ground truth, so every case must pass) and a ScriptedModel that
 * never calls a tool (so only irrelevance passes).
 */

const LIMIT = 3;

function groundTruthLoader(categories: readonly string[], requests: EvalModelRequest[] = []): EvalCommandDependencies {
  const cases = categories.flatMap((category) => loadBfclCategory(category));
  return {
    loadModel: async (request) => {
      requests.push(request);
      return { model: new GroundTruthModel(cases), info: { id: "ground-truth" } };
    },
  };
}

const silentLoader: EvalCommandDependencies = {
  loadModel: async () => {
    const model: ChatModel = new ScriptedModel(["I cannot help with that."], { id: "silent", whenExhausted: "repeat-last" });
    return { model, info: { id: "silent" } };
  },
};

function caseLineCount(path: string): number {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.includes('"type":"case"')).length;
}

describe("botpsy eval run bfcl", () => {
  let directory: string;
  let stderr: ReturnType<typeof vi.spyOn>;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "botpsy-bfcl-cli-"));
    // The progress bar writes to stderr; keep the test log readable.
    stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  });
  afterEach(() => stderr.mockRestore());

  it("writes every category's cases as results lines and scores them as the leaderboard does", async () => {
    const out = join(directory, "results.jsonl");
    const requests: EvalModelRequest[] = [];
    const printed = await botpsyEval(
      ["run", "bfcl", "--model", "ground-truth", "--limit", String(LIMIT), "--concurrency", "2", "--seed", "7", "--thinking", "64", "--threads", "2", "--out", out],
      groundTruthLoader(BFCL_CATEGORIES, requests),
    );
    expect(requests).toEqual([{ reference: "ground-truth", concurrency: 2, threads: 2 }]);

    const lines = readResults(out);
    const [run] = runRecords(lines);
    expect(run).toMatchObject({ cases: LIMIT * BFCL_CATEGORIES.length, alreadyDone: 0, concurrency: 2, categories: [...BFCL_CATEGORIES] });
    expect(run!.settings).toMatchObject({ suite: "bfcl", model: { id: "ground-truth" }, options: { thinking: 64, seed: 7, temperature: 0, maxSteps: 20, maxTokens: 512 } });
    const cases = caseResults(lines);
    expect(cases).toHaveLength(LIMIT * BFCL_CATEGORIES.length);
    expect(cases.filter((result) => !result.success).map((result) => `${result.caseId}: ${result.checks.map((check) => check.detail).join("; ")}`)).toEqual([]);
    for (const category of BFCL_CATEGORIES) {
      const ofCategory = cases.filter((result) => result.group === category);
      expect(ofCategory.map((result) => result.caseId).sort()).toEqual(loadBfclCategory(category, { limit: LIMIT }).map((caseData) => caseData.id).sort());
      expect(ofCategory.every((result) => result.steps === (category.startsWith("multi_turn") ? "multi" : "single"))).toBe(true);
      expect(ofCategory.every((result) => result.abstainCase === (category === "irrelevance"))).toBe(true);
    }
    const multiTurn = cases.find((result) => result.group === "multi_turn_base")!;
    expect(multiTurn.checks.length).toBeGreaterThan(0);
    expect(multiTurn.checks.every((check) => check.kind === "bfcl-turn" && check.passed)).toBe(true);
    expect(multiTurn.calls.length).toBeGreaterThan(0);
    expect(multiTurn.calls.every((call) => call.status === "ok" && !call.invented && !call.invalid)).toBe(true);
    const simple = cases.find((result) => result.group === "simple_python")!;
    expect(simple.checks).toEqual([{ kind: "bfcl-ast", passed: true, detail: "AST check passed" }]);
    expect(simple.calls.length).toBeGreaterThan(0);
    expect(simple.calls.every((call) => call.status === "ok" && !call.invented && !call.invalid)).toBe(true);

    const bfcl = computeMetrics(cases).bfcl!;
    expect(bfcl.categories.map((row) => row.title)).toEqual(["simple", "multiple", "parallel", "parallel_multiple", "javascript", "irrelevance", "multi_turn_base", "multi_turn_miss_func"]);
    expect(bfcl.categories.every((row) => row.total === LIMIT && row.passed === LIMIT)).toBe(true);
    expect(bfcl).toMatchObject({ simple: 1, nonLive: 1, multiTurn: 1, irrelevance: 1, live: undefined });
    expect(printed).toMatch(/non-live\s+100\.0/);
    expect(printed).toMatch(/multi-turn average\s+100\.0/);
    expect(printed).toContain(`${LIMIT * BFCL_CATEGORIES.length} case(s) run, 0 already done`);
  });

  it("resumes a run cut short: finished cases are kept, a half-written last line is dropped, the rest is run once", async () => {
    const out = join(directory, "resume.jsonl");
    const loader = groundTruthLoader(["simple_python", "multi_turn_miss_func"]);
    await botpsyEval(["run", "bfcl", "--categories", "simple_python,multi_turn_miss_func", "--limit", "2", "--out", out], loader);
    expect(caseLineCount(out)).toBe(4);
    // What a kill in the middle of writing leaves: the start of a line, no newline.
    writeFileSync(out, `${readFileSync(out, "utf8")}{"type":"case","suite":"bfcl","caseId":"simple_py`);

    const printed = await botpsyEval(["run", "bfcl", "--categories", "simple_python,multi_turn_miss_func", "--limit", "5", "--out", out], loader);
    expect(printed).toContain("6 case(s) run, 4 already done");
    const lines = readResults(out);
    const ids = caseResults(lines).map((result) => result.caseId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(10);
    expect(runRecords(lines).map((run) => [run.cases, run.alreadyDone])).toEqual([
      [4, 0],
      [10, 4],
    ]);
    expect(readFileSync(out, "utf8").endsWith("\n")).toBe(true);

    // A run with other settings does not count the cases of this one as done.
    const other = await botpsyEval(["run", "bfcl", "--categories", "simple_python", "--limit", "2", "--seed", "2", "--out", out], loader);
    expect(other).toContain("2 case(s) run, 0 already done");
  });

  it("renders the report and compares two BFCL runs case by case", async () => {
    const truth = join(directory, "truth.jsonl");
    const silent = join(directory, "silent.jsonl");
    const categories = ["simple_python", "multiple", "parallel", "parallel_multiple", "simple_javascript", "irrelevance"];
    await botpsyEval(["run", "bfcl", "--categories", categories.join(","), "--limit", "2", "--out", truth], groundTruthLoader(categories));
    const printed = await botpsyEval(["run", "bfcl", "--categories", categories.join(","), "--limit", "2", "--out", silent], silentLoader);
    expect(printed).toMatch(/irrelevance\s+100\.0\s+\(2\/2\)/);
    expect(printed).toMatch(/non-live\s+0\.0/);
    expect(printed).toMatch(/multi-turn average\s+–/);

    const reportDirectory = join(directory, "report");
    const reported = await botpsyEval(["report", truth, silent, "--out", reportDirectory], silentLoader);
    expect(reported).toContain("2 run(s)");
    const markdown = readFileSync(join(reportDirectory, "summary.md"), "utf8");
    expect(markdown).toContain("## BFCL");
    expect(markdown).toMatch(/\| simple \| 100\.0% \(2\/2\) \| 0\.0% \(0\/2\) \|/);
    expect(markdown).toMatch(/\| irrelevance \| 100\.0% \(2\/2\) \| 100\.0% \(2\/2\) \| 80\.84% \| 76\.54% \| 86\.10% \|/);
    expect(markdown).toContain("| Category | [1] | [2] | Qwen3-0.6B (FC), published | Qwen3-1.7B (FC), published | BotPsy 0.8B, published |");
    expect(markdown).toMatch(/\| Non-live \(mean of simple \(python, javascript\), multiple, parallel, parallel_multiple\) \| 100\.0% \| 0\.0% \|/);
    expect(markdown).not.toContain("## Per app group");
    const html = readFileSync(join(reportDirectory, "report.html"), "utf8");
    expect(html).toContain("<h2>BFCL</h2>");
    expect(html).toContain("BFCL per category");
    expect(html).toContain("<svg");
    const browser = await chromium.launch({ executablePath: chromiumExecutable(), args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"] });
    try {
      const page = await browser.newPage();
      await page.goto(`file://${join(reportDirectory, "report.html")}`);
      const bars = await page.$$eval('svg.chart[aria-label="BFCL per category"] rect.bar', (rects) =>
        rects.map((rect) => ({
          series: rect.getAttribute("data-series") ?? "",
          category: rect.getAttribute("data-category") ?? "",
          value: Number(rect.getAttribute("data-value")),
          height: rect.getBoundingClientRect().height,
        })),
      );
      const truthBars = bars.filter((bar) => bar.series.startsWith("ground-truth"));
      const silentBars = bars.filter((bar) => bar.series.startsWith("silent"));
      // Six categories and the non-live aggregate; the multi-turn average has no value in these runs.
      expect(truthBars.map((bar) => bar.category)).toEqual(["simple", "multiple", "parallel", "parallel_multiple", "javascript", "irrelevance", "Non-live"]);
      expect(truthBars.every((bar) => bar.height > 0)).toBe(true);
      expect(truthBars.every((bar) => bar.value === 1)).toBe(true);
      expect(silentBars.filter((bar) => bar.value > 0).map((bar) => [bar.category, bar.value])).toEqual([["irrelevance", 1]]);
    } finally {
      await browser.close();
    }

    const comparison = await botpsyEval(["compare", truth, silent], silentLoader);
    expect(comparison).toMatch(/simple: 100\.0% \(2\/2\) → 0\.0% \(0\/2\)/);
    expect(comparison).toContain("10 pass only in A");
    expect(comparison).toContain("simple_python_0: A pass, B FAIL");
  });

  it("takes a BFCL file by path, such as a live category, and scores it as its own category", async () => {
    const data = join(directory, "live");
    mkdirSync(join(data, "possible_answer"), { recursive: true });
    const source = resolve("data/bfcl-v4");
    const questions = readJsonLines(join(source, "BFCL_v4_simple_python.json")).slice(0, 2);
    const answers = readJsonLines(join(source, "possible_answer", "BFCL_v4_simple_python.json")).slice(0, 2);
    const relabel = (row: Record<string, unknown>, index: number): string => JSON.stringify({ ...row, id: `live_simple_${index}-${index}-0` });
    writeFileSync(join(data, "BFCL_v4_live_simple.json"), `${questions.map(relabel).join("\n")}\n`);
    writeFileSync(join(data, "possible_answer", "BFCL_v4_live_simple.json"), `${answers.map(relabel).join("\n")}\n`);
    const file = join(data, "BFCL_v4_live_simple.json");
    const out = join(directory, "live.jsonl");

    const printed = await botpsyEval(["run", file, "--out", out], groundTruthLoader([file]));
    const cases = caseResults(readResults(out));
    expect(cases.map((result) => [result.caseId, result.group, result.source, result.success])).toEqual([
      ["live_simple_0-0-0", "live_simple", "BFCL_v4_live_simple.json", true],
      ["live_simple_1-1-0", "live_simple", "BFCL_v4_live_simple.json", true],
    ]);
    expect(computeMetrics(cases).bfcl).toMatchObject({ live: 1, nonLive: undefined });
    expect(printed).toMatch(/live_simple\s+100\.0\s+\(2\/2\)/);
  });

  it("scores the ground truth of every case of the data as passed, but those whose answer the agent cannot execute", { timeout: 300_000 }, async () => {
    const out = join(directory, "all.jsonl");
    // The ground truths know hidden state (files never listed, user ids) that argument grounding refuses from a model.
    await botpsyEval(["run", "bfcl", "--concurrency", "4", "--harness", "grounding=off", "--out", out], groundTruthLoader(BFCL_CATEGORIES));
    const cases = caseResults(readResults(out));
    expect(cases).toHaveLength(1690);
    // The agent validates every call against the function's documented schema before it runs, as
    // the call grammar constrains a real model; these ground truths break their own documents:
    const schemaBreaking = [
      "simple_python_307", // true for a string
      // JavaScript code as text where the document declares a dict or an array
      ...[5, 9, 11, 15, 19, 32, 37, 39].map((index) => `simple_javascript_${index}`),
      "parallel_152", // null for a float
      "parallel_multiple_21", // a variable name for an array of floats
      "parallel_multiple_94", // a list of words for a list of integers
      "multi_turn_base_173", // a text ticket id for an integer
      "multi_turn_miss_func_173", // the same
      // calls tail at turn 1, a function held back until turn 3: the agent has no such tool yet
      "multi_turn_miss_func_49",
    ];
    expect(cases.filter((result) => !result.success).map((result) => result.caseId).sort()).toEqual([...schemaBreaking].sort());
    expect(cases.flatMap((result) => result.calls).filter((call) => call.invalid || call.invented)).toEqual([]);
    const bfcl = computeMetrics(cases).bfcl!;
    const simple = (399 / 400 + 42 / 50) / 2;
    expect(bfcl.nonLive).toBeCloseTo((simple + 1 + 199 / 200 + 198 / 200) / 4, 10);
    expect(bfcl.multiTurn).toBeCloseTo((199 / 200 + 198 / 200) / 2, 10);
  });

  it("resumes after the process was killed mid-run: every case once, none lost", { timeout: 240_000 }, async () => {
    const out = join(directory, "killed.jsonl");
    const args = ["--import", "tsx", resolve("test/eval/fixtures/bfcl-cli.ts"), "eval", "run", "bfcl", "--categories", "simple_python,multi_turn_base", "--limit", "8", "--harness", "grounding=off", "--out", out];
    const first = spawn(process.execPath, args, { env: { ...process.env, BOTPSY_TEST_DELAY_MS: "150" }, stdio: "ignore" });
    const exited = new Promise<NodeJS.Signals | null>((done) => first.on("exit", (_code, signal) => done(signal)));
    const deadline = Date.now() + 120_000;
    while ((!existsSync(out) || caseLineCount(out) < 3) && Date.now() < deadline) await new Promise((wake) => setTimeout(wake, 50));
    first.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const doneBefore = caseResults(readResults(out)).length;
    expect(doneBefore).toBeGreaterThanOrEqual(3);
    expect(doneBefore).toBeLessThan(16);

    const second = spawn(process.execPath, args, { env: { ...process.env, BOTPSY_TEST_DELAY_MS: "0" }, stdio: ["ignore", "pipe", "ignore"] });
    let stdout = "";
    second.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    expect(await new Promise<number | null>((done) => second.on("exit", (code) => done(code)))).toBe(0);
    expect(stdout).toContain(`${16 - doneBefore} case(s) run, ${doneBefore} already done`);
    const lines = readResults(out);
    const ids = caseResults(lines).map((result) => result.caseId);
    expect(new Set(ids).size).toBe(16);
    expect(ids).toHaveLength(16);
    expect(caseResults(lines).every((result) => result.success)).toBe(true);
    expect(runRecords(lines).map((run) => run.alreadyDone)).toEqual([0, doneBefore]);
  });

  it("refuses bad input with a message that says what to do, before loading the model", async () => {
    const out = join(directory, "bad.jsonl");
    const requests: EvalModelRequest[] = [];
    const loader = groundTruthLoader(["simple_python"], requests);
    await expect(botpsyEval(["run", "bfcl", "--categories", "simple_cobol", "--out", out], loader)).rejects.toThrow(/no BFCL category "simple_cobol".*use one of simple_python/);
    await expect(botpsyEval(["run", "bfcl", "--categories", " , ", "--out", out], loader)).rejects.toThrow(/--categories needs at least one category/);
    await expect(botpsyEval(["run", "bfcl", "--limit", "0", "--out", out], loader)).rejects.toThrow(/--limit must be a whole number of at least 1/);
    await expect(botpsyEval(["run", "bfcl", "--threads", "two", "--out", out], loader)).rejects.toThrow(/--threads must be a whole number/);
    await expect(botpsyEval(["run", "apps", "--categories", "simple_python", "--out", out], loader)).rejects.toThrow(/options of the bfcl suite/);
    await expect(botpsyEval(["run", "bfcl", "--categories", "data/bfcl-v4/BFCL_v4_nothing.json", "--out", out], loader)).rejects.toThrow(/does not exist: check the path/);
    await expect(botpsyEval(["run", "bfcl", "--optional-arguments", "some", "--out", out], loader)).rejects.toThrow(/--optional-arguments some is not known: give written/);
    expect(requests).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  it("hands --optional-arguments to the model loader, and nothing when it is not given", async () => {
    const requests: EvalModelRequest[] = [];
    await botpsyEval(["run", "bfcl", "--categories", "simple_python", "--limit", "1", "--optional-arguments", "chosen", "--out", join(directory, "chosen.jsonl")], groundTruthLoader(["simple_python"], requests));
    await botpsyEval(["run", "bfcl", "--categories", "simple_python", "--limit", "1", "--out", join(directory, "default.jsonl")], groundTruthLoader(["simple_python"], requests));
    expect(requests.map((request) => request.optionalArguments)).toEqual(["chosen", undefined]);
  });

  it("passes --parallel-calls to every model request and records it; auto leaves the model's default", async () => {
    const models: ScriptedModel[] = [];
    const recording: EvalCommandDependencies = {
      loadModel: async () => {
        const model = new ScriptedModel(["No call."], { id: "silent", whenExhausted: "repeat-last" });
        models.push(model);
        return { model, info: { id: "silent" } };
      },
    };
    const on = join(directory, "parallel-on.jsonl");
    await botpsyEval(["run", "bfcl", "--categories", "parallel,multi_turn_base", "--limit", "1", "--parallel-calls", "on", "--out", on], recording);
    expect(models[0]!.requests.length).toBeGreaterThan(1);
    expect(models[0]!.requests.every((request) => request.parallelToolCalls === true)).toBe(true);
    expect(runRecords(readResults(on))[0]!.settings.options.parallelCalls).toBe(true);

    const auto = join(directory, "parallel-auto.jsonl");
    await botpsyEval(["run", "bfcl", "--categories", "parallel", "--limit", "1", "--out", auto], recording);
    expect(models[1]!.requests.every((request) => request.parallelToolCalls === undefined)).toBe(true);
    expect(runRecords(readResults(auto))[0]!.settings.options).not.toHaveProperty("parallelCalls");
  });
});
