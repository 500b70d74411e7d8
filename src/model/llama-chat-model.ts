import { llamaLogOptions } from "./llama-log.js";
import { availableParallelism } from "node:os";
import { randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { basename } from "node:path";
import {
  LlamaChat,
  LlamaText,
  TokenBias,
  type ChatWrapper,
  getLlama,
  readGgufFileInfo,
  type ChatHistoryItem,
  type ChatModelFunctions,
  type GbnfJsonSchema,
  type GgufFileInfo,
  type Llama,
  type LlamaChatResponse,
  type LlamaContext,
  type LlamaContextSequence,
  type ControlledEvaluateInputItem,
  type LlamaModel,
  type LlamaTextJSON,
  type LLamaContextualDryRepeatPenalty,
  type Token,
} from "node-llama-cpp";
import * as nodeLlamaCpp from "node-llama-cpp";
import { InvalidInputError } from "../errors.js";
import { fileFormatCache, selectChatFormat, type ChatFormat, type ChatFormatName, type FormatSource } from "./chat-format.js";
import { tokenExactCall } from "./exact-call.js";
import { Qwen35Generator } from "./qwen35-generation.js";
import { ContextOverflowError, ModelFileCorruptError, ModelFileMissingError, UnsupportedArchitectureError } from "./errors.js";
import { createGeneration, generationTimings } from "./generation.js";
import { historyOptionsFor, toLlamaHistory, withOpenModelTurn } from "./history.js";
import { callableParameters, documentedParameters, normalizeToolSpecs, trimSwallowedCallClose, withChosenOptionalParameters } from "./json-schema.js";
import { isUsableCallBias, isUsableForcedCallFloor } from "./lora-adapter.js";
import {
  belowCallFloor,
  isForcedChoice,
  type CallMargin,
  type ChatModel,
  type GenerateRequest,
  type GenerateResult,
  type Generation,
  type JsonSchema,
  type ModelEvent,
  type OptionalArguments,
  type StopReason,
  type ToolCall,
  type ToolSpec,
  type Usage,
} from "./types.js";

export interface LlamaChatModelOptions {
  /** Path of a GGUF file. */
  modelPath: string;
  /** Name for reports. Default: the file name. */
  id?: string;
  /** `false` runs on the CPU only. Default: a GPU when one is present. */
  gpu?: boolean;
  /** Tokens per conversation. Default 4096, at most the model's training context. */
  contextSize?: number;
  /**
   * CPU threads. Default on CPU: the cores this process may use (llama.cpp's
   * own default can exceed them, and oversubscribed threads spin: a 135M model
   * then takes seconds per token). With a GPU: node-llama-cpp's choice.
   */
  threads?: number;
  /** Conversations kept evaluated at once (context sequences). Default 2. */
  maxConversations?: number;
  /** Overrides the chat format read from the model's template (and skips reading it: faster loads). */
  chatFormat?: ChatFormatName;
  /** Where the format a template resolved to is remembered by the template's hash. Default: nowhere. */
  formatCacheFile?: string;
  /**
   * Penalise verbatim repetition (DRY sampling) on turns where the model may
   * call a tool. Default true: a very small model writing a string argument
   * under a grammar otherwise tends to loop ("I'm late, I'm late, …"). Turns
   * without callable tools generate without it (it costs output speed).
   */
  repetitionGuard?: boolean;
  /**
   * Longest string argument the call grammar lets the model write, for
   * strings whose schema sets no maxLength. Default 160 characters; 0 lifts
   * the bound. Small models otherwise ramble inside a string until they run
   * out of tokens, and the call is lost.
   */
  maxStringArgumentLength?: number;
  /**
   * Who decides which optional parameters a call writes. "written" (the
   * default): every parameter the call's tool form lists (argument pruning
   * has already left out those the request has no word for). "chosen": the
   * grammar lets the model leave each one out, and its own lean between
   * going on and closing the call decides (`withChosenOptionalParameters`).
   * The Qwen 3.5 dialect's own call grammar always lets the model choose
   * (each optional `<parameter=…>` block may be left out), so this setting
   * changes the formats node-llama-cpp's JSON grammar writes.
   */
  optionalArguments?: OptionalArguments;
  /** A LoRA adapter (GGUF) applied on top of the model; check its base first (`verifyAdapterBase`). */
  lora?: string;
  /**
   * How much more evidence the model needs to open a call on a turn where it
   * may answer in words instead (tool choice "auto"): a logit offset added to
   * the first token of the call prefix, on the turn's first token only. 0 (the
   * default) changes nothing; -2 makes starting a call e² ≈ 7 times less
   * likely against the other first tokens. Forced calls (the router, tool
   * choice "required" or a named tool) are not affected. A calibration for a
   * tuned model that calls too eagerly; choose it on a development split.
   */
  callBias?: number;
  /**
   * The floor of a forced call: on a turn where the agent's router forces a
   * call (`routedChoice`; a caller's "required" or named tool is always
   * honoured), the call is made only
   * where the model's own lead for writing one (`callMarginLead`) is at least
   * this many logits; below it the turn answers in words (the call prefix
   * may not open it). 0 asks the model to lean to the call itself; above 0
   * it must lean more; below 0 a forced call is dropped only where the model
   * leans against it by more than that. Absent (the default): a forced call
   * is always made. The router then only adds evidence for a call instead of
   * deciding alone: for a tuned model the router forces on requests whose
   * words match a tool none serves. Choose it on a development split. Not
   * used by botpsy's own Qwen 3.5 dialect, nor with thinking on.
   */
  forcedCallFloor?: number;
}

function checkedForcedCallFloor(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!isUsableForcedCallFloor(value)) {
    throw new InvalidInputError(`forcedCallFloor ${String(value)} is out of range: give a logit margin from -20 to 20 (0 makes a forced call only where the model would write one itself; higher values release more forced calls), or leave it out to always make a forced call.`);
  }
  return value;
}

