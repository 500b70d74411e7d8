import {
  ChatMLChatWrapper,
  ChatWrapper,
  LlamaText,
  QwenChatWrapper,
  SpecialToken,
  SpecialTokensText,
  resolveChatWrapper,
  type ChatModelFunctions,
  type ChatWrapperGenerateContextStateOptions,
  type ChatWrapperGeneratedContextState,
  type ChatWrapperSettings,
  type LlamaModel,
} from "node-llama-cpp";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { JsonSchema } from "./types.js";

/**
 * How a conversation is written for a model:
 *   qwen3.5  Qwen 3.5 / BotPsy: `<tool_call><function=…>` calls, `<think>` segments
 *   qwen3    Qwen 3: `<tool_call>{"name":…}` calls, `<think>` segments
 *   prompted chat templates with no tool-call format of their own (SmolLM2's
 *            ChatML): the tool list goes into the system prompt and calls are
 *            written `<tool_call>{"name": …, "arguments": {…}}</tool_call>`
 *   native   any other template node-llama-cpp knows a tool format for
 */
export type ChatFormatName = "qwen3.5" | "qwen3" | "prompted" | "native";

export interface ThinkingMode {
  /** Whether the model may open a thought segment. */
  enabled: boolean;
}

export interface ChatFormat {
  readonly name: ChatFormatName;
  /**
   * Whether botpsy writes this format itself (prompt, calls, history) instead
   * of through a node-llama-cpp chat wrapper: Qwen 3.5's, whose calls hold one
   * `<parameter=NAME>` block per argument, which no wrapper writes.
   */
  readonly ownDialect: boolean;
  /** Whether the format has thought segments at all. */
  readonly supportsThinking: boolean;
  /**
   * A chat wrapper for one request. `forceCall` makes the response start in
   * function-calling mode (tool choice `required` or a named tool), so the
   * first output tokens are already under the call grammar. `documented`
   * lists the tools shown to the model, which may be more than the tools
   * allowed (a named choice keeps the prompt, and so the cache, unchanged).
   */
  createWrapper(request: { thinking: boolean; forceCall: boolean; documented: ChatModelFunctions | undefined }): ChatWrapper;
}

/** Template wrappers node-llama-cpp resolves that have no tool-call syntax a model was trained on. */
const GENERIC_WRAPPERS = new Set(["ChatML", "General", "Empty", "AlpacaChat", "FalconChat", "Llama2Chat", "Gemma", "Template", "JinjaTemplate"]);

/** How a format was chosen, for load-time reports. */
export type FormatSource = "named" | "cache" | "template";

/**
 * The format of a loaded model. A named format (the catalog's, or the user's)
 * skips node-llama-cpp's template resolution, which compares the template
 * against every wrapper it knows (seconds on a small machine); otherwise the
 * resolution is cached by the template's hash (`cache`).
 */
export function selectChatFormat(
  model: LlamaModel,
  forced?: ChatFormatName,
  cache?: FormatCache,
): ChatFormat & { source: FormatSource } {
  const template = typeof model.fileInfo.metadata.tokenizer?.chat_template === "string" ? model.fileInfo.metadata.tokenizer.chat_template : "";
  const key = createHash("sha256").update(`${String(model.fileInfo.metadata.general?.architecture)}\u0000${template}`).digest("hex");
  let source: FormatSource = "named";
  let name = forced;
  if (name === undefined) {
    const cached = cache?.get(key);
    if (cached !== undefined) {
      name = cached;
      source = "cache";
    } else {
      name = formatNameOf(resolveChatWrapper(model, { warningLogs: false }));
      source = "template";
      cache?.set(key, name);
    }
  }
  return { ...formatNamed(model, name), source };
}

/** Remembers which format a template resolved to, by the template's hash. */
export interface FormatCache {
  get(templateHash: string): ChatFormatName | undefined;
  set(templateHash: string, format: ChatFormatName): void;
}

