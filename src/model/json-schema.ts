import { InvalidToolSchemaError } from "./errors.js";
import type { JsonSchema, ToolSpec } from "./types.js";

/**
 * Normalises a tool's JSON schema to the subset a decoding grammar can
 * enforce (node-llama-cpp's GBNF JSON schema): types and type lists, enums,
 * consts, objects with required and optional properties, arrays (items,
 * prefixItems, min/max items), string length and date/time formats, and
 * anyOf/oneOf. References into `$defs` are inlined.
 *
 * Keywords that only annotate or only validate (title, default, examples,
 * pattern, minimum…) are dropped: the grammar cannot enforce them, and the
 * tool layer still validates arguments with the tool's own schema. The one
 * exception is an integer's bounds when they hold at most
 * `MAX_ENUMERATED_INTEGERS` values: they are kept (inclusive `minimum` and
 * `maximum`), and a call grammar writes the range as the list of its values
 * (`callableParameters`), so `days: 500000` for a 1–10 parameter cannot be
 * written. Prompts show the schema without them (`documentedParameters`), as
 * before. Keywords
 * that change what is valid in a way the grammar cannot follow (not, if/then,
 * patternProperties, allOf of several parts, recursion) raise
 * `InvalidToolSchemaError` naming the tool and the field.
 */
export function normalizeToolSchema(toolName: string, schema: JsonSchema): JsonSchema {
  const definitions = collectDefinitions(schema);
  const normalizer = new SchemaNormalizer(toolName, definitions);
  const normalized = normalizer.normalize(schema, "", []);
  if (normalized.type !== "object") {
    throw new InvalidToolSchemaError(toolName, "", "tool parameters must be an object schema");
  }
  return normalized;
}

/** Normalises every tool's parameters, checking names are unique and usable in a grammar. */
export function normalizeToolSpecs(tools: readonly ToolSpec[]): ToolSpec[] {
  const seen = new Set<string>();
  return tools.map((tool) => {
    if (!TOOL_NAME.test(tool.name)) {
      throw new InvalidToolSchemaError(
        tool.name,
        "name",
        "a tool name must be letters, digits, underscores, dots or dashes, starting with a letter or underscore",
      );
    }
    if (seen.has(tool.name)) throw new InvalidToolSchemaError(tool.name, "name", "two tools share this name");
    seen.add(tool.name);
    return { name: tool.name, description: tool.description, parameters: normalizeToolSchema(tool.name, tool.parameters) };
  });
}

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

const SIMPLE_TYPES = ["string", "number", "integer", "boolean", "null"] as const;
type SimpleType = (typeof SIMPLE_TYPES)[number];

/** Annotations and validation-only keywords: safe to drop (arguments are validated again by the tool). */
const DROPPED_KEYWORDS = new Set([
  "$schema",
  "$id",
  "$comment",
  "$defs",
  "definitions",
  "title",
  "default",
  "examples",
  "example",
  "deprecated",
  "readOnly",
  "writeOnly",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "uniqueItems",
  "contentEncoding",
  "contentMediaType",
  "propertyNames",
]);

const UNSUPPORTED_KEYWORDS = new Set([
  "not",
  "if",
  "then",
  "else",
  "patternProperties",
  "dependentSchemas",
  "dependentRequired",
  "dependencies",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contains",
  "minContains",
  "maxContains",
  "$dynamicRef",
]);

const GRAMMAR_FORMATS = new Set(["date", "time", "date-time"]);

function collectDefinitions(schema: JsonSchema): Map<string, unknown> {
  const definitions = new Map<string, unknown>();
  for (const key of ["$defs", "definitions"] as const) {
    const group = schema[key];
    if (isRecord(group)) {
      for (const [name, value] of Object.entries(group)) definitions.set(`#/${key}/${name}`, value);
    }
  }
  return definitions;
}

class SchemaNormalizer {
  constructor(
    private readonly toolName: string,
    private readonly definitions: Map<string, unknown>,
  ) {}

  private fail(field: string, reason: string): never {
    throw new InvalidToolSchemaError(this.toolName, field, reason);
  }

