import type { Command } from "commander";
import { existsSync } from "node:fs";
import { basename, resolve } from "node:path";
import { InvalidInputError } from "../../errors.js";
import { botpsyAgentFactory } from "../../eval/agent-factory.js";
import { parseHarness } from "../../eval/harness.js";
import { BFCL_CATEGORIES, resolveBfclFile } from "../../eval/bfcl/loader.js";
import { BFCL_SUITE } from "../../eval/bfcl-scores.js";
import { runBfclSuite } from "../../eval/bfcl-suite.js";
import { fileSha256 } from "../../eval/model-file.js";
import { computeMetrics, formatRate, type Metrics } from "../../eval/metrics.js";
import { compareResults, formatComparison, writeReport } from "../../eval/report.js";
import type { EvalSettings } from "../../eval/results.js";
import { runSuite, type RunSuiteSummary } from "../../eval/run-suite.js";
import { injectionSuiteCases } from "../../eval/injection/suites.js";
import { DEFENSE_SETTINGS, decliningAgentFactory, injectionSuiteScenarios, isDefenseSetting, type DefenseSetting } from "../../eval/injection/run.js";
import { isScenarioSplit, SCENARIO_SPLITS, selectSuiteSplit, suiteHasSplits, type ScenarioSplit } from "../../eval/splits.js";
import { INJECTION_SUITE, isInjectionSuite, resolveScenarioSuite, UNSEEN_SUITE, unseenSuiteFiles } from "../../eval/suites.js";
import { CALL_BIAS_OPTION_DESCRIPTION, isNoAdapter, LORA_OPTION_DESCRIPTION, NO_ADAPTER, parseCallBias, parseForcedCallFloor, FORCED_CALL_FLOOR_OPTION_DESCRIPTION, OPTIONAL_ARGUMENTS_OPTION_DESCRIPTION, parseOptionalArguments } from "../../model/shipped-adapter.js";
import type { ChatModel, OptionalArguments } from "../../model/types.js";
import { loadLocatedModel, locateModel } from "../../runtime.js";
import { calibrateFiles, formatCalibration } from "../../eval/calibration.js";
import { botpsyVersion } from "../../version.js";

interface RunCommandOptions {
  model?: string;
  limit?: string;
  concurrency: string;
  thinking: string;
  seed: string;
  maxSteps?: string;
  maxTokens: string;
  out?: string;
  categories?: string;
  data?: string;
  threads?: string;
  lora?: string;
  callBias?: string;
  forcedCallFloor?: string;
  optionalArguments?: string;
  parallelCalls: string;
  defenses?: string;
  split?: string;
  harness?: string;
}

/** A model ready for an evaluation run, with what the results record of it. */
export interface LoadedEvalModel {
  model: ChatModel;
  info: EvalSettings["model"];
}

export interface EvalModelRequest {
  /** The --model value: a catalog id, GGUF path or hf: reference; undefined for the default (resolved as every command resolves it). */
  reference: string | undefined;
  /** Conversations the model must hold at once (one per concurrent case). */
  concurrency: number;
  threads: number | undefined;
  /** The --lora value: a LoRA adapter applied on the model. */
  lora?: string | undefined;
  /** The --call-bias value (default: the adapter's calibration). */
  callBias?: number | undefined;
  /** The --forced-call-floor value (default: the adapter's calibration). */
  forcedCallFloor?: number | null | undefined;
  /** The --optional-arguments value (default "written"). */
  optionalArguments?: OptionalArguments | undefined;
}

/**
 * What `eval run` needs from outside: how to load the model. The CLI loads a
 * GGUF through llama.cpp; a test passes a loader of a named test double.
 */
export interface EvalCommandDependencies {
  loadModel(request: EvalModelRequest): Promise<LoadedEvalModel>;
}

/** Step caps per user turn when --max-steps is not given: 20 for BFCL is the leaderboard's limit. */
const DEFAULT_MAX_STEPS = { scenarios: 10, bfcl: 20 } as const;

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

/**
 * The default loader: the model resolved as every command resolves it (a
 * catalog model is pulled when missing; no --model means the best model
 * present, else the default one) and loaded on llama.cpp, its file hashed
 * for the record.
 */
