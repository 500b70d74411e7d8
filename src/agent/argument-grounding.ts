/**
 * Whether the values of a call come from somewhere. A sub-billion model
 * asked something no offered tool serves still fills the tool's parameters:
 * a symbol, a name, a count out of nowhere (`get_stock_price{symbol: "AAPL"}`
 * for a question about a recipe). Such a call must not run: it acts on
 * values the user never gave (an optional value guessed is only left out:
 * the call runs on the tool's default, as argument pruning would have had
 * it). A value is grounded when the conversation
 * carries it: the user's words (this request and the session's earlier
 * ones), the results of calls already made, or the tool's own schema (a
 * choice of an enum, a default). The check is lenient on purpose: it catches
 * values with no word in common with any of that, not wrong arithmetic.
 *
 * What counts as carried:
 * - a string found whole in the evidence, or with a word (three letters or
 *   more, the ToolBox's terms, a word starting the other counts) found in it
 *   and every figure it holds carried as a number (below); a string of stop
 *   words or signs only says nothing and passes;
 * - dates and times are left to `date-grounding.ts`, which resolves the
 *   request's own words against the clock, and ids ("alarm-3") to the tool
 *   that hands them out, which answers a wrong one with its own error; but a
 *   full date in a parameter that is not about a day (`season`, `period`,
 *   `book`), which the conversation never writes, for a request that names
 *   no day at all, is the model's own (the clock's today copied from its
 *   prompt) and not carried;
 * - a number the evidence writes (figures, "1e-9", "3 x 10^8", "5 million",
 *   words up to a thousand, phrases such as "twenty five", "five dozen",
 *   "three and a half", "three quarters") or
 *   implies ("an hour" is 60, "a week" 7, "all the way up" 100, "5 years"
 *   60 months), that number
 *   times or divided by 60, 100 or 1000 (minutes and hours, percent, units),
 *   and 0 and 1 always;
 * - a currency's ISO code where the evidence names the currency ("yen":
 *   JPY), and a number of seven digits or more written in another layout
 *   (grouped, or with a country code for the leading 0);
 * - booleans, nulls and values the schema itself lists (enum, const,
 *   default, a default its descriptions name, or a list of single words a
 *   description opens with or gives as "one of").
 *
 * Carried is not enough for an optional value that repeats another value of
 * the same call ("key": "C", "scale_type": "C"): one thing the user said
 * fills one parameter, so the copy is left out as a guess is
 * (`repeatedOptionalValues`).
 */
import { mapSchemaNodes, requiredNames } from "../model/json-schema.js";
import { unfenced } from "../policy/fence.js";
import type { JsonSchema, ToolCall, ToolSpec } from "../model/types.js";
import { toolSpec, type Tool } from "../tools/tool.js";
import { normaliseTerm, splitWords } from "../tools/toolbox.js";
import { termsOf } from "./argument-pruning.js";
import { withUnitsConverted, WRITTEN_FIGURE } from "./unit-conversion.js";
import { CURRENCY_NAMES, withCodesAsWritten } from "./codes-as-written.js";
import { withChoicesAsWritten } from "./choices-as-written.js";
import { mapLeaves } from "./argument-leaves.js";
import { aboutMoment, namesMoment } from "./date-grounding.js";
import { figuresInText, withCopiedNameReplaced, withInventedNumberPlaced, withRepeatedValuesSeparated } from "./value-separation.js";

export interface GroundingEvidence {
  /** The user's words: this request and the session's earlier requests. */
  userText: string;
  /** What earlier calls returned (tool results) and earlier turns' summaries. */
  results: readonly string[];
}

export interface UngroundedValue {
  /** Where in the arguments: `symbol`, `items[1]`, `address.city`. */
  path: string;
  value: string | number;
}

