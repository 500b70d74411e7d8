import { BotpsyError, InvalidInputError } from "../errors.js";
import type { ChatMessage, JsonSchema, ToolCall, ToolSpec } from "./types.js";
import { callableParameters, documentedParameters } from "./json-schema.js";

/**
 * Qwen 3.5's chat format (BotPsy's, since it is a Qwen3.5-0.8B fine-tune),
 * written by botpsy itself rather than by a generic chat wrapper, so that the
 * prompt, the calls the model is asked to write and the history it reads back
 * are exactly what the template shipped in the GGUF renders: calls as one
 * `<parameter=NAME>` block per argument holding the bare value, tool results
 * as `<tool_response>` blocks inside one user turn, a `<think>` block on every
 * assistant turn after the last user query (empty when thinking is off).
 *
 * Proved byte for byte against the template rendered by a Jinja engine in
 * test/model/dialect-rendering.test.ts.
 */

/** One piece of a rendered prompt. Control markers are tokenized as special tokens; everything else as text. */
export interface PromptPart {
  text: string;
  kind: "control" | "text" | "assistant-turn";
}

export interface RenderOptions {
  tools?: readonly ToolSpec[];
  /** Open an assistant turn at the end (as the template's `add_generation_prompt`). */
  addGenerationPrompt: boolean;
  /** The template's `enable_thinking`: the open turn starts `<think>\n` instead of an empty think block. */
  thinking: boolean;
  /**
   * Thoughts of assistant turns this process generated, by the turn's visible
   * body (content and calls): a caller that keeps only content and calls in its
   * history still gets the turn re-rendered exactly as it was generated.
   */
  recalledThoughts?: (body: string) => string | undefined;
}

export const TOOL_CALL_OPEN = "<tool_call>";
export const TOOL_CALL_CLOSE = "</tool_call>";
export const THINK_OPEN = "<think>";
export const THINK_CLOSE = "</think>";
/** The think block of a turn without thoughts: what the template writes when thinking is off. */
export const EMPTY_THINK_BLOCK = "<think>\n\n</think>\n\n";

const TOOL_INSTRUCTIONS =
  "\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags\n- Required parameters MUST be specified\n- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after\n- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\n</IMPORTANT>";

/** The prompt for `messages`, as parts. */
export function renderQwen35(messages: readonly ChatMessage[], options: RenderOptions): PromptPart[] {
  if (messages.length === 0) throw new InvalidInputError("A request needs at least one message.");
  const parts: PromptPart[] = [];
  const control = (text: string): void => void parts.push({ text, kind: "control" });
  const text = (value: string): void => {
    if (value !== "") parts.push({ text: value, kind: "text" });
  };
  const first = messages[0]!;
  const tools = options.tools ?? [];
  if (tools.length > 0) {
    control("<|im_start|>system\n");
    text(`# Tools\n\nYou have access to the following functions:\n\n<tools>${tools.map((tool) => `\n${toJson(toolDocument(tool))}`).join("")}\n</tools>${TOOL_INSTRUCTIONS}`);
    if (first.role === "system") {
      const content = trimWhitespace(first.content);
      if (content !== "") text(`\n\n${content}`);
    }
    control("<|im_end|>\n");
  } else if (first.role === "system") {
    control("<|im_start|>system\n");
    text(trimWhitespace(first.content));
    control("<|im_end|>\n");
  }

  const lastQueryIndex = lastUserQueryIndex(messages);
  messages.forEach((message, index) => {
    switch (message.role) {
      case "system":
        if (index !== 0) throw new InvalidInputError(`Message ${index} is a system message; Qwen 3.5's format allows one only at the beginning.`);
        break;
      case "user":
        control("<|im_start|>user\n");
        text(trimWhitespace(message.content));
        control("<|im_end|>\n");
        break;
      case "assistant": {
        control("<|im_start|>assistant\n");
        const { body, thoughts } = assistantBody(message);
        const recalled = message.thoughts === undefined ? options.recalledThoughts?.(body) : undefined;
        const reasoning = trimWhitespace(thoughts ?? recalled ?? "");
        parts.push({ text: index > lastQueryIndex ? `${THINK_OPEN}\n${reasoning}\n${THINK_CLOSE}\n\n${body}` : body, kind: "assistant-turn" });
        control("<|im_end|>\n");
        break;
      }
      case "tool": {
        const previous = messages[index - 1];
        if (previous !== undefined && previous.role !== "tool") control("<|im_start|>user");
        text(`\n<tool_response>\n${trimWhitespace(message.content)}\n</tool_response>`);
        const next = messages[index + 1];
        if (next === undefined || next.role !== "tool") control("<|im_end|>\n");
        break;
      }
    }
  });
  if (options.addGenerationPrompt) {
    control("<|im_start|>assistant\n");
    text(options.thinking ? `${THINK_OPEN}\n` : EMPTY_THINK_BLOCK);
  }
  return parts;
}

