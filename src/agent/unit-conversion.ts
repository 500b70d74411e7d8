/**
 * A figure the user gives in one unit, copied into a parameter that counts
 * in another. A small model asked for "1 litre over 8 hours" by a tool that
 * wants `volume_ml` and `duration_min` writes 1 and 8: it copies the figures
 * and leaves the units behind. Where a number parameter says its unit (its
 * name ends in one, `weight_kg`, or its description gives one, "Duration in
 * minutes") and the call's value is a figure the user wrote with another
 * unit of the same kind ("3800 g", "two and a half days", "an hour"), and
 * never with the parameter's own, the value is that quantity in the
 * parameter's unit: 1 litre is 1000 ml. A percentage is written the way a
 * parameter's description asks: "8.25%" is 0.0825 for a rate "as a decimal".
 *
 * Only exact conversions within one kind are made (time from milliseconds to
 * fortnights, metric lengths, masses and volumes); a rate (`pace_seconds_per_km`)
 * and a unit that needs a calendar (months, years) are left alone, and so is
 * a figure the user wrote with two units that would convert differently.
 */
import type { JsonSchema, ToolCall } from "../model/types.js";

/**
 * A figure as people write it, as a regular expression's source: digits with
 * commas only between digits ("320,000, then" ends at the last 0) and a
 * decimal part. Argument grounding reads figures with it too.
 */
export const WRITTEN_FIGURE = String.raw`\d(?:\d|,(?=\d))*(?:\.\d+)?`;

type Dimension = "time" | "length" | "mass" | "volume";

export interface Unit {
  dimension: Dimension;
  /** How many of the dimension's base unit (second, metre, gram, millilitre) one of it is. */
  factor: number;
}

const unit = (dimension: Dimension, factor: number, ...names: string[]): [string, Unit][] => names.map((name) => [name, { dimension, factor }]);

/** Units by the words and symbols people write for them (lower case). */
const UNITS: ReadonlyMap<string, Unit> = new Map([
  ...unit("time", 0.001, "ms", "millisecond", "milliseconds"),
  ...unit("time", 1, "s", "sec", "secs", "second", "seconds"),
  ...unit("time", 60, "min", "mins", "minute", "minutes"),
  ...unit("time", 3600, "h", "hr", "hrs", "hour", "hours"),
  ...unit("time", 86_400, "day", "days"),
  ...unit("time", 604_800, "week", "weeks", "wk", "wks"),
  ...unit("time", 1_209_600, "fortnight", "fortnights"),
  ...unit("length", 0.001, "mm", "millimetre", "millimetres", "millimeter", "millimeters"),
  ...unit("length", 0.01, "cm", "centimetre", "centimetres", "centimeter", "centimeters"),
  ...unit("length", 1, "m", "metre", "metres", "meter", "meters"),
  ...unit("length", 1000, "km", "kilometre", "kilometres", "kilometer", "kilometers"),
  ...unit("mass", 0.001, "mg", "milligram", "milligrams"),
  ...unit("mass", 1, "g", "gram", "grams", "gramme", "grammes"),
  ...unit("mass", 1000, "kg", "kilo", "kilos", "kilogram", "kilograms"),
  ...unit("mass", 1_000_000, "tonne", "tonnes"),
  ...unit("volume", 1, "ml", "millilitre", "millilitres", "milliliter", "milliliters"),
  ...unit("volume", 10, "cl", "centilitre", "centilitres"),
  ...unit("volume", 100, "dl", "decilitre", "decilitres"),
  ...unit("volume", 1000, "l", "litre", "litres", "liter", "liters"),
]);

/** The unit a word or symbol names ("km", "litres"), if any. */
export function unitNamed(word: string): Unit | undefined {
  return UNITS.get(word.toLowerCase());
}

/** Units a request writes as a word, which "a" or "an" may count one of ("an hour"); symbols need a figure. */
const UNIT_WORDS_FOR_ONE = /^[a-z]{4,}$/;

const COUNTS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  fifteen: 15, twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, ninety: 90, hundred: 100,
};

/** A quantity before a unit: a figure ("1,500", "2.5"), a count in words, "a"/"an", each with "and a half" after it or after the unit ("an hour and a half"), or "half a"/"half an". */
const MENTION = new RegExp(
  String.raw`(?<![\w.,])(?:(half)\s+an?|(${WRITTEN_FIGURE}|${Object.keys(COUNTS).join("|")}|an?)(\s+and\s+a\s+half)?)\s*-?\s*([a-z]+)\b(\s+and\s+a\s+half\b)?`,
  "gi",
);

export interface UnitMention {
  value: number;
  unit: Unit;
}

/** The quantities `text` gives with a unit: "8 hours", "1 litre", "3800 g", "two and a half days", "an hour", "half a litre". */
export function unitMentions(text: string): UnitMention[] {
  const mentions: UnitMention[] = [];
  for (const match of text.matchAll(MENTION)) {
    const [, half, figure, andAHalf, word, unitAndAHalf] = match;
    const unitWord = word!.toLowerCase();
    const found = UNITS.get(unitWord);
    if (found === undefined) continue;
    let value: number;
    if (half !== undefined) value = 0.5;
    else if (/^\d/.test(figure!)) value = Number(figure!.replace(/,/g, ""));
    else if (/^an?$/i.test(figure!)) {
      if (!UNIT_WORDS_FOR_ONE.test(unitWord)) continue;
      value = 1;
    } else value = COUNTS[figure!.toLowerCase()]!;
    if (andAHalf !== undefined || unitAndAHalf !== undefined) value += 0.5;
    if (Number.isFinite(value)) mentions.push({ value, unit: found });
  }
  return mentions;
}

