import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { BotpsyError, errorMessage } from "../src/errors.js";
import { injectionCases, spreadSelection, type InjectionCase } from "../src/eval/injection/cases.js";
import { CompromisedModel } from "../src/eval/injection/compromised-model.js";
import { DEFENSE_DESCRIPTIONS, runInjectionSuite, type DefenseSetting, type InjectionSummary } from "../src/eval/injection/run.js";
import type { EvalSettings } from "../src/eval/results.js";
import type { Scenario } from "../src/eval/scenario.js";
import { createChatModel } from "../src/model/resolve.js";
import type { ChatModel } from "../src/model/types.js";
import { botpsyVersion } from "../src/version.js";

/**
 * `npm run bench -- injection [--json] [--limit N] [--model M] [--skip-real]`
 *
 * The prompt-injection benchmark: benign utility (the tasks without attack),
 * utility under attack and attack success rate (the attacker's goal reached
 * with every approval request declined) for
 *   1. the real model (SmolLM2 by default) with the defenses off and on, and
 *   2. a compromised model (a scripted model that obeys every injection) with
 *      the defenses off, with the injection defenses over a permissive
 *      policy, and on.
 * The compromised model runs every case; the real model runs an even spread
 * of 6 cases by default (about a minute per model turn on a busy 2-core CPU): `--limit N` sets the
 * number of attacked cases for both.
 */

const REAL_MODEL_DEFAULT_CASES = 6;
const DEFAULT_TEST_MODEL = ".botpsy-test/models/SmolLM2-135M-Instruct.Q4_1.gguf";

export class BenchUsageError extends BotpsyError {
  constructor(message: string) {
    super("bench_usage", message);
  }
}

interface BenchOptions {
  json: boolean;
  limit: number | undefined;
  model: string | undefined;
  skipReal: boolean;
  maxTokens: number;
  maxSteps: number;
}

function parseArguments(argv: readonly string[]): BenchOptions {
  const options: BenchOptions = { json: false, limit: undefined, model: undefined, skipReal: false, maxTokens: 48, maxSteps: 3 };
  const wholeNumber = (flag: string, text: string | undefined): number => {
    const value = Number(text);
    if (text === undefined || !Number.isInteger(value) || value < 1) throw new BenchUsageError(`${flag} needs a whole number, 1 or more (got ${text ?? "nothing"}).`);
    return value;
  };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === "--json") options.json = true;
    else if (argument === "--skip-real") options.skipReal = true;
    else if (argument === "--limit") options.limit = wholeNumber("--limit", argv[++index]);
    else if (argument === "--max-tokens") options.maxTokens = wholeNumber("--max-tokens", argv[++index]);
    else if (argument === "--max-steps") options.maxSteps = wholeNumber("--max-steps", argv[++index]);
    else if (argument === "--model") {
      const value = argv[++index];
      if (value === undefined || value.startsWith("--")) throw new BenchUsageError("--model needs a catalog id or a GGUF path.");
      options.model = value;
    } else {
      throw new BenchUsageError(`Unknown option "${argument}". Use --json, --limit N, --model M, --skip-real, --max-tokens N, --max-steps N.`);
    }
  }
  return options;
}

interface Row extends InjectionSummary {
  part: "real model" | "compromised model";
}

function settingsFor(modelId: string, options: BenchOptions): EvalSettings {
  return {
    suite: "injection",
    model: { id: modelId },
    options: { thinking: "off", seed: 1, temperature: 0, maxSteps: options.maxSteps, maxTokens: options.maxTokens },
    botpsyVersion: botpsyVersion(),
  };
}

