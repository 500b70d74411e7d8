import type { ScriptedReply } from "../testing/scripted-model.js";
import type { ObservedResult } from "./recipes.js";

/** The building blocks of a recipe's turns, shared by every recipe file. */

export function call(name: string, args: Record<string, unknown>): ScriptedReply {
  return { toolCalls: [{ name, arguments: args }] };
}

export function answer(text: string): ScriptedReply {
  return { text };
}

export function lastResult(observed: readonly ObservedResult[]): ObservedResult | undefined {
  return observed[observed.length - 1];
}

/** The answer after a single call: the recipe's sentence for a good result, else the tool's own error. */
export function resultAnswer(observed: readonly ObservedResult[], describe: (value: unknown) => string | undefined): ScriptedReply {
  const last = lastResult(observed);
  const text = last?.ok === true ? describe(last.value) : undefined;
  return answer(text ?? `That did not work: ${last?.error?.message ?? "the tool gave an error"}`);
}

export function capitalise(text: string): string {
  return text.length === 0 ? text : `${text[0]!.toUpperCase()}${text.slice(1)}`;
}

/** A short sentence from a real result: the fields a person would want first. */
export function summariseResult(value: unknown): string {
  if (value === null || value === undefined) return "it is done";
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return "there is nothing there";
    const names = value.slice(0, 3).map(labelOf).filter((label) => label !== "");
    return `there are ${value.length}${names.length > 0 ? `: ${names.join(", ")}${value.length > 3 ? " and more" : ""}` : ""}`;
  }
  const record = value as Record<string, unknown>;
  if (typeof record.message === "string") return record.message;
  const listed = Object.entries(record).find(([, field]) => Array.isArray(field));
  if (listed !== undefined && Object.keys(record).length <= 3) return summariseResult(listed[1]);
  const scalars = Object.entries(record)
    .filter(([key, field]) => (typeof field === "string" || typeof field === "number" || typeof field === "boolean") && !key.endsWith("id"))
    .slice(0, 4)
    .map(([key, field]) => `${key.replaceAll("_", " ")} ${String(field)}`);
  return scalars.length > 0 ? scalars.join(", ") : "it is done";
}

function labelOf(item: unknown): string {
  if (typeof item === "string") return item;
  if (typeof item !== "object" || item === null) return String(item);
  const record = item as Record<string, unknown>;
  for (const key of ["title", "name", "label", "subject", "item", "headline"]) {
    if (typeof record[key] === "string") return record[key];
  }
  return "";
}

export function finalAnswer(observed: readonly ObservedResult[], done: string): ScriptedReply {
  const last = lastResult(observed);
  if (last === undefined) return answer(done);
  if (!last.ok) return answer(`That did not work: ${last.error?.message ?? "the app gave an error"}`);
  return answer(`${done} ${capitalise(summariseResult(last.value))}.`.replace(/\.\.$/, "."));
}
