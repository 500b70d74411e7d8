export * from "./types.js";
export { createGeneration } from "./generation.js";
export * from "./errors.js";
export { normalizeToolSchema, normalizeToolSpecs } from "./json-schema.js";
export { LlamaChatModel, readModelFileInfo, type LlamaChatModelOptions } from "./llama-chat-model.js";
export { OpenAICompatibleModel, type OpenAICompatibleModelOptions } from "./openai-compatible-model.js";
export { MODEL_CATALOG, SMOLLM2_ID, findCatalogEntry, parseHuggingFaceReference, type CatalogEntry, type ModelSource } from "./catalog.js";
export { pullModel, verifyFile, sha256OfFile, createProgressBar, type PullOptions, type PullProgress, type PullResult } from "./download.js";
export {
  resolveModel,
  bestPresentModel,
  ensureModelFile,
  removeModel,
  listModels,
  createChatModel,
  loadLlamaModel,
  loadDefaultModel,
  type ResolvedModel,
  type CreateChatModelOptions,
  type ListedModel,
} from "./resolve.js";
export { readModelInfo, type ModelInfo } from "./info.js";
export type { ChatFormatName } from "./chat-format.js";
