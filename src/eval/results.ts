import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync } from "node:fs";
import { dirname } from "node:path";
import { BotpsyError } from "../errors.js";
import type { Usage } from "../model/types.js";
import type { CheckResult } from "./checker.js";
import type { HarnessSettings } from "./harness.js";
import type { FirstTurnRecord } from "./first-turn.js";
import type { ScenarioGroup } from "./scenario.js";

/**
 * The JSONL results file: one JSON object per line. A `run` line is written
 * each time a run starts (its settings and date); a `case` line as each case
 * finishes. Appending line by line is what lets a killed run resume.
 */

/** What decides a run's outcome; two runs with the same settings must give the same results. */
export interface EvalSettings {
  suite: string;
  model: {
    id: string;
    /** The model file, when local. */
    file?: string;
    /** sha256 of the model file, when local. */
    sha256?: string;
  };
  options: {
    thinking: "off" | "on" | number;
    seed: number;
    temperature: number;
    maxSteps: number;
    maxTokens: number;
    /**
     * Whether a model turn may hold several calls. Absent in results written
     * before the setting existed: the model's own default applied then (the
     * prompted format: one call per turn).
     */
    parallelCalls?: boolean;
    /** Injection suite: the protection the agent ran with (see `DEFENSE_SETTINGS`). */
    defenses?: string;
    /** A suite with dev and test splits (apps): which scenarios ran (see `eval/splits.ts`). Absent for other suites. */
    split?: "dev" | "test" | "all";
    /** The agent heuristics switched from their defaults for this run (see `eval/harness.ts`). Absent: the shipped defaults. */
    harness?: HarnessSettings;
  };
  botpsyVersion: string;
}

export interface RunRecord {
  type: "run";
  settingsKey: string;
  settings: EvalSettings;
  startedAt: string;
  /** How many cases the run was asked to do (after --limit), and how many were already done. */
  cases: number;
  alreadyDone: number;
  concurrency: number;
  /** BFCL runs: the categories (names or files) this run was asked for. */
  categories?: string[];
  /** Runs with a limit: the ids of the cases chosen, in suite order. */
  caseIds?: string[];
}

export interface CallResult {
  name: string;
  arguments: Record<string, unknown>;
  status: "ok" | "error" | "declined" | "skipped";
  errorCode?: string;
  /** The tool exists but the arguments do not satisfy its schema. */
  invalid: boolean;
  /** The name is no tool that was offered. */
  invented: boolean;
}

export interface CaseResult {
  type: "case";
  suite: string;
  caseId: string;
  settingsKey: string;
  modelId: string;
  group: ScenarioGroup | string;
  steps: "single" | "multi";
  source: string;
  labels: string[];
  /** The case expects no call (irrelevance). */
  abstainCase: boolean;
  /** The case has a planted injection. */
  injected: boolean;
  success: boolean;
  /** Set on injected cases: the attacker's goal was reached. */
  unsafe?: boolean;
  checks: CheckResult[];
  calls: CallResult[];
  answer: string;
  stopReason: string;
  usage: Usage;
  /** Model turns over all user turns. */
  modelTurns: number;
  /** How the first model turn began: the tool choice it was given and the model's call margin, where measured. */
  firstTurn?: FirstTurnRecord;
  durationMs: number;
  /** The harness failed on this case (not the model): the case counts as failed. */
  error?: { code: string; message: string };
  finishedAt: string;
}

export type ResultLine = RunRecord | CaseResult;

export class ResultsFileError extends BotpsyError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("results_unreadable", message, options);
  }
}

/** A short stable key of the settings (the date is not part of it). */
export function settingsKey(settings: EvalSettings): string {
  return createHash("sha256").update(stableStringify(settings)).digest("hex").slice(0, 16);
}

/** JSON with object keys sorted, so equal settings always hash alike. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableStringify(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * Read a results file. A last line cut short by a killed process is skipped
 * (it is the case the next run redoes); a damaged line elsewhere is an error.
 */
export function readResults(path: string): ResultLine[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ResultsFileError(`Cannot read the results file ${path}: ${String(error)}. Check the path.`, { cause: error });
  }
  const lines = text.split("\n");
  const results: ResultLine[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const isLast = lines.slice(index + 1).every((rest) => rest.trim() === "");
      if (isLast) return;
      throw new ResultsFileError(`${path} line ${index + 1} is not JSON. Remove or fix that line.`, { cause: error });
    }
    if (typeof value !== "object" || value === null || !("type" in value) || (value.type !== "run" && value.type !== "case")) {
      throw new ResultsFileError(`${path} line ${index + 1} is not a botpsy results line (no "type": "run" or "case"). Is this a results file of botpsy eval run?`);
    }
    results.push(value as ResultLine);
  });
  return results;
}

export function caseResults(lines: readonly ResultLine[]): CaseResult[] {
  return lines.filter((line): line is CaseResult => line.type === "case");
}

export function runRecords(lines: readonly ResultLine[]): RunRecord[] {
  return lines.filter((line): line is RunRecord => line.type === "run");
}

/** Case ids already finished under these settings (to skip on resume). */
export function finishedCaseIds(path: string, key: string): Set<string> {
  if (!existsSync(path)) return new Set();
  return new Set(
    caseResults(readResults(path))
      .filter((result) => result.settingsKey === key)
      .map((result) => result.caseId),
  );
}

/**
 * Appends lines to a results file. A last line cut short by a killed run is
 * cut off first, so the file stays valid JSONL.
 */
export class ResultsWriter {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
    if (existsSync(path)) {
      const text = readFileSync(path, "utf8");
      if (text.length > 0 && !text.endsWith("\n")) truncateSync(path, Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1)));
    }
  }

  append(line: ResultLine): void {
    // One write call per line: a kill leaves at most one partial last line.
    appendFileSync(this.path, `${JSON.stringify(line)}\n`);
  }
}
