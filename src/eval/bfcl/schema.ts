import type { JsonSchema, ToolSpec } from "../../model/types.js";

/** A function document as BFCL writes it (its own JSON-schema dialect). */
export interface BfclFunctionDoc {
  name: string;
  description: string;
  parameters: BfclSchema;
  /** Multi-turn documents also describe the result; it is not shown to the model. */
  response?: BfclSchema;
}

export interface BfclSchema {
  type?: string;
  description?: string;
  properties?: Record<string, BfclSchema>;
  required?: string[];
  items?: BfclSchema;
  enum?: unknown[];
  default?: unknown;
  [key: string]: unknown;
}

/**
 * BFCL type names (Python, JavaScript and Java flavours) and the JSON Schema
 * type each is offered as. `any` goes out as a string because the leaderboard
 * treats it so, both when it offers the tool and when it checks the answer.
 */
const JSON_SCHEMA_TYPES: Record<string, string> = {
  integer: "integer",
  number: "number",
  float: "number",
  double: "number",
  string: "string",
  String: "string",
  char: "string",
  boolean: "boolean",
  Boolean: "boolean",
  bool: "boolean",
  array: "array",
  Array: "array",
  ArrayList: "array",
  list: "array",
  tuple: "array",
  Queue: "array",
  Stack: "array",
  dict: "object",
  object: "object",
  HashMap: "object",
  Hashtable: "object",
  any: "string",
  Any: "string",
  byte: "integer",
  short: "integer",
  long: "integer",
  Bigint: "integer",
};

/** Keys of the BFCL dialect that are not JSON Schema, or that would mislead a grammar. */
const DROPPED_KEYS = new Set(["optional"]);

export function jsonSchemaType(bfclType: string | undefined): string {
  if (bfclType === undefined || bfclType === "") return "string";
  return JSON_SCHEMA_TYPES[bfclType] ?? "string";
}

/** Converts one BFCL schema node (and everything under it) to standard JSON Schema. */
export function toJsonSchema(schema: BfclSchema): JsonSchema {
  const converted: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYS.has(key)) continue;
    if (key === "type") {
      converted.type = jsonSchemaType(typeof value === "string" ? value : undefined);
    } else if (key === "properties" && isRecord(value)) {
      converted.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, toJsonSchema(isRecord(child) ? child : {})]),
      );
    } else if (key === "items" && isRecord(value)) {
      converted.items = toJsonSchema(value);
    } else {
      converted[key] = value;
    }
  }
  if (converted.type === undefined) converted.type = schema.properties ? "object" : "string";
  if (converted.type === "object" && converted.properties === undefined && schema.items === undefined) {
    // A dict without declared keys takes any keys.
    converted.additionalProperties = true;
  }
  return converted;
}

const TOOL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;

/**
 * Two-way map between BFCL function names (`math.factorial`) and names a
 * tool may carry (`math_factorial`). Collisions get a numeric suffix so the
 * map stays one to one.
 */
export class ToolNameMap {
  private readonly toToolName = new Map<string, string>();
  private readonly toFunctionName = new Map<string, string>();

  constructor(functionNames: Iterable<string> = []) {
    for (const name of functionNames) this.add(name);
  }

  add(functionName: string): string {
    const existing = this.toToolName.get(functionName);
    if (existing !== undefined) return existing;
    let base = functionName.replace(/[^a-zA-Z0-9_]/g, "_");
    if (!/^[a-zA-Z_]/.test(base)) base = `f_${base}`;
    base = base.slice(0, 64);
    let candidate = base;
    for (let suffix = 2; this.toFunctionName.has(candidate) || !TOOL_NAME.test(candidate); suffix++) {
      candidate = `${base.slice(0, 60)}_${suffix}`;
    }
    this.toToolName.set(functionName, candidate);
    this.toFunctionName.set(candidate, functionName);
    return candidate;
  }

  toolName(functionName: string): string {
    return this.toToolName.get(functionName) ?? this.add(functionName);
  }

  /** The BFCL name behind a tool name; a name never mapped comes back unchanged. */
  functionName(toolName: string): string {
    return this.toFunctionName.get(toolName) ?? toolName;
  }
}

/** The ToolSpec a model is offered for a BFCL function document. */
export function toToolSpec(doc: BfclFunctionDoc, names: ToolNameMap, options: { language?: "python" | "javascript" | "java" } = {}): ToolSpec {
  const parameters = toJsonSchema({ ...doc.parameters, type: "dict" });
  if (parameters.properties === undefined) parameters.properties = {};
  if (parameters.required === undefined) parameters.required = [];
  delete parameters.additionalProperties;
  const note =
    options.language === "javascript"
      ? " Note that the provided function is in JavaScript syntax."
      : options.language === "java"
        ? " Note that the provided function is in Java 8 SDK syntax."
        : options.language === "python"
          ? " Note that the provided function is in Python 3 syntax."
          : "";
  return { name: names.toolName(doc.name), description: doc.description + note, parameters };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