/** A format cache kept in a small JSON file (beside the models), shared by every command. */
export function fileFormatCache(path: string): FormatCache {
  const read = (): Record<string, ChatFormatName> => {
    try {
      return JSON.parse(readFileSync(path, "utf8")) as Record<string, ChatFormatName>;
    } catch {
      return {};
    }
  };
  return {
    get: (templateHash) => {
      const value = read()[templateHash];
      return value !== undefined && FORMAT_NAMES.has(value) ? value : undefined;
    },
    set: (templateHash, format) => {
      try {
        mkdirSync(dirname(path), { recursive: true });
        const temporary = `${path}.${process.pid}.tmp`;
        writeFileSync(temporary, `${JSON.stringify({ ...read(), [templateHash]: format }, null, 2)}\n`);
        renameSync(temporary, path);
      } catch {
        // A cache that cannot be written only costs the resolution next time.
      }
    },
  };
}

const FORMAT_NAMES: ReadonlySet<string> = new Set<ChatFormatName>(["qwen3.5", "qwen3", "prompted", "native"]);

function formatNamed(model: LlamaModel, name: ChatFormatName): ChatFormat {
  switch (name) {
    case "qwen3.5":
    case "qwen3": {
      const variation = name === "qwen3.5" ? "3.5" : "3";
      return {
        name,
        ownDialect: name === "qwen3.5",
        supportsThinking: true,
        createWrapper: ({ thinking, forceCall, documented }) =>
          withToolChoice(
            new QwenToolResultsAsWritten({ variation, thoughts: thinking && !forceCall ? "auto" : "discourage" }),
            forceCall,
            documented,
          ),
      };
    }
    case "prompted":
      return {
        name,
        ownDialect: false,
        supportsThinking: false,
        createWrapper: ({ forceCall, documented }) =>
          withToolChoice(new PromptedToolCallChatWrapper({ keepBos: model.tokens.bosString !== CHATML_TURN_OPENER }), forceCall, documented),
      };
    case "native": {
      const resolved = resolveChatWrapper(model, { warningLogs: false });
      return {
        name,
        ownDialect: false,
        supportsThinking: resolved.settings.segments?.thought !== undefined,
        createWrapper: ({ forceCall, documented }) =>
          withToolChoice(resolveChatWrapper(model, { warningLogs: false }), forceCall, documented),
      };
    }
  }
}

function formatNameOf(wrapper: ChatWrapper): ChatFormatName {
  if (wrapper instanceof QwenChatWrapper) return wrapper.variation === "3.5" ? "qwen3.5" : "qwen3";
  if (wrapper instanceof ChatMLChatWrapper || GENERIC_WRAPPERS.has(wrapper.wrapperName)) return "prompted";
  return "native";
}

/**
 * Gives a wrapper instance the two request-level behaviours node-llama-cpp
 * exposes through the context state: which tools are documented, and whether
 * the response must open with a call (`noPrefixTrigger` of type functionCall
 * puts the call prefix into the context and starts the name grammar at once).
 */
