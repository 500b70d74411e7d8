import type { ChatModel } from "../model/types.js";
import { ProgressBar } from "./progress.js";
import { finishedCaseIds, ResultsWriter, settingsKey, type CaseResult, type EvalSettings } from "./results.js";
import { runScenario, type AgentFactory } from "./runner.js";
import type { Scenario } from "./scenario.js";

export interface RunSuiteOptions {
  scenarios: readonly Scenario[];
  model: ChatModel | ((scenario: Scenario) => ChatModel);
  agentFactory: AgentFactory;
  settings: EvalSettings;
  /** The JSONL file results are appended to; cases already there with the same settings are skipped. */
  out: string;
  /** Run at most this many cases of the suite (the first N, in suite order). */
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
  const key = settingsKey(options.settings);
  const chosen = options.limit === undefined ? [...options.scenarios] : options.scenarios.slice(0, options.limit);
  const done = finishedCaseIds(options.out, key);
  const pending = chosen.filter((scenario) => !done.has(scenario.id));
  const writer = new ResultsWriter(options.out);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  writer.append({
    type: "run",
    settingsKey: key,
    settings: options.settings,
    startedAt: new Date().toISOString(),
    cases: chosen.length,
    alreadyDone: chosen.length - pending.length,
    concurrency,
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
      const scenario = pending[next++]!;
      const result = await runScenario(scenario, {
        model: options.model,
        agentFactory: options.agentFactory,
        settings: options.settings,
        settingsKey: key,
        signal: options.signal,
      });
      writer.append(result);
      results.push(result);
      bar?.tick(result.success);
      options.onResult?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, pending.length)) }, () => worker()));
  return { settingsKey: key, total: chosen.length, skipped: chosen.length - pending.length, results };
}
