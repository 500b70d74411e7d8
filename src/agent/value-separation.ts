/**
 * One value the user wrote once fills one parameter. A small model filling a
 * call from a request that gives several values of one kind often writes the
 * first one it copied into a second parameter too: "from postcode 10115 to
 * 80331" becomes `origin: "10115", destination: "10115"`, "costs 320,000 …
 * running costs 3,200 a year" `purchase_price: 320000, annual_costs:
 * 320000`, "30 x 60 cm tiles" `short_side: 60, long_side: 60`, while a value
 * the user wrote is left out of the call altogether.
 *
 * The repair: when two or more top-level parameters of a call hold the same
 * number (or the same code: a token with a figure in it, "10115",
 * "CWR-2025"), which the request writes exactly once, and the request writes
 * exactly one value of that kind fewer than there are holders that the call
 * does not use anywhere, the holders get those values: first a value
 * written with a unit goes to the one holder counting in a unit of that kind
 * ("250 mL" to `final_volume_ml`), then the rest in the order the request
 * writes them to the holders in the order the schema lists them. Anything
 * else (a value written twice: "60 x 60 cm"; no unused value; more unused
 * values than the holders can take, which would be a guess among them) leaves
 * the call as it is, and so does a result the tool's schema refuses.
 */
import type { JsonSchema, ToolCall } from "../model/types.js";
import { parameterNameWords, parameterUnit, unitNamed, WRITTEN_FIGURE, type Unit } from "./unit-conversion.js";

/** A value the request writes, where it first writes it (from `index` up to `end`), and the unit written right after it (if any). */
export interface Written {
  key: string;
  value: number | string;
  index: number;
  end: number;
  unit: Unit | undefined;
}

/** Figures with an optional sign and decimal part, not inside a word or a code ("CWR-2025", "V12"). */
const FIGURE = new RegExp(String.raw`(?<![\w.-])-?${WRITTEN_FIGURE}(?![\w-])`, "g");
/** Tokens with a figure in them: "10115", "CWR-2025", "bk-20250301-0200", "HX-558201". */
const CODE = /(?<![\w-])[A-Za-z0-9]+(?:[-_/.][A-Za-z0-9]+)*(?![\w-])/g;
/** The word after a figure, read as a unit. */
const UNIT_AFTER = /^\s*-?\s*([a-z]+)\b/i;
/** Factors by which a number in a call still writes a figure of the request (minutes and hours, percent, units). */
const FACTORS = [1, 60, 100, 1000];

function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

/** The figures a text writes, each value once with its first place, and how many times it writes each (by `String(value)`). */
export function figuresInText(text: string): { figures: Written[]; counts: Map<string, number> } {
  const figures: Written[] = [];
  const counts = new Map<string, number>();
  for (const match of text.matchAll(FIGURE)) {
    const value = Number(match[0].replace(/,/g, ""));
    if (!Number.isFinite(value)) continue;
    const key = String(value);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (counts.get(key) === 1) {
      const end = match.index + match[0].length;
      const after = UNIT_AFTER.exec(text.slice(end));
      figures.push({ key, value, index: match.index, end, unit: after === null ? undefined : unitNamed(after[1]!) });
    }
  }
  return { figures, counts };
}

/** The codes a text writes (tokens with a figure in them), each once with its first place, by lower-case key. */
export function codesInText(text: string): { codes: Written[]; counts: Map<string, number> } {
  const codes: Written[] = [];
  const counts = new Map<string, number>();
  for (const match of text.matchAll(CODE)) {
    if (!/\d/.test(match[0])) continue;
    const key = match[0].toLowerCase();
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (counts.get(key) === 1) codes.push({ key, value: match[0], index: match.index, end: match.index + match[0].length, unit: undefined });
  }
  return { codes, counts };
}

/** Every number and every string (in lower case) a call's arguments hold, at any depth. */
export function heldValues(args: unknown): { numbers: number[]; strings: string[] } {
  const numbers: number[] = [];
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "number") numbers.push(value);
    else if (typeof value === "string") strings.push(value.toLowerCase());
    else if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === "object" && value !== null) Object.values(value).forEach(walk);
  };
  walk(args);
  return { numbers, strings };
}

/** Whether `text` holds `part` not run on by other digits or letters ("19:30" holds "30", "2025-06-02" holds "2025", "policy_hx-558201" holds "hx-558201"; "4471" does not hold "44"). */
export function holdsToken(text: string, part: string): boolean {
  let from = text.indexOf(part);
  while (from !== -1) {
    const before = text[from - 1];
    const after = text[from + part.length];
    if ((before === undefined || !/[\da-z]/i.test(before)) && (after === undefined || !/[\da-z]/i.test(after))) return true;
    from = text.indexOf(part, from + 1);
  }
  return false;
}