export const llamaEvalModelLoader: EvalCommandDependencies["loadModel"] = async ({ reference, concurrency, threads, lora, callBias, forcedCallFloor, optionalArguments }) => {
  const located = await locateModel({ name: reference, progress: true });
  process.stderr.write(`Hashing ${located.path}…\n`);
  const sha256 = await fileSha256(located.path);
  process.stderr.write(`Loading ${located.id}…\n`);
  const model = await loadLocatedModel(located, {
    maxConversations: concurrency,
    ...(threads !== undefined ? { threads } : {}),
    ...(lora !== undefined ? { lora, baseSha256: sha256 } : {}),
    ...(callBias !== undefined ? { callBias } : {}),
    ...(forcedCallFloor !== undefined ? { forcedCallFloor } : {}),
    ...(optionalArguments !== undefined ? { optionalArguments } : {}),
  });
  // A tuned run is another model in the results: its id names the adapter (also the one botpsy ships).
  return { model, info: { id: model.id, file: basename(located.path), sha256 } };
};

/** A BFCL file given in place of a suite: `BFCL_v4_live_simple.json` or any path to such a file. */
function isBfclFile(suiteName: string): boolean {
  return /^BFCL_.*\.jsonl?$/.test(basename(suiteName)) && existsSync(suiteName);
}

function parseCategories(text: string | undefined): string[] {
  if (text === undefined) return [...BFCL_CATEGORIES];
  const categories = text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  if (categories.length === 0) throw new InvalidInputError(`--categories needs at least one category (${BFCL_CATEGORIES.join(", ")}) or BFCL file path.`);
  return [...new Set(categories)];
}

function percent(rate: number | undefined): string {
  return rate === undefined ? "–" : (rate * 100).toFixed(1);
}

/** The BFCL figures of a finished run, as the leaderboard names them. */
export function formatBfclSummary(metrics: Metrics): string {
  const bfcl = metrics.bfcl;
  if (bfcl === undefined) return "";
  const width = Math.max(...bfcl.categories.map((row) => row.title.length), "multi-turn average".length);
  const lines = bfcl.categories.map((row) => `  ${row.title.padEnd(width)}  ${percent(row.rate).padStart(5)}  (${row.passed}/${row.total})`);
  lines.push(`  ${"non-live".padEnd(width)}  ${percent(bfcl.nonLive).padStart(5)}  (unweighted mean of ${bfcl.nonLiveParts.join(", ")})`);
  lines.push(`  ${"multi-turn average".padEnd(width)}  ${percent(bfcl.multiTurn).padStart(5)}  (unweighted mean of ${bfcl.multiTurnParts.join(", ")})`);
  if (bfcl.live !== undefined) lines.push(`  ${"live".padEnd(width)}  ${percent(bfcl.live).padStart(5)}`);
  return `${lines.join("\n")}\n`;
}

/** `auto` leaves the choice to the model's format (the prompted format: one call per turn). */
/** The --split of a suite with dev and test splits (default: all); undefined for any other suite, which must not be given one. */
function parseSplit(text: string | undefined, suite: string | undefined): ScenarioSplit | undefined {
  if (suite === undefined || !suiteHasSplits(suite)) {
    if (text !== undefined) throw new InvalidInputError(`--split is an option of suites with dev and test splits (apps), not of "${suite ?? "bfcl"}".`);
    return undefined;
  }
  if (text === undefined) return "all";
  if (!isScenarioSplit(text)) throw new InvalidInputError(`--split must be ${SCENARIO_SPLITS.join(", ")}, not "${text}".`);
  return text;
}

function parseParallelCalls(text: string): boolean | undefined {
  if (text === "auto") return undefined;
  if (text === "on") return true;
  if (text === "off") return false;
  throw new InvalidInputError(`--parallel-calls must be auto, on or off, not "${text}".`);
}

function parseDefenses(text: string | undefined, injection: boolean): DefenseSetting | undefined {
  if (!injection) {
    if (text !== undefined) throw new InvalidInputError(`--defenses is an option of the injection suite only.`);
    return undefined;
  }
  const value = text ?? "on";
  if (!isDefenseSetting(value)) throw new InvalidInputError(`--defenses must be one of ${DEFENSE_SETTINGS.join(", ")}, not "${value}".`);
  return value;
}

