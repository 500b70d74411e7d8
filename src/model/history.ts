import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelResponse, LlamaTextJSON } from "node-llama-cpp";
import { InvalidInputError } from "../errors.js";
import type { ChatMessage } from "./types.js";
import type { ChatFormatName } from "./chat-format.js";

/**
 * Converts botpsy's conversation into node-llama-cpp's chat history. In
 * node-llama-cpp a model response holds its calls together with their
 * results, and the text the model writes after the results continues the
 * same response; so an assistant turn with calls, its tool messages, and the
 * assistant turn after them become one model item.
 *
 * `rawCalls` gives, per call id, the exact text a call was generated as (for
 * the prompted format cut where the model's tokens were: `tokenExactCall`), so
 * that the history renders token for token as it was evaluated and the
 * cached context stays valid. `rawResults` keeps tool results as their text
 * (for wrappers that write them as the template does).
 */
export function toLlamaHistory(
  messages: readonly ChatMessage[],
  rawCalls: ReadonlyMap<string, LlamaTextJSON> = new Map(),
  options: { rawResults?: boolean } = {},
): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  // Calls of the open model item still waiting for their result.
  let pendingCalls = new Map<string, ChatModelFunctionCall>();
  let continuesAfterResults = false;

  messages.forEach((message, index) => {
    switch (message.role) {
      case "system":
        history.push({ type: "system", text: message.content });
        break;
      case "user":
        requireResults(pendingCalls, index);
        history.push({ type: "user", text: message.content });
        continuesAfterResults = false;
        break;
      case "assistant": {
        requireResults(pendingCalls, index);
        const previous = history[history.length - 1];
        const item: ChatModelResponse =
          continuesAfterResults && previous?.type === "model" ? previous : { type: "model", response: [] };
        if (item !== previous) history.push(item);
        if (message.thoughts !== undefined && message.thoughts !== "") {
          item.response.push({ type: "segment", segmentType: "thought", text: message.thoughts, ended: true });
        }
        if (message.content !== "") item.response.push(message.content);
        pendingCalls = new Map();
        (message.toolCalls ?? []).forEach((call, callIndex) => {
          const entry: ChatModelFunctionCall = {
            type: "functionCall",
            name: call.name,
            params: call.arguments,
            result: undefined,
            ...(rawCalls.has(call.id) ? { rawCall: rawCalls.get(call.id)! } : {}),
            ...(callIndex === 0 ? { startsNewChunk: true } : {}),
          };
          item.response.push(entry);
          pendingCalls.set(call.id, entry);
        });
        continuesAfterResults = false;
        break;
      }
      case "tool": {
        const call = pendingCalls.get(message.toolCallId);
        if (call === undefined) {
          throw new InvalidInputError(
            `Message ${index} is a tool result for call "${message.toolCallId}", which no earlier assistant message made. Put each tool message right after the assistant message whose toolCalls contains its id.`,
          );
        }
        // Formats whose template writes the content as it is get it so; the others show JSON as JSON.
        call.result = options.rawResults === true ? message.content : parseResult(message.content);
        pendingCalls.delete(message.toolCallId);
        continuesAfterResults = true;
        break;
      }
    }
  });
  if (pendingCalls.size > 0) {
    throw new InvalidInputError(
      `The last assistant message made calls without results (${[...pendingCalls.keys()].join(", ")}). Add a tool message for each call before generating again.`,
    );
  }
  return history;
}

function requireResults(pendingCalls: Map<string, ChatModelFunctionCall>, index: number): void {
  if (pendingCalls.size > 0) {
    throw new InvalidInputError(
      `Message ${index} follows tool calls that have no results (${[...pendingCalls.keys()].join(", ")}). Add a tool message for each call first.`,
    );
  }
}

/** Results that are JSON are shown as JSON, not as a quoted string of JSON. */
function parseResult(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

/** How a chat format wants its history: Qwen3's wrapper writes tool results as the template does, so they stay text. */
export function historyOptionsFor(format: ChatFormatName): { rawResults: boolean } {
  return { rawResults: format === "qwen3" };
}

/**
 * The history a reply is generated after, as LlamaChat evaluates it: ending
 * in an open model response. After tool results the model turn that made the
 * calls continues; after the user's words a new, empty one opens.
 */
export function withOpenModelTurn(history: ChatHistoryItem[]): ChatHistoryItem[] {
  return history[history.length - 1]?.type === "model" ? history : [...history, { type: "model", response: [] }];
}