/** Whether the call uses a figure of the request: a number that writes it (up to a factor), or a string that holds it. */
function figureUsed(figure: Written, held: { numbers: number[]; strings: string[] }): boolean {
  const value = figure.value as number;
  if (held.numbers.some((number) => FACTORS.some((factor) => close(number, value * factor) || close(number, value / factor)))) return true;
  const plain = String(Math.abs(value));
  return held.strings.some((text) => holdsToken(text, plain));
}

/** Whether the call uses a code of the request: a string that is or holds it, or a number that writes it. */
function codeUsed(code: Written, held: { numbers: number[]; strings: string[] }): boolean {
  if (held.strings.some((text) => text.trim() === code.key || holdsToken(text, code.key))) return true;
  return /^\d+(?:\.\d+)?$/.test(code.key) && held.numbers.some((number) => close(number, Number(code.key)));
}

/** The holders of one repeated value, in schema order, and the values they get: unit matches first, then request order against schema order. */
function assign(holders: string[], values: Written[], parameters: JsonSchema): Map<string, Written> | undefined {
  const properties = (parameters.properties ?? {}) as Record<string, { description?: unknown }>;
  const assigned = new Map<string, Written>();
  const unitOf = (name: string): Unit | undefined => {
    const description = properties[name]?.description;
    return parameterUnit(name, typeof description === "string" ? description : undefined);
  };
  let open = [...holders];
  let left = [...values];
  for (const name of holders) {
    const wanted = unitOf(name);
    if (wanted === undefined) continue;
    const alike = left.filter((value) => value.unit?.dimension === wanted.dimension);
    const rivals = open.filter((other) => unitOf(other)?.dimension === wanted.dimension);
    if (alike.length !== 1 || rivals.length !== 1) continue;
    assigned.set(name, alike[0]!);
    open = open.filter((other) => other !== name);
    left = left.filter((value) => value !== alike[0]);
  }
  left.sort((a, b) => a.index - b.index);
  if (left.length !== open.length) return undefined;
  open.forEach((name, position) => assigned.set(name, left[position]!));
  return assigned;
}

/**
 * The call with a value repeated across parameters separated into the
 * values the request wrote for them (see the module comment), when the
 * result still fits `fits`; the call itself otherwise.
 */
export function withRepeatedValuesSeparated(call: ToolCall, parameters: JsonSchema, userText: string, fits: (args: Record<string, unknown>) => boolean): ToolCall {
  const order = Object.keys((parameters.properties ?? {}) as Record<string, unknown>);
  const rank = (name: string): number => (order.includes(name) ? order.indexOf(name) : order.length);
  const groups = new Map<string, string[]>();
  for (const [name, value] of Object.entries(call.arguments)) {
    let key: string | undefined;
    if (typeof value === "number" && Number.isFinite(value)) key = `n:${value}`;
    else if (typeof value === "string" && /\d/.test(value) && /^[A-Za-z0-9]+(?:[-_/.][A-Za-z0-9]+)*$/.test(value.trim())) key = `s:${value.trim().toLowerCase()}`;
    if (key === undefined) continue;
    groups.set(key, [...(groups.get(key) ?? []), name]);
  }
  const repeated = [...groups.entries()].filter(([, names]) => names.length >= 2);
  if (repeated.length === 0) return call;
  const { figures, counts: figureCounts } = figuresInText(userText);
  const { codes, counts: codeCounts } = codesInText(userText);
  const args: Record<string, unknown> = { ...call.arguments };
  let changed = false;
  for (const [key, names] of repeated) {
    const holders = [...names].sort((a, b) => rank(a) - rank(b));
    const isNumber = key.startsWith("n:");
    const shared = key.slice(2);
    const written = isNumber ? figures : codes;
    const counts = isNumber ? figureCounts : codeCounts;
    if (counts.get(shared) !== 1) continue;
    const own = written.find((value) => value.key === shared)!;
    // What the rest of the call uses: the holders' shared value is the one being placed.
    const held = heldValues(Object.fromEntries(Object.entries(call.arguments).filter(([name]) => !holders.includes(name))));
    const unused = written.filter((value) => value.key !== shared && !(isNumber ? figureUsed(value, held) : codeUsed(value, held)));
    if (unused.length !== holders.length - 1) continue;
    const assigned = assign(holders, [own, ...unused], parameters);
    if (assigned === undefined) continue;
    for (const [name, value] of assigned) {
      const next = isNumber ? value.value : String(value.value);
      if (args[name] !== next) changed = true;
      args[name] = next;
    }
  }
  return changed && fits(args) ? { ...call, arguments: args } : call;
}

/** A figure that is part of a clock time or a written date ("7:30", "12/05"): not a quantity of its own. */
function onClockOrCalendar(text: string, figure: Written): boolean {
  return [text[figure.index - 1], text[figure.end]].some((next) => next === ":" || next === "/");
}