function withToolChoice(wrapper: ChatWrapper, forceCall: boolean, documented: ChatModelFunctions | undefined): ChatWrapper {
  const original = wrapper.generateContextState.bind(wrapper);
  wrapper.generateContextState = (options: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState => {
    const state = original({ ...options, availableFunctions: documented ?? options.availableFunctions });
    if (!forceCall || state.functionCall !== undefined) return state;
    const { contextText, stopGenerationTriggers } = state;
    return {
      contextText,
      stopGenerationTriggers,
      noPrefixTrigger: { type: "functionCall", inject: LlamaText([]) },
    };
  };
  return wrapper;
}

/**
 * Qwen's wrapper, writing a tool result as the template does: the tool
 * message's content as it is (node-llama-cpp writes every result through
 * JSON, so a plain-text result would gain quotes and a JSON one lose its
 * spacing). The history gives results as their raw text for this format.
 */
export class QwenToolResultsAsWritten extends QwenChatWrapper {
  override generateFunctionCallResult(functionName: string, functionParams: unknown, result: unknown): LlamaText {
    const internal = (this as unknown as { _generateFunctionCallResult?: (name: string, params: unknown, raw: string) => LlamaText })._generateFunctionCallResult;
    if (typeof result !== "string" || internal === undefined) return super.generateFunctionCallResult(functionName, functionParams, result);
    return internal.call(this, functionName, functionParams, result);
  }
}

/**
 * ChatML with a tool-call format of our own, written to be easy for a very
 * small model: a short tool list (one line per tool, TypeScript-like
 * parameters) and one call shape. The grammar does the syntax work, so the
 * prompt only has to make the model want to start `<tool_call>`.
 */
export class PromptedToolCallChatWrapper extends ChatMLChatWrapper {
  override readonly wrapperName: string = "BotpsyPromptedChatML";
  /** Whether the prompt opens with the model's BOS token (see generateContextState). */
  readonly keepBos: boolean;

  constructor(options: { keepBos?: boolean } = {}) {
    super();
    this.keepBos = options.keepBos ?? false;
  }

  override readonly settings: ChatWrapperSettings = {
    ...ChatWrapper.defaultSettings,
    supportsSystemMessages: true,
    functions: {
      call: {
        optionalPrefixSpace: true,
        prefix: '<tool_call>{"name": "',
        paramsPrefix: '", "arguments": ',
        suffix: "}</tool_call>",
        emptyCallParamsPlaceholder: {},
      },
      result: {
        prefix: "<tool_response>",
        suffix: "</tool_response>",
      },
      parallelism: {
        call: {
          sectionPrefix: "",
          betweenCalls: "\n",
          sectionSuffix: LlamaText(new SpecialTokensText("<|im_end|>\n")),
        },
        result: {
          sectionPrefix: LlamaText(new SpecialTokensText("<|im_start|>user\n")),
          betweenResults: "\n",
          sectionSuffix: LlamaText(new SpecialTokensText("<|im_end|>\n<|im_start|>assistant\n")),
        },
      },
    },
    segments: {},
  };

  /**
   * ChatML templates write no BOS of their own, and SmolLM2's BOS is
   * `<|im_start|>` itself: node-llama-cpp's ChatML wrapper would open every
   * prompt with it twice (`<|im_start|><|im_start|>system`), which the
   * template never renders. A model whose BOS is another token (a base model
   * such as Gemma, whose `<bos>` it was trained to see first, and which has no
   * ChatML tokens, so the turns are plain text) keeps it: `keepBos`.
   */
  override generateContextState(options: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState {
    const state = super.generateContextState(options);
    if (this.keepBos) return state;
    const [first, ...rest] = state.contextText.values;
    if (!(first instanceof SpecialToken && first.value === "BOS")) return state;
    return { ...state, contextText: LlamaText(rest) };
  }

  override generateAvailableFunctionsSystemText(availableFunctions: ChatModelFunctions): LlamaText {
    const names = Object.keys(availableFunctions);
    if (names.length === 0) return LlamaText([]);
    const lines = names.map((name) => {
      const definition = availableFunctions[name];
      const parameters = definition?.params === undefined ? "" : describeParameters(definition.params as JsonSchema);
      const description = definition?.description?.trim() ?? "";
      return `- ${name}(${parameters})${description === "" ? "" : `: ${description}`}`;
    });
    return LlamaText.joinValues("\n", [
      "You can call these tools:",
      ...lines,
      "",
      "To call a tool, reply with only:",
      '<tool_call>{"name": "tool_name", "arguments": {"parameter": "value"}}</tool_call>',
      "If no tool fits, answer in plain text.",
    ]);
  }
}

/** The token that opens a ChatML turn; some ChatML models (SmolLM2) use it as their BOS too. */
const CHATML_TURN_OPENER = "<|im_start|>";

/** `city: string, unit?: "c" | "f"`: short enough for a small model to read, exact enough to fill. */
export function describeParameters(schema: JsonSchema): string {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return "";
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties as Record<string, JsonSchema>)
    .map(([name, property]) => `${name}${required.has(name) ? "" : "?"}: ${describeType(property)}`)
    .join(", ");
}

function describeType(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.oneOf)) return (schema.oneOf as JsonSchema[]).map(describeType).join(" | ");
  const type = schema.type;
  if (Array.isArray(type)) return type.join(" | ");
  if (type === "array") {
    const items = schema.items;
    return typeof items === "object" && items !== null ? `${wrapUnion(describeType(items as JsonSchema))}[]` : "array";
  }
  if (type === "object") {
    const inner = describeParameters(schema);
    return inner === "" ? "object" : `{${inner}}`;
  }
  if (type === "string" && typeof schema.format === "string") return `string (${schema.format})`;
  return typeof type === "string" ? type : "any";
}

function wrapUnion(text: string): string {
  return text.includes(" | ") ? `(${text})` : text;
}
