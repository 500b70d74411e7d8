import { LlamaLogLevel, LlamaText, getLlama, type LlamaModel, type Token } from "node-llama-cpp";
import { selectChatFormat, type ChatFormat, type ChatFormatName } from "../model/chat-format.js";
import { historyOptionsFor, toLlamaHistory, withOpenModelTurn } from "../model/history.js";
import { normalizeToolSpecs } from "../model/json-schema.js";
import { toFunctions } from "../model/llama-chat-model.js";
import { isForcedChoice, type GenerateRequest } from "../model/types.js";
import type { ScriptedReply } from "../testing/scripted-model.js";
import { trainedAsFreeTurn, type ForcedTurnTraining } from "./recipes.js";

/**
 * One training sequence: a model turn's prompt exactly as the inference code
 * tokenizes it, and the tokens the model should write after it. Loss is taken
 * from `completionStart` on; the prompt (and a call prefix the router forced
 * into the context) is only context.
 */
export interface RenderedSequence {
  tokens: number[];
  completionStart: number;
  /** The prompt as text, special tokens written out (for reading and the overlap check). */
  prompt: string;
  completion: string;
  /** Whether the completion is a tool call (held-out call accuracy is measured on these). */
  writesCall: boolean;
}

/** One model turn as the agent sent it, and what the model should answer. */
export interface TurnToRender {
  request: GenerateRequest;
  reply: ScriptedReply;
}

/**
 * Renders agent turns through the same chat format, wrapper and tokenizer the
 * llama.cpp backend uses (`LlamaChatModel.renderPrompt`), so that training and
 * inference see the same tokens. Loads only the model's vocabulary.
 */
export class TrainingRenderer {
  private constructor(
    private readonly model: LlamaModel,
    readonly format: ChatFormat,
  ) {}

  static async load(modelPath: string, chatFormat?: ChatFormatName): Promise<TrainingRenderer> {
    const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath, vocabOnly: true, gpuLayers: 0 });
    return new TrainingRenderer(model, selectChatFormat(model, chatFormat));
  }

  async dispose(): Promise<void> {
    await this.model.dispose();
  }

  /** Tokens of a text, special-token markers read as special tokens (what the trainer's texts mean). */
  tokenize(text: string): Token[] {
    return this.model.tokenize(text, true);
  }

  detokenize(tokens: readonly Token[]): string {
    return this.model.detokenize(tokens, true);
  }

  /**
   * `forcedTurns: "trained"` renders a turn the router forced (`routedChoice`)
   * as a free one: the same prompt (a forced call only adds its prefix), with
   * the call prefix, or an answer in words, learned.
   */
  render(turn: TurnToRender, options: { forcedTurns?: ForcedTurnTraining } = {}): RenderedSequence {
    const { request, reply } = turn;
    const tools = normalizeToolSpecs(request.tools ?? []);
    const documented = tools.length > 0 ? toFunctions(tools) : undefined;
    const toolChoice = tools.length === 0 ? "none" : (request.toolChoice ?? "auto");
    const forceCall = isForcedChoice(toolChoice) && !trainedAsFreeTurn(request, options.forcedTurns);
    const wrapper = this.format.createWrapper({ thinking: false, forceCall, documented });
    // As the backend renders a prompt (LlamaChatModel.renderPrompt), from the same helpers.
    const history = withOpenModelTurn(toLlamaHistory(request.messages, new Map(), historyOptionsFor(this.format.name)));
    const state = wrapper.generateContextState({ chatHistory: history, ...(documented !== undefined ? { availableFunctions: documented } : {}) });
    const promptTokens = state.contextText.tokenize(this.model.tokenizer);

    const calls = reply.toolCalls ?? [];
    const contextTokens: Token[] = [...promptTokens];
    const completionTokens: Token[] = [];
    if (calls.length > 0) {
      const callSettings = wrapper.settings.functions;
      const between = callSettings.parallelism?.call.betweenCalls ?? "";
      const written = LlamaText(
        calls.flatMap((call, index) => [...(index > 0 ? [between] : []), wrapper.generateFunctionCall(call.name, call.arguments ?? {})]),
      );
      const writtenText = written.toString();
      const prefix = LlamaText(callSettings.call.prefix).toString();
      if (forceCall && writtenText.startsWith(prefix)) {
        // The backend puts the call prefix into the context itself and the model writes from the name on.
        contextTokens.push(...LlamaText(callSettings.call.prefix).tokenize(this.model.tokenizer, "trimLeadingSpace"));
        completionTokens.push(...LlamaText(writtenText.slice(prefix.length)).tokenize(this.model.tokenizer));
      } else {
        completionTokens.push(...written.tokenize(this.model.tokenizer));
      }
    } else {
      completionTokens.push(...LlamaText(reply.text ?? "").tokenize(this.model.tokenizer));
      const endOfGeneration = this.model.tokens.eos ?? this.model.tokens.eot;
      if (endOfGeneration !== null) completionTokens.push(endOfGeneration);
    }
    return {
      tokens: [...contextTokens, ...completionTokens].map(Number),
      completionStart: contextTokens.length,
      prompt: this.detokenize(contextTokens),
      completion: this.detokenize(completionTokens),
      writesCall: calls.length > 0,
    };
  }
}
