import type { BfclExpectedCall, BfclLanguage } from "./loader.js";
import type { BfclFunctionDoc, BfclSchema } from "./schema.js";

/** A call the model made, under its BFCL function name (dots restored). */
export interface BfclModelCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface AstCheckResult {
  valid: boolean;
  /** A stable kind of failure (`wrong_count`, `wrong_function_name`, `value_error:string`…); absent when valid. */
  errorType?: string;
  errors: string[];
}

/** How a single-turn category is scored. */
export type AstCheckKind = "simple" | "multiple" | "parallel" | "irrelevance" | "relevance";

export function astCheckKindOf(category: string): AstCheckKind {
  if (category.includes("irrelevance")) return "irrelevance";
  if (category.includes("relevance")) return "relevance";
  if (category.includes("parallel")) return "parallel";
  if (category.includes("multiple")) return "multiple";
  return "simple";
}

export interface AstCheckInput {
  category: string;
  language: BfclLanguage;
  functions: BfclFunctionDoc[];
  /** Absent for irrelevance and relevance categories. */
  groundTruth?: BfclExpectedCall[];
  calls: BfclModelCall[];
}

const VALID: AstCheckResult = { valid: true, errors: [] };

function failure(errorType: string, error: string): AstCheckResult {
  return { valid: false, errorType, errors: [error] };
}

/**
 * Scores single-turn answers the way BFCL's AST checker does: the function
 * name must match; required parameters must be present; a parameter outside
 * the possible answer fails; a parameter may be left out only when its
 * accepted values include `""`; strings compare lower-cased without spaces and
 * `,./-_*^`; an int passes for a float; lists are order-sensitive; parallel
 * calls match in any order; the number of calls must match.
 */
export function checkAst(input: AstCheckInput): AstCheckResult {
  const kind = astCheckKindOf(input.category);
  if (kind === "irrelevance") {
    return input.calls.length === 0 ? VALID : failure("irrelevance:made_a_call", `Expected no call, got ${input.calls.length}: ${input.calls.map((call) => call.name).join(", ")}.`);
  }
  if (kind === "relevance") {
    return input.calls.length > 0 ? VALID : failure("relevance:no_call", "Expected at least one call, got none.");
  }
  const expected = input.groundTruth;
  if (expected === undefined || expected.length === 0) {
    return failure("missing_ground_truth", `Case of category ${input.category} has no ground truth to compare with.`);
  }
  if (input.calls.length !== expected.length) {
    return failure("wrong_count", `Expected ${expected.length} call(s), got ${input.calls.length}.`);
  }
  if (kind === "parallel") return checkParallel(input.functions, input.calls, expected, input.language);
  const answer = expected[0]!;
  return checkCall(findDoc(input.functions, answer), input.calls[0]!, answer, input.language);
}

function checkParallel(functions: BfclFunctionDoc[], calls: BfclModelCall[], expected: BfclExpectedCall[], language: BfclLanguage): AstCheckResult {
  const matched = new Set<number>();
  for (let answerIndex = 0; answerIndex < expected.length; answerIndex++) {
    const answer = expected[answerIndex]!;
    const doc = findDoc(functions, answer);
    const reasons: string[] = [];
    let found = false;
    for (let callIndex = 0; callIndex < calls.length; callIndex++) {
      if (matched.has(callIndex)) continue;
      const result = checkCall(doc, calls[callIndex]!, answer, language);
      if (result.valid) {
        matched.add(callIndex);
        found = true;
        break;
      }
      reasons.push(`call ${callIndex}: ${result.errors.join(" ")}`);
    }
    if (!found) {
      return {
        valid: false,
        errorType: "parallel:no_match",
        errors: [`No call matches expected call ${answerIndex} (${Object.keys(answer)[0] ?? "?"}).`, ...reasons],
      };
    }
  }
  return VALID;
}

function findDoc(functions: BfclFunctionDoc[], answer: BfclExpectedCall): BfclFunctionDoc | undefined {
  const name = Object.keys(answer)[0];
  return functions.find((doc) => doc.name === name);
}