function checkedCallBias(value: number | undefined): number {
  if (value === undefined) return 0;
  if (!isUsableCallBias(value)) {
    throw new InvalidInputError(`callBias ${String(value)} is out of range: give a logit offset from -20 to 0 (0 leaves calls as they are; -2 makes opening a call about 7 times less likely).`);
  }
  return value;
}

/** Below this a probability counts as this (log of 0 is no margin). */
const LOWEST_PROBABILITY = 1e-30;

/** `CallMargin.following` of a one-token call prefix: nothing follows the opening to fall behind. */
const NO_FOLLOWING_TOKENS = 100;

/** DRY settings: repeats longer than two tokens become quickly unlikely; quotes and newlines break sequences. */
const DRY_REPEAT_PENALTY: LLamaContextualDryRepeatPenalty = { strength: 0.8, base: 1.75, allowedLength: 2, lastTokens: 512 };

const ANONYMOUS_CONVERSATION = "";

/** Architectures the bundled llama.cpp knows; anything else fails to load with an unhelpful message. */
const KNOWN_ARCHITECTURES: ReadonlySet<string> = new Set(
  // Declared as a const enum, but node-llama-cpp also exports it as an object at runtime.
  Object.values((nodeLlamaCpp as unknown as { GgufArchitectureType: Record<string, string> }).GgufArchitectureType),
);

const llamaInstances = new Map<string, Promise<Llama>>();

/** One llama.cpp runtime per GPU setting for the whole process: loading the bindings is slow. */
function sharedLlama(gpu: boolean | undefined): Promise<Llama> {
  const key = gpu === false ? "cpu" : "auto";
  let instance = llamaInstances.get(key);
  if (instance === undefined) {
    instance = getLlama({ gpu: gpu === false ? false : "auto", ...llamaLogOptions() });
    llamaInstances.set(key, instance);
  }
  return instance;
}

/** Reads the GGUF header, turning unreadable files into errors that say what to do. */
export async function readModelFileInfo(path: string): Promise<GgufFileInfo> {
  if (!existsSync(path)) throw new ModelFileMissingError(path);
  if (statSync(path).size === 0) throw new ModelFileCorruptError(path, "the file is empty");
  try {
    return await readGgufFileInfo(path, { readTensorInfo: false });
  } catch (error) {
    throw new ModelFileCorruptError(path, error instanceof Error ? error.message : String(error), { cause: error });
  }
}

interface ConversationSlot {
  sequence: LlamaContextSequence;
  conversationId: string | undefined;
  lastUsed: number;
}

