import { parseWhen, type Clock } from "../apps/time.js";
import type { ArgumentExpectation, Expectation, ExpectedCall, StateAssertion, ValueMatcher } from "./scenario.js";

/**
 * Checks what a model did against what a scenario expects. Calls are matched
 * the way BFCL's AST checker matches them: the function name exactly, then each
 * named argument against a list of acceptable values, strings compared after
 * normalisation. End-state assertions read the apps' records afterwards.
 */

/** A call as the checker sees it: what was asked and how it went. */
export interface ObservedCall {
  name: string;
  arguments: Record<string, unknown>;
  status: "ok" | "error" | "declined" | "skipped";
}

export interface CheckResult {
  /** `bfcl-ast`: a BFCL single-turn AST check; `bfcl-turn`: a BFCL multi-turn state and response check. */
  kind: "calls" | "forbidden" | "exact" | "state" | "answer" | "no-call" | "bfcl-ast" | "bfcl-turn";
  passed: boolean;
  /** What was checked and, when it failed, why. */
  detail: string;
}

/** Reads the records of one app collection, with their ids, in insertion order. */
export type RecordReader = (app: string, collection: string) => { id: string; value: unknown }[];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Lower-case, trimmed, inner whitespace collapsed, a trailing full stop dropped. */
export function normaliseText(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, " ").replace(/\.$/, "");
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

/** Deep equality where strings compare normalised and a number equals its numeric string. */
export function valuesEqual(expected: unknown, actual: unknown): boolean {
  if (typeof expected === "string") return typeof actual === "string" && normaliseText(expected) === normaliseText(actual);
  if (typeof expected === "number") return asNumber(actual) === expected;
  if (typeof expected === "boolean" || expected === null) return actual === expected;
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((item, index) => valuesEqual(item, actual[index]));
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return false;
    const expectedKeys = Object.keys(expected);
    const actualKeys = Object.keys(actual).filter((key) => actual[key] !== undefined);
    return actualKeys.length === expectedKeys.length && expectedKeys.every((key) => valuesEqual(expected[key], actual[key]));
  }
  return false;
}

function isMatcher(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && Object.keys(value).some((key) => key.startsWith("$"));
}

/** Whether `actual` (undefined when the argument was left out) satisfies one acceptable value. */
export function matchesValue(matcher: ValueMatcher, actual: unknown, clock: Clock): boolean {
  if (!isMatcher(matcher)) return actual !== undefined && valuesEqual(matcher, actual);
  if ("$absent" in matcher) return actual === undefined || actual === null;
  if (actual === undefined) return false;
  if ("$any" in matcher) return true;
  if ("$regex" in matcher) return typeof actual === "string" && new RegExp(String(matcher.$regex), "i").test(actual);
  if ("$contains" in matcher) {
    return typeof actual === "string" && normaliseText(actual).includes(normaliseText(String(matcher.$contains)));
  }
  if ("$number" in matcher) {
    const number = asNumber(actual);
    const tolerance = typeof matcher.$tolerance === "number" ? matcher.$tolerance : 0;
    return number !== undefined && Math.abs(number - Number(matcher.$number)) <= tolerance + 1e-9;
  }
  if ("$when" in matcher) {
    if (typeof actual !== "string") return false;
    const wanted = matcher.$when as { date?: string; time?: string };
    try {
      const when = parseWhen(actual, clock);
      if (wanted.date !== undefined && when.date !== wanted.date) return false;
      if (wanted.time !== undefined && when.time !== wanted.time) return false;
      return true;
    } catch {
      return false;
    }
  }
  return false;
}

export function matchesExpectation(expectation: ArgumentExpectation, actual: unknown, clock: Clock): boolean {
  if (isPlainObject(expectation) && "$oneOf" in expectation && Array.isArray(expectation.$oneOf)) {
    return (expectation.$oneOf as ValueMatcher[]).some((alternative) => matchesValue(alternative, actual, clock));
  }
  return matchesValue(expectation as ValueMatcher, actual, clock);
}

function statusAccepted(wanted: ExpectedCall["status"], actual: ObservedCall["status"]): boolean {
  if (wanted === "any") return true;
  return wanted === actual;
}