/** Checks one model call against one expected call. */
export function checkCall(doc: BfclFunctionDoc | undefined, call: BfclModelCall, answer: BfclExpectedCall, language: BfclLanguage): AstCheckResult {
  const [expectedName, accepted] = Object.entries(answer)[0] ?? [];
  if (expectedName === undefined || accepted === undefined) return failure("missing_ground_truth", "The expected call is empty.");
  if (call.name !== expectedName) {
    return failure("wrong_function_name", `Expected function ${expectedName}, got ${call.name}.`);
  }
  const properties = doc?.parameters.properties ?? {};
  for (const required of doc?.parameters.required ?? []) {
    if (!Object.hasOwn(call.arguments, required)) return failure("missing_required", `Missing required parameter "${required}".`);
  }
  for (const [parameter, value] of Object.entries(call.arguments)) {
    const schema = properties[parameter];
    const acceptedValues = accepted[parameter];
    if (schema === undefined || acceptedValues === undefined) {
      return failure("unexpected_parameter", `Unexpected parameter "${parameter}".`);
    }
    const result = checkParameter(parameter, value, schema, acceptedValues, language);
    if (!result.valid) return result;
  }
  for (const [parameter, acceptedValues] of Object.entries(accepted)) {
    if (!Object.hasOwn(call.arguments, parameter) && !acceptedValues.includes("")) {
      return failure("missing_optional", `Parameter "${parameter}" was left out, but the answer needs it.`);
    }
  }
  return VALID;
}

type ValueKind = "string" | "integer" | "number" | "boolean" | "array" | "object" | "null";

/** What a BFCL type accepts, per language (JavaScript has its own type names). */
function expectedKind(type: string | undefined): ValueKind {
  switch (type) {
    case "integer":
    case "Bigint":
    case "long":
    case "short":
    case "byte":
      return "integer";
    case "float":
    case "number":
    case "double":
      return "number";
    case "boolean":
    case "Boolean":
    case "bool":
      return "boolean";
    case "array":
    case "tuple":
    case "Array":
    case "ArrayList":
    case "list":
      return "array";
    case "dict":
    case "object":
    case "HashMap":
    case "Hashtable":
      return "object";
    default:
      // string, String, any, char: the leaderboard treats "any" as a string.
      return "string";
  }
}

function kindOf(value: unknown): ValueKind {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (Array.isArray(value)) return "array";
  return "object";
}

/** An integer passes where a float is expected (Python converts it). */
function kindMatches(value: unknown, expected: ValueKind): boolean {
  const actual = kindOf(value);
  if (actual === expected) return true;
  return expected === "number" && actual === "integer";
}

function checkParameter(parameter: string, value: unknown, schema: BfclSchema, accepted: unknown[], language: BfclLanguage): AstCheckResult {
  if (language === "java") return checkJavaParameter(parameter, value, accepted);
  const expected = expectedKind(schema.type);
  const firstAnswer = accepted.find((answer) => answer !== "");
  // The ground truth writes a variable name as a string where another type is expected.
  const answerKind = firstAnswer === undefined ? undefined : kindOf(firstAnswer);
  const answerIsVariable = answerKind !== undefined && !kindMatchesKind(answerKind, expected);

  if (kindMatches(value, expected)) {
    if (expected === "array" && schema.items !== undefined && !answerIsVariable) {
      const itemKind = expectedKind(schema.items.type);
      const someAnswerIsNotAList = accepted.some((answer) => !Array.isArray(answer));
      const itemsMatch = (value as unknown[]).every((item) => kindMatches(item, itemKind));
      if (!someAnswerIsNotAList && !itemsMatch) {
        return failure("type_error:nested", `Parameter "${parameter}" must be a list of ${schema.items.type ?? "values"}.`);
      }
    }
  } else if (answerIsVariable && answerKind !== undefined && kindMatches(value, answerKind)) {
    return checkMembership(parameter, value, accepted);
  } else {
    return failure("type_error:simple", `Parameter "${parameter}" must be of type ${schema.type ?? "string"}, got ${kindOf(value)}: ${JSON.stringify(value)}.`);
  }

  if (answerIsVariable) return checkMembership(parameter, value, accepted);
  if (expected === "object") return checkDict(parameter, value as Record<string, unknown>, accepted);
  if (expected === "array" && schema.items !== undefined && expectedKind(schema.items.type) === "object") {
    return checkListOfDicts(parameter, value as unknown[], accepted);
  }
  if (expected === "string") {
    const given = standardizeString(value as string);
    const ok = accepted.some((answer) => typeof answer === "string" && standardizeString(answer) === given);
    return ok ? VALID : failure("value_error:string", `Invalid value for "${parameter}": ${JSON.stringify(value)}; expected one of ${JSON.stringify(accepted)} (case and punctuation aside).`);
  }
  if (expected === "array") {
    const given = standardizeListItems(value as unknown[]);
    const ok = accepted.some((answer) => Array.isArray(answer) && valuesEqual(given, standardizeListItems(answer)));
    return ok ? VALID : failure("value_error:list", `Invalid value for "${parameter}": ${JSON.stringify(value)}; expected one of ${JSON.stringify(accepted)} (order matters).`);
  }
  return checkMembership(parameter, value, accepted);
}

