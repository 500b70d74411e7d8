import type { Command } from "commander";
import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { modelsDirectory } from "../../config.js";
import { InvalidInputError } from "../../errors.js";
import { botpsyAgentFactory } from "../../eval/agent-factory.js";
import { fileSha256 } from "../../eval/model-file.js";
import { computeMetrics, formatRate } from "../../eval/metrics.js";
import { compareResults, formatComparison, writeReport } from "../../eval/report.js";
import type { EvalSettings } from "../../eval/results.js";
import { runSuite } from "../../eval/run-suite.js";
import { resolveScenarioSuite } from "../../eval/suites.js";
import { findCatalogEntry, SMOLLM2_ID } from "../../model/catalog.js";
import { LlamaChatModel } from "../../model/llama-chat-model.js";
import { botpsyVersion } from "../../version.js";

interface RunCommandOptions {
  model?: string;
  limit?: string;
  concurrency: string;
  thinking: string;
  seed: string;
  maxSteps: string;
  maxTokens: string;
  out?: string;
}

function wholeNumber(text: string, option: string, minimum: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum) throw new InvalidInputError(`${option} must be a whole number of at least ${minimum}, not "${text}".`);
  return value;
}

export function parseThinking(text: string): "off" | "on" | number {
  if (text === "off" || text === "on") return text;
  const budget = Number(text);
  if (Number.isInteger(budget) && budget > 0) return budget;
  throw new InvalidInputError(`--thinking must be off, on, or a token budget such as 256, not "${text}".`);
}

/** A model named by catalog id or by the path of a GGUF file; it must be present. */
function resolveModelFile(reference: string | undefined): { id: string; file: string } {
  const wanted = reference ?? SMOLLM2_ID;
  if (wanted.endsWith(".gguf") || existsSync(wanted)) {
    const file = resolve(wanted);
    if (!existsSync(file)) throw new InvalidInputError(`There is no model file at ${file}. Check the path.`, { code: "model_missing" });
    return { id: basename(file, ".gguf"), file };
  }
  const entry = findCatalogEntry(wanted);
  if (!entry) throw new InvalidInputError(`"${wanted}" is no model of the catalog and no .gguf file. See botpsy models list.`, { code: "unknown_model" });
  const file = join(modelsDirectory(), entry.fileName);
  if (!existsSync(file)) {
    throw new InvalidInputError(`The model ${entry.id} is not downloaded (${file}). Get it with: botpsy models pull ${entry.id}`, { code: "model_missing" });
  }
  return { id: entry.id, file };
}

async function runCommand(suiteName: string, options: RunCommandOptions): Promise<void> {
  if (suiteName === "bfcl" || suiteName === "injection") {
    throw new InvalidInputError(
      `The ${suiteName} suite has its own runner in this build: use "npm run bench -- ${suiteName}". botpsy eval run takes "apps" or a path to scenarios.`,
      { code: "suite_unavailable" },
    );
  }
  const { suite, scenarios } = resolveScenarioSuite(suiteName);
  const concurrency = wholeNumber(options.concurrency, "--concurrency", 1);
  const limit = options.limit === undefined ? undefined : wholeNumber(options.limit, "--limit", 1);
  const thinking = parseThinking(options.thinking);
  const seed = wholeNumber(options.seed, "--seed", 0);
  const maxSteps = wholeNumber(options.maxSteps, "--max-steps", 1);
  const maxTokens = wholeNumber(options.maxTokens, "--max-tokens", 1);
  const modelFile = resolveModelFile(options.model);
  process.stderr.write(`Hashing ${modelFile.file}…\n`);
  const sha256 = await fileSha256(modelFile.file);
  const settings: EvalSettings = {
    suite,
    model: { id: modelFile.id, file: basename(modelFile.file), sha256 },
    options: { thinking, seed, temperature: 0, maxSteps, maxTokens },
    botpsyVersion: botpsyVersion(),
  };
  const out = resolve(options.out ?? `eval-${basename(suite).replace(/\.json$/, "")}-${modelFile.id}.jsonl`);
  process.stderr.write(`Loading ${modelFile.id}…\n`);
  const model = await LlamaChatModel.load({ modelPath: modelFile.file, id: modelFile.id, maxConversations: concurrency });
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once("SIGINT", stop);
  try {
    const summary = await runSuite({ scenarios, model, agentFactory: botpsyAgentFactory, settings, out, limit, concurrency, signal: controller.signal });
    const metrics = computeMetrics(summary.results);
    process.stdout.write(
      `${summary.results.length} case(s) run, ${summary.skipped} already done. This run: ${formatRate(metrics.overall.rate)} success (${metrics.overall.passed}/${metrics.overall.total}). Results: ${out}\nReport: botpsy eval report ${out}\n`,
    );
  } finally {
    process.off("SIGINT", stop);
    await model.dispose();
  }
}

export function registerEvalCommand(program: Command): void {
  const evaluation = program.command("eval").description("Evaluate a model on scenario suites, and report and compare the results");
  evaluation
    .command("run <suite>")
    .description('Run a suite ("apps", or a path to scenario .json files) and append results to a JSONL file; an interrupted run resumes')
    .option("--model <id>", "catalog id or .gguf path (default: the SmolLM2 test model)")
    .option("--limit <n>", "run only the first n cases")
    .option("--concurrency <n>", "cases run at the same time", "1")
    .option("--thinking <mode>", "off, on, or a token budget", "off")
    .option("--seed <n>", "sampling seed (decoding is greedy)", "1")
    .option("--max-steps <n>", "model turns per user turn", "10")
    .option("--max-tokens <n>", "output tokens per model turn", "512")
    .option("--out <file>", "results file (JSONL); default eval-<suite>-<model>.jsonl")
    .action(runCommand);
  evaluation
    .command("report <results...>")
    .description("Write an HTML report with charts and a Markdown summary of one or more results files")
    .option("--out <dir>", "folder for report.html and summary.md", "eval-report")
    .action((results: string[], options: { out: string }) => {
      const written = writeReport(results, resolve(options.out));
      process.stdout.write(`Wrote ${written.html} and ${written.markdown} (${written.series.length} run(s)).\n`);
    });
  evaluation
    .command("compare <a> <b>")
    .description("Print the differences between two results files, case by case")
    .action((a: string, b: string) => {
      process.stdout.write(`${formatComparison(compareResults(a, b))}\n`);
    });
}