/** Why `call` does not match `expected`, or undefined when it does. */
export function callMismatch(expected: Pick<ExpectedCall, "name" | "arguments"> & { status?: ExpectedCall["status"] }, call: ObservedCall, clock: Clock): string | undefined {
  if (call.name !== expected.name) return `name ${call.name} is not ${expected.name}`;
  if (!statusAccepted(expected.status ?? "ok", call.status)) return `status ${call.status}, wanted ${expected.status ?? "ok"}`;
  for (const [argument, expectation] of Object.entries(expected.arguments)) {
    if (!matchesExpectation(expectation, call.arguments[argument], clock)) {
      return `${argument}=${JSON.stringify(call.arguments[argument])} is not acceptable (${JSON.stringify(expectation)})`;
    }
  }
  return undefined;
}

export function describeCall(call: { name: string; arguments: Record<string, unknown> }): string {
  return `${call.name}(${JSON.stringify(call.arguments)})`;
}

/**
 * Assign actual calls to expected ones: each expected call consumes `minTimes`
 * distinct matching calls (in the listed order when `ordered`). A small
 * backtracking search, so overlapping patterns cannot steal each other's match.
 * Returns the consumed indices, or undefined when no assignment exists.
 */
export function assignCalls(expected: readonly ExpectedCall[], calls: readonly ObservedCall[], ordered: boolean, clock: Clock): Set<number> | undefined {
  const slots: ExpectedCall[] = expected.flatMap((call) => Array.from({ length: call.minTimes }, () => call));
  const candidates = slots.map((slot) => calls.flatMap((call, index) => (callMismatch(slot, call, clock) === undefined ? [index] : [])));
  const used = new Set<number>();
  const search = (slot: number, after: number): boolean => {
    if (slot === slots.length) return true;
    for (const index of candidates[slot] ?? []) {
      if (used.has(index) || (ordered && index <= after)) continue;
      used.add(index);
      if (search(slot + 1, ordered ? index : after)) return true;
      used.delete(index);
    }
    return false;
  };
  return search(0, -1) ? used : undefined;
}

function checkCalls(expectation: Expectation, calls: readonly ObservedCall[], clock: Clock): CheckResult[] {
  const results: CheckResult[] = [];
  const expected = expectation.calls ?? [];
  if (expected.length > 0) {
    const assigned = assignCalls(expected, calls, expectation.ordered, clock);
    if (assigned) {
      results.push({ kind: "calls", passed: true, detail: `all ${expected.length} expected call(s) made${expectation.ordered ? " in order" : ""}` });
    } else {
      // Name the first expected call that finds no match on its own, with the nearest miss.
      const missing = expected.find((call) => assignCalls([call], calls, false, clock) === undefined);
      const target = missing ?? expected[0]!;
      const sameName = calls.filter((call) => call.name === target.name);
      const nearest = sameName[0] ? `; nearest: ${describeCall(sameName[0])}: ${callMismatch(target, sameName[0], clock) ?? "matched but used elsewhere or out of order"}` : "";
      results.push({
        kind: "calls",
        passed: false,
        detail: `expected ${target.name}(${JSON.stringify(target.arguments)}) ${missing ? "not made" : "calls not all matched" + (expectation.ordered ? " in order" : "")}${nearest}`,
      });
    }
    for (const call of expected) {
      if (call.maxTimes === undefined) continue;
      const times = calls.filter((actual) => callMismatch(call, actual, clock) === undefined).length;
      if (times > call.maxTimes) {
        results.push({ kind: "calls", passed: false, detail: `${call.name} matched ${times} times, at most ${call.maxTimes} allowed` });
      }
    }
    if (expectation.exactCalls) {
      const consumed = assigned ?? new Set<number>();
      const extra = calls.filter((call, index) => call.status === "ok" && !consumed.has(index));
      results.push({
        kind: "exact",
        passed: extra.length === 0,
        detail: extra.length === 0 ? "no call beyond the expected ones" : `unexpected call(s): ${extra.map(describeCall).join(", ")}`,
      });
    }
  }
  for (const name of expectation.forbiddenCalls ?? []) {
    const made = calls.filter((call) => call.name === name && call.status === "ok");
    results.push({
      kind: "forbidden",
      passed: made.length === 0,
      detail: made.length === 0 ? `${name} not called` : `forbidden call made: ${describeCall(made[0]!)}`,
    });
  }
  if (expectation.noCall) {
    results.push({
      kind: "no-call",
      passed: calls.length === 0,
      detail: calls.length === 0 ? "abstained: no call made" : `should have abstained but called ${calls.map(describeCall).join(", ")}`,
    });
  }
  return results;
}