/** Singular words a name uses for a place on the clock or calendar (`start_hour`, `day`), not a duration. */
const CLOCK_WORDS = new Set(["second", "minute", "hour", "day", "week"]);

/** The words of a parameter's name, in lower case: `durationMinutes` and `duration_minutes` are "duration", "minutes". */
export function parameterNameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "");
}

/** The unit a number parameter counts in: the last unit its name ends in (`weight_kg`, `durationMinutes`), or one its description gives ("in minutes", "(kg)"); none for a rate. */
export function parameterUnit(name: string, description: string | undefined): Unit | undefined {
  const words = parameterNameWords(name);
  const described = (description ?? "").toLowerCase();
  if (words.includes("per") || /\bper\b|\/\s*[a-z]/.test(described)) return undefined;
  const last = words.at(-1);
  if (last !== undefined && UNITS.has(last) && !CLOCK_WORDS.has(last)) return UNITS.get(last);
  const phrase = /\bin\s+([a-z]+)\b|\(([a-z]+)\)/.exec(described);
  const word = phrase?.[1] ?? phrase?.[2];
  return word !== undefined && word.length > 1 ? UNITS.get(word) : undefined;
}

/** A conversion as a call writes it: 0.001 × 3800 is 3.8, not 3.8000000000000003. */
function tidy(value: number): number {
  return Number(value.toPrecision(12));
}

/**
 * The value a number meant in the parameter's unit, when the user wrote that
 * figure with another unit of the same kind and never with the parameter's
 * own; undefined when nothing converts or the mentions disagree.
 */
export function convertedValue(value: number, wanted: Unit, mentions: readonly UnitMention[]): number | undefined {
  const alike = mentions.filter((mention) => mention.unit.dimension === wanted.dimension && mention.value === value);
  if (alike.length === 0 || alike.some((mention) => mention.unit.factor === wanted.factor)) return undefined;
  const converted = new Set(alike.map((mention) => tidy((value * mention.unit.factor) / wanted.factor)));
  return converted.size === 1 ? [...converted][0] : undefined;
}

/** Percentages the user writes: "8.25%", "5 percent", "3 per cent". */
const PERCENT = /(?<![\w.])(\d+(?:\.\d+)?)\s*(?:%|percent\b|per\s+cent\b)/gi;

export function percentMentions(text: string): number[] {
  return [...text.matchAll(PERCENT)].map(([, figure]) => Number(figure));
}

/** A description that wants a rate as a fraction of one: "as a decimal", "e.g. 0.07 for 7%", "between 0 and 1". */
const AS_DECIMAL = /\bdecimal\b|\bfraction\b|\bbetween 0 and 1\b|\b0(?:\.0)?\s*(?:-|–|to)\s*1(?:\.0)?\b|\be\.g\.,?\s*0\.\d/i;
/** A parameter that wants a rate in percent: named so (`waste_percent`, `tax_pct`), or described "in percent", "as a percentage". */
const AS_PERCENT_NAME = /(?:^|_|[a-z])(?:percent|percentage|pct)$/i;
const AS_PERCENT_DESCRIPTION = /\bin percent\b|\bas a (?:whole[- ]number )?percent(?:age)?\b|\bpercentage points?\b/i;

/** The form a number parameter wants a percentage in, when its name or description says. */
export function percentForm(name: string, description: string | undefined): "decimal" | "percent" | undefined {
  const described = description ?? "";
  if (AS_DECIMAL.test(described)) return "decimal";
  if (AS_PERCENT_NAME.test(name) || AS_PERCENT_DESCRIPTION.test(described)) return "percent";
  return undefined;
}

/**
 * A percentage the user wrote in the form the parameter wants: 8.25 for
 * "8.25%" is 0.0825 where the parameter wants a decimal, and 0.15 for "15%"
 * is 15 where it wants percent. Undefined when the value is no such copy.
 */
export function percentValue(value: number, form: "decimal" | "percent", percents: readonly number[]): number | undefined {
  if (form === "decimal") return percents.includes(value) ? tidy(value / 100) : undefined;
  return percents.some((percent) => tidy(percent / 100) === value) && !percents.includes(value) ? tidy(value * 100) : undefined;
}

/**
 * The call with each top-level number parameter whose value the user wrote
 * in another unit converted into the parameter's unit (see the module
 * comment), and a percentage written in the form the parameter's name or
 * description asks for (a decimal, or percent), when the result still fits
 * `fits`; the call itself otherwise.
 */
export function withUnitsConverted(call: ToolCall, parameters: JsonSchema, userText: string, fits: (args: Record<string, unknown>) => boolean): ToolCall {
  const mentions = unitMentions(userText);
  const percents = percentMentions(userText);
  if (mentions.length === 0 && percents.length === 0) return call;
  const properties = (parameters.properties ?? {}) as Record<string, { description?: unknown }>;
  let converted = false;
  const args = Object.fromEntries(
    Object.entries(call.arguments).map(([name, value]) => {
      if (typeof value !== "number") return [name, value];
      const description = properties[name]?.description;
      const described = typeof description === "string" ? description : undefined;
      const wanted = parameterUnit(name, described);
      const form = percentForm(name, described);
      const meant = wanted !== undefined ? convertedValue(value, wanted, mentions) : form !== undefined ? percentValue(value, form, percents) : undefined;
      if (meant === undefined) return [name, value];
      converted = true;
      return [name, meant];
    }),
  );
  return converted && fits(args) ? { ...call, arguments: args } : call;
}
