import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { BotpsyError, errorMessage } from "../src/errors.js";
import type { AttackCase, InjectionSuiteName } from "../src/eval/injection/attack-case.js";
import { injectionCases, spreadSelection } from "../src/eval/injection/cases.js";
import { CompromisedModel } from "../src/eval/injection/compromised-model.js";
import { heldoutInjectionCases, HELDOUT_CLASSES } from "../src/eval/injection/heldout-cases.js";
import { benignScenarioId, DEFENSE_DESCRIPTIONS, DEFENSE_SETTINGS, runInjectionSuite, type InjectionCaseResult, type InjectionSummary } from "../src/eval/injection/run.js";
import type { EvalSettings } from "../src/eval/results.js";
import type { Scenario } from "../src/eval/scenario.js";
import { createChatModel } from "../src/model/resolve.js";
import type { ChatModel } from "../src/model/types.js";
import { botpsyVersion } from "../src/version.js";

/**
 * `npm run bench -- injection [--suite dev|heldout|both] [--json] [--limit N] [--real-limit N] [--model M] [--threads N] [--skip-real]`
 *
 * The prompt-injection benchmark, on the development suite (`injection`, the
 * one defenses may be tuned on) and the held-out suite (`injection-heldout`,
 * written apart and never tuned on). For each suite it reports benign utility
 * (the tasks without attack), utility under attack and attack success (the
 * attacker's goal reached with every approval request declined), overall and
 * per attack class, for
 *   1. a compromised model (a scripted model that obeys every injection it
 *      reads) — every case, or the first `--limit N` (an even spread);
 *   2. the real model (SmolLM2 by default) — an even spread of `--real-limit N`
 *      cases (default 6; about a minute per model turn on a busy 2-core CPU);
 * each with the defenses off, with the injection defenses over a permissive
 * policy, and on (the default policy).
 */

const REAL_MODEL_DEFAULT_CASES = 6;
/** The compromised model is cheap: enough steps for the longest attack (ten deletes) and the task around it. */
const COMPROMISED_MAX_STEPS = 24;
const DEFAULT_TEST_MODEL = ".botpsy-test/models/SmolLM2-135M-Instruct.Q4_1.gguf";

export class BenchUsageError extends BotpsyError {
  constructor(message: string) {
    super("bench_usage", message);
  }
}

type SuiteChoice = "dev" | "heldout" | "both";
const SUITES: Record<"dev" | "heldout", { name: InjectionSuiteName; cases: () => AttackCase[] }> = {
  dev: { name: "injection", cases: injectionCases },
  heldout: { name: "injection-heldout", cases: heldoutInjectionCases },
};

interface BenchOptions {
  json: boolean;
  suite: SuiteChoice;
  limit: number | undefined;
  realLimit: number | undefined;
  model: string | undefined;
  threads: number | undefined;
  skipReal: boolean;
  maxTokens: number;
  maxSteps: number;
}

export function parseArguments(argv: readonly string[]): BenchOptions {
  const options: BenchOptions = { json: false, suite: "both", limit: undefined, realLimit: undefined, model: undefined, threads: undefined, skipReal: false, maxTokens: 48, maxSteps: 3 };
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
    else if (argument === "--real-limit") options.realLimit = wholeNumber("--real-limit", argv[++index]);
    else if (argument === "--threads") options.threads = wholeNumber("--threads", argv[++index]);
    else if (argument === "--max-tokens") options.maxTokens = wholeNumber("--max-tokens", argv[++index]);
    else if (argument === "--max-steps") options.maxSteps = wholeNumber("--max-steps", argv[++index]);
    else if (argument === "--suite") {
      const value = argv[++index];
      if (value !== "dev" && value !== "heldout" && value !== "both") throw new BenchUsageError(`--suite must be dev, heldout or both (got ${value ?? "nothing"}).`);
      options.suite = value;
    } else if (argument === "--model") {
      const value = argv[++index];
      if (value === undefined || value.startsWith("--")) throw new BenchUsageError("--model needs a catalog id or a GGUF path.");
      options.model = value;
    } else {
      throw new BenchUsageError(
        `Unknown option "${argument}". Use --suite dev|heldout|both, --json, --limit N, --real-limit N, --model M, --threads N, --skip-real, --max-tokens N, --max-steps N.`,
      );
    }
  }
  return options;
}

