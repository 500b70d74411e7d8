import type { ToolCall } from "./types.js";

/**
 * How deep and how large a tool call's arguments may be. A model (or content
 * it was tricked by) can write arguments nested thousands deep; every later
 * step that walks them (the permission gate, provenance, the audit log)
 * would overflow the stack. Real tool parameters are a few levels deep.
 */
export const MAX_ARGUMENT_DEPTH = 32;
/** Characters of strings and keys, plus one per value: about the JSON's size. */
export const MAX_ARGUMENT_SIZE = 256 * 1024;

/**
 * What is wrong with the shape of these arguments, in words for the model,
 * or undefined when they are within bounds. Walks without recursion, so a
 * value of any depth is measured safely, and stops at the first excess.
 */
export function argumentBoundsProblem(value: unknown, limits: { maxDepth?: number; maxSize?: number } = {}): string | undefined {
  if (typeof value === "object" && value !== null) {
    const replaced = replacedArguments.get(value);
    if (replaced !== undefined) return replaced;
  }
  const maxDepth = limits.maxDepth ?? MAX_ARGUMENT_DEPTH;
  const maxSize = limits.maxSize ?? MAX_ARGUMENT_SIZE;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  let size = 0;
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    size += 1;
    if (typeof current === "string") size += current.length;
    else if (current !== null && typeof current === "object") {
      if (depth >= maxDepth) {
        return `The arguments are nested more than ${maxDepth} levels deep. Call the tool again with flat arguments that match its parameters.`;
      }
      const entries = Array.isArray(current) ? current.map((item) => ["", item] as const) : Object.entries(current);
      for (const [key, item] of entries) {
        size += key.length;
        pending.push({ value: item, depth: depth + 1 });
      }
    }
    if (size > maxSize) {
      return `The arguments are larger than ${maxSize} characters. Call the tool again with shorter arguments (write long content in parts).`;
    }
  }
  return undefined;
}

// The empty arguments that stand in for ones out of bounds, with what was wrong with those.
const replacedArguments = new WeakMap<object, string>();

/**
 * The call as it may be kept: arguments out of bounds are replaced, as soon
 * as the model's reply is read, by empty ones that remember why (so nothing
 * later walks, saves or renders the deep value, and `argumentBoundsProblem`
 * still names the problem for the failed call).
 */
export function boundCallArguments(call: ToolCall): ToolCall {
  const problem = argumentBoundsProblem(call.arguments);
  if (problem === undefined) return call;
  const stand: Record<string, unknown> = {};
  replacedArguments.set(stand, problem);
  return { ...call, arguments: stand };
}
