/**
 * The common shape of BFCL's stateful APIs: named methods with Python-style
 * argument binding, a starting state loaded from `initial_config`, and the
 * public attributes the state check compares.
 */

/**
 * Raised inside a method where the Python reference raises: the executor
 * turns it into the result text `Error during execution: <message>`, as the
 * leaderboard does.
 */
export class ApiExecutionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ApiExecutionError";
  }
}

/** The arguments of one call, bound by name, with typed readers. */
export class MethodArguments {
  constructor(
    private readonly method: string,
    private readonly values: Record<string, unknown>,
  ) {}

  has(name: string): boolean {
    return this.values[name] !== undefined;
  }

  raw(name: string): unknown {
    return this.values[name];
  }

  string(name: string): string {
    const value = this.values[name];
    if (typeof value !== "string") throw this.typeError(name, "a string", value);
    return value;
  }

  optionalString(name: string): string | undefined {
    const value = this.values[name];
    return value === undefined || value === null ? undefined : this.string(name);
  }

  number(name: string): number {
    const value = this.values[name];
    if (typeof value === "boolean") return value ? 1 : 0;
    if (typeof value !== "number" || Number.isNaN(value)) throw this.typeError(name, "a number", value);
    return value;
  }

  optionalNumber(name: string): number | undefined {
    const value = this.values[name];
    return value === undefined || value === null ? undefined : this.number(name);
  }

  boolean(name: string): boolean {
    const value = this.values[name];
    if (typeof value === "boolean") return value;
    // Python tests truth: 0, "" and empty lists are false.
    if (typeof value === "number") return value !== 0;
    if (typeof value === "string") return value !== "";
    if (Array.isArray(value)) return value.length > 0;
    return value !== null && value !== undefined;
  }

  list(name: string): unknown[] {
    const value = this.values[name];
    if (!Array.isArray(value)) throw this.typeError(name, "a list", value);
    return value;
  }

  stringList(name: string): string[] {
    return this.list(name).map((item, index) => {
      if (typeof item !== "string") throw this.typeError(`${name}[${index}]`, "a string", item);
      return item;
    });
  }

  numberList(name: string): number[] {
    return this.list(name).map((item, index) => {
      if (typeof item !== "number") throw this.typeError(`${name}[${index}]`, "a number", item);
      return item;
    });
  }

  record(name: string): Record<string, unknown> {
    const value = this.values[name];
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw this.typeError(name, "a dict", value);
    return value as Record<string, unknown>;
  }

  private typeError(name: string, expected: string, value: unknown): ApiExecutionError {
    return new ApiExecutionError(`${this.method}() argument '${name}' must be ${expected}, not ${pythonTypeName(value)}`);
  }
}

export interface MethodDefinition {
  /** Parameter names in signature order; a trailing `?` marks one with a default. */
  parameters: readonly string[];
  run(args: MethodArguments): unknown;
}

export abstract class StatefulApi {
  /** The class name BFCL uses (`GorillaFileSystem`, `TwitterAPI`…). */
  abstract readonly className: string;
  protected abstract readonly methods: Record<string, MethodDefinition>;

  /** Sets the starting state from the case's `initial_config` entry for this class. */
  abstract load(config: Record<string, unknown>): void;

  /** The public attributes (a deep copy), as the state check compares them. */
  abstract state(): Record<string, unknown>;

  methodNames(): string[] {
    return Object.keys(this.methods);
  }

  hasMethod(name: string): boolean {
    return Object.hasOwn(this.methods, name);
  }

  /**
   * Binds the arguments as Python would (positional in signature order, then
   * keywords) and runs the method. Binding errors are ApiExecutionErrors with
   * Python's wording.
   */
  invoke(name: string, positional: readonly unknown[], keywords: Record<string, unknown>): unknown {
    const method = this.methods[name];
    if (method === undefined) throw new ApiExecutionError(`name '${name}' is not defined`);
    const qualified = `${this.className}.${name}`;
    const names = method.parameters.map((parameter) => parameter.replace(/\?$/, ""));
    if (positional.length > names.length) {
      throw new ApiExecutionError(`${qualified}() takes ${names.length + 1} positional arguments but ${positional.length + 1} were given`);
    }
    const bound: Record<string, unknown> = {};
    positional.forEach((value, index) => {
      bound[names[index]!] = value;
    });
    for (const [key, value] of Object.entries(keywords)) {
      if (!names.includes(key)) throw new ApiExecutionError(`${qualified}() got an unexpected keyword argument '${key}'`);
      if (Object.hasOwn(bound, key)) throw new ApiExecutionError(`${qualified}() got multiple values for argument '${key}'`);
      bound[key] = value;
    }
    const missing = method.parameters.filter((parameter) => !parameter.endsWith("?") && !Object.hasOwn(bound, parameter));
    if (missing.length > 0) {
      const quoted = missing.map((parameter) => `'${parameter}'`);
      const list = quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)!}`;
      throw new ApiExecutionError(`${qualified}() missing ${missing.length} required positional argument${missing.length === 1 ? "" : "s"}: ${list}`);
    }
    return method.run(new MethodArguments(qualified, bound));
  }
}

export function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (Array.isArray(value)) return "list";
  return "dict";
}

/** Characters Python's `str.splitlines()` breaks at (besides "\r\n"), file/group/record separators included. */
const LINE_BREAKS = new Set(["\n", "\r", "\v", "\f", "\u001c", "\u001d", "\u001e", "\u0085", "\u2028", "\u2029"]);

/** Python's `str.splitlines()`: no empty last line for a trailing break. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let current = "";
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (!LINE_BREAKS.has(character)) {
      current += character;
      continue;
    }
    if (character === "\r" && text[index + 1] === "\n") index++;
    lines.push(current);
    current = "";
  }
  if (current !== "") lines.push(current);
  return lines;
}

export function deepCopy<T>(value: T): T {
  return structuredClone(value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads one key of a scenario, falling back to a default (deep-copied so instances never share state). */
export function configValue<T>(config: Record<string, unknown>, key: string, fallback: T): T {
  return deepCopy(Object.hasOwn(config, key) ? (config[key] as T) : fallback);
}

/** Python's `round(x, n)`: halves go to the even neighbour. */
export function pythonRound(value: number, digits = 0): number {
  const factor = 10 ** digits;
  const scaled = value * factor;
  const floor = Math.floor(scaled);
  const difference = scaled - floor;
  let rounded: number;
  if (Math.abs(difference - 0.5) < 1e-9) rounded = floor % 2 === 0 ? floor : floor + 1;
  else rounded = Math.round(scaled);
  return rounded / factor;
}
