import { InvalidInputError } from "../src/errors.js";

/** The value after `name` in a benchmark's arguments, if the flag is there. */
export function option(argv: readonly string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  if (index < 0) return undefined;
  const value = argv[index + 1];
  if (value === undefined || value.startsWith("--")) throw new InvalidInputError(`${name} needs a value.`);
  return value;
}

/** A flag's whole number of at least 1, or the fallback when it is absent. */
export function positiveInteger(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidInputError(`${name} must be a whole number of at least 1, not "${value}".`);
  return parsed;
}

/** The median of a list (the mean of the middle two for an even count; 0 for none). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((first, second) => first - second);
  if (sorted.length === 0) return 0;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
