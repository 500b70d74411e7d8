import type { ChatMessage, ChatModel, GenerateOptions, GenerateResult, ToolChoice, ToolSpec } from "../model/types.js";
import { MarkupFilter, stripTemplateMarkup } from "./final-answer.js";
import { firstTurnChoice, type TurnPreparationOptions } from "./turn-preparation.js";
import type { AgentEvent } from "./types.js";

/** One model turn as it is about to be sent; a hook may return a changed copy. */
export interface ModelTurn {
  runId: string;
  sessionId: string;
  step: number;
  messages: ChatMessage[];
  /** The tools the prompt documents. */
  tools: ToolSpec[];
  /** The forms of those the model may call, when narrower (see `GenerateRequest.callableTools`). */
  callableTools?: ToolSpec[];
  /** A later turn's tool choice when the loop decided it (recovery after a failed call); the first turn's is routed. */
  toolChoice?: ToolChoice;
}

/** Input guard: sees (and may replace) the messages and tools of a turn before the model does. */
export type BeforeModelTurnHook = (turn: ModelTurn) => ModelTurn | void | Promise<ModelTurn | void>;
/**
 * Output guard: sees (and may replace) the model's reply before the agent
 * acts on it. While one is set, text reaches the caller only after it, in one
 * piece, so nothing it removes is ever shown.
 */
export type AfterModelTurnHook = (reply: GenerateResult, turn: ModelTurn) => GenerateResult | void | Promise<GenerateResult | void>;

export interface ModelTurnOptions extends TurnPreparationOptions {
  model: ChatModel;
  generation?: Omit<GenerateOptions, "signal" | "conversationId">;
  afterModelTurn?: AfterModelTurnHook;
}

/**
 * Play one model turn. Greedy with seed 1 unless the generation options say
 * otherwise; the first turn of a request gets its routed tool choice. Text
 * reaches the caller through `filter`, which holds back whatever may be
 * template markup; the returned reply's text is cleaned of it. The caller
 * flushes the filter once it knows what the turn was.
 */
export async function playModelTurn(
  turn: ModelTurn,
  options: ModelTurnOptions,
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
  filter: MarkupFilter,
): Promise<GenerateResult> {
  const request = [...turn.messages].reverse().find((message) => message.role === "user")?.content ?? "";
  // A hook may have taken tools out of the turn: only documented tools can be called.
  const documented = new Set(turn.tools.map((tool) => tool.name));
  const callable = turn.callableTools?.filter((tool) => documented.has(tool.name)) ?? turn.tools;
  const firstTurn =
    turn.step === 1 && turn.tools.length > 0 ? firstTurnChoice(request, callable, { ...options, generationToolChoice: options.generation?.toolChoice }) : undefined;
  // Narrowing (pruned parameters, a forced turn's best few tools) goes into what may be called, not into the prompt.
  const callableTools = firstTurn?.tools ?? callable;
  const generation = options.model.generate({
    temperature: 0,
    seed: 1,
    ...options.generation,
    ...(firstTurn !== undefined ? { toolChoice: firstTurn.toolChoice } : turn.toolChoice !== undefined ? { toolChoice: turn.toolChoice } : {}),
    ...(firstTurn?.routed === true ? { routedChoice: true } : {}),
    messages: turn.messages,
    tools: turn.tools.length > 0 ? turn.tools : undefined,
    ...(turn.tools.length > 0 && callableTools !== turn.tools ? { callableTools } : {}),
    signal,
    conversationId: turn.sessionId,
  });
  const guarded = options.afterModelTurn !== undefined;
  if (!guarded) {
    for await (const event of generation) {
      if (event.type === "thought-delta") emit(event);
      if (event.type === "text-delta") {
        const shown = filter.push(event.text);
        if (shown !== "") emit({ type: "text-delta", text: shown });
      }
    }
  }
  const raw = await generation.result;
  const reply = { ...raw, text: stripTemplateMarkup(raw.text) };
  if (!guarded) return reply;
  const checked = (await options.afterModelTurn?.(reply, turn)) ?? reply;
  const shown = filter.push(checked.text);
  if (shown !== "") emit({ type: "text-delta", text: shown });
  return checked;
}
