import { LlamaChatModel } from "../model/llama-chat-model.js";
import type { ChatModel } from "../model/types.js";
import type { LenderModelInfo } from "./protocol.js";

/** A model's id, context size and weight size, as a lender announces it and the offload rule compares it. */
export function modelInfoOf(model: ChatModel, fallback: Partial<LenderModelInfo> = {}): LenderModelInfo {
  if (model instanceof LlamaChatModel) return { id: model.id, contextSize: model.contextSize, sizeBytes: model.model.size };
  return { id: model.id, contextSize: fallback.contextSize ?? 4096, sizeBytes: fallback.sizeBytes ?? 0 };
}
