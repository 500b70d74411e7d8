import { basename, isAbsolute, relative, sep } from "node:path";
import { InvalidInputError } from "../errors.js";
import type { ChatModel } from "../model/types.js";
import { botpsyAgentFactory } from "./agent-factory.js";
import { observeFirstTurn, type FirstTurnRecord } from "./first-turn.js";
import { runBfclCase, type BfclCaseResult, type BfclUnrunCall } from "./bfcl/agent-run.js";
import type { BfclModelCall } from "./bfcl/ast-checker.js";
import { BFCL_CATEGORIES, loadBfclCategory, type BfclCase } from "./bfcl/loader.js";
import type { BfclFunctionDoc } from "./bfcl/schema.js";
import { BFCL_SUITE } from "./bfcl-scores.js";
import { packageRoot } from "../version.js";
import type { CheckResult } from "./checker.js";
import type { CallResult, CaseResult, EvalSettings } from "./results.js";
import type { AgentFactory } from "./runner.js";
import { runCasesResumably, type RunSuiteSummary } from "./run-suite.js";

/**
 * A category as a run records it: a file inside botpsy (the unseen suite's
 * files) by its path from the package's root, so a results file names the
 * same data on every install; any other name or path as given.
 */
export function recordedCategory(category: string): string {
  if (!isAbsolute(category)) return category;
  const inside = relative(packageRoot(), category);
  return inside !== "" && !inside.startsWith("..") && !isAbsolute(inside) ? inside.split(sep).join("/") : category;
}

/**
 * BFCL in the common results format: each BFCL case result becomes a
 * `CaseResult` line (the category as its group), so the same resume,
 * report and compare work on BFCL runs as on scenario suites.
 */

export interface RunBfclSuiteOptions {
  /** Built-in category names or paths of BFCL files. Default: every built-in category. */
  categories?: readonly string[];
  model: ChatModel;
  /** Builds the agent each case runs through. Default: botpsy's own (`botpsyAgentFactory`), as the other suites run it. */
  agentFactory?: AgentFactory;
  /** `suite` must be "bfcl"; `options.maxSteps` is the step cap per turn (the leaderboard's is 20). */
  settings: EvalSettings;
  /** The JSONL file results are appended to; cases already there with the same settings are skipped. */
  out: string;
  /** At most this many cases of each category (the first N of its file). */
  limit?: number;
  /** Cases run at the same time. Default 1. */
  concurrency?: number;
  /** Where the BFCL files are (default: the data that ships with botpsy). */
  dataDirectory?: string;
  signal?: AbortSignal;
  /** Draw a progress bar (default true). */
  progress?: boolean;
  progressStream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Called as each case finishes, after its line was written. */
  onResult?: (result: CaseResult) => void;
}

interface LoadedCase {
  caseData: BfclCase;
  /** The file or built-in category it came from, recorded as the result's source. */
  source: string;
}

function sourceName(category: string): string {
  return (BFCL_CATEGORIES as readonly string[]).includes(category) ? "bfcl-v4" : basename(category);
}

/**
 * Run BFCL categories through the agent in the shared resumable case pool
 * (`concurrency` workers), appending each case's result to `out` as it
 * finishes, so a killed run resumes where it stopped (case ids are unique
 * across BFCL categories).
 */
export async function runBfclSuite(options: RunBfclSuiteOptions): Promise<RunSuiteSummary> {
  if (options.settings.suite !== BFCL_SUITE) {
    throw new InvalidInputError(`BFCL results are recorded under the suite "${BFCL_SUITE}", not "${options.settings.suite}": set settings.suite to "${BFCL_SUITE}".`);
  }
  const categories = options.categories ?? [...BFCL_CATEGORIES];
  const chosen: LoadedCase[] = categories.flatMap((category) =>
    loadBfclCategory(category, { dataDirectory: options.dataDirectory, limit: options.limit }).map((caseData) => ({ caseData, source: sourceName(category) })),
  );
  const agentFactory = options.agentFactory ?? botpsyAgentFactory;
  return runCasesResumably({
    ...options,
    cases: chosen,
    idOf: (item) => item.caseData.id,
    runRecordExtras: { categories: categories.map(recordedCategory) },
    run: async (item, key) => {
      const observed = observeFirstTurn(options.model);
      const outcome = await runBfclCase(item.caseData, { model: observed.model, agentFactory, settings: options.settings, signal: options.signal });
      const firstTurn = await observed.firstTurn();
      return bfclCaseResult(item.caseData, outcome, { settings: options.settings, settingsKey: key, modelId: options.model.id, source: item.source, firstTurn });
    },
  });
}

