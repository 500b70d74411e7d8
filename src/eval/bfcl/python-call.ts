import { PythonCallSyntaxError } from "./errors.js";

/**
 * A Python literal as BFCL ground truth writes it: lists and tuples become
 * arrays, dicts become objects, None becomes null.
 */
export type PythonValue = null | boolean | number | string | PythonValue[] | { [key: string]: PythonValue };

export interface PythonCall {
  /** The called name, dots included (`math.factorial`). */
  name: string;
  positional: PythonValue[];
  keywords: Record<string, PythonValue>;
}

const IDENTIFIER_START = /[A-Za-z_]/;
const IDENTIFIER_PART = /[A-Za-z0-9_]/;
const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  n: "\n",
  t: "\t",
  r: "\r",
  b: "\b",
  f: "\f",
  v: "\v",
  a: "\x07",
  "0": "\0",
  "\n": "",
};

/**
 * Reads Python call expressions made of literals: `f(1, x=[2, 3.5], y={'a': None})`.
 * It is a reader for data, not an evaluator: names other than True, False and
 * None are rejected as values.
 */
class PythonCallReader {
  private position = 0;

  constructor(private readonly source: string) {}

  readCall(): PythonCall {
    this.skipSpace();
    const name = this.readDottedName();
    this.skipSpace();
    this.expect("(");
    const positional: PythonValue[] = [];
    const keywords: Record<string, PythonValue> = {};
    this.skipSpace();
    while (this.peek() !== ")") {
      const keyword = this.tryKeyword();
      if (keyword !== undefined) {
        if (Object.hasOwn(keywords, keyword)) this.fail(`keyword argument "${keyword}" repeated`);
        keywords[keyword] = this.readValue();
      } else {
        if (Object.keys(keywords).length > 0) this.fail("positional argument after keyword argument");
        positional.push(this.readValue());
      }
      this.skipSpace();
      if (this.peek() === ",") {
        this.position++;
        this.skipSpace();
      } else if (this.peek() !== ")") {
        this.fail('expected "," or ")"');
      }
    }
    this.position++;
    return { name, positional, keywords };
  }

  atEnd(): boolean {
    this.skipSpace();
    return this.position >= this.source.length;
  }

  expectSeparator(): void {
    this.skipSpace();
    if (this.peek() === "," || this.peek() === ";") this.position++;
  }

  fail(problem: string): never {
    throw new PythonCallSyntaxError(this.source, this.position, problem);
  }

  private tryKeyword(): string | undefined {
    const start = this.position;
    if (!IDENTIFIER_START.test(this.peek())) return undefined;
    const name = this.readIdentifier();
    this.skipSpace();
    if (this.peek() === "=" && this.source[this.position + 1] !== "=") {
      this.position++;
      this.skipSpace();
      return name;
    }
    this.position = start;
    return undefined;
  }

  private readValue(): PythonValue {
    this.skipSpace();
    const character = this.peek();
    if (character === "[") return this.readSequence("[", "]");
    if (character === "(") return this.readSequence("(", ")");
    if (character === "{") return this.readDict();
    if (character === "'" || character === '"') return this.readStringConcatenation();
    if (/[-+0-9.]/.test(character)) return this.readNumber();
    if (IDENTIFIER_START.test(character)) {
      const start = this.position;
      const word = this.readIdentifier();
      if (word === "True") return true;
      if (word === "False") return false;
      if (word === "None") return null;
      if ((word === "r" || word === "u" || word === "b") && (this.peek() === "'" || this.peek() === '"')) {
        this.position = start;
        return this.readStringConcatenation();
      }
      this.position = start;
      this.fail(`"${word}" is not a literal value`);
    }
    this.fail(character === "" ? "the text ends too early" : `unexpected "${character}"`);
  }

  private readSequence(open: string, close: string): PythonValue[] {
    this.expect(open);
    const items: PythonValue[] = [];
    this.skipSpace();
    while (this.peek() !== close) {
      items.push(this.readValue());
      this.skipSpace();
      if (this.peek() === ",") {
        this.position++;
        this.skipSpace();
      } else if (this.peek() !== close) {
        this.fail(`expected "," or "${close}"`);
      }
    }
    this.position++;
    return items;
  }

  private readDict(): { [key: string]: PythonValue } {
    this.expect("{");
    const entries: { [key: string]: PythonValue } = {};
    this.skipSpace();
    while (this.peek() !== "}") {
      const key = this.readValue();
      if (typeof key !== "string" && typeof key !== "number" && typeof key !== "boolean" && key !== null) {
        this.fail("dict keys must be strings, numbers, booleans or None");
      }
      this.skipSpace();
      this.expect(":");
      entries[String(key)] = this.readValue();
      this.skipSpace();
      if (this.peek() === ",") {
        this.position++;
        this.skipSpace();
      } else if (this.peek() !== "}") {
        this.fail('expected "," or "}"');
      }
    }
    this.position++;
    return entries;
  }