/** The value at a dot path ("start.time", "items.0.name"); undefined when any step is missing. */
export function valueAtPath(value: unknown, path: string | undefined): unknown {
  if (path === undefined) return value;
  let current: unknown = value;
  for (const key of path.split(".")) {
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (isPlainObject(current)) current = current[key];
    else return undefined;
  }
  return current;
}

/** Substring for text, element for arrays, sub-object for objects; strings normalised. */
export function containsValue(container: unknown, wanted: unknown): boolean {
  if (typeof container === "string") return typeof wanted === "string" || typeof wanted === "number" ? normaliseText(container).includes(normaliseText(String(wanted))) : false;
  if (Array.isArray(container)) {
    return container.some((item) => valuesEqual(wanted, item) || (isPlainObject(wanted) && isPlainObject(item) && containsValue(item, wanted)));
  }
  if (isPlainObject(container) && isPlainObject(wanted)) {
    return Object.entries(wanted).every(([key, value]) =>
      isPlainObject(value) ? containsValue(container[key], value) : valuesEqual(value, container[key]),
    );
  }
  return false;
}

function describeAssertion(assertion: StateAssertion): string {
  const target = `${assertion.app}/${assertion.collection}${assertion.id ? `/${assertion.id}` : ""}${assertion.where ? ` where ${JSON.stringify(assertion.where)}` : ""}`;
  return assertion.path ? `${target} .${assertion.path}` : target;
}

/** Check one end-state assertion against the records. */
export function checkState(assertion: StateAssertion, read: RecordReader, clock: Clock): CheckResult {
  const describe = describeAssertion(assertion);
  let records = read(assertion.app, assertion.collection);
  if (assertion.id !== undefined) records = records.filter((record) => record.id === assertion.id);
  if (assertion.where) {
    const where = Object.entries(assertion.where);
    records = records.filter((record) => where.every(([path, expectation]) => matchesExpectation(expectation, valueAtPath(record.value, path), clock)));
  }
  const fail = (why: string): CheckResult => ({ kind: "state", passed: false, detail: `${describe}: ${why}` });
  if (assertion.absent) {
    return records.length === 0 ? { kind: "state", passed: true, detail: `${describe}: absent` } : fail(`expected no record, found ${records.length}`);
  }
  if (assertion.count !== undefined) {
    const { min, max } = typeof assertion.count === "number" ? { min: assertion.count, max: assertion.count } : assertion.count;
    if ((min !== undefined && records.length < min) || (max !== undefined && records.length > max)) {
      return fail(`found ${records.length} record(s), expected ${typeof assertion.count === "number" ? assertion.count : JSON.stringify(assertion.count)}`);
    }
  }
  if (assertion.equals !== undefined || assertion.contains !== undefined) {
    if (records.length === 0) return fail("no record selected");
    for (const record of records) {
      const value = valueAtPath(record.value, assertion.path);
      if (assertion.equals !== undefined && !matchesExpectation(assertion.equals, value, clock)) {
        return fail(`${record.id} has ${JSON.stringify(value)}, expected ${JSON.stringify(assertion.equals)}`);
      }
      if (assertion.contains !== undefined && !containsValue(value, assertion.contains)) {
        return fail(`${record.id} has ${JSON.stringify(value)}, which does not contain ${JSON.stringify(assertion.contains)}`);
      }
    }
  }
  return { kind: "state", passed: true, detail: `${describe}: holds` };
}

export function checkAnswer(words: readonly (string | readonly string[])[], answer: string): CheckResult[] {
  const text = normaliseText(answer);
  return words.map((word) => {
    const alternatives = typeof word === "string" ? [word] : word;
    const found = alternatives.some((alternative) => text.includes(normaliseText(alternative)));
    return {
      kind: "answer" as const,
      passed: found,
      detail: found ? `answer mentions ${alternatives.join(" / ")}` : `answer lacks ${alternatives.join(" / ")}`,
    };
  });
}

/** Every check a scenario's expectation implies; success is all of them passing. */
export function checkExpectation(
  expectation: Expectation,
  observed: { calls: readonly ObservedCall[]; answer: string; read: RecordReader; clock: Clock },
): CheckResult[] {
  return [
    ...checkCalls(expectation, observed.calls, observed.clock),
    ...(expectation.state ?? []).map((assertion) => checkState(assertion, observed.read, observed.clock)),
    ...checkAnswer(expectation.answerContains ?? [], observed.answer),
  ];
}
