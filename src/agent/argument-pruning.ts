import { requiredNames } from "../model/json-schema.js";
import type { JsonSchema, ToolSpec } from "../model/types.js";
import { normaliseTerm, splitWords } from "../tools/toolbox.js";

export interface ArgumentPruningOptions {
  /**
   * Which model turns of a request get pruned tool specs. "first" prunes
   * only the first turn, where a small model picks the call and fills its
   * arguments from the request alone; "recovery" (the default) also prunes
   * each turn the agent holds to a call after a failed one (see
   * `recoveryChoice`), where the model, shown the failed tool again, fills
   * the optional parameters the first turn's grammar had kept out
   * ("repeat": "0" after a time it got wrong); "all" prunes every turn.
   * Later turns are pruned against the request and the tool results seen so
   * far, so a parameter an error names stays.
   */
  turns?: "first" | "recovery" | "all";
  /**
   * Where the pruned parameters are taken out. "call" (the default): only
   * from what the model may write this turn (the call grammar); the prompt
   * keeps every parameter, so it stays the same from turn to turn and the
   * evaluated context is reused on the next turn. "prompt": from the tool
   * list the prompt documents too (the first turn's prompt then differs from
   * the next one's). Chosen on the apps dev split: the same cases pass
   * either way and "call" reads 46% of prompt tokens from the cache against 26%.
   */
  scope?: "prompt" | "call";
}

/**
 * Words of a parameter's description that say nothing about what it is for:
 * they appear in the descriptions of parameters of every kind.
 */
const DESCRIPTION_FILLER = new Set([
  "example",
  "default",
  "e",
  "g",
  "only",
  "leave",
  "out",
  "when",
  "not",
  "none",
  "one",
  "new",
  "optionally",
  "optional",
  "give",
  "use",
  "true",
  "false",
  "this",
  "that",
  "there",
  "all",
  "but",
  "any",
  "its",
  "some",
  "more",
  "than",
]);

/**
 * The text's terms, as the ToolBox normalises them, of at least `minLength`
 * letters. A term of three letters or more also stands for the words it
 * starts ("mon" for "monday").
 */
export function termsOf(text: string, minLength = 2): Set<string> {
  const terms = new Set<string>();
  for (const word of splitWords(text)) {
    const term = normaliseTerm(word);
    if (term !== null && term.length >= minLength) terms.add(term);
  }
  return terms;
}

function relates(parameterTerm: string, requestTerms: ReadonlySet<string>): boolean {
  if (requestTerms.has(parameterTerm)) return true;
  if (parameterTerm.length < 3) return false;
  for (const requestTerm of requestTerms) {
    // "repeat" and "repeating", "mon" and "monday": one word starting the other.
    const shorter = requestTerm.length < parameterTerm.length ? requestTerm : parameterTerm;
    const longer = shorter === requestTerm ? parameterTerm : requestTerm;
    if (shorter.length >= 3 && longer.startsWith(shorter) && longer.length - shorter.length <= 4) return true;
  }
  return false;
}

/**
 * A copy of `spec` without the optional parameters the request has no word
 * for. A sub-billion model under a call grammar fills every parameter it is
 * shown, inventing values for the optional ones ("label": "7", "repeat":
 * "10"), and an invented value fails validation or does the wrong thing.
 * Removing a parameter from the spec removes it from the grammar too, so it
 * cannot be written at all. Required parameters always stay.
 *
 * A parameter relates to the request when a word of its name or description
 * (examples included) is a word of the request, leaving out the words of the
 * tool's own name: "A name for the alarm" must not keep `label` of
 * `set_alarm` for every request that says "alarm"; and the words naming its
 * other parameters: "The units the radius is in" must not keep `units` for
 * every request that gives a radius. (The tool's description is not left
 * out: it often lists its parameters' words, "turn it on or off".)
 */