function kindMatchesKind(actual: ValueKind, expected: ValueKind): boolean {
  return actual === expected || (expected === "number" && actual === "integer") || (expected === "integer" && actual === "number");
}

function checkMembership(parameter: string, value: unknown, accepted: unknown[]): AstCheckResult {
  return accepted.some((answer) => valuesEqual(value, answer))
    ? VALID
    : failure("value_error:others", `Invalid value for "${parameter}": ${JSON.stringify(value)}; expected one of ${JSON.stringify(accepted)}.`);
}

function checkDict(parameter: string, value: Record<string, unknown>, accepted: unknown[]): AstCheckResult {
  let last: AstCheckResult = failure("value_error:dict", `Invalid value for "${parameter}": ${JSON.stringify(value)}.`);
  for (const answer of accepted) {
    if (answer === "" || typeof answer !== "object" || answer === null || Array.isArray(answer)) continue;
    last = compareDict(parameter, value, answer as Record<string, unknown>);
    if (last.valid) return VALID;
  }
  return last;
}

/** A dict answer maps each key to its accepted values, as a call's parameters do. */
function compareDict(parameter: string, value: Record<string, unknown>, answer: Record<string, unknown>): AstCheckResult {
  for (const [key, item] of Object.entries(value)) {
    const acceptedItems = answer[key];
    if (!Array.isArray(acceptedItems)) return failure("value_error:dict_key", `Unexpected key "${key}" in "${parameter}".`);
    const given = typeof item === "string" ? standardizeString(item) : item;
    const ok = acceptedItems.some((candidate) => valuesEqual(given, typeof candidate === "string" ? standardizeString(candidate) : candidate));
    if (!ok) return failure("value_error:dict_value", `Invalid value for key "${key}" of "${parameter}": ${JSON.stringify(item)}; expected one of ${JSON.stringify(acceptedItems)}.`);
  }
  for (const [key, acceptedItems] of Object.entries(answer)) {
    if (!Object.hasOwn(value, key) && !(Array.isArray(acceptedItems) && acceptedItems.includes(""))) {
      return failure("value_error:dict_key", `Missing key "${key}" in "${parameter}".`);
    }
  }
  return VALID;
}

function checkListOfDicts(parameter: string, value: unknown[], accepted: unknown[]): AstCheckResult {
  let last: AstCheckResult = failure("value_error:list_dict", `Invalid value for "${parameter}": ${JSON.stringify(value)}.`);
  for (const answer of accepted) {
    if (!Array.isArray(answer)) continue;
    if (answer.length !== value.length) {
      last = failure("value_error:list_dict_count", `"${parameter}" has ${value.length} entries; expected ${answer.length}.`);
      continue;
    }
    let allMatch = true;
    for (let index = 0; index < value.length; index++) {
      const item = value[index];
      const expectedItem = answer[index];
      if (typeof item !== "object" || item === null || Array.isArray(item) || typeof expectedItem !== "object" || expectedItem === null) {
        last = failure("value_error:list_dict", `Entry ${index} of "${parameter}" must be a dict.`);
        allMatch = false;
        break;
      }
      last = compareDict(parameter, item as Record<string, unknown>, expectedItem as Record<string, unknown>);
      if (!last.valid) {
        allMatch = false;
        break;
      }
    }
    if (allMatch) return VALID;
  }
  return last;
}

/**
 * Java answers are written as Java source text; a model answering in JSON is
 * compared by the text of its scalar values.
 */
function checkJavaParameter(parameter: string, value: unknown, accepted: unknown[]): AstCheckResult {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const given = standardizeString(text);
  const ok = accepted.some((answer) => typeof answer === "string" && standardizeString(answer) === given);
  return ok ? VALID : failure("value_error:java", `Invalid value for "${parameter}": ${text}; expected one of ${JSON.stringify(accepted)}.`);
}

/** Lower-cases, drops spaces and `,./-_*^`, and turns single quotes into double ones. */
export function standardizeString(text: string): string {
  return text.replace(/[ ,./\-_*^]/g, "").toLowerCase().replace(/'/g, '"');
}

function standardizeListItems(items: unknown[]): unknown[] {
  return items.map((item) => (typeof item === "string" ? standardizeString(item) : item));
}

/** Python equality on JSON values: numbers by value, lists in order, dicts by keys. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof a !== typeof b) return false;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, index) => valuesEqual(item, b[index]));
  }
  if (typeof a === "object") {
    if (Array.isArray(b)) return false;
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    const leftKeys = Object.keys(left);
    if (leftKeys.length !== Object.keys(right).length) return false;
    return leftKeys.every((key) => Object.hasOwn(right, key) && valuesEqual(left[key], right[key]));
  }
  return false;
}
