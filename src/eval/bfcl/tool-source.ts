import { z } from "zod";
import type { JsonSchema } from "../../model/types.js";
import { defineTool, type Tool } from "../../tools/tool.js";
import type { BfclModelCall } from "./ast-checker.js";
import type { MultiTurnChecker } from "./multi-turn.js";
import { type BfclFunctionDoc, toJsonSchema, type ToolNameMap } from "./schema.js";

/**
 * BFCL's function documents as botpsy tools, so the benchmark runs the
 * shipped agent: single-turn documents become tools that record the call
 * (BFCL checks the call, it never runs it); the multi-turn documents become
 * tools that run against the case's stateful API instances.
 */

/** What a single-turn tool answers: BFCL defines no result, and the agent must read something. */
export const RECORDED_CALL_RESULT = "Done.";

/** Keys of the JSON Schema passed on to the model as they are (everything else that zod does not model is dropped). */
const KEPT_KEYWORDS = ["description", "default", "format", "minimum", "maximum", "minItems", "maxItems", "pattern", "examples"] as const;

/**
 * The zod input of a BFCL function: the same contract the old JSON schema
 * offered, with two deliberate choices. A documented `default` is shown to
 * the model (as metadata) but never filled in by parsing, because the AST
 * check must see only what the model wrote. The top-level object is strict,
 * as the call grammar is: an unknown argument is an invalid call.
 */
export function bfclInputSchema(doc: BfclFunctionDoc): z.ZodObject {
  const schema = toJsonSchema({ ...doc.parameters, type: "dict" });
  return objectSchema(schema, true);
}

function metadataOf(schema: JsonSchema): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  for (const key of KEPT_KEYWORDS) if (schema[key] !== undefined) metadata[key] = schema[key];
  return metadata;
}

function withMetadata<Schema extends z.ZodType>(zodSchema: Schema, schema: JsonSchema): Schema {
  const metadata = metadataOf(schema);
  return Object.keys(metadata).length > 0 ? zodSchema.meta(metadata) : zodSchema;
}

function objectSchema(schema: JsonSchema, strict: boolean): z.ZodObject {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const shape: Record<string, z.ZodType> = {};
  for (const [name, child] of Object.entries(properties)) {
    const value = valueSchema(child);
    shape[name] = required.has(name) ? value : value.optional();
  }
  // A dict without declared keys (or one that says so) takes any further keys.
  const open = !strict && (Object.keys(properties).length === 0 || schema.additionalProperties === true);
  const object = strict ? z.strictObject(shape) : open ? z.looseObject(shape) : z.object(shape);
  return withMetadata(object, schema);
}

function valueSchema(schema: JsonSchema): z.ZodType {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const literals = schema.enum.filter((value): value is string | number | boolean | null => value === null || ["string", "number", "boolean"].includes(typeof value));
    if (literals.every((value) => typeof value === "string") && schema.type === "string") {
      return withMetadata(z.enum(literals as [string, ...string[]]), schema);
    }
    if (literals.length === schema.enum.length) {
      const options = literals.map((value) => z.literal(value));
      return withMetadata(options.length === 1 ? options[0]! : z.union(options as [z.ZodLiteral, z.ZodLiteral, ...z.ZodLiteral[]]), schema);
    }
  }
  switch (schema.type) {
    case "integer":
      return withMetadata(z.int(), schema);
    case "number":
      return withMetadata(z.number(), schema);
    case "boolean":
      return withMetadata(z.boolean(), schema);
    case "array":
      return withMetadata(z.array(schema.items !== undefined && typeof schema.items === "object" ? valueSchema(schema.items as JsonSchema) : z.unknown()), schema);
    case "object":
      return objectSchema(schema, false);
    default:
      return withMetadata(z.string(), schema);
  }
}

/** The language note the leaderboard appends to a single-turn function's description. */
function languageNote(language: "python" | "javascript" | "java" | undefined): string {
  if (language === "javascript") return " Note that the provided function is in JavaScript syntax.";
  if (language === "java") return " Note that the provided function is in Java 8 SDK syntax.";
  if (language === "python") return " Note that the provided function is in Python 3 syntax.";
  return "";
}

function description(doc: BfclFunctionDoc, language?: "python" | "javascript" | "java"): string {
  const text = `${doc.description}${languageNote(language)}`.trim();
  // A tool needs a description; a few BFCL documents have none.
  return text === "" ? `The function ${doc.name}.` : text;
}

/** Calls the agent executed, in order, under their BFCL names, with the arguments as validated. */
export class CallRecorder {
  readonly calls: BfclModelCall[] = [];

  record(name: string, args: Record<string, unknown>): void {
    this.calls.push({ name, arguments: args });
  }
}

/**
 * Tools for a single-turn case: each records the call (with the arguments
 * after validation) and answers `RECORDED_CALL_RESULT`.
 */
export function singleTurnTools(
  docs: readonly BfclFunctionDoc[],
  names: ToolNameMap,
  recorder: CallRecorder,
  options: { language?: "python" | "javascript" | "java" } = {},
): Tool[] {
  return docs.map((doc) =>
    defineTool({
      name: names.toolName(doc.name),
      description: description(doc, options.language),
      input: bfclInputSchema(doc),
      risk: "read",
      app: "bfcl",
      run: (args: Record<string, unknown>) => {
        recorder.record(doc.name, args);
        return RECORDED_CALL_RESULT;
      },
    }) as Tool,
  );
}

/**
 * Tools for a multi-turn case: each runs the call on the model's side of the
 * checker (the case's API instances) and answers the executor's result text,
 * errors included (`Error during execution: …`), as the leaderboard does.
 */
export function statefulApiTools(docs: readonly BfclFunctionDoc[], names: ToolNameMap, checker: MultiTurnChecker, recorder: CallRecorder): Tool[] {
  return docs.map((doc) =>
    defineTool({
      name: names.toolName(doc.name),
      description: description(doc),
      input: bfclInputSchema(doc),
      risk: "write",
      app: "bfcl",
      run: (args: Record<string, unknown>) => {
        recorder.record(doc.name, args);
        return checker.executeModelCall(doc.name, args);
      },
    }) as Tool,
  );
}