  normalize(input: unknown, field: string, referenceStack: string[]): JsonSchema {
    if (input === true) return anyValueSchema();
    if (input === false) this.fail(field, "the schema `false` accepts no value at all");
    if (!isRecord(input)) this.fail(field, `expected a schema object, got ${JSON.stringify(input)}`);
    const schema = input;

    for (const key of Object.keys(schema)) {
      if (UNSUPPORTED_KEYWORDS.has(key)) this.fail(join(field, key), `the keyword "${key}" cannot be enforced while decoding`);
    }
    const description = typeof schema.description === "string" ? schema.description : undefined;
    const withDescription = (result: JsonSchema): JsonSchema =>
      description !== undefined && result.description === undefined ? { ...result, description } : result;

    if (typeof schema.$ref === "string") {
      const reference = schema.$ref;
      if (referenceStack.includes(reference)) this.fail(field, `the reference ${reference} is recursive`);
      const target = this.definitions.get(reference);
      if (target === undefined) this.fail(join(field, "$ref"), `the reference ${reference} points to no definition in $defs`);
      return withDescription(this.normalize(target, field, [...referenceStack, reference]));
    }

    if (Array.isArray(schema.allOf)) {
      if (schema.allOf.length !== 1) this.fail(join(field, "allOf"), "allOf with several parts cannot be enforced while decoding");
      return withDescription(this.normalize(schema.allOf[0], join(field, "allOf.0"), referenceStack));
    }

    const alternatives = schema.anyOf ?? schema.oneOf;
    if (alternatives !== undefined) {
      const keyword = schema.anyOf !== undefined ? "anyOf" : "oneOf";
      if (!Array.isArray(alternatives) || alternatives.length === 0) this.fail(join(field, keyword), `${keyword} must be a non-empty list`);
      const normalized = alternatives.map((alternative, index) =>
        this.normalize(alternative, join(field, `${keyword}.${index}`), referenceStack),
      );
      if (normalized.length === 1) return withDescription(normalized[0]!);
      return withDescription({ oneOf: normalized });
    }

    if ("const" in schema) {
      if (!isScalar(schema.const)) this.fail(join(field, "const"), "const must be a string, number, boolean or null");
      return withDescription({ const: schema.const });
    }

    if (schema.enum !== undefined) {
      if (!Array.isArray(schema.enum) || schema.enum.length === 0) this.fail(join(field, "enum"), "enum must be a non-empty list");
      if (!schema.enum.every(isScalar)) this.fail(join(field, "enum"), "enum values must be strings, numbers, booleans or null");
      return withDescription({ enum: [...schema.enum] });
    }

    const type = schema.type ?? inferType(schema);
    if (type === undefined) return withDescription(anyValueSchema());

    if (Array.isArray(type)) {
      if (type.length === 0) this.fail(join(field, "type"), "type must not be an empty list");
      for (const entry of type) {
        if (typeof entry !== "string") this.fail(join(field, "type"), "type entries must be strings");
      }
      const names = type as string[];
      if (names.every((name) => (SIMPLE_TYPES as readonly string[]).includes(name))) {
        if (names.length === 1) return this.normalize({ ...schema, type: names[0] }, field, referenceStack);
        return withDescription({ type: names as SimpleType[] });
      }
      return withDescription({
        oneOf: names.map((name) => this.normalize({ ...schema, type: name }, join(field, "type"), referenceStack)),
      });
    }

    switch (type) {
      case "string":
        return withDescription(this.normalizeString(schema, field));
      case "integer":
        return withDescription(boundedInteger(schema));
      case "number":
      case "boolean":
      case "null":
        return withDescription({ type });
      case "object":
        return withDescription(this.normalizeObject(schema, field, referenceStack));
      case "array":
        return withDescription(this.normalizeArray(schema, field, referenceStack));
      default:
        return this.fail(join(field, "type"), `unknown type ${JSON.stringify(type)}`);
    }
  }

  private normalizeString(schema: JsonSchema, field: string): JsonSchema {
    if (typeof schema.format === "string" && GRAMMAR_FORMATS.has(schema.format)) {
      return { type: "string", format: schema.format };
    }
    const result: JsonSchema = { type: "string" };
    if (schema.minLength !== undefined) result.minLength = this.count(schema.minLength, join(field, "minLength"));
    if (schema.maxLength !== undefined) result.maxLength = this.count(schema.maxLength, join(field, "maxLength"));
    return result;
  }

  private normalizeObject(schema: JsonSchema, field: string, referenceStack: string[]): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    if (schema.properties !== undefined) {
      if (!isRecord(schema.properties)) this.fail(join(field, "properties"), "properties must be an object");
      for (const [name, value] of Object.entries(schema.properties)) {
        properties[name] = this.normalize(value, join(field, `properties.${name}`), referenceStack);
      }
    }
    let required: string[] = [];
    if (schema.required !== undefined) {
      if (!Array.isArray(schema.required) || !schema.required.every((name) => typeof name === "string")) {
        this.fail(join(field, "required"), "required must be a list of property names");
      }
      for (const name of schema.required as string[]) {
        if (!(name in properties)) this.fail(join(field, "required"), `"${name}" is required but not among the properties`);
      }
      required = schema.required as string[];
    }
    const result: JsonSchema = { type: "object", properties };
    if (required.length > 0) result.required = required;