export function joinParts(parts: readonly PromptPart[]): string {
  return parts.map((part) => part.text).join("");
}

/** The visible part of an assistant turn (content, then calls), and thoughts embedded in the content the way the template splits them. */
function assistantBody(message: Extract<ChatMessage, { role: "assistant" }>): { body: string; thoughts: string | undefined } {
  let content = trimWhitespace(message.content);
  let thoughts = message.thoughts;
  if (thoughts === undefined && content.includes(THINK_CLOSE)) {
    const before = content.split(THINK_CLOSE)[0]!.replace(/\n+$/, "");
    thoughts = before.split(THINK_OPEN).pop()!.replace(/^\n+/, "");
    content = content.split(THINK_CLOSE).pop()!.replace(/^\n+/, "");
  }
  return { body: content + renderCalls(message.toolCalls ?? [], content), thoughts };
}

/** Calls as the template writes them after `content`. */
export function renderCalls(calls: readonly Pick<ToolCall, "name" | "arguments">[], content: string): string {
  return calls
    .map((call, index) => {
      const opening = index > 0 ? "\n" : trimWhitespace(content) !== "" ? "\n\n" : "";
      const parameters = Object.entries(call.arguments)
        .map(([name, value]) => `<parameter=${name}>\n${renderArgumentValue(value)}\n</parameter>\n`)
        .join("");
      return `${opening}${TOOL_CALL_OPEN}\n<function=${call.name}>\n${parameters}</function>\n${TOOL_CALL_CLOSE}`;
    })
    .join("");
}

/** Objects and arrays as JSON, anything else as Jinja's `string` filter writes it (Python spelling: True, False, None). */
export function renderArgumentValue(value: unknown): string {
  if (value !== null && typeof value === "object") return toJson(value);
  return pythonString(value);
}

function pythonString(value: unknown): string {
  if (value === true) return "True";
  if (value === false) return "False";
  if (value === null || value === undefined) return "None";
  return String(value);
}

/** The tool as chat templates receive it (the OpenAI tools shape). */
function toolDocument(tool: ToolSpec): unknown {
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: documentedParameters(tool.parameters) } };
}