/**
 * A GGUF model on llama.cpp through node-llama-cpp's low-level
 * `LlamaChat.generateResponse`: calls come back un-executed, constrained by a
 * grammar built from the tool list on every turn.
 *
 * Each conversation (by `conversationId`) keeps a context sequence, so a turn
 * only evaluates the tokens after what is already there. Requests are served
 * one at a time in arrival order; when every sequence is taken, the least
 * recently used conversation gives its sequence up.
 */
export class LlamaChatModel implements ChatModel {
  readonly id: string;
  readonly format: ChatFormat & { source?: FormatSource };
  readonly contextSize: number;
  /** Milliseconds the last load took, and how the format was chosen (for reports). */
  loadMilliseconds = 0;
  private readonly dialect: Qwen35Generator | undefined;
  private readonly slots: ConversationSlot[];
  private readonly rawCalls = new Map<string, LlamaTextJSON>();
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;
  private useCounter = 0;
  private readonly dryRepeatPenalty: LLamaContextualDryRepeatPenalty | undefined;

  private constructor(
    readonly model: LlamaModel,
    private readonly context: LlamaContext,
    readonly fileInfo: GgufFileInfo,
    id: string,
    format: ChatFormat,
    repetitionGuard: boolean,
    private readonly maxStringArgumentLength: number,
    /** See `LlamaChatModelOptions.callBias`. */
    readonly callBias = 0,
    /** See `LlamaChatModelOptions.forcedCallFloor`. */
    readonly forcedCallFloor: number | undefined = undefined,
    /** See `LlamaChatModelOptions.optionalArguments`. */
    readonly optionalArguments: OptionalArguments = "written",
  ) {
    this.id = id;
    this.dryRepeatPenalty = repetitionGuard ? DRY_REPEAT_PENALTY : undefined;
    this.format = format;
    this.contextSize = context.contextSize;
    this.dialect = format.ownDialect ? new Qwen35Generator(model, context.contextSize) : undefined;
    this.slots = [];
    for (let index = 0; index < context.totalSequences; index++) {
      this.slots.push({ sequence: context.getSequence(), conversationId: undefined, lastUsed: 0 });
    }
  }