async function runCommand(suiteName: string, options: RunCommandOptions, dependencies: EvalCommandDependencies): Promise<void> {
  const injection = isInjectionSuite(suiteName);
  const defenses = parseDefenses(options.defenses, injection);
  const unseen = suiteName === UNSEEN_SUITE;
  const bfcl = !injection && (unseen || suiteName === BFCL_SUITE || isBfclFile(suiteName));
  if ((!bfcl || unseen) && (options.categories !== undefined || options.data !== undefined)) {
    throw new InvalidInputError(`--categories and --data are options of the bfcl suite, not of "${suiteName}".`);
  }
  if (suiteName !== BFCL_SUITE && bfcl && options.categories !== undefined) {
    throw new InvalidInputError(`Give either a BFCL file (${suiteName}) or --categories, not both.`);
  }
  const concurrency = wholeNumber(options.concurrency, "--concurrency", 1);
  const limit = options.limit === undefined ? undefined : wholeNumber(options.limit, "--limit", 1);
  // Load (and so check) the cases before the model, which takes long.
  const scenarioSuite = bfcl
    ? undefined
    : injection
      ? { suite: suiteName, scenarios: injectionSuiteScenarios(injectionSuiteCases(suiteName), limit) }
      : resolveScenarioSuite(suiteName);
  const split = parseSplit(options.split, injection ? INJECTION_SUITE : unseen ? UNSEEN_SUITE : scenarioSuite?.suite);
  const scenarios = scenarioSuite && split !== undefined ? selectSuiteSplit(scenarioSuite.suite, scenarioSuite.scenarios, split) : scenarioSuite?.scenarios;
  const categories = bfcl
    ? unseen
      ? unseenSuiteFiles(split ?? "all")
      : suiteName === BFCL_SUITE
        ? parseCategories(options.categories)
        : [resolve(suiteName)]
    : undefined;
  for (const category of categories ?? []) resolveBfclFile(category, options.data);
  const thinking = parseThinking(options.thinking);
  const seed = wholeNumber(options.seed, "--seed", 0);
  const maxSteps = options.maxSteps === undefined ? DEFAULT_MAX_STEPS[bfcl ? "bfcl" : "scenarios"] : wholeNumber(options.maxSteps, "--max-steps", 1);
  const maxTokens = wholeNumber(options.maxTokens, "--max-tokens", 1);
  const threads = options.threads === undefined ? undefined : wholeNumber(options.threads, "--threads", 1);
  const parallelCalls = parseParallelCalls(options.parallelCalls);
  const harness = parseHarness(options.harness);
  const suite = scenarioSuite?.suite ?? BFCL_SUITE;
  const callBias = options.callBias === undefined ? undefined : parseCallBias(options.callBias);
  const forcedCallFloor = options.forcedCallFloor === undefined ? undefined : parseForcedCallFloor(options.forcedCallFloor);
  const optionalArguments = options.optionalArguments === undefined ? undefined : parseOptionalArguments(options.optionalArguments);
  const { model, info } = await dependencies.loadModel({
    reference: options.model,
    concurrency,
    threads,
    ...(options.lora !== undefined ? { lora: isNoAdapter(options.lora) ? NO_ADAPTER : resolve(options.lora) } : {}),
    ...(callBias !== undefined ? { callBias } : {}),
    ...(forcedCallFloor !== undefined ? { forcedCallFloor } : {}),
    ...(optionalArguments !== undefined ? { optionalArguments } : {}),
  });
  const settings: EvalSettings = {
    suite,
    model: info,
    options: {
      thinking,
      seed,
      temperature: 0,
      maxSteps,
      maxTokens,
      ...(parallelCalls !== undefined ? { parallelCalls } : {}),
      ...(defenses !== undefined ? { defenses } : {}),
      ...(split !== undefined ? { split } : {}),
      ...(harness !== undefined ? { harness } : {}),
    },
    botpsyVersion: botpsyVersion(),
  };
  const out = resolve(options.out ?? `eval-${basename(unseen ? UNSEEN_SUITE : suite).replace(/\.json$/, "")}-${info.id}.jsonl`);
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once("SIGINT", stop);
  try {
    const summary: RunSuiteSummary =
      categories !== undefined
        ? await runBfclSuite({ categories, model, settings, out, limit, concurrency, dataDirectory: options.data, signal: controller.signal })
        : await runSuite({
            scenarios: scenarios!,
            model,
            agentFactory: defenses !== undefined ? decliningAgentFactory(defenses, { count: 0 }) : botpsyAgentFactory,
            settings,
            out,
            // The injection suite applied its limit to the attacked cases already.
            limit: injection ? undefined : limit,
            concurrency,
            signal: controller.signal,
          });
    const metrics = computeMetrics(summary.results);
    process.stdout.write(
      `${summary.results.length} case(s) run, ${summary.skipped} already done. This run: ${formatRate(metrics.overall.rate)} success (${metrics.overall.passed}/${metrics.overall.total}). Results: ${out}\n`,
    );
    if (categories !== undefined && summary.results.length > 0) process.stdout.write(`BFCL scores of this run:\n${formatBfclSummary(metrics)}`);
    if (injection && metrics.unsafe !== undefined) {
      process.stdout.write(`Attack success (attacked cases where the attacker's goal was reached): ${formatRate(metrics.unsafe.rate)} (${metrics.unsafe.passed}/${metrics.unsafe.total}).\n`);
    }
    process.stdout.write(`Report (all results of the file): botpsy eval report ${out}\n`);
  } finally {
    process.off("SIGINT", stop);
    await model.dispose();
  }
}

