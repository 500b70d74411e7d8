import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Profile } from "../../src/apps/profile.js";
import type { EvalCommandDependencies } from "../../src/cli/commands/eval.js";
import { checkAst } from "../../src/eval/bfcl/ast-checker.js";
import { GroundTruthModel, singleTurnCalls } from "../../src/eval/bfcl/ground-truth-model.js";
import { loadBfclCategory, readJsonLines, type BfclSingleTurnCase } from "../../src/eval/bfcl/loader.js";
import { caseResults, readResults, runRecords } from "../../src/eval/results.js";
import { unseenSuiteFiles } from "../../src/eval/suites.js";
import { EvaluationIndex, evaluationSources, stringsIn } from "../../src/tune/disjointness.js";
import { RECIPE_SETS } from "../../src/tune/recipes.js";
import { makeTempDir } from "../support/temp-dir.js";
import { botpsyEval } from "./eval-command.js";

/**
 * The "unseen" suite: calls on tools no training example has. Each case
 * offers one to three function documents of tools that are neither botpsy's
 * apps nor any tool of the training recipes and expects one call, scored by
 * BFCL's AST checker. Its dev split joins the weighing of call biases and
 * floors; its test split is reported only.
 */
const [devFile, testFile] = unseenSuiteFiles("all") as [string, string];
const dev = loadBfclCategory(devFile) as BfclSingleTurnCase[];
const test = loadBfclCategory(testFile) as BfclSingleTurnCase[];
const all = [...dev, ...test];
/** The domain and form each case was written for, read from the case rows. */
const tags = new Map([...readJsonLines(devFile), ...readJsonLines(testFile)].map((row) => [String(row.id), { domain: String(row.domain), form: String(row.form) }]));

describe("the unseen suite", () => {
  it("has a dev and a test file of single-turn cases with unique ids and one expected call each", () => {
    expect(dev.length).toBeGreaterThanOrEqual(60);
    expect(Math.abs(dev.length - test.length)).toBeLessThanOrEqual(2);
    const ids = all.map((caseData) => caseData.id);
    expect(new Set(ids).size).toBe(ids.length);
    const problems: string[] = [];
    for (const caseData of all) {
      if (caseData.kind !== "single-turn" || caseData.category !== "unseen") problems.push(`${caseData.id}: ${caseData.kind} ${caseData.category}`);
      if (caseData.question.length !== 1 || caseData.question[0]!.length !== 1 || caseData.question[0]![0]!.role !== "user") problems.push(`${caseData.id}: not one user message`);
      if (caseData.functions.length < 1 || caseData.functions.length > 3) problems.push(`${caseData.id}: offers ${caseData.functions.length} functions`);
      if (caseData.groundTruth?.length !== 1) problems.push(`${caseData.id}: expects ${caseData.groundTruth?.length ?? 0} calls`);
      if (!tags.has(caseData.id)) problems.push(`${caseData.id}: no domain and form`);
    }
    expect(problems).toEqual([]);
    const questions = all.map((caseData) => caseData.question[0]![0]!.content.trim().toLowerCase());
    expect(new Set(questions).size).toBe(questions.length);
  });

  it("expects calls its own checker accepts: every parameter listed, required ones never optional", () => {
    const problems: string[] = [];
    for (const caseData of all) {
      // Names without dots: the tool name the agent offers is the function's own.
      const call = singleTurnCalls(caseData)[0]!;
      const doc = caseData.functions.find((candidate) => candidate.name === call.name);
      if (doc === undefined) {
        problems.push(`${caseData.id}: expects ${call.name}, which it does not offer`);
        continue;
      }
      const accepted = caseData.groundTruth![0]![call.name]!;
      for (const parameter of Object.keys(doc.parameters.properties ?? {})) if (!(parameter in accepted)) problems.push(`${caseData.id}: ${parameter} not in the answer`);
      for (const required of doc.parameters.required ?? []) if (accepted[required]?.includes("") !== false) problems.push(`${caseData.id}: required ${required} may be left out`);
      const result = checkAst({ category: caseData.category, language: "python", functions: caseData.functions, groundTruth: caseData.groundTruth, calls: [call] });
      if (!result.valid) problems.push(`${caseData.id}: ${result.errors.join("; ")}`);
    }
    expect(problems).toEqual([]);
  });

  it("offers no tool of botpsy's apps or of any training recipe", () => {
    const profile = Profile.open({ databasePath: ":memory:", name: "catalog", seed: "empty" });
    const appTools = new Set(profile.tools().map((tool) => tool.name));
    profile.close();
    const trainingTools = new Set(Object.values(RECIPE_SETS).flatMap((recipes) => recipes.flatMap((recipe) => [...recipe.tools])));
    expect(trainingTools.size).toBeGreaterThan(50);
    const offered = all.flatMap((caseData) => caseData.functions.map((doc) => `${caseData.id}: ${doc.name}`));
    expect(offered.filter((entry) => appTools.has(entry.split(": ")[1]!) || trainingTools.has(entry.split(": ")[1]!))).toEqual([]);
  });

  it("splits every domain and every form between dev and test within one case", () => {
    const count = (cases: readonly BfclSingleTurnCase[], key: "domain" | "form"): Map<string, number> => {
      const counts = new Map<string, number>();
      for (const caseData of cases) counts.set(tags.get(caseData.id)![key], (counts.get(tags.get(caseData.id)![key]) ?? 0) + 1);
      return counts;
    };
    for (const key of ["domain", "form"] as const) {
      const [inDev, inTest] = [count(dev, key), count(test, key)];
      for (const name of new Set([...inDev.keys(), ...inTest.keys()])) {
        expect(Math.abs((inDev.get(name) ?? 0) - (inTest.get(name) ?? 0)), `${key} ${name}`).toBeLessThanOrEqual(key === "domain" ? 1 : 2);
      }
    }
    expect(count(all, "domain").size).toBe(4);
  });

  it("shares no eight-word run or whole text with BFCL, and training data is checked against it", () => {
    const sources = evaluationSources();
    const bfcl = new EvaluationIndex(sources.filter((source) => source.name === "BFCL"));
    const overlaps = all.flatMap((caseData) =>
      stringsIn([caseData.question, caseData.functions]).flatMap((text) => {
        const found = bfcl.overlap(text);
        return found === undefined ? [] : [`${caseData.id}: "${found.shared}"`];
      }),
    );
    expect(overlaps).toEqual([]);
    const unseen = sources.find((source) => source.name === "unseen suite");
    expect(unseen?.texts).toContain(dev[0]!.question[0]![0]!.content);
  });
});