/** A full date, alone or with a time: "2026-12-01", "2026-12-01T09:00". */
const FULL_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const ISO_DATE_OR_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$|^([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?(\s?[ap]\.?m\.?)?$/i;
/** A date written with figures in another order or with other separators ("26/10/2027", "10-26-2027", "10/2027"): a date, left to date grounding as ISO dates are. */
const NUMERIC_DATE = /^(?:\d{1,2}[-/.]\d{1,2}[-/.]\d{4}|\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{4}|\d{4}[-/.]\d{1,2})$/;
/** Figures as written (see WRITTEN_FIGURE); with a decimal that starts at its point (".5"); with a sign and an exponent. */
const FIGURE = new RegExp(WRITTEN_FIGURE, "g");
const FIGURE_OR_DECIMAL = new RegExp(String.raw`${WRITTEN_FIGURE}|\.\d+`, "g");
const NUMBER_IN_TEXT = new RegExp(String.raw`(?:-?${WRITTEN_FIGURE}|-?\.\d+)(?:e[-+]?\d+)?`, "gi");
/** Figures grouped in thousands ("1,500", "2,000,000"); any other comma between digits separates a list ("[22,33,42]"). */
const THOUSANDS = /^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
/** A figure times a power of ten as people write it: "3 x 10^8", "1.6×10^-19", "2 * 10**5". */
const TIMES_POWER_OF_TEN = /(-?\d+(?:\.\d+)?)\s*(?:x|×|\*)\s*10\s*(?:\^|\*\*)\s*([-+−]?\d+)/gi;
/** A figure and the scale word after it: "5 million", "2.5 billion". */
const FIGURE_AND_SCALE = /(-?\d+(?:\.\d+)?)\s*(million|billion|trillion)\b/gi;
const SCALES: Record<string, number> = { million: 1e6, billion: 1e9, trillion: 1e12 };
const UNIT_FACTORS = [60, 100, 1000];

const NUMBER_WORDS: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18,
  nineteen: 19, twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
  hundred: 100, thousand: 1000, million: 1e6, billion: 1e9, dozen: 12, half: 0.5, quarter: 0.25, twice: 2, double: 2, triple: 3, once: 1,
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10,
};

/**
 * Quantities words imply without a figure: "a free hour" is 60 minutes,
 * "next week" 7 days, "all the way up" or "max" the top of a 0–100 scale.
 */
const IMPLIED_NUMBERS: Record<string, readonly number[]> = {
  minute: [60], hour: [60], day: [24], week: [7], weekly: [7, 52], fortnight: [14], month: [30, 31], monthly: [30, 12], year: [365, 12],
  // How often a year: "compounded quarterly" is 4 times.
  quarterly: [4], biannually: [2], semiannually: [2], annually: [1],
  yearly: [12], max: [100], maximum: [100], full: [100], fully: [100], loudest: [100], brightest: [100], way: [100],
};

/** Ids a tool hands out ("alarm-3", "msg_12", a UUID): the tool that owns them says when one is wrong, so they are its to judge. */
const IDENTIFIER = /^[a-z]+(?:[-_][a-z]+)*[-_]\d+$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The evidence as read for one call: its terms, its numbers, its text in lower case. */
interface Evidence {
  terms: Set<string>;
  numbers: Set<number>;
  text: string;
}

/** Grounding reads words of three letters or more. */
const MIN_TERM_LENGTH = 3;

/** A figure as written ("1,500") as a number. */
function figureValue(written: string): number {
  return Number(written.replace(/,/g, ""));
}

function numbersOf(text: string): number[] {
  const numbers: number[] = [];
  for (const [written] of text.matchAll(NUMBER_IN_TEXT)) {
    // "1,500" is one figure; "22,33,42" (a list written without spaces) is three.
    const figures = written.includes(",") && !THOUSANDS.test(written) ? written.split(",").filter((part) => part !== "" && part !== "-") : [written];
    for (const figure of figures) {
      const value = figureValue(figure);
      if (Number.isFinite(value)) numbers.push(value, Math.abs(value));
    }
  }
  for (const [, figure, exponent] of text.matchAll(TIMES_POWER_OF_TEN)) {
    const value = tidy(Number(figure) * 10 ** Number(exponent!.replace("−", "-")));
    if (Number.isFinite(value)) numbers.push(value, Math.abs(value));
  }
  for (const [, figure, scale] of text.matchAll(FIGURE_AND_SCALE)) {
    const value = tidy(Number(figure) * SCALES[scale!.toLowerCase()]!);
    if (Number.isFinite(value)) numbers.push(value, Math.abs(value));
  }
  for (const word of splitWords(text)) {
    const lower = word.toLowerCase();
    const value = NUMBER_WORDS[lower];
    if (value !== undefined) numbers.push(value);
    numbers.push(...(impliedNumbers(lower) ?? []));
  }
  numbers.push(...quantitiesOf(text));
  return numbers;
}

/** The quantities a word implies ("hours": 60), by the word or its singular. */
function impliedNumbers(word: string): readonly number[] | undefined {
  return IMPLIED_NUMBERS[word] ?? IMPLIED_NUMBERS[normaliseTerm(word) ?? ""];
}

/** Number words that count (not "first", "twice"): the parts of a spoken number. */
const COUNTING_WORDS: Record<string, number> = Object.fromEntries(
  ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"].map((word) => [word, NUMBER_WORDS[word]!]),
);
/** Words that multiply the number before them: "five dozen", "two hundred", "3 thousand". */
const MULTIPLIERS: Record<string, number> = { dozen: 12, dozens: 12, hundred: 100, hundreds: 100, thousand: 1000, thousands: 1000 };
/** Words that divide the number before them: "three quarters" is 0.75, "two halves" 1. */
const FRACTIONS: Record<string, number> = { half: 2, halves: 2, quarter: 4, quarters: 4 };
const QUANTITY_TOKEN = new RegExp(String.raw`-?${WRITTEN_FIGURE}|[a-z]+`, "gi");

/**
 * Quantities a phrase of several words makes: "twenty five" (25), "five
 * dozen" (60), "three and a half" (3.5), "2 and a quarter" (2.25), "three
 * quarters" (0.75), and the phrase's number in the unit after it, as the
 * unit's implied numbers have it: "5 years" is also 60 (months) and 1825
 * (days), "three and a half hours" 210 (minutes).
 */
function quantitiesOf(text: string): number[] {
  const tokens = [...text.matchAll(QUANTITY_TOKEN)].map(([token]) => token.toLowerCase());
  const found: number[] = [];
  let index = 0;
  while (index < tokens.length) {
    const start = tokens[index]!;
    const figure = /^-?\d/.test(start) ? figureValue(start) : COUNTING_WORDS[start];
    if (figure === undefined || !Number.isFinite(figure)) {
      index++;
      continue;
    }
    let value = figure;
    let next = index + 1;
    // What follows the first: "twenty five", "five dozen", "three quarters", "three and a half".
    for (;;) {
      const word = tokens[next];
      if (word === undefined) break;
      if (MULTIPLIERS[word] !== undefined) value *= MULTIPLIERS[word];
      else if (FRACTIONS[word] !== undefined && next === index + 1) value /= FRACTIONS[word];
      else if (COUNTING_WORDS[word] !== undefined && COUNTING_WORDS[word] < 10 && value >= 20 && value % 10 === 0 && value < 100) value += COUNTING_WORDS[word];
      else if (word === "and" && (tokens[next + 1] === "a" || tokens[next + 1] === "an") && FRACTIONS[tokens[next + 2] ?? ""] !== undefined) {
        value += 1 / FRACTIONS[tokens[next + 2]!]!;
        next += 2;
      } else break;
      next++;
    }
    if (next > index + 1) found.push(tidy(value));
    const unit = tokens[next];
    if (unit !== undefined && UNIT_WORDS.has(normaliseTerm(unit) ?? unit)) for (const each of impliedNumbers(unit) ?? []) found.push(tidy(value * each));
    index = next;
  }
  return found;
}

/** Units whose implied numbers convert a count of them into the next unit down ("5 years" is 60 months). */
const UNIT_WORDS = new Set(["minute", "hour", "day", "week", "fortnight", "month", "year"]);

/** Values a schema lists as acceptable on its own: enum and const members, defaults, defaults its descriptions name. */
function schemaValues(schema: unknown, into: Set<string>): void {
  if (Array.isArray(schema)) {
    for (const item of schema) schemaValues(item, into);
    return;
  }
  if (typeof schema !== "object" || schema === null) return;
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node.enum)) for (const member of node.enum) into.add(String(member).toLowerCase());
  if ("const" in node) into.add(String(node.const).toLowerCase());
  if ("default" in node && node.default !== undefined && typeof node.default !== "object") into.add(String(node.default).toLowerCase());
  if (typeof node.description === "string") {
    for (const value of listedInDescription(node.description)) into.add(value);
    for (const match of node.description.matchAll(/\bdefaults?(?:\s+(?:value|is|to|of))*\s*[:=]?\s*['"`]?([^'"`,;)\n]+?)['"`]?(?=[.,;)\n]|$)/gi)) {
      const named = match[1]?.trim().toLowerCase();
      if (named) into.add(named);
    }
  }
  for (const [key, value] of Object.entries(node)) if (key !== "enum" && key !== "const" && key !== "default" && typeof value === "object") schemaValues(value, into);
}

/** A list of single words that opens a description or follows "one of": "like, love, laugh, wow, sad or thanks". */
const WORD_LIST = /(?:^|\b(?:one|any) of:?\s+)((?:[a-z][\w-]*,\s+)+[a-z][\w-]*,?\s+or\s+[a-z][\w-]*)\b/gi;

/**
 * The values a description lists as the parameter's choices: the tool's own
 * words, as an enum would be ("like, love, laugh, wow, sad or thanks, or the
 * emoji itself"), so a model that maps "a thumbs up" to `like` is not asking
 * for a value nobody gave. Only lists of single words that open the
 * description or follow "one of": prose that names kinds of value ("Contact
 * name, phone or conversation id") is not a list of choices. A list of kinds
 * made of single words ("Name, email or phone") passes too; a call with
 * `to: "phone"` then fails on the tool's own check, as any wrong name does.
 */
function listedInDescription(description: string): string[] {
  const values: string[] = [];
  for (const match of description.matchAll(WORD_LIST)) values.push(...match[1]!.split(/,\s*|\s+or\s+/).map((item) => item.trim().toLowerCase()).filter((item) => item !== ""));
  return values;
}

function relatesToEvidence(term: string, evidence: Evidence): boolean {
  if (evidence.terms.has(term)) return true;
  for (const known of evidence.terms) {
    // "repeat" and "repeating", "mon" and "monday": one word starting the other.
    const shorter = known.length < term.length ? known : term;
    const longer = shorter === known ? term : known;
    if (shorter.length >= 3 && longer.startsWith(shorter)) return true;
  }
  return false;
}

function numberGrounded(value: number, evidence: Evidence): boolean {
  if (value === 0 || value === 1 || evidence.numbers.has(value) || evidence.numbers.has(Math.abs(value))) return true;
  const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  for (const known of evidence.numbers) {
    for (const factor of UNIT_FACTORS) {
      if (close(Math.abs(value), known * factor) || close(Math.abs(value), known / factor)) return true;
    }
  }
  return false;
}

function stringGrounded(value: string, evidence: Evidence, listed: ReadonlySet<string>): boolean {
  const trimmed = value.trim();
  if (trimmed === "" || ISO_DATE_OR_TIME.test(trimmed) || NUMERIC_DATE.test(trimmed) || IDENTIFIER.test(trimmed)) return true;
  const lower = trimmed.toLowerCase();
  if (listed.has(lower) || evidence.text.includes(lower)) return true;
  if (currencyNamed(trimmed, evidence.text) || digitsCarried(trimmed, evidence.text)) return true;
  if (/^-?\d[\d,]*(\.\d+)?(e[-+]?\d+)?$/i.test(trimmed)) return numberGrounded(figureValue(trimmed), evidence);
  // Figures inside words must be carried too: "Room 7" for "book a room" guessed the 7.
  const figures = [...trimmed.matchAll(NUMBER_IN_TEXT)].map(([written]) => figureValue(written));
  if (!figures.every((figure) => !Number.isFinite(figure) || numberGrounded(figure, evidence))) return false;
  // Only figures, short words and signs: nothing else to judge.
  const terms = [...termsOf(trimmed, MIN_TERM_LENGTH)];
  return terms.length === 0 || terms.some((term) => relatesToEvidence(term, evidence));
}

/** Each code's names as one pattern: a name as a whole word or phrase, a sign anywhere. */
const CURRENCY_PATTERNS: ReadonlyMap<string, RegExp> = new Map(
  Object.entries(CURRENCY_NAMES).map(([code, names]) => {
    const words = names.filter((name) => !/^\W$/u.test(name));
    const signs = names.filter((name) => /^\W$/u.test(name)).map((sign) => sign.replace(/[$^.*+?()[\]{}|\\]/g, "\\$&"));
    return [code, new RegExp([`(?:^|[^\\p{L}])(?:${words.join("|")})(?:$|[^\\p{L}])`, ...signs].join("|"), "u")];
  }),
);

/** A currency's code where the evidence names the currency ("the euro to Japanese yen rate": EUR, JPY). */
function currencyNamed(value: string, text: string): boolean {
  return /^[A-Z]{3}$/.test(value) && CURRENCY_PATTERNS.get(value)?.test(text) === true;
}

/** Seven digits or more, written with spaces, dashes, dots, brackets or a leading +: a phone, card or serial number. */
const DIGIT_RUN = /\+?\d[\d\s().-]*\d/g;

/**
 * A number of seven digits or more that the evidence writes in another
 * layout: grouped ("985 141 002 345 678" as "985141002345678") or with a
 * country code for the leading 0 ("07700 900456" as "+447700900456").
 */
function digitsCarried(value: string, text: string): boolean {
  if (!/^\+?[\d\s().-]+$/.test(value)) return false;
  const digits = value.replace(/\D/g, "");
  if (digits.length < 7) return false;
  for (const [run] of text.matchAll(DIGIT_RUN)) {
    const written = run.replace(/\D/g, "");
    if (written === digits) return true;
    const national = written.replace(/^0+/, "");
    if (national.length >= 7 && value.trim().startsWith("+") && digits.endsWith(national) && digits.length - national.length <= 3) return true;
  }
  return false;
}

/** The evidence as one text. A fence's random boundary is not evidence: "ab5cdef0" does not write a 5. */
function evidenceText(source: GroundingEvidence): string {
  return [source.userText, ...source.results.map(unfenced)].join("\n");
}

function evidenceOf(source: GroundingEvidence): Evidence {
  const text = evidenceText(source);
  return { terms: termsOf(text, MIN_TERM_LENGTH), numbers: new Set(numbersOf(text)), text: text.toLowerCase() };
}

/**
 * The values of `args` that nothing in the evidence or the tool's schema
 * carries (see the module comment), with where they are; empty when the call
 * is grounded.
 */
export function ungroundedArguments(args: Record<string, unknown>, parameters: JsonSchema, source: GroundingEvidence): UngroundedValue[] {
  return ungroundedIn(args, parameters, source, evidenceOf(source), listedValues(parameters));
}

/** The values a schema lists as acceptable on its own (see `schemaValues`), in lower case. */
function listedValues(parameters: JsonSchema): Set<string> {
  const listed = new Set<string>();
  schemaValues(parameters, listed);
  return listed;
}

/** `ungroundedArguments` with the evidence and the schema's own values already read. */
function ungroundedIn(args: Record<string, unknown>, parameters: JsonSchema, source: GroundingEvidence, evidence: Evidence, listed: ReadonlySet<string>): UngroundedValue[] {
  const found: UngroundedValue[] = [];
  const properties = (parameters.properties ?? {}) as Record<string, { description?: unknown } | undefined>;
  let requestNamesMoment: boolean | undefined;
  /** A full date in a top-level parameter not about a day, which the conversation never writes, for a request that names no day: the model's own. */
  const dateGuessed = (value: string, path: string): boolean => {
    if (!FULL_DATE.test(value.trim()) || !(path in properties) || evidence.text.includes(value.trim().slice(0, 10))) return false;
    const description = properties[path]?.description;
    if (aboutMoment(path, typeof description === "string" ? description : undefined)) return false;
    requestNamesMoment ??= namesMoment(source.userText);
    return !requestNamesMoment;
  };
  const walk = (value: unknown, path: string): void => {
    if (typeof value === "string") {
      if (dateGuessed(value, path) || !stringGrounded(value, evidence, listed)) found.push({ path, value });
    } else if (typeof value === "number") {
      if (!listed.has(String(value)) && !numberGrounded(value, evidence)) found.push({ path, value });
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => walk(item, `${path}[${index}]`));
    } else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) walk(item, path === "" ? key : `${path}.${key}`);
    }
  };
  walk(args, "");
  return found;
}

/** More numbers than this and a turn's number parameters are left free (grounding still checks the call). */
const MAX_NUMBER_CHOICES = 400;

/** A computed choice as a call writes it: 0.1 × 3 is 0.3, not 0.30000000000000004. */
function tidy(value: number): number {
  return Number(value.toPrecision(12));
}

/**
 * Every number grounding accepts for this evidence (see `numberGrounded`),
 * as a list a call grammar can offer: what the evidence writes or implies,
 * those times and divided by 60, 100 and 1000, and 0 and 1. Undefined when
 * the evidence holds no number (then only 0 and 1 would be offered, and a
 * model held to them would run a call with a 0 or a 1 where grounding
 * refuses its guess and asks) or more than `MAX_NUMBER_CHOICES`.
 */
export function groundedNumberChoices(source: GroundingEvidence): number[] | undefined {
  // A copy: the evidence's own set stays as grounding reads it.
  const known = new Set(evidenceOf(source).numbers);
  known.delete(0);
  known.delete(1);
  if (known.size === 0) return undefined;
  const choices = new Set<number>([0, 1]);
  for (const value of known) {
    choices.add(tidy(value));
    for (const factor of UNIT_FACTORS) choices.add(tidy(value * factor)).add(tidy(value / factor));
  }
  if (choices.size > MAX_NUMBER_CHOICES) return undefined;
  return [...choices].sort((a, b) => a - b);
}

/**
 * The tools' forms with every free number parameter (a `number` or
 * `integer` with no enum or const of its own) held to `choices` (integers
 * only where the schema wants an integer, within its bounds, its default
 * added), so a call grammar cannot write a number grounding would refuse:
 * a small model that meant "4" and wrote "4000000010000004" writes 4. Specs
 * with nothing to hold are returned as they are (the same objects).
 */
export function holdNumberParameters(specs: ToolSpec[], choices: readonly number[] | undefined): ToolSpec[] {
  if (choices === undefined) return specs;
  return specs.map((spec) => {
    let changed = false;
    const parameters = mapSchemaNodes(spec.parameters, (node) => {
      if ((node.type !== "number" && node.type !== "integer") || "enum" in node || "const" in node) return node;
      const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, default: fallback, ...rest } = node;
      const within = (value: number): boolean =>
        (node.type !== "integer" || Number.isInteger(value)) &&
        (typeof minimum !== "number" || value >= minimum) &&
        (typeof maximum !== "number" || value <= maximum) &&
        (typeof exclusiveMinimum !== "number" || value > exclusiveMinimum) &&
        (typeof exclusiveMaximum !== "number" || value < exclusiveMaximum);
      const allowed = new Set(choices.filter(within));
      if (typeof fallback === "number") allowed.add(fallback);
      if (allowed.size === 0) return node;
      changed = true;
      return { ...rest, ...(fallback !== undefined ? { default: fallback } : {}), enum: [...allowed].sort((a, b) => a - b) };
    });
    return changed ? { ...spec, parameters } : spec;
  });
}

/** The error code of a call refused because it guessed values the conversation does not carry. */
export const UNGROUNDED_CODE = "ungrounded_arguments";

/**
 * What grounding makes of one call whose arguments already fit the tool's
 * schema: unchanged, run without its guessed optional values (when it still
 * fits without them), or refused with what it guessed. Before it is judged,
 * a number cut at a grouped figure's comma is joined back (`cutFigure`), a
 * value copied into two parameters is separated and a name copied from
 * another parameter replaced by the one the request writes before the
 * parameter's own word (`value-separation.ts`), a
 * code written changed is written as the request writes it and a currency
 * named where a code is asked as its code (`codes-as-written.ts`), a
 * choice the request names taken over one it does not
 * (`choices-as-written.ts`), a
 * figure the user wrote in another unit is converted into the parameter's,
 * and a percentage into the form its description asks for
 * (`unit-conversion.ts`), a runaway number is cut back (`runawayFigure`),
 * and a number nothing grounds is given the one figure the call leaves out
 * when the request writes it in the parameter's kind of unit
 * (`withInventedNumberPlaced`).
 */
export type CallGrounding = { kind: "grounded"; call: ToolCall } | { kind: "guessed"; guessed: UngroundedValue[]; error: { code: typeof UNGROUNDED_CODE; message: string } };

export function groundCallArguments(written: ToolCall, tool: Tool, source: GroundingEvidence): CallGrounding {
  const parameters = toolSpec(tool).parameters;
  const fits = (args: Record<string, unknown>): boolean => tool.input.safeParse(args).success;
  const joined = withCutFiguresJoined(written, tool, source);
  const separated = withCopiedNameReplaced(withRepeatedValuesSeparated(joined, parameters, source.userText, fits), parameters, source.userText, fits);
  const asWritten = withChoicesAsWritten(withCodesAsWritten(separated, parameters, source.userText, evidenceText(source), fits), parameters, source.userText, fits);
  const converted = withUnitsConverted(asWritten, parameters, source.userText, fits);
  // Read once: the evidence and the schema's own values stay the same through every repair.
  const evidence = evidenceOf(source);
  const listed = listedValues(parameters);
  const invented = (value: number): boolean => !listed.has(String(value)) && !numberGrounded(value, evidence);
  const placed = withInventedNumberPlaced(withRunawayFiguresCut(converted, invented, evidence.text, fits), parameters, source.userText, invented, fits);
  const call = withoutRepeatedOptionalValues(placed, tool, source.userText);
  const guessed = ungroundedIn(call.arguments, parameters, source, evidence, listed);
  if (guessed.length === 0) return { kind: "grounded", call };
  const required = requiredNames(parameters);
  const topLevel = (path: string): string => /^[^.[]*/.exec(path)![0];
  const dropped = new Set(guessed.map((value) => topLevel(value.path)));
  // Only optional values guessed: the call runs without them, on the tool's defaults, as if pruning had kept them out.
  const kept = argumentsWithout(call.arguments, dropped);
  if (guessed.some((value) => required.has(topLevel(value.path))) || !tool.input.safeParse(kept).success) {
    return { kind: "guessed", guessed, error: { code: UNGROUNDED_CODE, message: ungroundedMessage(call.name, guessed) } };
  }
  return { kind: "grounded", call: { ...call, arguments: kept } };
}

/**
 * The top-level optional parameters of a call whose text repeats another
 * parameter's value of the same call ("key": "C" and "scale_type": "C";
 * "gene": "BRCA1" and "species": "BRCA1"). One thing the user said fills one
 * parameter: the copy is what the grammar made the model write for a
 * parameter the request says nothing of, the request's words being the only
 * words at hand. Required parameters are read first, then the schema's order;
 * the first holder of a value keeps it, and a value the parameter's own
 * schema lists (an enum member, its default) is never a copy.
 *
 * Numbers too, given the request (`userText`): "a campsite for 3 nights" as
 * `nights: 3, nightly_price_cap: 3`. A number the request writes twice ("2
 * adults and 2 children") fills two parameters, and 0 and 1 (a default, a
 * first page) are never copies.
 */
export function repeatedOptionalValues(args: Record<string, unknown>, parameters: JsonSchema, userText?: string): string[] {
  const required = requiredNames(parameters);
  const properties = (parameters.properties ?? {}) as Record<string, unknown>;
  const order = Object.keys(properties);
  const rank = (name: string): number => (required.has(name) ? 0 : 1) * (order.length + 1) + (order.includes(name) ? order.indexOf(name) : order.length);
  const holders = new Set<string>();
  const repeated: string[] = [];
  for (const name of Object.keys(args).sort((a, b) => rank(a) - rank(b))) {
    const value = args[name];
    let key: string;
    if (typeof value === "string" && value.trim() !== "") key = `s:${value.trim().toLowerCase()}`;
    else if (typeof value === "number" && Number.isFinite(value) && value !== 0 && value !== 1 && userText !== undefined && timesWritten(value, userText) <= 1) key = `n:${value}`;
    else continue;
    if (!holders.has(key)) {
      holders.add(key);
      continue;
    }
    const own = new Set<string>();
    schemaValues(properties[name], own);
    if (!required.has(name) && !own.has(key.slice(2))) repeated.push(name);
  }
  return repeated;
}

/** How many times a text writes a number: as a figure not inside a word or a code, or as a counting word ("three"). */
function timesWritten(value: number, text: string): number {
  let count = figuresInText(text).counts.get(String(Math.abs(value))) ?? 0;
  for (const word of splitWords(text)) if (COUNTING_WORDS[word.toLowerCase()] === Math.abs(value)) count++;
  return count;
}

/** The call without the optional values that repeat another of its values (`repeatedOptionalValues`), when it still fits the schema without them. */
function withoutRepeatedOptionalValues(call: ToolCall, tool: Tool, userText: string): ToolCall {
  const repeated = new Set(repeatedOptionalValues(call.arguments, toolSpec(tool).parameters, userText));
  if (repeated.size === 0) return call;
  const kept = argumentsWithout(call.arguments, repeated);
  return tool.input.safeParse(kept).success ? { ...call, arguments: kept } : call;
}

/** A call's arguments without the top-level parameters named. */
function argumentsWithout(args: Record<string, unknown>, names: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([name]) => !names.has(name)));
}

/** Digits a number must run on past a figure the conversation writes before it counts as a runaway (a factor of 1000 adds three). */
const RUNAWAY_TAIL = 4;

/** The figures the evidence writes, as written (no sign, no thousands commas, no exponent), and the whole numbers it writes in words ("five"). */
function writtenFigures(text: string): string[] {
  const figures = new Set<string>();
  for (const [written] of text.matchAll(FIGURE_OR_DECIMAL)) {
    const parts = THOUSANDS.test(written) ? [written.replace(/,/g, "")] : written.split(",");
    for (const figure of parts) if (figure !== "" && Number(figure) !== 0) figures.add(figure);
  }
  for (const word of splitWords(text)) {
    const value = NUMBER_WORDS[word.toLowerCase()];
    if (value !== undefined && Number.isInteger(value) && value > 0) figures.add(String(value));
  }
  return [...figures];
}

/** A number's plain digits: 4000000010000004 as written, never "4e+21". */
function plainDigits(value: number): string {
  const text = String(Math.abs(value));
  return /e/i.test(text) && Number.isInteger(value) ? BigInt(Math.abs(value)).toString() : text;
}

/**
 * The figure a number ran away from, when it has one: a small model that
 * means the "5" of "falling for 5 seconds" can fail to stop writing digits
 * and call with `time: 500000000` (greedy decoding, once a run of zeros has
 * started, keeps it going). A number nothing grounds, whose digits are the
 * digits of exactly one figure the conversation writes followed by a zero
 * and three or more digits after it, was that figure (51000000 is not a 5
 * run away: the model wrote 51). Undefined otherwise: no figure, or two
 * that fit ("5" and "50" for 500000000).
 */
export function runawayFigure(value: number, evidenceText: string): number | undefined {
  if (!Number.isFinite(value) || value === 0) return undefined;
  const digits = plainDigits(value);
  const fits = new Set<number>();
  for (const figure of writtenFigures(evidenceText)) {
    const tail = digits.slice(figure.length);
    if (digits.startsWith(figure) && /^\.?0[\d.]*$/.test(tail) && tail.replace(/\./g, "").length >= RUNAWAY_TAIL && (tail.match(/\./g)?.length ?? 0) + (figure.includes(".") ? 1 : 0) <= 1) {
      fits.add(Number(figure));
    }
  }
  if (fits.size !== 1) return undefined;
  const [figure] = fits;
  return value < 0 ? -figure! : figure!;
}

/**
 * The call with each number that ran away past a written figure (see
 * `runawayFigure`) cut back to that figure, when the arguments still fit the
 * tool's schema that way; the call itself when nothing ran away. Only
 * numbers grounding would refuse are looked at, so a value the conversation
 * carries (a 5 with "× 1000", "5 million") is never touched.
 */
function withRunawayFiguresCut(call: ToolCall, invented: (value: number) => boolean, evidenceText: string, fits: (args: Record<string, unknown>) => boolean): ToolCall {
  let cut = false;
  const args = mapLeaves(call.arguments, (value) => {
    if (typeof value !== "number" || !invented(value)) return value;
    const figure = runawayFigure(value, evidenceText);
    if (figure === undefined) return value;
    cut = true;
    return figure;
  }) as Record<string, unknown>;
  return cut && fits(args) ? { ...call, arguments: args } : call;
}

/** A parameter whose description says it counts in thousands ("salary in thousands", "in k"): its 320 for "320,000" is meant. */
const COUNTS_IN_THOUSANDS = /thousand|\bin k\b|\(k\)|\b000s\b/i;

/**
 * The grouped figure a number was cut from at its first comma, when it has
 * one: a model copying "320,000" from the request writes "320", then the
 * comma, which a JSON call can only read as the end of the number (the
 * call grammar cannot let a number hold a comma). A whole number whose
 * digits are the first group of exactly one grouped figure the evidence
 * writes ("1,899", "320,000.50"), and which the evidence never writes on its
 * own (as a figure or a word), was that figure. Undefined otherwise.
 */
export function cutFigure(value: number, evidenceText: string): number | undefined {
  if (!Number.isInteger(value) || value === 0) return undefined;
  const digits = plainDigits(value);
  if (writtenFigures(evidenceText).some((figure) => figure === digits)) return undefined;
  const fits = new Set<number>();
  for (const [written] of evidenceText.matchAll(FIGURE)) {
    if (THOUSANDS.test(written) && written.slice(0, written.indexOf(",")) === digits) fits.add(figureValue(written));
  }
  if (fits.size !== 1) return undefined;
  const [figure] = fits;
  return value < 0 ? -figure! : figure!;
}

/**
 * The call with each number cut at a grouped figure's comma (see
 * `cutFigure`) joined back into that figure, when the arguments still fit
 * the tool's schema that way; the call itself when nothing was cut. A
 * parameter whose description counts in thousands keeps its number.
 */
function withCutFiguresJoined(call: ToolCall, tool: Tool, source: GroundingEvidence): ToolCall {
  const text = evidenceText(source);
  if (!/\d,\d{3}/.test(text)) return call;
  const properties = (toolSpec(tool).parameters.properties ?? {}) as Record<string, { description?: unknown }>;
  let joined = false;
  const args = Object.fromEntries(
    Object.entries(call.arguments).map(([name, value]) => {
      const description = properties[name]?.description;
      if (typeof description === "string" && COUNTS_IN_THOUSANDS.test(`${name} ${description}`)) return [name, value];
      return [
        name,
        mapLeaves(value, (leaf) => {
          const figure = typeof leaf === "number" ? cutFigure(leaf, text) : undefined;
          if (figure === undefined) return leaf;
          joined = true;
          return figure;
        }),
      ];
    }),
  );
  if (!joined || !tool.input.safeParse(args).success) return call;
  return { ...call, arguments: args };
}

/** What the model's tool result says of a call that did not run for it. */
function ungroundedMessage(toolName: string, values: readonly UngroundedValue[]): string {
  const listed = values.map((value) => `${value.path} (${JSON.stringify(value.value)})`).join(", ");
  return `Not run: the user never gave ${listed}; ${toolName} was not called with a guessed value. Ask the user for it, or say that no tool fits the request.`;
}

/**
 * The answer the user gets when every call of a turn guessed its values:
 * what was not done and what is missing (the first call's, named by the
 * parameters, not the guesses).
 */
export function ungroundedAnswer(toolName: string, guessed: readonly UngroundedValue[]): string {
  const names = [...new Set(guessed.map((value) => value.path.replace(/\[\d+\]/g, "").replace(/[_.]+/g, " ")))];
  const what = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names.at(-1)!}`;
  return `I did not run ${toolName}: I could not find its ${what} in what you said, and I will not guess ${names.length === 1 ? "it" : "them"}. Tell me the ${what}, or ask me something else.`;
}
