import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BfclDataError } from "./errors.js";
import type { BfclFunctionDoc } from "./schema.js";

/** The categories whose files ship with botpsy (data/bfcl-v4). */
export const BFCL_CATEGORIES = [
  "simple_python",
  "simple_javascript",
  "multiple",
  "parallel",
  "parallel_multiple",
  "irrelevance",
  "multi_turn_base",
  "multi_turn_miss_func",
] as const;
export type BfclBuiltInCategory = (typeof BFCL_CATEGORIES)[number];

export interface BfclMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** One expected call: function name → parameter → the values accepted (`""` = may be left out). */
export type BfclExpectedCall = Record<string, Record<string, unknown[]>>;

export type BfclLanguage = "python" | "javascript" | "java";

interface BfclCaseCommon {
  id: string;
  /** The category the id names (`simple_python`, `live_multiple`, `multi_turn_base`…). */
  category: string;
  /** Turns, each a list of messages (a multi-turn turn may be empty: the turn where held-back functions arrive). */
  question: BfclMessage[][];
}

export interface BfclSingleTurnCase extends BfclCaseCommon {
  kind: "single-turn";
  language: BfclLanguage;
  functions: BfclFunctionDoc[];
  /** Absent for irrelevance-style categories, where the right answer is no call. */
  groundTruth?: BfclExpectedCall[];
}

export interface BfclMultiTurnCase extends BfclCaseCommon {
  kind: "multi-turn";
  /** Starting state per API class. */
  initialConfig: Record<string, Record<string, unknown>>;
  involvedClasses: string[];
  /** Every function the case offers at some turn (excluded ones already left out). */
  functions: BfclFunctionDoc[];
  /** Turn index → names of functions offered only from that turn on. */
  missedFunctions: Record<number, string[]>;
  excludedFunctions: string[];
  /** Per turn, the Python call strings that solve it. */
  groundTruth: string[][];
}

export type BfclCase = BfclSingleTurnCase | BfclMultiTurnCase;

export interface LoadBfclOptions {
  /** Where the BFCL files are. Default: the `data/bfcl-v4` folder that ships with botpsy. */
  dataDirectory?: string;
  /** Read at most this many cases (from the start of the file). */
  limit?: number;
}

/** The file of each stateful API's function documents, in `multi_turn_func_doc/`. */
export const MULTI_TURN_DOC_FILES: Record<string, string> = {
  GorillaFileSystem: "gorilla_file_system.json",
  MathAPI: "math_api.json",
  MessageAPI: "message_api.json",
  TwitterAPI: "posting_api.json",
  TicketAPI: "ticket_api.json",
  TradingBot: "trading_bot.json",
  TravelAPI: "travel_booking.json",
  VehicleControlAPI: "vehicle_control.json",
};

/** Finds `data/bfcl-v4` above this module (it works from `src/` and from `dist/src/`). */
export function defaultBfclDataDirectory(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 8; depth++) {
    const candidate = join(directory, "data", "bfcl-v4");
    if (existsSync(candidate)) return candidate;
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  throw new BfclDataError("The BFCL data folder data/bfcl-v4 was not found: pass dataDirectory, or reinstall botpsy with its data folder.");
}

/** `multi_turn_base_12` → `multi_turn_base`. */
export function categoryOfId(id: string): string {
  return id.replace(/_\d+(-\d+)*$/, "");
}

/**
 * The path of a category's file: a built-in category name (`simple_python`),
 * a file name (`BFCL_v4_live_simple.json`) or any path to a BFCL file.
 */
export function resolveBfclFile(categoryOrPath: string, dataDirectory?: string): string {
  if (categoryOrPath.includes("/") || categoryOrPath.includes("\\") || categoryOrPath.endsWith(".json") || categoryOrPath.endsWith(".jsonl")) {
    const inData = dataDirectory !== undefined ? join(dataDirectory, categoryOrPath) : undefined;
    const path = inData !== undefined && !categoryOrPath.includes("/") && existsSync(inData) ? inData : resolve(categoryOrPath);
    if (!existsSync(path)) throw new BfclDataError(`The BFCL file ${path} does not exist: check the path.`);
    return path;
  }
  const directory = dataDirectory ?? defaultBfclDataDirectory();
  const path = join(directory, `BFCL_v4_${categoryOrPath}.json`);
  if (!existsSync(path)) {
    throw new BfclDataError(
      `There is no BFCL category "${categoryOrPath}" in ${directory}: use one of ${BFCL_CATEGORIES.join(", ")}, or give the path of a BFCL file.`,
    );
  }
  return path;
}

/** Reads a JSON Lines file (BFCL files end in .json but hold one object a line). */
export function readJsonLines(path: string): Record<string, unknown>[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new BfclDataError(`Cannot read ${path}: check that the file exists and is readable.`, { cause: error });
  }
  const rows: Record<string, unknown>[] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new BfclDataError(`Line ${index + 1} of ${path} is not JSON: BFCL files hold one JSON object a line.`, { cause: error });
    }
    if (!isRecord(value)) throw new BfclDataError(`Line ${index + 1} of ${path} is not a JSON object.`);
    rows.push(value);
  }
  return rows;
}

const functionDocCache = new Map<string, BfclFunctionDoc[]>();