describe("botpsy eval run unseen", () => {
  let directory: string;
  let stderr: ReturnType<typeof vi.spyOn>;
  const loader: EvalCommandDependencies = {
    loadModel: async () => ({ model: new GroundTruthModel(all), info: { id: "ground-truth" } }),
  };

  beforeEach(() => {
    directory = makeTempDir("botpsy-unseen-");
    stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  });
  afterEach(() => stderr.mockRestore());

  it("runs one split's cases through the agent and scores them; the ground truth passes them all", async () => {
    const out = join(directory, "dev.jsonl");
    const printed = await botpsyEval(["run", "unseen", "--split", "dev", "--model", "ground-truth", "--out", out], loader);
    const lines = readResults(out);
    expect(runRecords(lines)[0]!.settings).toMatchObject({ suite: "bfcl", options: { split: "dev" } });
    const cases = caseResults(lines);
    expect(cases.map((result) => result.caseId).sort()).toEqual(dev.map((caseData) => caseData.id).sort());
    expect(cases.filter((result) => !result.success).map((result) => `${result.caseId}: ${result.checks.map((check) => check.detail).join("; ")}`)).toEqual([]);
    expect(cases.every((result) => result.group === "unseen" && result.source === "unseen_dev.json")).toBe(true);
    expect(printed).toMatch(/unseen\s+100\.0/);
  });

  it("runs both splits by default, and the ground truth passes the test split's cases too", async () => {
    const out = join(directory, "all.jsonl");
    await botpsyEval(["run", "unseen", "--model", "ground-truth", "--out", out], loader);
    const cases = caseResults(readResults(out));
    expect(cases.map((result) => result.caseId).sort()).toEqual(all.map((caseData) => caseData.id).sort());
    expect(cases.filter((result) => !result.success).map((result) => `${result.caseId}: ${JSON.stringify(result.calls)}`)).toEqual([]);
  });

  it("refuses a split it does not have and the bfcl suite's own options", async () => {
    await expect(botpsyEval(["run", "unseen", "--split", "train", "--model", "x"], loader)).rejects.toThrow(/--split must be dev, test, all/);
    await expect(botpsyEval(["run", "unseen", "--categories", "simple_python", "--model", "x"], loader)).rejects.toThrow(/options of the bfcl suite, not of "unseen"/);
  });
});