export function registerEvalCommand(program: Command, dependencies: EvalCommandDependencies = { loadModel: llamaEvalModelLoader }): void {
  const evaluation = program.command("eval").description("Evaluate a model on scenario suites, and report and compare the results");
  evaluation
    .command("run <suite>")
    .description(
      'Run a suite ("apps", "nearmiss", "offtopic", "unseen", "bfcl", "injection" or "injection-heldout", a path to scenario .json files, or a BFCL file such as BFCL_v4_live_simple.json) and append results to a JSONL file; an interrupted run resumes',
    )
    .option("--model <id>", "catalog id, GGUF path or hf: reference (default: the best model present, else the default model, pulled — as botpsy run)")
    .option("--lora <adapter>", LORA_OPTION_DESCRIPTION)
    .option("--call-bias <logit>", CALL_BIAS_OPTION_DESCRIPTION)
    .option("--forced-call-floor <logit>", FORCED_CALL_FLOOR_OPTION_DESCRIPTION)
    .option("--optional-arguments <mode>", OPTIONAL_ARGUMENTS_OPTION_DESCRIPTION)
    .option("--limit <n>", "run only n cases, spread evenly over the suite's groups and recorded in the results (bfcl: the first n of each category)")
    .option("--concurrency <n>", "cases run at the same time", "1")
    .option("--thinking <mode>", "off, on, or a token budget", "off")
    .option("--seed <n>", "sampling seed (decoding is greedy)", "1")
    .option("--max-steps <n>", "model turns per user turn (default 10; bfcl: 20, the leaderboard's limit)")
    .option("--max-tokens <n>", "output tokens per model turn", "512")
    .option("--categories <list>", `bfcl: comma-separated categories or BFCL file paths (default: ${BFCL_CATEGORIES.join(",")})`)
    .option("--data <dir>", "bfcl: the folder of the BFCL files (default: the data that ships with botpsy)")
    .option("--parallel-calls <mode>", "auto, on or off: whether a model turn may hold several calls (auto: the model format's default)", "auto")
    .option("--split <name>", `apps, nearmiss, offtopic, unseen: ${SCENARIO_SPLITS.join(", ")}; defaults are tuned on dev, reported on test (see docs/scenarios.md)`)
    .option("--harness <switches>", "switch agent heuristics off to measure them: router=route|auto|required|none, pruning=first|recovery|all|off, pruning-scope=prompt|call, forced-tools=off|<n>, compose-answers=on|off, recovery=on|off, repeats=end|run (comma-separated)")
    .option("--defenses <setting>", `injection, injection-heldout: ${DEFENSE_SETTINGS.join(", ")} (approval requests are declined)`)
    .option("--threads <n>", "CPU threads for the model (default: llama.cpp's choice; fewer is faster on a busy machine)")
    .option("--out <file>", "results file (JSONL); default eval-<suite>-<model>.jsonl")
    .action((suiteName: string, options: RunCommandOptions) => runCommand(suiteName, options, dependencies));
  evaluation
    .command("report <results...>")
    .description("Write an HTML report with charts and a Markdown summary of one or more results files")
    .option("--out <dir>", "folder for report.html and summary.md", "eval-report")
    .action((results: string[], options: { out: string }) => {
      const written = writeReport(results, resolve(options.out));
      process.stdout.write(`Wrote ${written.html} and ${written.markdown} (${written.series.length} run(s)).\n`);
    });
  evaluation
    .command("calibrate <results...>")
    .description(
      "Weigh call biases and forced-call floors on results files from the call margins their cases recorded (runs of one model with --forced-call-floor none, on a dev split; several files are weighed together; a run at --call-bias 0 weighs every bias, one at -5 that bias and the stronger ones), without running the model again",
    )
    .option("--json", "print the grid and the best cell as JSON")
    .action((results: string[], options: { json?: boolean }) => {
      const calibration = calibrateFiles(results.map((path) => resolve(path)));
      process.stdout.write(options.json === true ? `${JSON.stringify(calibration)}\n` : `${formatCalibration(calibration)}\n`);
    });
  evaluation
    .command("compare <a> <b>")
    .description("Print the differences between two results files, case by case")
    .action((a: string, b: string) => {
      process.stdout.write(`${formatComparison(compareResults(a, b))}\n`);
    });
}