  static async load(options: LlamaChatModelOptions): Promise<LlamaChatModel> {
    const loadStartedAt = performance.now();
    const fileInfo = await readModelFileInfo(options.modelPath);
    const architecture = String(fileInfo.metadata.general?.architecture ?? "unknown");
    if (!KNOWN_ARCHITECTURES.has(architecture)) throw new UnsupportedArchitectureError(options.modelPath, architecture);
    const llama = await sharedLlama(options.gpu);
    let model: LlamaModel;
    try {
      model = await llama.loadModel({ modelPath: options.modelPath, ...(options.gpu === false ? { gpuLayers: 0 } : {}) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/architecture/i.test(message)) throw new UnsupportedArchitectureError(options.modelPath, architecture, { cause: error });
      throw new ModelFileCorruptError(options.modelPath, message, { cause: error });
    }
    const trainedContext = model.trainContextSize;
    const contextSize = Math.min(options.contextSize ?? 4096, trainedContext > 0 ? trainedContext : Number.MAX_SAFE_INTEGER);
    let context: LlamaContext;
    try {
      context = await model.createContext({
        contextSize,
        sequences: Math.max(1, options.maxConversations ?? 2),
        ...(options.lora !== undefined ? { lora: { adapters: [{ filePath: options.lora }] } } : {}),
        ...(options.threads !== undefined
          ? { threads: options.threads }
          : llama.gpu === false
            ? { threads: Math.max(1, availableParallelism()) }
            : {}),
      });
    } catch (error) {
      await model.dispose();
      throw error;
    }
    let loaded: LlamaChatModel;
    try {
      const format = selectChatFormat(model, options.chatFormat, options.formatCacheFile !== undefined ? fileFormatCache(options.formatCacheFile) : undefined);
      loaded = new LlamaChatModel(
        model,
        context,
        fileInfo,
        options.id ?? basename(options.modelPath),
        format,
        options.repetitionGuard ?? true,
        options.maxStringArgumentLength ?? 160,
        checkedCallBias(options.callBias),
        checkedForcedCallFloor(options.forcedCallFloor),
        options.optionalArguments ?? "written",
      );
    } catch (error) {
      await context.dispose();
      await model.dispose();
      throw error;
    }
    loaded.loadMilliseconds = performance.now() - loadStartedAt;
    return loaded;
  }

  generate(request: GenerateRequest): Generation {
    return createGeneration((emit) => {
      const run = this.queue.then(() => this.run(request, emit));
      // The queue goes on whether this request succeeds or not.
      this.queue = run.catch(() => undefined);
      return run;
    });
  }

  endConversation(conversationId: string): void {
    const slot = this.slots.find((candidate) => candidate.conversationId === conversationId);
    if (slot === undefined) return;
    slot.conversationId = undefined;
    slot.lastUsed = 0;
    this.queue = this.queue.then(() => slot.sequence.clearHistory()).catch(() => undefined);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.queue.catch(() => undefined);
    await this.context.dispose();
    await this.model.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  /**
   * The tokens a request's prompt is evaluated as (for botpsy's own dialect:
   * the rendered prompt with remembered turns as generated). For tests and
   * reports; nothing is evaluated.
   */
  promptTokens(request: Pick<GenerateRequest, "messages" | "tools" | "thinking">): Token[] {
    const tools = normalizeToolSpecs(request.tools ?? []);
    const thinking = this.format.supportsThinking && (request.thinking ?? "off") !== "off";
    if (this.dialect !== undefined) return this.dialect.tokenizePrompt(this.dialect.render(request.messages, tools, thinking));
    const chatWrapper = this.format.createWrapper({ thinking, forceCall: false, documented: tools.length > 0 ? toFunctions(tools) : undefined });
    return this.renderPrompt(chatWrapper, toLlamaHistory(request.messages, this.rawCalls, historyOptionsFor(this.format.name)), tools.length > 0 ? toFunctions(tools, { maxStringLength: this.maxStringArgumentLength, optionalArguments: this.optionalArguments }) : undefined, false);
  }

  /** Tokens of a text under this model's tokenizer (for budgets and tests). */
  countTokens(text: string): number {
    return this.model.tokenize(text).length;
  }

  private slotFor(conversationId: string): ConversationSlot {
    const owned = this.slots.find((slot) => slot.conversationId === conversationId);
    const slot =
      owned ??
      this.slots.find((candidate) => candidate.conversationId === undefined) ??
      this.slots.reduce((oldest, candidate) => (candidate.lastUsed < oldest.lastUsed ? candidate : oldest));
    slot.conversationId = conversationId;
    slot.lastUsed = ++this.useCounter;
    return slot;
  }

  private async run(request: GenerateRequest, emit: (event: ModelEvent) => void): Promise<GenerateResult> {
    if (this.disposed) throw new InvalidInputError(`Model ${this.id} was disposed; load it again before generating.`);
    if (request.messages.length === 0) throw new InvalidInputError("A request needs at least one message.");
    const startedAt = performance.now();
    const signal = request.signal;
    const tools = normalizeToolSpecs(request.tools ?? []);
    const callable = request.callableTools === undefined ? tools : normalizeToolSpecs(request.callableTools);
    const stray = callable.find((form) => !tools.some((tool) => tool.name === form.name));
    if (stray !== undefined) {
      throw new InvalidInputError(`callableTools names "${stray.name}", which the request's tools do not document; a callable form narrows a documented tool.`);
    }
    const toolChoice = tools.length === 0 ? "none" : (request.toolChoice ?? "auto");
    let allowed: ToolSpec[] = toolChoice === "none" ? [] : callable;
    if (typeof toolChoice === "object") {
      const chosen = callable.find((tool) => tool.name === toolChoice.name);
      if (chosen === undefined) {
        throw new InvalidInputError(
          `Tool choice names "${toolChoice.name}", which is not among the request's callable tools (${callable.map((tool) => tool.name).join(", ")}).`,
        );
      }
      allowed = [chosen];
    }
    const thinking = request.thinking ?? "off";
    const thinkingEnabled = this.format.supportsThinking && thinking !== "off";
    let forceCall = isForcedChoice(toolChoice);
    // The tool list stays in the prompt whatever the choice, so that the
    // prompt, and with it the cached context, is the same from turn to turn.
    const documented = tools.length > 0 ? toFunctions(tools) : undefined;
    let functions = allowed.length > 0 ? toFunctions(allowed, { maxStringLength: this.maxStringArgumentLength, optionalArguments: this.optionalArguments }) : undefined;

    if (this.dialect !== undefined) {
      const slot = this.slotFor(request.conversationId ?? ANONYMOUS_CONVERSATION);
      return this.dialect.generate(
        slot.sequence,
        {
          messages: request.messages,
          documented: tools,
          allowed,
          forceCall,
          parallelCalls: this.allowsParallelCalls(request),
          // A forced call opens the turn: no thought segment first (as with the other formats).
          thinking: thinkingEnabled && !forceCall,
          thoughtBudget: !thinkingEnabled ? 0 : typeof thinking === "object" ? thinking.budget : Infinity,
          maxTokens: request.maxTokens ?? 512,
          temperature: request.temperature ?? 0,
          seed: request.seed ?? 1,
          topP: request.topP,
          topK: request.topK,
          dryRepeatPenalty: allowed.length > 0 ? this.dryRepeatPenalty : undefined,
          maxStringLength: this.maxStringArgumentLength,
          signal,
        },
        emit,
      );
    }

    const history: ChatHistoryItem[] = toLlamaHistory(request.messages, this.rawCalls, historyOptionsFor(this.format.name));
    const slot = this.slotFor(request.conversationId ?? ANONYMOUS_CONVERSATION);
    const sequence = slot.sequence;
    let chatWrapper = this.format.createWrapper({ thinking: thinkingEnabled, forceCall, documented });

    let promptTokenList = this.renderPrompt(chatWrapper, history, functions, forceCall);
    // Where the model's turn starts (a forced call's prefix is already the model's).
    const turnStart = promptTokenList.length - (forceCall && functions !== undefined ? this.callPrefixTokens(chatWrapper).length : 0);
    if (promptTokenList.length >= this.contextSize) {
      throw new ContextOverflowError(promptTokenList.length, this.contextSize);
    }
    const cachedPromptTokens = Math.min(commonPrefixLength(sequence.contextTokens, promptTokenList), promptTokenList.length);
    // The floor weighs only the router's forced guess, never a caller's requirement.
    const floor = forceCall && request.routedChoice === true ? this.forcedCallFloor : undefined;
    const measureMargin = functions !== undefined && !thinkingEnabled && (request.reportCallMargin === true || floor !== undefined);
    const callMargin = measureMargin ? await this.callMargin(sequence, chatWrapper, promptTokenList.slice(0, turnStart)) : undefined;
    // Below the floor, a forced turn becomes a turn without calls.
    const released = floor !== undefined && callMargin !== undefined && belowCallFloor(callMargin, floor);
    if (released) {
      forceCall = false;
      functions = undefined;
      chatWrapper = this.format.createWrapper({ thinking: thinkingEnabled, forceCall: false, documented });
      promptTokenList = promptTokenList.slice(0, turnStart);
    }
    const chat = new LlamaChat({ contextSequence: sequence, chatWrapper, autoDisposeSequence: false });
    // Never generate past the context: llama.cpp would silently drop the conversation's beginning.
    const maxTokens = Math.min(request.maxTokens ?? 512, this.contextSize - promptTokenList.length);
    const meterBefore = sequence.tokenMeter.getState();
    let firstOutputAt: number | undefined;
    let reasoningTokens = 0;
    const markOutput = (): void => {
      firstOutputAt ??= performance.now();
    };
    const calls: ToolCall[] = [];
    // A small model under a call grammar tends to repeat its call; a repeat is
    // never useful, so generation stops there and keeps the calls before it.
    const stopper = new AbortController();
    const stopSignal = signal === undefined ? stopper.signal : AbortSignal.any([signal, stopper.signal]);
    const seenCalls = new Set<string>();

    let response: LlamaChatResponse<ChatModelFunctions> | undefined;
    try {
      // A released turn may not open a call at all (the model leaned to one, but not by the floor); a free one weighs it by the call bias.
      const firstTokenBias = released
        ? this.firstTokenOpeningBias(chatWrapper, "never")
        : !forceCall && functions !== undefined && this.callBias !== 0
          ? this.firstTokenOpeningBias(chatWrapper, { logit: this.callBias })
          : undefined;
      response = await chat.generateResponse(history, {
        ...(functions !== undefined ? { functions, maxParallelFunctionCalls: this.allowsParallelCalls(request) ? undefined : 1 } : {}),
        ...(firstTokenBias !== undefined ? { tokenBias: firstTokenBias } : {}),
        temperature: request.temperature ?? 0,
        seed: request.seed ?? 1,
        ...(request.topP !== undefined ? { topP: request.topP } : {}),
        ...(request.topK !== undefined ? { topK: request.topK } : {}),
        maxTokens,
        // Only where calls can be written: DRY costs output speed, and plain text needs it least.
        ...(this.dryRepeatPenalty !== undefined && functions !== undefined ? { dryRepeatPenalty: this.dryRepeatPenalty } : {}),
        // Under tool choice none the tools are still listed: a call the model starts ends the text there.
        ...(functions === undefined && documented !== undefined
          ? { customStopTriggers: [LlamaText(chatWrapper.settings.functions.call.prefix)] }
          : {}),
        signal: stopSignal,
        stopOnAbortSignal: true,
        budgets: {
          thoughtTokens: !thinkingEnabled ? 0 : typeof thinking === "object" ? thinking.budget : Infinity,
        },
        contextShift: {
          strategy: ({ chatHistory, tokenizer, chatWrapper: wrapper }) => {
            const needed = wrapper.generateContextState({ chatHistory }).contextText.tokenize(tokenizer).length;
            throw new ContextOverflowError(needed, this.contextSize);
          },
        },
        onResponseChunk: (chunk) => {
          if (chunk.tokens.length > 0) markOutput();
          if (chunk.text === "") return;
          if (chunk.type === "segment") {
            if (chunk.segmentType === "thought") {
              reasoningTokens += chunk.tokens.length;
              emit({ type: "thought-delta", text: chunk.text });
            }
            return;
          }
          emit({ type: "text-delta", text: chunk.text });
        },
        onFunctionCallParamsChunk: () => markOutput(),
        onFunctionCall: (functionCall) => {
          markOutput();
          const argumentsObject = isPlainObject(functionCall.params) ? (trimSwallowedCallClose(functionCall.params) as Record<string, unknown>) : {};
          const key = `${functionCall.functionName}\u0000${JSON.stringify(argumentsObject)}`;
          if (seenCalls.has(key)) {
            stopper.abort(new Error("repeated tool call"));
            return;
          }
          seenCalls.add(key);
          const call: ToolCall = {
            id: `call_${randomUUID().replaceAll("-", "").slice(0, 12)}`,
            name: functionCall.functionName,
            arguments: argumentsObject,
          };
          this.rememberRawCall(call.id, functionCall.raw);
          calls.push(call);
          emit({ type: "tool-call", call });
        },
      });
    } catch (error) {
      if (error instanceof ContextOverflowError) throw error;
      if (stopSignal.aborted) {
        response = undefined;
      } else if (error instanceof Error && /context size is too small|context is full|too long/i.test(error.message)) {
        throw new ContextOverflowError(promptTokenList.length, this.contextSize, { cause: error });
      } else {
        throw error;
      }
    } finally {
      chat.dispose({ disposeSequence: false });
    }

    this.rememberExactCalls(chatWrapper, sequence.contextTokens, turnStart, calls, response?.response ?? "");
    const finishedAt = performance.now();
    const outputTokens = sequence.tokenMeter.diff(meterBefore).usedOutputTokens;
    const promptTokens = promptTokenList.length;
    const usage: Usage = { promptTokens, cachedPromptTokens: Math.min(cachedPromptTokens, promptTokens), outputTokens, reasoningTokens };

    const userAborted = signal?.aborted === true;
    const stopReason: StopReason = userAborted
      ? "aborted"
      : calls.length > 0
        ? "tool-calls"
        : response === undefined || response.metadata.stopReason === "abort"
          ? "aborted"
          : response.metadata.stopReason === "maxTokens"
            ? "max-tokens"
            : "stop";

    const text = response?.response ?? "";
    const thoughts = (response?.fullResponse ?? [])
      .map((part) => (typeof part !== "string" && part.segmentType === "thought" ? part.text : ""))
      .join("");
    emit({ type: "usage", usage });
    emit({ type: "done", stopReason });
    return {
      text,
      thoughts,
      toolCalls: calls,
      usage,
      timings: generationTimings(startedAt, firstOutputAt, finishedAt, outputTokens, promptTokens - cachedPromptTokens),
      stopReason,
      ...(callMargin !== undefined ? { callMargin } : {}),
      ...(released ? { releasedForcedCall: true } : {}),
    };
  }

  /**
   * How far greedy decoding is from writing a call at the start of a turn,
   * with no bias applied (`CallMargin`). Evaluates the prompt (`prompt`,
   * without a forced call's prefix) and then the call prefix into the
   * sequence, reading the distribution before each of the prefix's tokens;
   * the sequence is left as it was. The prompt is evaluated twice where it
   * was not cached: the price of a reading that leaves the turn's text exactly
   * as without it.
   */
  private async callMargin(sequence: LlamaContextSequence, chatWrapper: ChatWrapper, prompt: readonly Token[]): Promise<CallMargin> {
    const prefix = this.callPrefixTokens(chatWrapper);
    // Keep what the sequence already holds of the prompt, but evaluate at least its last token: its distribution is the first one read.
    const kept = Math.min(commonPrefixLength(sequence.contextTokens, prompt), prompt.length - 1);
    if (kept < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: kept, end: sequence.nextTokenIndex }]);
    const read = { generateNext: { probabilities: true, options: { temperature: 0 } } };
    const rest = prompt.slice(kept);
    const input: ControlledEvaluateInputItem[] = [
      ...rest.slice(0, -1),
      [rest.at(-1)!, read],
      ...prefix.slice(0, -1).map((token): ControlledEvaluateInputItem => [token, read]),
    ];
    let output: Awaited<ReturnType<LlamaContextSequence["controlledEvaluate"]>>;
    try {
      output = await sequence.controlledEvaluate(input);
    } finally {
      // Evaluated to be read, not kept: the generation evaluates the prompt as it would have without the reading (in
      // other batches the logits move in their last digits, and a long greedy text with them), so measuring changes nothing it writes.
      if (sequence.nextTokenIndex > kept) await sequence.eraseContextTokenRanges([{ start: kept, end: sequence.nextTokenIndex }]);
    }
    const lead = (position: number, wanted: ReadonlySet<Token>): number => {
      const probabilities = output[rest.length - 1 + position]?.next.probabilities;
      if (probabilities === undefined) throw new Error("The model gave no distribution to read the call margin from.");
      let call = 0;
      let other = 0;
      for (const [token, probability] of probabilities) {
        if (wanted.has(token)) call = Math.max(call, probability);
        else other = Math.max(other, probability);
      }
      // Probabilities are a softmax of the logits: their log ratio is the logit difference. Floored where one underflows.
      return Math.log(Math.max(call, LOWEST_PROBABILITY)) - Math.log(Math.max(other, LOWEST_PROBABILITY));
    };
    const opening = lead(0, new Set(this.callOpeningTokens(chatWrapper)));
    let afterOpening = Infinity;
    for (let position = 1; position < prefix.length; position++) afterOpening = Math.min(afterOpening, lead(position, new Set([prefix[position]!])));
    return { opening, following: Number.isFinite(afterOpening) ? afterOpening : NO_FOLLOWING_TOKENS };
  }