/** The function documents of one stateful API class. */
export function loadMultiTurnFunctionDocs(className: string, dataDirectory?: string): BfclFunctionDoc[] {
  const file = MULTI_TURN_DOC_FILES[className];
  if (file === undefined) {
    throw new BfclDataError(`No stateful API is called "${className}": use one of ${Object.keys(MULTI_TURN_DOC_FILES).join(", ")}.`);
  }
  const path = join(dataDirectory ?? defaultBfclDataDirectory(), "multi_turn_func_doc", file);
  const cached = functionDocCache.get(path);
  if (cached) return cached;
  const docs = readJsonLines(path).map((row) => asFunctionDoc(row, path));
  functionDocCache.set(path, docs);
  return docs;
}

/**
 * Loads a category (by name or path) with its ground truth joined by id. The
 * ground truth is looked for in `possible_answer/` beside the file.
 */
export function loadBfclCategory(categoryOrPath: string, options: LoadBfclOptions = {}): BfclCase[] {
  const path = resolveBfclFile(categoryOrPath, options.dataDirectory);
  let rows = readJsonLines(path);
  if (options.limit !== undefined) {
    if (!Number.isInteger(options.limit) || options.limit < 0) throw new BfclDataError(`limit must be a whole number of cases, not ${options.limit}.`);
    rows = rows.slice(0, options.limit);
  }
  const answerPath = join(dirname(path), "possible_answer", basename(path));
  const answers = new Map<string, unknown>();
  if (existsSync(answerPath)) {
    for (const row of readJsonLines(answerPath)) answers.set(String(row.id), row.ground_truth);
  }
  const dataDirectory = options.dataDirectory ?? (existsSync(join(dirname(path), "multi_turn_func_doc")) ? dirname(path) : undefined);
  return rows.map((row) => toCase(row, answers.get(String(row.id)), path, dataDirectory));
}

function toCase(row: Record<string, unknown>, groundTruth: unknown, path: string, dataDirectory: string | undefined): BfclCase {
  const id = row.id;
  if (typeof id !== "string") throw new BfclDataError(`A case in ${path} has no string "id".`);
  const category = categoryOfId(id);
  const question = asQuestion(row.question, id);
  if (Array.isArray(row.involved_classes)) {
    const involvedClasses = row.involved_classes.map(String);
    const excludedFunctions = Array.isArray(row.excluded_function) ? row.excluded_function.map(String) : [];
    const missedFunctions: Record<number, string[]> = {};
    if (isRecord(row.missed_function)) {
      for (const [turn, names] of Object.entries(row.missed_function)) {
        if (!Array.isArray(names)) throw new BfclDataError(`Case ${id}: missed_function["${turn}"] must be a list of function names.`);
        missedFunctions[Number(turn)] = names.map((name) => (isRecord(name) ? String(name.name) : String(name)));
      }
    }
    const functions = involvedClasses
      .flatMap((className) => loadMultiTurnFunctionDocs(className, dataDirectory))
      .filter((doc) => !excludedFunctions.includes(doc.name));
    if (!Array.isArray(groundTruth) || !groundTruth.every((turn) => Array.isArray(turn) && turn.every((call) => typeof call === "string"))) {
      throw new BfclDataError(`Case ${id} has no multi-turn ground truth (a list of turns of Python call strings) in possible_answer/ beside ${path}.`);
    }
    return {
      kind: "multi-turn",
      id,
      category,
      question,
      initialConfig: isRecord(row.initial_config) ? (row.initial_config as Record<string, Record<string, unknown>>) : {},
      involvedClasses,
      functions,
      missedFunctions,
      excludedFunctions,
      groundTruth: groundTruth as string[][],
    };
  }
  if (!Array.isArray(row.function)) throw new BfclDataError(`Case ${id} in ${path} has no "function" list.`);
  const functions = row.function.map((doc) => asFunctionDoc(doc, path));
  const language: BfclLanguage = category.includes("javascript") ? "javascript" : /(^|_)java($|_)/.test(category) ? "java" : "python";
  const singleTurn: BfclSingleTurnCase = { kind: "single-turn", id, category, question, language, functions };
  if (groundTruth !== undefined) {
    if (!Array.isArray(groundTruth) || !groundTruth.every(isRecord)) {
      throw new BfclDataError(`Case ${id}: its ground truth must be a list of {function: {parameter: [accepted values]}}.`);
    }
    singleTurn.groundTruth = groundTruth as BfclExpectedCall[];
  }
  return singleTurn;
}

function asQuestion(value: unknown, id: string): BfclMessage[][] {
  if (!Array.isArray(value)) throw new BfclDataError(`Case ${id} has no "question" list of turns.`);
  return value.map((turn) => {
    // Some files write a single-turn question as a flat list of messages.
    const messages = Array.isArray(turn) ? turn : [turn];
    return messages.map((message) => {
      if (!isRecord(message) || typeof message.content !== "string" || !["system", "user", "assistant"].includes(String(message.role))) {
        throw new BfclDataError(`Case ${id} has a question message without a role (system, user, assistant) and a text content.`);
      }
      return { role: message.role as BfclMessage["role"], content: message.content };
    });
  });
}

function asFunctionDoc(value: unknown, path: string): BfclFunctionDoc {
  if (!isRecord(value) || typeof value.name !== "string" || !isRecord(value.parameters)) {
    throw new BfclDataError(`A function document in ${path} lacks a "name" or "parameters".`);
  }
  return value as unknown as BfclFunctionDoc;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