    // With declared properties, extra keys are only noise a small model might invent:
    // they are allowed only when the schema asks for them explicitly.
    const additional = schema.additionalProperties;
    if (isRecord(additional)) {
      result.additionalProperties = this.normalize(additional, join(field, "additionalProperties"), referenceStack);
    } else if (additional === true || (additional === undefined && Object.keys(properties).length === 0 && schema.properties === undefined)) {
      result.additionalProperties = true;
    } else {
      result.additionalProperties = false;
    }
    if (schema.minProperties !== undefined) result.minProperties = this.count(schema.minProperties, join(field, "minProperties"));
    if (schema.maxProperties !== undefined) result.maxProperties = this.count(schema.maxProperties, join(field, "maxProperties"));
    return result;
  }

  private normalizeArray(schema: JsonSchema, field: string, referenceStack: string[]): JsonSchema {
    const result: JsonSchema = { type: "array" };
    if (Array.isArray(schema.prefixItems)) {
      result.prefixItems = schema.prefixItems.map((item, index) =>
        this.normalize(item, join(field, `prefixItems.${index}`), referenceStack),
      );
    }
    if (schema.items !== undefined && schema.items !== true) {
      if (Array.isArray(schema.items)) {
        // Draft-7 tuple form.
        result.prefixItems = schema.items.map((item, index) => this.normalize(item, join(field, `items.${index}`), referenceStack));
      } else if (schema.items === false) {
        if (result.prefixItems === undefined) result.maxItems = 0;
        else result.maxItems = (result.prefixItems as unknown[]).length;
      } else {
        result.items = this.normalize(schema.items, join(field, "items"), referenceStack);
      }
    }
    if (schema.minItems !== undefined) result.minItems = this.count(schema.minItems, join(field, "minItems"));
    if (schema.maxItems !== undefined) result.maxItems = this.count(schema.maxItems, join(field, "maxItems"));
    if (typeof result.minItems === "number" && typeof result.maxItems === "number" && result.minItems > result.maxItems) {
      this.fail(join(field, "minItems"), "minItems is larger than maxItems");
    }
    return result;
  }

  private count(value: unknown, field: string): number {
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) this.fail(field, "must be a non-negative integer");
    return value;
  }
}

/**
 * Integer parameters whose bounds allow at most this many values are held to
 * them while decoding. Each value is one alternative of the grammar, which
 * llama.cpp checks against every token of the vocabulary at the number's first
 * token, so wider ranges stay unbounded (the tool still refuses a value out of
 * range, and the model reads why).
 */
export const MAX_ENUMERATED_INTEGERS = 128;

/** An integer schema with its inclusive bounds when both are set and close enough to enumerate. */
function boundedInteger(schema: JsonSchema): JsonSchema {
  const lowest = integerBound(schema.minimum, schema.exclusiveMinimum, "lower");
  const highest = integerBound(schema.maximum, schema.exclusiveMaximum, "upper");
  if (lowest === undefined || highest === undefined || lowest > highest || highest - lowest + 1 > MAX_ENUMERATED_INTEGERS) return { type: "integer" };
  return { type: "integer", minimum: lowest, maximum: highest };
}

function integerBound(inclusive: unknown, exclusive: unknown, side: "lower" | "upper"): number | undefined {
  const candidates: number[] = [];
  if (typeof inclusive === "number" && Number.isFinite(inclusive)) candidates.push(side === "lower" ? Math.ceil(inclusive) : Math.floor(inclusive));
  if (typeof exclusive === "number" && Number.isFinite(exclusive)) {
    candidates.push(side === "lower" ? Math.floor(exclusive) + 1 : Math.ceil(exclusive) - 1);
  }
  if (candidates.length === 0) return undefined;
  const bound = side === "lower" ? Math.max(...candidates) : Math.min(...candidates);
  return Number.isSafeInteger(bound) ? bound : undefined;
}

function isBoundedInteger(node: Record<string, unknown>): node is Record<string, unknown> & { minimum: number; maximum: number } {
  return node.type === "integer" && typeof node.minimum === "number" && typeof node.maximum === "number";
}

/** Rewrites every schema node of a normalised schema (enum and const values are left alone). */
export function mapSchemaNodes(schema: JsonSchema, rewrite: (node: Record<string, unknown>) => Record<string, unknown>): JsonSchema {
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (typeof value !== "object" || value === null) return value;
    const record = value as Record<string, unknown>;
    const result: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(record)) result[key] = key === "enum" || key === "const" ? child : visit(child);
    return rewrite(result);
  };
  return visit(schema) as JsonSchema;
}

/** A normalised schema as a prompt shows it: without the integer bounds only the grammar uses. */
export function documentedParameters(schema: JsonSchema): JsonSchema {
  return mapSchemaNodes(schema, (node) => {
    if (!isBoundedInteger(node)) return node;
    const { minimum: _minimum, maximum: _maximum, ...rest } = node;
    return rest;
  });
}

