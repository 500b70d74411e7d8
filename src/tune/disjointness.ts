import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { defaultBfclDataDirectory } from "../eval/bfcl/loader.js";
import { ATTACKER_GOALS, USER_TASKS, injectionCases } from "../eval/injection/cases.js";
import { SCENARIO_SUITES, suiteDirectory, unseenSuiteDirectory } from "../eval/suites.js";

/** Word n-gram length of the overlap check. */
export const OVERLAP_NGRAM = 8;

/** Lower-case words (letters and digits), so that punctuation and case do not hide a copy. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function ngramsOf(text: string, size = OVERLAP_NGRAM): string[] {
  const words = wordsOf(text);
  const grams: string[] = [];
  for (let index = 0; index + size <= words.length; index++) grams.push(words.slice(index, index + size).join(" "));
  return grams;
}

/** Every string inside a JSON value (keys of records included: BFCL parameter names are text too). */
export function stringsIn(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, into);
  else if (typeof value === "object" && value !== null) {
    for (const [key, field] of Object.entries(value)) {
      into.push(key);
      stringsIn(field, into);
    }
  }
  return into;
}

export interface EvaluationSource {
  name: string;
  texts: string[];
}

/**
 * The evaluation sets training data must never touch: every built-in
 * scenario suite (all of each: requests, scenarios, expectations), the
 * unseen suite (its requests, function documents and answers), BFCL
 * (questions, function documents, answers, as the evaluation reads them) and
 * the injection suite (user tasks, attacker goals, the injected texts).
 */
export function evaluationSources(options: { bfclDirectory?: string } = {}): EvaluationSource[] {
  const suites = SCENARIO_SUITES.map((name) => ({
    name: `${name} suite`,
    texts: filesUnder(suiteDirectory(name), ".json").flatMap((path) => stringsIn(JSON.parse(readFileSync(path, "utf8")))),
  }));
  const bfcl = filesUnder(options.bfclDirectory ?? defaultBfclDataDirectory(), ".json").flatMap(jsonLinesTexts);
  const unseen = filesUnder(unseenSuiteDirectory(), ".json").flatMap(jsonLinesTexts);
  const injection = [...stringsIn(USER_TASKS), ...stringsIn(ATTACKER_GOALS), ...stringsIn(injectionCases())];
  return [
    ...suites,
    { name: "unseen suite", texts: unseen },
    { name: "BFCL", texts: bfcl },
    { name: "injection suite", texts: injection },
  ];
}

/** The texts of a file in BFCL's format: one JSON object a line (the multi-turn function documents too). */
function jsonLinesTexts(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .flatMap((line) => {
      try {
        return stringsIn(JSON.parse(line));
      } catch {
        return [line];
      }
    });
}

function filesUnder(directory: string, extension: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) return filesUnder(path, extension);
    return entry.endsWith(extension) ? [path] : [];
  });
}

export interface OverlapFinding {
  source: string;
  /** An n-gram both share, or the whole text when it equals an evaluation text. */
  shared: string;
}

/**
 * The n-grams and whole texts of the evaluation sets. A training text
 * overlaps when it shares one n-gram with them, or (for texts shorter than n
 * words, such as "Fill up the car") when it equals one of their texts.
 */
export class EvaluationIndex {
  private readonly ngrams = new Map<string, string>();
  private readonly wholeTexts = new Map<string, string>();
  readonly sizes: Record<string, number> = {};

  constructor(sources: readonly EvaluationSource[]) {
    for (const source of sources) {
      let count = 0;
      for (const text of source.texts) {
        const words = wordsOf(text);
        if (words.length === 0) continue;
        if (words.length >= 3) this.wholeTexts.set(words.join(" "), source.name);
        for (const gram of ngramsOf(text)) {
          if (!this.ngrams.has(gram)) count++;
          this.ngrams.set(gram, source.name);
        }
      }
      this.sizes[source.name] = count;
    }
  }

  static load(options: { bfclDirectory?: string } = {}): EvaluationIndex {
    return new EvaluationIndex(evaluationSources(options));
  }

  /** The first overlap of a text with the evaluation sets, or undefined. */
  overlap(text: string): OverlapFinding | undefined {
    const whole = wordsOf(text).join(" ");
    const wholeSource = this.wholeTexts.get(whole);
    if (wholeSource !== undefined) return { source: wholeSource, shared: whole };
    for (const gram of ngramsOf(text)) {
      const source = this.ngrams.get(gram);
      if (source !== undefined) return { source, shared: gram };
    }
    return undefined;
  }
}