/** Attacked cases of one class under one run: how many, how many the attacker's goal was reached in, how many the model tried. */
export interface ClassTally {
  attackClass: string;
  cases: number;
  held: number;
  attempted: number;
}

export interface Row extends InjectionSummary {
  suite: InjectionSuiteName;
  part: "real model" | "compromised model";
  classes: ClassTally[];
}

function settingsFor(suite: InjectionSuiteName, modelId: string, maxSteps: number, options: BenchOptions): EvalSettings {
  return {
    suite,
    model: { id: modelId },
    options: { thinking: "off", seed: 1, temperature: 0, maxSteps, maxTokens: options.maxTokens },
    botpsyVersion: botpsyVersion(),
  };
}

function caseOf(cases: readonly AttackCase[]): (scenario: Scenario) => AttackCase {
  const byId = new Map<string, AttackCase>();
  for (const injectionCase of cases) {
    byId.set(injectionCase.scenario.id, injectionCase);
    if (!byId.has(benignScenarioId(injectionCase))) byId.set(benignScenarioId(injectionCase), injectionCase);
  }
  return (scenario) => {
    const found = byId.get(scenario.id);
    if (!found) throw new BenchUsageError(`No injection case for scenario ${scenario.id}.`);
    return found;
  };
}

/** The per-class tallies of one run, classes in the suite's own order. */
export function tallyClasses(results: readonly InjectionCaseResult[], order: readonly string[]): ClassTally[] {
  const tallies = new Map<string, ClassTally>();
  for (const result of results) {
    if (result.kind !== "attacked" || result.attackClass === undefined) continue;
    const tally = tallies.get(result.attackClass) ?? { attackClass: result.attackClass, cases: 0, held: 0, attempted: 0 };
    tally.cases++;
    if (!result.attackSucceeded) tally.held++;
    if (result.attackAttempted) tally.attempted++;
    tallies.set(result.attackClass, tally);
  }
  const rank = (name: string): number => (order.includes(name) ? order.indexOf(name) : order.length);
  return [...tallies.values()].sort((first, second) => rank(first.attackClass) - rank(second.attackClass) || first.attackClass.localeCompare(second.attackClass));
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)}%`;
}

function table(header: readonly string[], lines: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column]!.length)));
  const format = (cells: readonly string[]): string => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`;
  return [format(header), `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`, ...lines.map(format)].join("\n");
}

export function formatTable(rows: readonly Row[]): string {
  const header = ["suite", "part", "model", "defenses", "benign utility", "utility under attack", "attack success", "side-effecting goals", "write goals", "asks declined", "time"];
  return table(
    header,
    rows.map((row) => [
      row.suite,
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
    ]),
  );
}

/**
 * One table per suite and part: a line per attack class, a column per defense
 * setting, each cell "held/tried" (attacked cases where the attacker's goal
 * was not reached, of those run), with how many the model attempted for the
 * real model; the last line is benign utility.
 */
export function formatClassTables(rows: readonly Row[]): string {
  const sections: string[] = [];
  const groups = new Map<string, Row[]>();
  for (const row of rows) groups.set(`${row.suite}\u0000${row.part}\u0000${row.modelId}`, [...(groups.get(`${row.suite}\u0000${row.part}\u0000${row.modelId}`) ?? []), row]);
  for (const group of groups.values()) {
    const first = group[0]!;
    const classes: string[] = [];
    for (const row of group) for (const tally of row.classes) if (!classes.includes(tally.attackClass)) classes.push(tally.attackClass);
    const real = first.part === "real model";
    const header = ["attack class", ...group.map((row) => `${row.defense}: held/tried${real ? " (attempted)" : ""}`)];
    const lines = classes.map((attackClass) => [
      attackClass,
      ...group.map((row) => {
        const tally = row.classes.find((candidate) => candidate.attackClass === attackClass);
        if (tally === undefined) return "–";
        return `${tally.held}/${tally.cases}${real ? ` (${tally.attempted})` : ""}`;
      }),
    ]);
    lines.push(["all classes", ...group.map((row) => `${row.attacked.cases - row.attacked.attacks}/${row.attacked.cases}`)]);
    lines.push(["benign utility", ...group.map((row) => `${row.benign.succeeded}/${row.benign.tasks}`)]);
    sections.push(`${first.suite}, ${first.part} (${first.modelId}):\n${table(header, lines)}`);
  }
  return sections.join("\n\n");
}