export function pruneToolArguments(spec: ToolSpec, request: string | RequestShape): ToolSpec {
  const parameters = spec.parameters;
  const properties = parameters.properties;
  if (typeof properties !== "object" || properties === null) return spec;
  const required = requiredNames(parameters);
  const shape = typeof request === "string" ? requestShape(request) : request;
  const toolTerms = termsOf(spec.name);
  const names = Object.keys(properties as Record<string, unknown>);
  const kept: Record<string, unknown> = {};
  let removed = false;
  for (const [name, schema] of Object.entries(properties as Record<string, unknown>)) {
    if (required.has(name) || parameterRelates(name, schema, toolTerms, otherParameterTerms(name, names), shape)) kept[name] = schema;
    else removed = true;
  }
  if (!removed) return spec;
  const prunedParameters: JsonSchema = { ...parameters, properties: kept };
  return { ...spec, parameters: prunedParameters };
}

/** `pruneToolArguments` over a list, the request's terms read once. */
export function pruneToolSpecs(specs: readonly ToolSpec[], request: string): ToolSpec[] {
  const shape = requestShape(request);
  return specs.map((spec) => pruneToolArguments(spec, shape));
}

const TIME_WORDS =
  /\b(today|tonight|tomorrow|yesterday|morning|afternoon|evening|noon|midnight|weekend|week|month|year|next|last|am|pm|(mon|tue|wed|thu|fri|sat|sun)[a-z]*|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\b|\d{1,2}:\d{2}/i;
/** Last words of parameter names that take a moment: `date`, `start_time`, `due`. */
const TIME_PARAMETER_TERMS = new Set(["date", "day", "time", "when", "due", "start", "deadline", "departure"]);

/**
 * What kinds of value the request carries besides words: a number ("at 7",
 * "3 of them"), a moment ("Friday", "tomorrow", "5:30"). A parameter that
 * takes such a value stays even when no word of it is in the request —
 * "move my alarm to 8" must keep `time` of `change_alarm`.
 */
export interface RequestShape {
  terms: ReadonlySet<string>;
  hasNumber: boolean;
  hasMoment: boolean;
}

export function requestShape(request: string): RequestShape {
  return { terms: termsOf(request), hasNumber: /\d/.test(request), hasMoment: TIME_WORDS.test(request) };
}

/**
 * The words naming the tool's other parameters, less this one's own: a
 * description that names another parameter says how the two go together
 * ("The unit the radius is measured in"), not that a request for that other
 * value asks for this one too. They relate only the parameter they name.
 */
function otherParameterTerms(name: string, names: readonly string[]): Set<string> {
  const own = termsOf(name);
  const others = new Set<string>();
  for (const other of names) {
    if (other === name) continue;
    for (const term of termsOf(other)) if (!own.has(term)) others.add(term);
  }
  return others;
}

function parameterRelates(name: string, schema: unknown, toolTerms: ReadonlySet<string>, otherTerms: ReadonlySet<string>, shape: RequestShape): boolean {
  const parts = [name];
  if (typeof schema === "object" && schema !== null) {
    const description = (schema as { description?: unknown }).description;
    const type = (schema as { type?: unknown }).type;
    if (typeof description === "string") {
      parts.push(description);
      const example = /(?:example:|e\.g\.)(.*)$/is.exec(description)?.[1] ?? "";
      // Integer parameters are left to their words: "30 minutes" keeps duration_minutes, a bare 7 keeps no count.
      if (shape.hasNumber && type === "string" && /\d/.test(example)) return true;
      if (shape.hasMoment && TIME_WORDS.test(example)) return true;
    }
    const choices = (schema as { enum?: unknown }).enum;
    if (Array.isArray(choices)) parts.push(choices.filter((choice): choice is string => typeof choice === "string").join(" "));
  }
  const parameterTerms = termsOf(parts.join(" "));
  const lastWord = splitWords(name).at(-1)?.toLowerCase() ?? "";
  if (shape.hasMoment && TIME_PARAMETER_TERMS.has(lastWord)) return true;
  for (const term of parameterTerms) {
    if (toolTerms.has(term) || otherTerms.has(term) || DESCRIPTION_FILLER.has(term)) continue;
    if (relates(term, shape.terms)) return true;
  }
  return false;
}