export interface BfclCaseResultContext {
  settings: EvalSettings;
  settingsKey: string;
  modelId: string;
  /** "bfcl-v4" for the built-in data, else the file name. */
  source: string;
  /** How the case's first model turn began, when it had one. */
  firstTurn?: FirstTurnRecord | undefined;
}

/** A BFCL case result as a line of the common results file. */
export function bfclCaseResult(caseData: BfclCase, outcome: BfclCaseResult, context: BfclCaseResultContext): CaseResult {
  const harnessFailed = outcome.errorType === "model_error";
  const docs = new Map(caseData.functions.map((doc) => [doc.name, doc]));
  const calls: CallResult[] = [...outcome.calls.flat(), ...(outcome.notRun ?? [])].map((call) => classifyCall(call, docs));
  return {
    type: "case",
    suite: BFCL_SUITE,
    caseId: caseData.id,
    settingsKey: context.settingsKey,
    modelId: context.modelId,
    group: caseData.category,
    steps: caseData.kind === "multi-turn" ? "multi" : "single",
    source: context.source,
    labels: [caseData.category, ...(outcome.errorType !== undefined ? [outcome.errorType] : [])],
    abstainCase: caseData.category.includes("irrelevance"),
    injected: false,
    success: outcome.valid,
    checks: harnessFailed ? [] : checksOf(caseData, outcome),
    calls,
    answer: "",
    stopReason: outcome.valid ? "passed" : (outcome.errorType ?? "failed"),
    usage: outcome.usage,
    modelTurns: outcome.steps,
    ...(context.firstTurn !== undefined ? { firstTurn: context.firstTurn } : {}),
    durationMs: Math.round(outcome.durationMs),
    ...(harnessFailed ? { error: { code: "model_error", message: outcome.errors.join("; ") || "the model request failed" } } : {}),
    finishedAt: new Date().toISOString(),
  };
}

function checksOf(caseData: BfclCase, outcome: BfclCaseResult): CheckResult[] {
  if (caseData.kind === "single-turn") {
    const detail = outcome.valid ? "AST check passed" : `${outcome.errorType ?? "failed"}: ${outcome.errors.join("; ")}`;
    return [{ kind: "bfcl-ast", passed: outcome.valid, detail }];
  }
  return (outcome.turns ?? []).map((turn) => ({
    kind: "bfcl-turn" as const,
    passed: turn.valid,
    detail: turn.valid
      ? `turn ${turn.turnIndex}: state and results match the ground truth`
      : `turn ${turn.turnIndex}: ${turn.errorType ?? "failed"}${turn.message ? ` (${turn.message})` : ""}`,
  }));
}

/**
 * Invented: no function of the case has that name. Invalid: the function
 * exists but a required parameter is missing or an unknown one is given.
 */
function classifyCall(call: BfclModelCall | BfclUnrunCall, docs: ReadonlyMap<string, BfclFunctionDoc>): CallResult {
  const doc = docs.get(call.name);
  const invented = doc === undefined;
  let invalid = false;
  if (doc !== undefined) {
    const properties = Object.keys(doc.parameters.properties ?? {});
    const missing = (doc.parameters.required ?? []).some((name) => !(name in call.arguments));
    const unknown = Object.keys(call.arguments).some((name) => !properties.includes(name));
    invalid = missing || unknown;
  }
  // A recorded call ran through its tool (a single-turn tool records it; a multi-turn tool runs it on the case's APIs);
  // a call that did not run carries its own status and error code.
  if ("status" in call) return { name: call.name, arguments: call.arguments, status: call.status, ...(call.errorCode !== undefined ? { errorCode: call.errorCode } : {}), invalid, invented };
  return { name: call.name, arguments: call.arguments, status: "ok", invalid, invented };
}
