import { InvalidInputError } from "../errors.js";
import { belowCallFloor, callMarginLead, opensCallAt } from "../model/types.js";
import { caseResults, readResults, runRecords, type CaseResult } from "./results.js";

/**
 * Weighs call biases and forced-call floors on one results file, from the
 * call margins its cases recorded at their first turn, without running the
 * model again: at call bias b, a free first turn opens a call when its
 * opening lead plus b, and every later prefix token's lead, are above 0; at
 * floor T, a turn the router forced is released when the model's lead is
 * below T. A first turn that would change from a call to words counts as an
 * abstention (a success exactly on an abstention case); everything after the
 * first turn is the run's own. So the run must have no floor, and a run at
 * call bias r can weigh only biases at r or below (a free turn it answered in
 * words may have opened a call at a weaker bias; a run at 0 holds every
 * weaker decision to call). What it gives is the first turn's part only:
 * confirm a choice with a real run.
 */

/** Biases and floors weighed by default. */
export const CALIBRATION_BIASES: readonly number[] = [0, -1, -2, -3, -4, -5, -6, -8];
export const CALIBRATION_FLOORS: readonly (number | null)[] = [null, -1, -0.5, 0, 0.25, 0.5, 0.75, 1, 1.5, 2, 3];

export interface CalibrationCell {
  callBias: number;
  /** null: no floor (forced calls always made). */
  forcedCallFloor: number | null;
  successes: number;
  /** Successes on cases that expect a call, and on abstention cases. */
  calls: number;
  abstentions: number;
}

export interface Calibration {
  cases: number;
  callCases: number;
  abstentionCases: number;
  /** Cases without a recorded margin (the run's first turn offered no call, or the model measured none): counted as they ran. */
  unmeasured: number;
  cells: CalibrationCell[];
  /**
   * On the first turns the router forced: how many expected a call and how
   * many an abstention, and the chance that a forced call case has a higher
   * lead than a forced abstention case (0.5: the lead does not tell them
   * apart, so a floor trades one for the other). Absent without both kinds.
   */
  forcedSeparation?: { calls: number; abstentions: number; auc: number };
  /** The most successes; a tie goes to no floor, then the lower floor, then the bias nearer 0. */
  best: CalibrationCell;
}

/**
 * The first-turn success of one case at a bias and floor, from a run made at
 * call bias `runCallBias` (0 by default) with no floor; `callBias` must not be
 * above it.
 */
export function successAt(result: CaseResult, callBias: number, forcedCallFloor: number | null, runCallBias = 0): boolean {
  const first = result.firstTurn;
  const margin = first?.callMargin;
  if (first === undefined || margin === undefined) return result.success;
  if (first.choice === "required" || first.choice === "named") {
    return forcedCallFloor !== null && belowCallFloor(margin, forcedCallFloor) ? result.abstainCase : result.success;
  }
  if (first.choice !== "auto") return result.success;
  return opensCallAt(margin, runCallBias) && !opensCallAt(margin, callBias) ? result.abstainCase : result.success;
}

/** The call bias a result was run at, from its model id (`…+call-bias:-5`); 0 without one. */
export function runCallBiasOf(modelId: string): number {
  const match = /\+call-bias:(-?\d+(?:\.\d+)?)/.exec(modelId);
  return match ? Number(match[1]) : 0;
}

/** A model id without the call bias its run was made at: the same model's runs at different biases weigh together. */
function withoutCallBias(modelId: string): string {
  return modelId.replace(/\+call-bias:-?\d+(?:\.\d+)?/, "");
}

export function calibrate(
  results: readonly CaseResult[],
  biases: readonly number[] = CALIBRATION_BIASES,
  floors: readonly (number | null)[] = CALIBRATION_FLOORS,
  runCallBias: (result: CaseResult) => number = () => 0,
): Calibration {
  if (results.length === 0) throw new InvalidInputError("The results file has no case results: run `botpsy eval run <suite> --call-bias 0` first.");
  if (biases.some((bias) => bias > 0)) throw new InvalidInputError("Calibration weighs call biases of 0 or below: a run at bias 0 holds no call a stronger bias would add.");
  const strongestRun = Math.min(...results.map(runCallBias));
  if (biases.some((bias) => bias > strongestRun)) {
    throw new InvalidInputError(
      `Calibration can weigh call biases of ${strongestRun} or below only: a case was run at call bias ${strongestRun}, and a free turn it answered in words may have opened a call at a weaker bias. Run it again at --call-bias 0 to weigh weaker ones.`,
    );
  }
  const cells: CalibrationCell[] = [];
  for (const callBias of biases) {
    for (const forcedCallFloor of floors) {
      let calls = 0;
      let abstentions = 0;
      for (const result of results) {
        if (!successAt(result, callBias, forcedCallFloor, runCallBias(result))) continue;
        if (result.abstainCase) abstentions++;
        else calls++;
      }
      cells.push({ callBias, forcedCallFloor, successes: calls + abstentions, calls, abstentions });
    }
  }
  const rank = (cell: CalibrationCell): [number, number, number, number] => [
    -cell.successes,
    cell.forcedCallFloor === null ? 0 : 1,
    cell.forcedCallFloor ?? 0,
    -cell.callBias,
  ];
  const best = [...cells].sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    for (let index = 0; index < x.length; index++) if (x[index] !== y[index]) return x[index]! - y[index]!;
    return 0;
  })[0]!;
  const forcedLeads = (abstainCase: boolean): number[] =>
    results.flatMap((result) => {
      const first = result.firstTurn;
      const forced = first?.choice === "required" || first?.choice === "named";
      return forced && first?.callMargin !== undefined && result.abstainCase === abstainCase ? [callMarginLead(first.callMargin)] : [];
    });
  const [callLeads, abstentionLeads] = [forcedLeads(false), forcedLeads(true)];
  const forcedSeparation =
    callLeads.length > 0 && abstentionLeads.length > 0
      ? { calls: callLeads.length, abstentions: abstentionLeads.length, auc: separation(callLeads, abstentionLeads) }
      : undefined;
  return {
    cases: results.length,
    callCases: results.filter((result) => !result.abstainCase).length,
    abstentionCases: results.filter((result) => result.abstainCase).length,
    unmeasured: results.filter((result) => result.firstTurn?.callMargin === undefined).length,
    cells,
    best,
    ...(forcedSeparation !== undefined ? { forcedSeparation } : {}),
  };
}

