/**
 * A choice as the request writes it. Where a parameter offers a fixed set of
 * choices (an enum) and the request names one of them in its own words
 * ("a tutor for GCSE maths" for `level` of primary, gcse, a_level…), that
 * is the choice, whatever the model picked: a small model filling a choice
 * under a call grammar often takes the first member or the most common one
 * ("primary", "all", "personal") rather than reading the request.
 *
 * The repair, for each top-level parameter whose schema lists string
 * choices: when the call's choice is not written in the request and exactly
 * one other choice is (as a whole word or phrase, an underscore or hyphen
 * read as a space, a plural "s" allowed: "GCSEs" names `gcse`), the call gets
 * that choice. Words that say nothing about which one is meant ("any",
 * "all", "none", "other", "default", "both", "auto") and choices of fewer
 * than three letters never count as named. Anything else (no choice named,
 * two named: a request comparing them, the call's own choice named) leaves
 * the call as it is, and so does a result the tool's schema refuses.
 */
import type { JsonSchema, ToolCall } from "../model/types.js";
import { escapeRegExp } from "../policy/provenance.js";

/** Choices that read as ordinary words in almost any request. */
const EMPTY_CHOICES = new Set(["any", "all", "none", "other", "default", "both", "auto", "yes", "no", "true", "false", "null"]);

/** Whether `text` (lower case) names `choice` as a whole word or phrase, separators read as spaces, a plural allowed. */
export function namesChoice(text: string, choice: string): boolean {
  const words = choice
    .toLowerCase()
    .split(/[\s_-]+/)
    .filter((word) => word !== "");
  if (words.length === 0) return false;
  const pattern = new RegExp(String.raw`(?<![\p{L}\p{N}])${words.map(escapeRegExp).join(String.raw`[\s_-]+`)}(?:e?s)?(?![\p{L}\p{N}])`, "u");
  return pattern.test(text);
}

/** The call with each choice the request does not write replaced by the one other choice it does (see the module comment); the call itself otherwise. */
export function withChoicesAsWritten(call: ToolCall, parameters: JsonSchema, userText: string, fits: (args: Record<string, unknown>) => boolean): ToolCall {
  const properties = (parameters.properties ?? {}) as Record<string, { enum?: unknown }>;
  const text = userText.toLowerCase();
  const args: Record<string, unknown> = { ...call.arguments };
  let changed = false;
  for (const [name, value] of Object.entries(call.arguments)) {
    const choices = properties[name]?.enum;
    if (typeof value !== "string" || !Array.isArray(choices) || !choices.includes(value)) continue;
    if (namesChoice(text, value)) continue;
    const named = choices.filter(
      (choice): choice is string =>
        typeof choice === "string" && choice !== value && choice.length >= 3 && !EMPTY_CHOICES.has(choice.toLowerCase()) && namesChoice(text, choice),
    );
    if (named.length !== 1) continue;
    args[name] = named[0];
    changed = true;
  }
  return changed && fits(args) ? { ...call, arguments: args } : call;
}