/**
 * A normalised schema as a call grammar enforces it: a bounded integer
 * becomes the list of its values (with its description), and with
 * `maxStringLength` every free string gets that maximum length.
 */
export function callableParameters(schema: JsonSchema, maxStringLength = 0): JsonSchema {
  const enumerated = mapSchemaNodes(schema, (node) => {
    if (!isBoundedInteger(node)) return node;
    const values = Array.from({ length: node.maximum - node.minimum + 1 }, (_, index) => node.minimum + index);
    return typeof node.description === "string" ? { enum: values, description: node.description } : { enum: values };
  });
  return maxStringLength > 0 ? limitFreeStrings(enumerated, maxStringLength) : enumerated;
}

/** The names an object schema lists as required (none when it lists none). */
export function requiredNames(schema: JsonSchema): Set<string> {
  return new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === "string") : []);
}

/** The most optional parameters a call grammar offers to leave out, one by one: each one doubles the grammar's alternatives. */
export const MAX_CHOSEN_OPTIONAL_PARAMETERS = 4;

/**
 * A call grammar's parameters where the model chooses which optional ones
 * to write. llama.cpp's JSON grammar (node-llama-cpp's) writes every property
 * an object schema lists, so left alone the model must fill each optional
 * parameter it is shown; here the object becomes one alternative per subset
 * of its optional parameters (required ones always, the schema's order
 * kept), and after each value the model's own lean between `,` and `}`
 * decides whether it goes on. Objects with more than
 * `MAX_CHOSEN_OPTIONAL_PARAMETERS` optional parameters, or none, are left as
 * they are; only the top level is changed.
 */
export function withChosenOptionalParameters(schema: JsonSchema): JsonSchema {
  const properties = schema.properties;
  if (!isRecord(properties)) return schema;
  const required = requiredNames(schema);
  const names = Object.keys(properties);
  const optional = names.filter((name) => !required.has(name));
  if (optional.length === 0 || optional.length > MAX_CHOSEN_OPTIONAL_PARAMETERS) return schema;
  const { properties: _properties, required: _required, ...rest } = schema;
  const alternatives: JsonSchema[] = [];
  for (let mask = 0; mask < 2 ** optional.length; mask++) {
    const chosen = new Set(optional.filter((_, index) => (mask & (1 << index)) !== 0));
    const kept = names.filter((name) => required.has(name) || chosen.has(name));
    alternatives.push({ ...rest, type: "object", properties: Object.fromEntries(kept.map((name) => [name, properties[name]])), required: kept });
  }
  return { oneOf: alternatives };
}

function anyValueSchema(): JsonSchema {
  return {
    oneOf: [
      { type: ["string", "number", "boolean", "null"] },
      { type: "object", additionalProperties: true },
      { type: "array" },
    ],
  };
}

function inferType(schema: JsonSchema): string | undefined {
  if (schema.properties !== undefined || schema.additionalProperties !== undefined || schema.required !== undefined) return "object";
  if (schema.items !== undefined || schema.prefixItems !== undefined) return "array";
  return undefined;
}

function join(field: string, part: string): string {
  return field === "" ? part : `${field}.${part}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/** Keys this module knows to drop; exported for tests and documentation. */
export const droppedSchemaKeywords: ReadonlySet<string> = DROPPED_KEYWORDS;

/**
 * Gives every free string (no maxLength, no format) of a normalised schema a
 * maximum length. Used for decoding grammars only: a very small model writing
 * a string argument can ramble until it runs out of tokens, and a bound makes
 * the grammar close the string and the call.
 */
export function limitFreeStrings(schema: JsonSchema, maxLength: number): JsonSchema {
  return mapSchemaNodes(schema, (node) => (node.type === "string" && node.maxLength === undefined && node.format === undefined ? { ...node, maxLength } : node));
}

/** What a model writes to close a call, in every format botpsy knows. */
const CALL_CLOSE = "</tool_call>";

/**
 * Arguments with the call's own closing taken out of their strings. A small
 * model sometimes closes the call while still inside a string value
 * (`"unit": "inch}}</tool_call>  # 4 inches…`): the grammar keeps the string
 * open, so the close and what follows it become part of the value. What the
 * model meant ends where it wrote the close, less the braces and quotes it put
 * before it. Other values are returned as they are.
 */
export function trimSwallowedCallClose(value: unknown): unknown {
  if (typeof value === "string") {
    const at = value.indexOf(CALL_CLOSE);
    return at < 0 ? value : value.slice(0, at).replace(/["}\]\s]+$/, "");
  }
  if (Array.isArray(value)) return value.map(trimSwallowedCallClose);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, trimSwallowedCallClose(inner)]));
  }
  return value;
}