  /** Adjacent literals concatenate in Python: `'a' 'b'` is `'ab'`. */
  private readStringConcatenation(): string {
    let text = this.readString();
    for (;;) {
      const save = this.position;
      this.skipSpace();
      const next = this.peek();
      if (next === "'" || next === '"' || (/[rub]/.test(next) && /['"]/.test(this.source[this.position + 1] ?? ""))) {
        text += this.readString();
      } else {
        this.position = save;
        return text;
      }
    }
  }

  private readString(): string {
    let raw = false;
    while (/[rRuUbB]/.test(this.peek())) {
      if (this.peek() === "r" || this.peek() === "R") raw = true;
      this.position++;
    }
    const quote = this.peek();
    if (quote !== "'" && quote !== '"') this.fail("expected a quote");
    const triple = this.source.startsWith(quote.repeat(3), this.position);
    const delimiter = triple ? quote.repeat(3) : quote;
    this.position += delimiter.length;
    let text = "";
    for (;;) {
      if (this.position >= this.source.length) this.fail("the string is not closed");
      if (this.source.startsWith(delimiter, this.position)) {
        this.position += delimiter.length;
        return text;
      }
      const character = this.source[this.position]!;
      if (!triple && character === "\n") this.fail("a line break inside a one-line string");
      if (character === "\\") {
        const next = this.source[this.position + 1] ?? "";
        if (raw) {
          text += character + next;
          this.position += 2;
          continue;
        }
        text += this.readEscape(next);
        continue;
      }
      text += character;
      this.position++;
    }
  }

  private readEscape(next: string): string {
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined && !(next === "0" && /[0-7]/.test(this.source[this.position + 2] ?? ""))) {
      this.position += 2;
      return simple;
    }
    const hexLength = next === "x" ? 2 : next === "u" ? 4 : next === "U" ? 8 : 0;
    if (hexLength > 0) {
      const digits = this.source.slice(this.position + 2, this.position + 2 + hexLength);
      if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(digits)) this.fail(`a bad \\${next} escape`);
      this.position += 2 + hexLength;
      return String.fromCodePoint(Number.parseInt(digits, 16));
    }
    const octal = /^[0-7]{1,3}/.exec(this.source.slice(this.position + 1));
    if (octal) {
      this.position += 1 + octal[0].length;
      return String.fromCodePoint(Number.parseInt(octal[0], 8));
    }
    // Python keeps the backslash of an unknown escape.
    this.position += 2;
    return "\\" + next;
  }

  private readNumber(): number {
    const match = /^[-+]?\s*(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d+)?)/.exec(
      this.source.slice(this.position),
    );
    if (!match) this.fail("a malformed number");
    this.position += match[0].length;
    const text = match[0].replace(/[\s_]/g, "");
    const negative = text.startsWith("-");
    const unsigned = text.replace(/^[-+]/, "");
    let value: number;
    if (/^0[xX]/.test(unsigned)) value = Number.parseInt(unsigned.slice(2), 16);
    else if (/^0[oO]/.test(unsigned)) value = Number.parseInt(unsigned.slice(2), 8);
    else if (/^0[bB]/.test(unsigned)) value = Number.parseInt(unsigned.slice(2), 2);
    else value = Number(unsigned);
    if (Number.isNaN(value)) this.fail("a malformed number");
    return negative ? -value : value;
  }

  private readDottedName(): string {
    if (!IDENTIFIER_START.test(this.peek())) this.fail("expected a function name");
    let name = this.readIdentifier();
    while (this.peek() === "." && IDENTIFIER_START.test(this.source[this.position + 1] ?? "")) {
      this.position++;
      name += "." + this.readIdentifier();
    }
    return name;
  }

  private readIdentifier(): string {
    const start = this.position;
    while (IDENTIFIER_PART.test(this.peek())) this.position++;
    return this.source.slice(start, this.position);
  }

  private expect(text: string): void {
    if (!this.source.startsWith(text, this.position)) this.fail(`expected "${text}"`);
    this.position += text.length;
  }

  private skipSpace(): void {
    while (/\s/.test(this.peek())) this.position++;
  }

  private peek(): string {
    return this.source[this.position] ?? "";
  }
}

/** Parses one call such as `fillFuelTank(fuelAmount=40)`. Throws PythonCallSyntaxError. */
export function parsePythonCall(source: string): PythonCall {
  const reader = new PythonCallReader(source);
  const call = reader.readCall();
  if (!reader.atEnd()) reader.fail("text after the call");
  return call;
}

/**
 * Parses one or more calls, as a model writing Python might: `[f(a=1), g(b=2)]`
 * or `f(a=1); g(b=2)`.
 */
export function parsePythonCalls(source: string): PythonCall[] {
  let text = source.trim();
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
  const reader = new PythonCallReader(text);
  const calls: PythonCall[] = [];
  while (!reader.atEnd()) {
    calls.push(reader.readCall());
    reader.expectSeparator();
  }
  return calls;
}

/** Writes a value back as Python source (for messages and for call strings of model calls). */
export function formatPythonValue(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : value > 0 ? "float('inf')" : "float('-inf')";
  if (typeof value === "string") return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n")}'`;
  if (Array.isArray(value)) return `[${value.map(formatPythonValue).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => `${formatPythonValue(key)}: ${formatPythonValue(item)}`)
      .join(", ")}}`;
  }
  return String(value);
}

export function formatPythonCall(name: string, args: Record<string, unknown>): string {
  return `${name}(${Object.entries(args)
    .map(([key, value]) => `${key}=${formatPythonValue(value)}`)
    .join(", ")})`;
}