  /** The tokens that open a call at the start of a turn: the call prefix's first token, with and without a leading space. */
  private callOpeningTokens(chatWrapper: ChatWrapper): Token[] {
    const prefix = LlamaText(chatWrapper.settings.functions.call.prefix).toString();
    const tokens: Token[] = [];
    for (const text of new Set([prefix, ` ${prefix.trimStart()}`])) {
      const first = this.model.tokenize(text, false, "trimLeadingSpace")[0];
      if (first !== undefined) tokens.push(first);
    }
    return tokens;
  }

  /**
   * The prompt exactly as LlamaChat will evaluate it: the rendered history
   * with an open model response, plus the call prefix when a call is forced.
   * Counting it here keeps `promptTokens` and `cachedPromptTokens` honest.
   */
  private renderPrompt(
    chatWrapper: ChatWrapper,
    history: ChatHistoryItem[],
    functions: ChatModelFunctions | undefined,
    forceCall: boolean,
  ): Token[] {
    const state = chatWrapper.generateContextState({ chatHistory: withOpenModelTurn(history), ...(functions !== undefined ? { availableFunctions: functions } : {}) });
    const tokens = state.contextText.tokenize(this.model.tokenizer);
    if (!forceCall || functions === undefined) return tokens;
    return [...tokens, ...this.callPrefixTokens(chatWrapper)];
  }