/** The chance that a value of `higher` exceeds one of `lower` (ties count half): the area under the ROC curve. */
function separation(higher: readonly number[], lower: readonly number[]): number {
  let wins = 0;
  for (const a of higher) for (const b of lower) wins += a > b ? 1 : a === b ? 0.5 : 0;
  return Math.round((wins / (higher.length * lower.length)) * 1000) / 1000;
}

/**
 * Reads results files and weighs their cases together (a suite run in parts,
 * or BFCL's categories run one at a time), refusing a run whose own bias or
 * floor hides what calibration needs, and files of different models.
 */
export function calibrateFiles(paths: readonly string[]): Calibration & { modelId: string } {
  if (paths.length === 0) throw new InvalidInputError("Give at least one results file to calibrate.");
  // The latest result of each case (a resumed file holds each once; a rerun case counts as it last ran).
  const latest = new Map<string, CaseResult>();
  let model: { id: string; file: string } | undefined;
  for (const path of paths) {
    const lines = readResults(path);
    for (const run of runRecords(lines)) {
      const id = run.settings.model.id;
      if (/\+call-floor:/.test(id)) {
        throw new InvalidInputError(
          `${path} was run as ${id}: calibration needs a run with no forced-call floor (add --forced-call-floor none to eval run; --call-bias 0 too, to weigh every bias).`,
        );
      }
      if (model !== undefined && withoutCallBias(id) !== model.id) {
        throw new InvalidInputError(`${path} was run as ${id} and ${model.file} as ${model.id}: calibrate one model's runs at a time.`);
      }
      model ??= { id: withoutCallBias(id), file: path };
    }
    for (const result of caseResults(lines)) latest.set(`${result.suite}\u0000${result.caseId}`, result);
  }
  const results = [...latest.values()];
  const runBias = (result: CaseResult): number => runCallBiasOf(result.modelId);
  // The biases a run at bias r can weigh: r itself and the default ones below it.
  const strongestRun = Math.min(...results.map(runBias), 0);
  const biases = [...new Set([strongestRun, ...CALIBRATION_BIASES.filter((bias) => bias < strongestRun)])];
  return { ...calibrate(results, biases, CALIBRATION_FLOORS, runBias), modelId: model?.id ?? "unknown" };
}

/** The grid as a text table: rows are call biases, columns floors; the best cell is starred. */
export function formatCalibration(calibration: Calibration & { modelId: string }): string {
  const biases = [...new Set(calibration.cells.map((cell) => cell.callBias))];
  const floors = [...new Set(calibration.cells.map((cell) => cell.forcedCallFloor))];
  const label = (floor: number | null): string => (floor === null ? "none" : String(floor));
  const header = ["bias \\ floor", ...floors.map(label)];
  const rows = biases.map((bias) => [
    String(bias),
    ...floors.map((floor) => {
      const cell = calibration.cells.find((candidate) => candidate.callBias === bias && candidate.forcedCallFloor === floor)!;
      const star = cell === calibration.best ? "*" : "";
      return `${cell.successes}${star} (${cell.calls}/${cell.abstentions})`;
    }),
  ]);
  const widths = header.map((cell, index) => Math.max(cell.length, ...rows.map((row) => row[index]!.length)));
  const line = (cells: string[]): string => cells.map((cell, index) => cell.padStart(widths[index]!)).join("  ");
  const best = calibration.best;
  return [
    `${calibration.modelId}: ${calibration.cases} cases (${calibration.callCases} expect a call, ${calibration.abstentionCases} an abstention; ${calibration.unmeasured} without a margin, counted as they ran).`,
    "Successes (calls/abstentions) if the first turn had been decided at each call bias (rows) and forced-call floor (columns):",
    line(header),
    ...rows.map(line),
    ...(calibration.forcedSeparation !== undefined
      ? [
          `On the ${calibration.forcedSeparation.calls + calibration.forcedSeparation.abstentions} forced first turns, the model's lead separates the ${calibration.forcedSeparation.calls} call cases from the ${calibration.forcedSeparation.abstentions} abstention cases with AUC ${calibration.forcedSeparation.auc} (0.5: not at all; a floor then trades one for the other).`,
        ]
      : []),
    `* best: --call-bias ${best.callBias}${best.forcedCallFloor !== null ? ` --forced-call-floor ${best.forcedCallFloor}` : " (no floor)"}: ${best.successes} of ${calibration.cases}. The first turn's part only: confirm it with a real run, on a development split.`,
  ].join("\n");
}
