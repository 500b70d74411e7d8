import { valuesEqual } from "./ast-checker.js";
import { createStatefulApi, type StatefulApi } from "./apis/index.js";
import { ApiExecutionError } from "./apis/stateful-api.js";
import type { BfclMultiTurnCase } from "./loader.js";
import { formatPythonValue, parsePythonCall } from "./python-call.js";

/** Most model steps (generate calls) in one turn before the case is failed, as the leaderboard does. */
export const MAXIMUM_STEPS_PER_TURN = 20;

/** What the leaderboard sends when held-back functions arrive at a turn without a user message. */
export const ADDITIONAL_FUNCTIONS_PROMPT = "I have updated some more functions you can choose from. What about now?";

/** Names the reference refuses to evaluate. */
const REFUSED_NAMES = new Set(["kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"]);

/** Writes a method's return value as the leaderboard's executor does: text as is, dicts as JSON, the rest as Python text. */
export function formatExecutionResult(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return JSON.stringify(value);
  return formatPythonValue(value);
}

/** The API instances of one run through a case (the model's, or the ground truth's). */
export class MultiTurnEnvironment {
  readonly instances = new Map<string, StatefulApi>();
  private readonly ownerOfMethod = new Map<string, StatefulApi>();

  constructor(caseData: Pick<BfclMultiTurnCase, "involvedClasses" | "initialConfig">) {
    for (const className of caseData.involvedClasses) {
      const api = createStatefulApi(className, caseData.initialConfig[className] ?? {});
      this.instances.set(className, api);
      // A later class wins a shared method name, as in the reference's name mapping.
      for (const method of api.methodNames()) this.ownerOfMethod.set(method, api);
    }
  }

  /** Runs one call and returns its result text; failures come back as `Error during execution: …`. */
  execute(name: string, positional: readonly unknown[], keywords: Record<string, unknown>): string {
    try {
      const shortName = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1) : name;
      if (REFUSED_NAMES.has(shortName)) throw new ApiExecutionError(`Function call ${shortName} is not allowed.`);
      const owner = this.ownerOfMethod.get(shortName);
      if (owner === undefined) throw new ApiExecutionError(`name '${name}' is not defined`);
      return formatExecutionResult(owner.invoke(shortName, positional, keywords));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return `Error during execution: ${message}`;
    }
  }

  /** Runs a Python call string such as `cd(folder='document')`. */
  executeSource(source: string): string {
    let call;
    try {
      call = parsePythonCall(source);
    } catch (error) {
      return `Error during execution: ${error instanceof Error ? error.message : String(error)}`;
    }
    return this.execute(call.name, call.positional, call.keywords);
  }

  /** Public attributes of every instance, by class. */
  state(): Record<string, Record<string, unknown>> {
    return Object.fromEntries([...this.instances].map(([className, api]) => [className, api.state()]));
  }
}

export type MultiTurnFailure =
  | "multi_turn:empty_turn_model_response"
  | "multi_turn:instance_state_mismatch"
  | "multi_turn:execution_response_mismatch"
  | "multi_turn:force_terminated";

export interface TurnCheck {
  turnIndex: number;
  valid: boolean;
  errorType?: MultiTurnFailure;
  message?: string;
  /** Attributes that differ, as `Class.attribute`, when the state check failed. */
  stateDifferences?: string[];
  /** Ground-truth results missing from the model's results, when the response check failed. */
  missingResults?: string[];
  groundTruthResults: string[];
}

/**
 * Runs the model's calls and the ground truth side by side and checks each
 * turn as the leaderboard does: after a turn with a non-empty ground truth,
 * the model must have made a call, every public attribute of every instance
 * must equal the ground truth's, and every ground-truth result must be among
 * the model's results so far (any order, duplicates counted).
 */
export class MultiTurnChecker {
  readonly model: MultiTurnEnvironment;
  readonly groundTruth: MultiTurnEnvironment;
  private readonly allModelResults: string[] = [];
  private turnModelCallCount = 0;

  constructor(private readonly caseData: BfclMultiTurnCase) {
    this.model = new MultiTurnEnvironment(caseData);
    this.groundTruth = new MultiTurnEnvironment(caseData);
  }

  /** Executes a model call (by BFCL function name and arguments) and records its result. */
  executeModelCall(name: string, args: Record<string, unknown>, positional: readonly unknown[] = []): string {
    const result = this.model.execute(name, positional, args);
    this.allModelResults.push(result);
    this.turnModelCallCount++;
    return result;
  }

  /** Executes the turn's ground truth and checks the turn. Call once per turn, after the model's calls. */
  finishTurn(turnIndex: number): TurnCheck {
    const calls = this.caseData.groundTruth[turnIndex] ?? [];
    const groundTruthResults = calls.map((source) => this.groundTruth.executeSource(source));
    const modelMadeCalls = this.turnModelCallCount > 0;
    this.turnModelCallCount = 0;
    if (calls.length === 0) return { turnIndex, valid: true, groundTruthResults };
    if (!modelMadeCalls) {
      return { turnIndex, valid: false, errorType: "multi_turn:empty_turn_model_response", message: `The model made no call at turn ${turnIndex}.`, groundTruthResults };
    }
    const differences = compareStates(this.model.state(), this.groundTruth.state());
    if (differences.length > 0) {
      return {
        turnIndex,
        valid: false,
        errorType: "multi_turn:instance_state_mismatch",
        message: `After turn ${turnIndex} the state differs from the ground truth's in ${differences.join(", ")}.`,
        stateDifferences: differences,
        groundTruthResults,
      };
    }
    const missing = missingResults(groundTruthResults, this.allModelResults);
    if (missing.length > 0) {
      return {
        turnIndex,
        valid: false,
        errorType: "multi_turn:execution_response_mismatch",
        message: `After turn ${turnIndex} the model's results so far lack ${missing.length} ground-truth result(s).`,
        missingResults: missing,
        groundTruthResults,
      };
    }
    return { turnIndex, valid: true, groundTruthResults };
  }
}

/** `Class.attribute` for every public attribute whose values differ. */
export function compareStates(model: Record<string, Record<string, unknown>>, groundTruth: Record<string, Record<string, unknown>>): string[] {
  const differences: string[] = [];
  for (const [className, expected] of Object.entries(groundTruth)) {
    const actual = model[className] ?? {};
    for (const [attribute, value] of Object.entries(expected)) {
      if (!valuesEqual(actual[attribute], value)) differences.push(`${className}.${attribute}`);
    }
  }
  return differences;
}

/** The expected results not found in the actual ones (each actual result is used once). */
export function missingResults(expected: readonly string[], actual: readonly string[]): string[] {
  const remaining = [...actual];
  const missing: string[] = [];
  for (const item of expected) {
    const index = remaining.indexOf(item);
    if (index < 0) missing.push(item);
    else remaining.splice(index, 1);
  }
  return missing;
}

/**
 * Runs a case's own ground truth as the model's calls and checks every turn:
 * the self-check of the TypeScript APIs (it must pass for every case).
 */
export function checkGroundTruthAgainstItself(caseData: BfclMultiTurnCase): TurnCheck[] {
  const checker = new MultiTurnChecker(caseData);
  return caseData.groundTruth.map((calls, turnIndex) => {
    for (const source of calls) {
      const call = parsePythonCall(source);
      checker.executeModelCall(call.name, call.keywords, call.positional);
    }
    return checker.finishTurn(turnIndex);
  });
}