/** Jinja's `tojson` as chat templates use it: Python's `json.dumps` separators, keys in their order, non-ASCII kept. */
export function toJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(toJson).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => `${JSON.stringify(key)}: ${toJson(item)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Python's `str.strip()` without arguments (Jinja's `trim`). */
function trimWhitespace(value: string): string {
  return value.trim();
}

function lastUserQueryIndex(messages: readonly ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== "user") continue;
    const content = trimWhitespace(message.content);
    if (!(content.startsWith("<tool_response>") && content.endsWith("</tool_response>"))) return index;
  }
  throw new InvalidInputError("Qwen 3.5's format needs a user message that is not a tool response; add the user's request to the conversation.");
}

// ---------------------------------------------------------------------------
// Calls: the grammar that makes the model write them in the template's shape,
// and the parser that reads them back.

export interface CallGrammarOptions {
  /** Several `<tool_call>` blocks in one turn. */
  parallel: boolean;
  /** Longest string value for strings whose schema sets no maxLength; 0 for no bound. */
  maxStringLength: number;
}

/**
 * GBNF for what follows a `<tool_call>` token: the function name from the
 * offered tools, one `<parameter=NAME>` block per argument with names from the
 * schema (required ones always, optional ones in schema order), values typed by
 * the schema, and with `parallel` further `\n<tool_call>` blocks.
 */
export function callGrammar(tools: readonly ToolSpec[], options: CallGrammarOptions): string {
  if (tools.length === 0) throw new InvalidInputError("A call grammar needs at least one tool.");
  const rules: string[] = [];
  const functionRules = tools.map((tool, index) => {
    const name = `function${index}`;
    const parameters = parameterRules(callableParameters(tool.parameters), `${name}-parameter`, rules, options.maxStringLength);
    rules.push(`${name} ::= ${literal(`\n<function=${tool.name}>\n`)} ${parameters} ${literal("</function>\n")}`);
    return name;
  });
  const call = `call ::= (${functionRules.join(" | ")}) ${literal(TOOL_CALL_CLOSE)}`;
  const root = options.parallel ? `root ::= call (${literal(`\n${TOOL_CALL_OPEN}`)} call)*` : "root ::= call";
  return [root, call, ...rules, ...SHARED_RULES].join("\n");
}

function parameterRules(schema: JsonSchema, prefix: string, rules: string[], maxStringLength: number): string {
  const properties = isObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const entries = Object.entries(properties);
  if (entries.length === 0) return '""';
  return entries
    .map(([name, property], index) => {
      const rule = `${prefix}${index}`;
      const value = valueRule(property, `${rule}-value`, rules, maxStringLength);
      rules.push(`${rule} ::= ${literal(`<parameter=${name}>\n`)} ${value} ${literal("\n</parameter>\n")}`);
      return required.has(name) ? rule : `${rule}?`;
    })
    .join(" ");
}

function valueRule(schema: JsonSchema, name: string, rules: string[], maxStringLength: number): string {
  const enumValues = Array.isArray(schema.enum) ? schema.enum : "const" in schema ? [schema.const] : undefined;
  if (enumValues !== undefined) {
    rules.push(`${name} ::= ${enumValues.map((value) => literal(renderArgumentValue(value))).join(" | ")}`);
    return name;
  }
  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (alternatives !== undefined) {
    const options = (alternatives as JsonSchema[]).map((alternative, index) => valueRule(alternative, `${name}-${index}`, rules, maxStringLength));
    rules.push(`${name} ::= ${options.join(" | ")}`);
    return name;
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === "string" ? [schema.type] : [];
  const ruleFor = (type: string): string => {
    switch (type) {
      case "string": {
        const limit = typeof schema.maxLength === "number" ? schema.maxLength : maxStringLength;
        // A value never holds "\n<" (the start of its own closing line) and never starts with "<".
        return limit > 0 ? `("" | string-first string-rest{0,${Math.max(0, limit - 1)}})` : `("" | string-first string-rest*)`;
      }
      case "integer":
        return "integer";
      case "number":
        return "number";
      case "boolean":
        return '("True" | "False")';
      case "null":
        return '"None"';
      case "array":
      case "object":
        return jsonRule({ ...schema, type }, `${name}-${type}`, rules, 0);
      default:
        return "json-value";
    }
  };
  if (types.length === 0) rules.push(`${name} ::= ("" | string-first string-rest{0,${Math.max(0, maxStringLength - 1)}})`);
  else rules.push(`${name} ::= ${types.map(ruleFor).join(" | ")}`);
  return name;
}

/** Nesting below which array and object values are typed by their schema; deeper ones are any JSON. */
const MAX_TYPED_JSON_DEPTH = 6;

/**
 * A rule for a JSON value of `schema`, written as the template's `tojson`
 * writes it (", " and ": " separators): arrays with typed items and their
 * item bounds, objects with their properties in schema order (required ones
 * present), enums as their values; anything the schema leaves open is any
 * JSON.
 */
function jsonRule(schema: JsonSchema, name: string, rules: string[], depth: number): string {
  if (depth > MAX_TYPED_JSON_DEPTH) return "json-value";
  const enumValues = Array.isArray(schema.enum) ? schema.enum : "const" in schema ? [schema.const] : undefined;
  if (enumValues !== undefined) {
    rules.push(`${name} ::= ${enumValues.map((value) => literal(JSON.stringify(value) ?? "null")).join(" | ")}`);
    return name;
  }
  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (alternatives !== undefined) {
    const options = (alternatives as JsonSchema[]).map((alternative, index) => jsonRule(alternative, `${name}-${index}`, rules, depth + 1));
    rules.push(`${name} ::= ${options.join(" | ")}`);
    return name;
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === "string" ? [schema.type] : [];
  if (types.length === 0) return "json-value";
  const ruleFor = (type: string): string => {
    switch (type) {
      case "string":
        return typeof schema.maxLength === "number" ? `"\\"" json-char{0,${Math.max(0, Math.floor(schema.maxLength))}} "\\""` : "json-string";
      case "integer":
        return "integer";
      case "number":
        return "number";
      case "boolean":
        return '("true" | "false")';
      case "null":
        return '"null"';
      case "array":
        return arrayRule(schema, `${name}-items`, rules, depth);
      case "object":
        return objectRule(schema, `${name}-fields`, rules, depth);
      default:
        return "json-value";
    }
  };
  rules.push(`${name} ::= ${types.map(ruleFor).join(" | ")}`);
  return name;
}

function arrayRule(schema: JsonSchema, name: string, rules: string[], depth: number): string {
  if (!isObject(schema.items)) return "json-array";
  const item = jsonRule(schema.items as JsonSchema, `${name}-item`, rules, depth + 1);
  const min = typeof schema.minItems === "number" ? Math.max(0, Math.floor(schema.minItems)) : 0;
  const max = typeof schema.maxItems === "number" ? Math.max(0, Math.floor(schema.maxItems)) : undefined;
  if (max === 0) return '"[]"';
  // The first item, then the rest as ", " item, counted against the bounds.
  const rest = `(${literal(", ")} ${item}){${Math.max(0, min - 1)},${max === undefined ? "" : max - 1}}`;
  const some = `${item} ${rest}`;
  rules.push(`${name} ::= "[" ${min > 0 ? some : `(${some})?`} "]"`);
  return name;
}

function objectRule(schema: JsonSchema, name: string, rules: string[], depth: number): string {
  if (!isObject(schema.properties) || Object.keys(schema.properties as object).length === 0) return "json-object";
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const entries = Object.entries(schema.properties as Record<string, JsonSchema>);
  const fields = entries.map(([key, property], index) => `${literal(`${JSON.stringify(key)}: `)} ${jsonRule(property, `${name}-${index}`, rules, depth + 1)}`);
  // first(i): properties i… with none written yet; after(i): the same once one was (so each starts with ", ").
  for (let index = entries.length - 1; index >= 0; index--) {
    const [key] = entries[index]!;
    const next = index + 1 < entries.length ? { first: `${name}-first${index + 1}`, after: `${name}-after${index + 1}` } : { first: '""', after: '""' };
    const field = fields[index]!;
    if (required.has(key)) {
      rules.push(`${name}-first${index} ::= ${field} ${next.after}`);
      rules.push(`${name}-after${index} ::= ${literal(", ")} ${field} ${next.after}`);
    } else {
      rules.push(`${name}-first${index} ::= ${field} ${next.after} | ${next.first}`);
      rules.push(`${name}-after${index} ::= ${literal(", ")} ${field} ${next.after} | ${next.after}`);
    }
  }
  rules.push(`${name} ::= "{" ${name}-first0 "}"`);
  return name;
}

const SHARED_RULES = [
  `string-first ::= [^<\\n]`,
  `string-rest ::= [^\\n] | "\\n" [^<\\n]`,
  `integer ::= "-"? ([0-9] | [1-9] [0-9]{1,15})`,
  `number ::= integer ("." [0-9]{1,10})?`,
  `json-value ::= json-object | json-array | json-string | number | "true" | "false" | "null"`,
  `json-object ::= "{" (json-string ": " json-value (", " json-string ": " json-value)*)? "}"`,
  `json-array ::= "[" (json-value (", " json-value)*)? "]"`,
  `json-string ::= "\\"" json-char* "\\""`,
  `json-char ::= [^"\\\\\\x00-\\x1f] | "\\\\" ["\\\\/bfnrt]`,
];

function literal(value: string): string {
  return JSON.stringify(value);
}

/** Generated call text that does not read back as a call to an offered tool (the grammar should prevent it). */
export class CallParseError extends BotpsyError {
  constructor(message: string) {
    super("call_parse_failed", message);
  }
}

/**
 * Reads the calls of a generated turn (the text after the content, starting
 * at the first `<tool_call>`) back to names and arguments, converting each
 * value by its parameter's schema.
 */
export function parseQwen35Calls(text: string, tools: readonly ToolSpec[]): Array<Pick<ToolCall, "name" | "arguments">> {
  const calls: Array<Pick<ToolCall, "name" | "arguments">> = [];
  const blockPattern = /<tool_call>\n<function=([^>\n]+)>\n([\s\S]*?)<\/function>\n<\/tool_call>/g;
  for (const match of text.matchAll(blockPattern)) {
    const name = match[1]!;
    const tool = tools.find((candidate) => candidate.name === name);
    if (tool === undefined) throw new CallParseError(`The model called "${name}", which is not among the offered tools.`);
    const properties = isObject(tool.parameters.properties) ? (tool.parameters.properties as Record<string, JsonSchema>) : {};
    const argumentsObject: Record<string, unknown> = {};
    const parameterPattern = /<parameter=([^>\n]+)>\n([\s\S]*?)\n<\/parameter>\n/g;
    for (const parameter of match[2]!.matchAll(parameterPattern)) {
      const parameterName = parameter[1]!;
      argumentsObject[parameterName] = convertValue(parameter[2]!, properties[parameterName] ?? {});
    }
    calls.push({ name, arguments: argumentsObject });
  }
  return calls;
}

/** The bare text of a parameter as the value its schema asks for. */
export function convertValue(raw: string, schema: JsonSchema): unknown {
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === "string" ? [schema.type] : [];
  const enumValues = Array.isArray(schema.enum) ? schema.enum : undefined;
  if (enumValues !== undefined) {
    const found = enumValues.find((value) => renderArgumentValue(value) === raw);
    if (found !== undefined) return found;
  }
  const wants = (type: string): boolean => types.includes(type);
  if ((wants("boolean") || types.length === 0) && (raw === "True" || raw === "False" || raw === "true" || raw === "false")) return raw === "True" || raw === "true";
  if ((wants("null") || types.length === 0) && raw === "None") return null;
  if ((wants("integer") || wants("number")) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) return Number(raw);
  if (wants("array") || wants("object") || (types.length === 0 && /^[[{]/.test(raw))) {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      if (!wants("string")) throw new CallParseError(`A parameter holds "${raw.slice(0, 60)}", which is not the JSON its schema asks for.`);
    }
  }
  return raw;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