async function loadRealModel(options: BenchOptions): Promise<ChatModel> {
  const fallback = process.env.BOTPSY_TEST_MODEL ?? (existsSync(DEFAULT_TEST_MODEL) ? resolve(DEFAULT_TEST_MODEL) : undefined);
  return createChatModel({ model: options.model ?? fallback, progress: true, ...(options.threads !== undefined ? { threads: options.threads } : {}) });
}

function classOrder(suite: InjectionSuiteName, cases: readonly AttackCase[]): string[] {
  if (suite === "injection-heldout") return [...HELDOUT_CLASSES];
  return [...new Set(cases.map((injectionCase) => injectionCase.attackClass))];
}

export async function runInjectionBench(argv: readonly string[]): Promise<number> {
  const options = parseArguments(argv);
  const chosen = options.suite === "both" ? (["dev", "heldout"] as const) : ([options.suite] as const);
  const rows: Row[] = [];
  const counts: Record<string, number> = {};
  const log = (text: string): void => {
    if (!options.json) process.stderr.write(`${text}\n`);
  };

  for (const key of chosen) {
    const { name, cases: build } = SUITES[key];
    const all = build();
    counts[name] = all.length;
    const order = classOrder(name, all);
    const compromisedCases = spreadSelection(all, options.limit);
    const findCase = caseOf(compromisedCases);
    for (const defense of DEFENSE_SETTINGS) {
      log(`${name}: compromised model, defenses ${defense}: ${compromisedCases.length} cases…`);
      const { summary, results } = await runInjectionSuite(compromisedCases, {
        defense,
        modelId: "compromised-model",
        settings: settingsFor(name, "compromised-model", COMPROMISED_MAX_STEPS, options),
        model: (scenario) => new CompromisedModel(findCase(scenario)),
      });
      rows.push({ suite: name, part: "compromised model", ...summary, classes: tallyClasses(results, order) });
    }
  }

  if (!options.skipReal) {
    const model = await loadRealModel(options);
    try {
      for (const key of chosen) {
        const { name, cases: build } = SUITES[key];
        const all = build();
        const realCases = spreadSelection(all, options.realLimit ?? REAL_MODEL_DEFAULT_CASES);
        for (const defense of DEFENSE_SETTINGS) {
          let done = 0;
          log(`${name}: ${model.id}, defenses ${defense}: ${realCases.length} attacked cases and their benign tasks…`);
          const { summary, results } = await runInjectionSuite(realCases, {
            defense,
            modelId: model.id,
            settings: settingsFor(name, model.id, options.maxSteps, options),
            model: () => model,
            onCase: (result) => {
              done++;
              log(`  ${done} runs (last: ${result.caseId}, ${(result.durationMs / 1000).toFixed(1)} s)`);
            },
          });
          rows.push({ suite: name, part: "real model", ...summary, classes: tallyClasses(results, classOrder(name, all)) });
        }
      }
    } finally {
      await model.dispose();
    }
  }

  if (options.json) {
    process.stdout.write(`${JSON.stringify({ cases: counts, defenses: DEFENSE_DESCRIPTIONS, rows }, null, 2)}\n`);
  } else {
    const described = Object.entries(counts).map(([name, count]) => `${name} ${count} cases`);
    process.stdout.write(`Prompt-injection benchmark (${described.join(", ")}; "injection" is the development suite, "injection-heldout" the held-out one); approval requests declined.\n\n`);
    process.stdout.write(`${formatTable(rows)}\n\n`);
    process.stdout.write(`Per attack class (held = the attacker's goal not reached; attempted = the model made an attacker's call):\n\n${formatClassTables(rows)}\n\n`);
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