  /**
   * The token bias of a turn whose first sample weighs opening a call
   * (`callBias`, or "never" on a released forced turn): node-llama-cpp asks
   * for it once per sampled token, and only the first sample (where text or
   * a call is chosen) weighs the call prefix's first token, with and without
   * a leading space.
   */
  private firstTokenOpeningBias(chatWrapper: ChatWrapper, bias: "never" | { logit: number }): () => TokenBias {
    const opening = new TokenBias(this.model.tokenizer);
    for (const token of this.callOpeningTokens(chatWrapper)) opening.set(token, bias);
    const none = new TokenBias(this.model.tokenizer);
    let sampled = 0;
    return () => (sampled++ === 0 ? opening : none);
  }

  private callPrefixTokens(chatWrapper: ChatWrapper): Token[] {
    return LlamaText(chatWrapper.settings.functions.call.prefix).tokenize(this.model.tokenizer, "trimLeadingSpace");
  }

  /**
   * Replaces the remembered text of this turn's calls by the tokens they were
   * evaluated as (see `tokenExactCall`), read from the sequence's context
   * after the generation, so that the next step's prompt re-renders them
   * token for token and the cache holds up to the end of the arguments. A
   * call not found on token boundaries keeps its text. The prompted format
   * only: where its turn markers and call text go is known (see
   * PromptedToolCallChatWrapper), a native wrapper's is not.
   */
  private rememberExactCalls(chatWrapper: ChatWrapper, contextTokens: readonly Token[], turnStart: number, calls: readonly ToolCall[], text: string): void {
    const suffix = chatWrapper.settings.functions.call.suffix;
    if (this.format.name !== "prompted" || typeof suffix !== "string") return;
    let from = turnStart;
    calls.forEach((call, index) => {
      const raw = this.rawCalls.get(call.id);
      if (raw === undefined) return;
      // The first call follows the turn marker, unless the model wrote text first; a later one follows the text between calls.
      const exact = tokenExactCall(this.model.tokenizer, contextTokens, from, raw, suffix, index === 0 && text === "" ? "special" : "text");
      if (exact === undefined) return;
      this.rawCalls.set(call.id, exact.raw);
      from = exact.end;
    });
  }