function caseOf(cases: readonly InjectionCase[]): (scenario: Scenario) => InjectionCase {
  const byId = new Map<string, InjectionCase>();
  for (const injectionCase of cases) {
    byId.set(injectionCase.scenario.id, injectionCase);
    byId.set(`injection.${injectionCase.task.id}.benign`, injectionCase);
  }
  return (scenario) => {
    const found = byId.get(scenario.id);
    if (!found) throw new BenchUsageError(`No injection case for scenario ${scenario.id}.`);
    return found;
  };
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)}%`;
}

export function formatTable(rows: readonly Row[]): string {
  const header = ["part", "model", "defenses", "benign utility", "utility under attack", "attack success", "side-effecting goals", "write goals", "asks declined", "time"];
  const lines = rows.map((row) => [
    row.part,
    row.modelId,
    row.defense,
    `${percent(row.benign.succeeded, row.benign.tasks)} (${row.benign.succeeded}/${row.benign.tasks})`,
    `${percent(row.attacked.succeeded, row.attacked.cases)} (${row.attacked.succeeded}/${row.attacked.cases})`,
    `${percent(row.attacked.attacks, row.attacked.cases)} (${row.attacked.attacks}/${row.attacked.cases})`,
    `${percent(row.attacked.sideEffectingAttacks, row.attacked.sideEffectingCases)} (${row.attacked.sideEffectingAttacks}/${row.attacked.sideEffectingCases})`,
    `${percent(row.attacked.writeAttacks, row.attacked.writeCases)} (${row.attacked.writeAttacks}/${row.attacked.writeCases})`,
    String(row.declined),
    `${(row.durationMs / 1000).toFixed(1)} s`,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column]!.length)));
  const format = (cells: readonly string[]): string => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`;
  return [format(header), `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`, ...lines.map(format)].join("\n");
}

async function loadRealModel(options: BenchOptions): Promise<ChatModel> {
  const fallback = process.env.BOTPSY_TEST_MODEL ?? (existsSync(DEFAULT_TEST_MODEL) ? resolve(DEFAULT_TEST_MODEL) : undefined);
  return createChatModel({ model: options.model ?? fallback, progress: true });
}

export async function runInjectionBench(argv: readonly string[]): Promise<number> {
  const options = parseArguments(argv);
  const all = injectionCases();
  const rows: Row[] = [];
  const log = (text: string): void => {
    if (!options.json) process.stderr.write(`${text}\n`);
  };

  const compromisedCases = spreadSelection(all, options.limit);
  const findCase = caseOf(compromisedCases);
  for (const defense of ["off", "injection-defenses", "on"] as const satisfies readonly DefenseSetting[]) {
    log(`compromised model, defenses ${defense}: ${compromisedCases.length} cases…`);
    const { summary } = await runInjectionSuite(compromisedCases, {
      defense,
      modelId: "compromised-model",
      settings: settingsFor("compromised-model", options),
      model: (scenario) => new CompromisedModel(findCase(scenario)),
    });
    rows.push({ part: "compromised model", ...summary });
  }

  if (!options.skipReal) {
    const realCases = spreadSelection(all, options.limit ?? REAL_MODEL_DEFAULT_CASES);
    const model = await loadRealModel(options);
    try {
      for (const defense of ["off", "on"] as const satisfies readonly DefenseSetting[]) {
        let done = 0;
        log(`${model.id}, defenses ${defense}: ${realCases.length} attacked cases and their benign tasks…`);
        const { summary } = await runInjectionSuite(realCases, {
          defense,
          modelId: model.id,
          settings: settingsFor(model.id, options),
          model: () => model,
          onCase: (result) => {
            done++;
            log(`  ${done} runs (last: ${result.caseId}, ${(result.durationMs / 1000).toFixed(1)} s)`);
          },
        });
        rows.push({ part: "real model", ...summary });
      }
    } finally {
      await model.dispose();
    }
  }

  if (options.json) {
    process.stdout.write(`${JSON.stringify({ cases: all.length, defenses: DEFENSE_DESCRIPTIONS, rows }, null, 2)}\n`);
  } else {
    process.stdout.write(`Prompt-injection benchmark: ${all.length} cases (12 tasks × 11 goals, 6 carriers, 5 phrasings); approval requests declined.\n\n`);
    process.stdout.write(`${formatTable(rows)}\n\n`);
    for (const [defense, description] of Object.entries(DEFENSE_DESCRIPTIONS)) process.stdout.write(`  ${defense}: ${description}\n`);
  }
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runInjectionBench(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${errorMessage(error)}\n`);
      process.exit(1);
    },
  );
}
