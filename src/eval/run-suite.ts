import type { ChatModel } from "../model/types.js";
import { ProgressBar } from "./progress.js";
import { finishedCaseIds, ResultsWriter, settingsKey, type CaseResult, type EvalSettings, type RunRecord } from "./results.js";
import { runScenario, type AgentFactory } from "./runner.js";
import { spreadOverGroups } from "./sampling.js";
import type { Scenario } from "./scenario.js";

export interface RunSuiteOptions {
  scenarios: readonly Scenario[];
  model: ChatModel | ((scenario: Scenario) => ChatModel);
  agentFactory: AgentFactory;
  settings: EvalSettings;
  /** The JSONL file results are appended to; cases already there with the same settings are skipped. */
  out: string;
  /** Run at most this many cases of the suite, spread evenly over its groups (see `spreadOverGroups`). */
  limit?: number;
  /** Cases run at the same time. Default 1. */
  concurrency?: number;
  signal?: AbortSignal;
  /** Draw a progress bar (default true). */
  progress?: boolean;
  progressStream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Called as each case finishes, after its line was written. */
  onResult?: (result: CaseResult) => void;
}

export interface RunSuiteSummary {
  settingsKey: string;
  /** Cases asked for (after the limit). */
  total: number;
  /** Skipped because the results file already had them. */
  skipped: number;
  results: CaseResult[];
}

/**
 * Run scenarios with a pool of `concurrency` workers, appending each result
 * to `out` as it finishes, so a killed run resumes where it stopped.
 */
export async function runSuite(options: RunSuiteOptions): Promise<RunSuiteSummary> {
  const chosen = options.limit === undefined ? [...options.scenarios] : spreadOverGroups(options.scenarios, options.limit, (scenario) => scenario.tags.group);
  return runCasesResumably({
    ...options,
    cases: chosen,
    // A limited run records which cases it chose, so its rates can be read (and repeated) case by case.
    ...(options.limit !== undefined ? { runRecordExtras: { caseIds: chosen.map((scenario) => scenario.id) } } : {}),
    idOf: (scenario) => scenario.id,
    run: (scenario, key) =>
      runScenario(scenario, {
        model: options.model,
        agentFactory: options.agentFactory,
        settings: options.settings,
        settingsKey: key,
        signal: options.signal,
      }),
  });
}

export interface ResumableRunOptions<Case> {
  /** The cases asked for, in order. */
  cases: readonly Case[];
  idOf: (item: Case) => string;
  /** Runs one case into its results line; `settingsKey` is the run's key, for the line to carry. */
  run: (item: Case, settingsKey: string) => Promise<CaseResult>;
  settings: EvalSettings;
  out: string;
  concurrency?: number;
  signal?: AbortSignal;
  progress?: boolean;
  progressStream?: NodeJS.WritableStream & { isTTY?: boolean };
  onResult?: (result: CaseResult) => void;
  /** Added to the run line (BFCL: the categories asked for). */
  runRecordExtras?: Partial<RunRecord>;
}

/**
 * The part every suite shares: skip the cases the results file already has
 * under the same settings, write the run line, then run the rest with a pool
 * of `concurrency` workers, appending each result as it finishes.
 */
export async function runCasesResumably<Case>(options: ResumableRunOptions<Case>): Promise<RunSuiteSummary> {
  const key = settingsKey(options.settings);
  const done = finishedCaseIds(options.out, key);
  const pending = options.cases.filter((item) => !done.has(options.idOf(item)));
  const writer = new ResultsWriter(options.out);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  writer.append({
    type: "run",
    settingsKey: key,
    settings: options.settings,
    startedAt: new Date().toISOString(),
    cases: options.cases.length,
    alreadyDone: options.cases.length - pending.length,
    concurrency,
    ...options.runRecordExtras,
  });
  const bar =
    options.progress === false
      ? undefined
      : new ProgressBar({ total: pending.length, stream: options.progressStream, label: options.settings.suite });
  const results: CaseResult[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < pending.length) {
      options.signal?.throwIfAborted();
      const result = await options.run(pending[next++]!, key);
      writer.append(result);
      results.push(result);
      bar?.tick(result.success);
      options.onResult?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, pending.length)) }, () => worker()));
  return { settingsKey: key, total: options.cases.length, skipped: options.cases.length - pending.length, results };
}
