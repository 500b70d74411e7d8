/** A call's arguments with every leaf (a string, a number, a boolean, a null) at any depth replaced by what `leaf` makes of it; lists and objects keep their shape. */
export function mapLeaves(value: unknown, leaf: (value: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => mapLeaves(item, leaf));
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapLeaves(item, leaf)]));
  return leaf(value);
}