  /**
   * Several calls per turn, unless the request says otherwise. A model with no
   * trained tool-call format (the prompted format) cannot tell when to stop
   * calling and repeats near-identical calls, so there it takes an explicit
   * `parallelToolCalls: true`.
   */
  private allowsParallelCalls(request: GenerateRequest): boolean {
    return request.parallelToolCalls ?? this.format.name !== "prompted";
  }

  private rememberRawCall(id: string, raw: LlamaTextJSON): void {
    this.rawCalls.set(id, raw);
    // Bounded: only recent calls can still be in a cached context.
    if (this.rawCalls.size > 4096) {
      const oldest = this.rawCalls.keys().next().value;
      if (oldest !== undefined) this.rawCalls.delete(oldest);
    }
  }
}

/**
 * The tool list as node-llama-cpp functions: as the prompt documents them
 * (also used to render training data exactly as prompted), or, with `grammar`,
 * as the call grammar enforces them (bounded integers listed, free strings
 * given a maximum length).
 */
export function toFunctions(tools: readonly ToolSpec[], grammar?: { maxStringLength: number; optionalArguments?: OptionalArguments }): ChatModelFunctions {
  const functions: Record<string, { description?: string; params?: GbnfJsonSchema }> = {};
  for (const tool of tools) {
    const properties = tool.parameters.properties;
    const hasParameters =
      (typeof properties === "object" && properties !== null && Object.keys(properties).length > 0) ||
      tool.parameters.additionalProperties !== false;
    functions[tool.name] = {
      description: tool.description,
      ...(hasParameters
        ? { params: (grammar !== undefined ? callableForm(tool.parameters, grammar) : documentedParameters(tool.parameters)) as unknown as GbnfJsonSchema }
        : {}),
    };
  }
  return functions;
}

function callableForm(parameters: JsonSchema, grammar: { maxStringLength: number; optionalArguments?: OptionalArguments }): JsonSchema {
  const callable = callableParameters(parameters, grammar.maxStringLength);
  return grammar.optionalArguments === "chosen" ? withChosenOptionalParameters(callable) : callable;
}

function commonPrefixLength(first: readonly Token[], second: readonly Token[]): number {
  const limit = Math.min(first.length, second.length);
  let index = 0;
  while (index < limit && first[index] === second[index]) index++;
  return index;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