/**
 * The call with the one number nothing grounds replaced by the one figure
 * of the request the call leaves out, when the request writes that figure
 * with a unit of the kind the parameter counts in: "doubles every 20
 * minutes … after 180 minutes" called as `doubling_time_min: 20,
 * elapsed_min: 280` runs with `elapsed_min: 180` (converted when the units
 * differ: "3 hours" into `elapsed_min` is 180). The call itself otherwise:
 * two or more numbers nothing grounds, no figure or several left out, a
 * figure written without a unit or with another kind of unit, a parameter
 * whose unit nobody knows (a count, a price: the figure left out may be
 * meant for no parameter at all, as in a request the tool does not serve),
 * or a result the tool's schema refuses. `invented` says which numbers
 * grounding would refuse.
 */
export function withInventedNumberPlaced(
  call: ToolCall,
  parameters: JsonSchema,
  userText: string,
  invented: (value: number) => boolean,
  fits: (args: Record<string, unknown>) => boolean,
): ToolCall {
  const holders = Object.entries(call.arguments).filter(([, value]) => typeof value === "number" && Number.isFinite(value) && invented(value));
  if (holders.length !== 1) return call;
  const [holder] = holders[0]!;
  const properties = (parameters.properties ?? {}) as Record<string, { description?: unknown }>;
  const description = properties[holder]?.description;
  const wanted = parameterUnit(holder, typeof description === "string" ? description : undefined);
  if (wanted === undefined) return call;
  const held = heldValues(Object.fromEntries(Object.entries(call.arguments).filter(([name]) => name !== holder)));
  const unused = figuresInText(userText).figures.filter((figure) => !onClockOrCalendar(userText, figure) && !figureUsed(figure, held));
  if (unused.length !== 1) return call;
  const figure = unused[0]!;
  if (figure.unit === undefined || figure.unit.dimension !== wanted.dimension) return call;
  const value = Number((((figure.value as number) * figure.unit.factor) / wanted.factor).toPrecision(12));
  const args = { ...call.arguments, [holder]: value };
  return fits(args) ? { ...call, arguments: args } : call;
}

/** The last word of a parameter's name, letters only (`department` of `department`, `depot` of `start_depot`), when it is a noun a request can write after a name. */
function nameNoun(name: string): string | undefined {
  const last = parameterNameWords(name)
    .flatMap((word) => word.split(/\d+/))
    .filter((word) => word !== "")
    .at(-1);
  return last !== undefined && last.length >= 4 && !["name", "type", "kind", "text", "value", "title"].includes(last) ? last : undefined;
}

/**
 * The call with a string copied from another parameter's value replaced by
 * the name the request writes before this parameter's own word: "a Senior
 * Data Engineer in the Analytics department" called as `title: "Senior Data
 * Engineer", department: "Data Engineer"` runs with `department:
 * "Analytics"`. Only a copy is replaced (the value is, or is part of,
 * another parameter's value, or holds it), only by a name in capitals
 * right before the word (`department`, `depot`, `team`; one to three words),
 * and only when the request writes exactly one such name; the call itself
 * otherwise, or when the result does not fit the tool's schema.
 */
export function withCopiedNameReplaced(call: ToolCall, parameters: JsonSchema, userText: string, fits: (args: Record<string, unknown>) => boolean): ToolCall {
  const properties = (parameters.properties ?? {}) as Record<string, { enum?: unknown }>;
  const args: Record<string, unknown> = { ...call.arguments };
  let changed = false;
  for (const [name, value] of Object.entries(call.arguments)) {
    if (typeof value !== "string" || properties[name]?.enum !== undefined || /\d/.test(value)) continue;
    const own = value.trim().toLowerCase();
    if (own === "") continue;
    const copied = Object.entries(call.arguments).some(([other, held]) => {
      if (other === name || typeof held !== "string") return false;
      const theirs = held.trim().toLowerCase();
      return theirs !== "" && (theirs.includes(own) || own.includes(theirs));
    });
    const noun = nameNoun(name);
    if (!copied || noun === undefined) continue;
    const nounPattern = `(?:${noun}|${noun[0]!.toUpperCase()}${noun.slice(1)})s?`;
    const before = new RegExp(String.raw`(?<![\p{L}&'-])((?:[A-Z][\p{L}&'-]*\s+){0,2}[A-Z][\p{L}&'-]*)\s+${nounPattern}(?![\p{L}])`, "gu");
    const named = new Set([...userText.matchAll(before)].map((match) => match[1]!));
    if (named.size !== 1) continue;
    const [meant] = named;
    const held = Object.entries(args).some(([other, item]) => other !== name && typeof item === "string" && item.trim().toLowerCase() === meant!.toLowerCase());
    if (meant!.toLowerCase() === own || held) continue;
    args[name] = meant;
    changed = true;
  }
  return changed && fits(args) ? { ...call, arguments: args } : call;
}
