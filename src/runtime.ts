import { Agent, type AgentOptions, type RunOptions } from "./agent/agent.js";
import { RiskGate } from "./agent/default-gate.js";
import type { AgentRun, ApprovalDecision } from "./agent/types.js";
import type { Profile } from "./apps/profile.js";
import { InvalidInputError } from "./errors.js";
import { SMOLLM2_ID, type CatalogEntry } from "./model/catalog.js";
import { adapterForLoad, tunedModelId } from "./model/shipped-adapter.js";
import type { ChatFormatName } from "./model/chat-format.js";
import { LlamaChatModel } from "./model/llama-chat-model.js";
import { bestPresentModel, ensureModelFile, type ModelLocationOptions } from "./model/resolve.js";
import type { ChatModel, OptionalArguments } from "./model/types.js";
import { createSafetyLayer, type SafetyLayer, type SafetyLayerOptions } from "./policy/safety.js";
import type { PermissionGate } from "./policy/types.js";
import { RISKS, type Risk, type Tool } from "./tools/tool.js";
import { ToolBox, type ToolBoxOptions } from "./tools/toolbox.js";

/**
 * The one assembly of botpsy: a profile, a model and a policy become the
 * gate, the fences (the safety layer), the ToolBox and the agent. The CLI,
 * the evaluation suites and anything that serves the agent build it here and
 * nowhere else, so they all run the same agent.
 */

/** A model to find (and pull when it is missing) and load on llama.cpp. */
export interface ModelReference {
  /** Catalog id, GGUF path or `hf:` reference. Default: the best model present, else the default model, pulled now. */
  name?: string;
  /** CPU threads for the model. Default: llama.cpp's choice for this process. */
  threads?: number;
  /** Conversations held at once (one per concurrent run). Default the backend's (2). */
  maxConversations?: number;
  /** Show a progress bar on stderr while pulling. Default false. */
  progress?: boolean;
  /** Where models are kept. Default under BOTPSY_HOME. */
  directory?: string;
  /**
   * A LoRA adapter (GGUF, from `botpsy tune train`) applied on the model;
   * refused when it was trained on another base. Default: the adapter botpsy
   * ships for a catalog model, if any; "none" loads the model untuned.
   */
  lora?: string;
  /** The logit offset on opening a call where the model may answer in words (`LlamaChatModelOptions.callBias`). Default: the adapter's recorded calibration, else 0. */
  callBias?: number;
  /** The floor of forced calls (`LlamaChatModelOptions.forcedCallFloor`); null for none. Default: the adapter's recorded one, else none. */
  forcedCallFloor?: number | null;
  /** Who decides which optional parameters a call writes (`LlamaChatModelOptions.optionalArguments`). Default "written". */
  optionalArguments?: OptionalArguments;
}

/** Where a model reference points: the file, and the id results and reports name it by. */
export interface LocatedModel {
  id: string;
  path: string;
  /** The catalog's chat format for it, when the catalog knows one other than the template's own. */
  chatFormat?: ChatFormatName;
  /** Whether the file was pulled just now. */
  pulled: boolean;
  /** The catalog entry the name resolved to, when it is one. */
  entry?: CatalogEntry;
}

/**
 * The one model resolution of every command: a name is resolved through the
 * catalog (or as a path or `hf:` reference) and pulled when the catalog
 * knows where to get it; no name means the best model present, else the
 * default model, pulled on first use. A path that does not exist is an error.
 */
export async function locateModel(reference: Pick<ModelReference, "name" | "progress" | "directory"> = {}): Promise<LocatedModel> {
  const location: ModelLocationOptions = reference.directory !== undefined ? { directory: reference.directory } : {};
  const name = reference.name ?? bestPresentModel(location)?.name ?? SMOLLM2_ID;
  const { path, resolved, pulled } = await ensureModelFile(name, { ...location, progress: reference.progress ?? false });
  const catalogFormat = resolved.kind === "catalog" ? resolved.entry?.chatFormat : undefined;
  const id = resolved.kind === "catalog" ? resolved.entry!.id : (path.split(/[\\/]/).at(-1) ?? path).replace(/\.gguf$/i, "");
  return {
    id,
    path,
    pulled: pulled !== undefined,
    ...(catalogFormat !== undefined && catalogFormat !== "native" ? { chatFormat: catalogFormat } : {}),
    ...(resolved.kind === "catalog" && resolved.entry !== undefined ? { entry: resolved.entry } : {}),
  };
}

/** Load a located model on llama.cpp, with the adapter asked for or, by default, the one botpsy ships for it. The model's id names the adapter. */
export async function loadLocatedModel(
  located: LocatedModel,
  reference: Pick<ModelReference, "threads" | "maxConversations" | "lora" | "callBias" | "forcedCallFloor" | "optionalArguments"> & { baseSha256?: string } = {},
): Promise<LlamaChatModel> {
  const { lora, callBias, forcedCallFloor } = await adapterForLoad(reference, located.entry, located.path, reference.baseSha256);
  return LlamaChatModel.load({
    modelPath: located.path,
    id: tunedModelId(located.id, lora, callBias, forcedCallFloor, reference.optionalArguments),
    ...(reference.optionalArguments !== undefined ? { optionalArguments: reference.optionalArguments } : {}),
    ...(callBias !== 0 ? { callBias } : {}),
    ...(forcedCallFloor !== undefined ? { forcedCallFloor } : {}),
    ...(located.chatFormat !== undefined ? { chatFormat: located.chatFormat } : {}),
    ...(reference.threads !== undefined ? { threads: reference.threads } : {}),
    ...(reference.maxConversations !== undefined ? { maxConversations: reference.maxConversations } : {}),
    ...(lora !== undefined ? { lora } : {}),
  });
}

/** Resolve and load a model: `locateModel`, then `loadLocatedModel`. */
export async function loadModel(reference: ModelReference = {}): Promise<LlamaChatModel> {
  return loadLocatedModel(await locateModel(reference), reference);
}

/** The agent's own options a caller may set; the assembly sets the model, the world, the tools and the gate. */
export type RuntimeAgentOptions = Omit<AgentOptions, "model" | "profile" | "toolbox" | "gate" | "afterModelTurn" | "formatToolResult">;

export interface RuntimeOptions {
  /** The user's world: its store, apps and clock. */
  profile: Profile;
  /** A loaded model (the runtime does not own it), or a reference to resolve and load (then `close` disposes of it). */
  model: ChatModel | ModelReference;
  /**
   * The permission rules and injection defenses. Default: the safety layer
   * with the profile's policy file (`BOTPSY_HOME/policy.json`, else the
   * defaults). `{ approveAll: true }` puts no safety layer in: every call of
   * the given risks runs without asking (default every risk), results go in
   * as data — how the apps suite measures the model alone.
   */
  safety?: SafetyLayerOptions | { approveAll: true; risks?: readonly Risk[] };
  /**
   * Run every call without asking while keeping the safety layer's fences and
   * result format, so the prompts are exactly the shipped agent's (training
   * trajectories are the approved path). Default false.
   */
  approveEveryCall?: boolean;
  /** The tools offered. Default: every tool of the profile's apps. */
  tools?: readonly Tool[];
  /** How the ToolBox narrows a large tool list per turn (threshold, retrieval limit). Default: the ToolBox's. */
  toolSelection?: ToolBoxOptions;
  agent?: RuntimeAgentOptions;
}

/** An assembled runtime: the parts, and runs that go through the safety layer. */
export interface Runtime {
  readonly profile: Profile;
  readonly model: ChatModel;
  readonly toolbox: ToolBox;
  readonly gate: PermissionGate;
  /** Undefined when the runtime approves every call (`safety: { approveAll: true }`). */
  readonly safety: SafetyLayer | undefined;
  readonly agent: Agent;
  run(request: string, options?: RunOptions): AgentRun;
  /** Record the user's decisions (through the safety layer, when there is one) and continue the paused run. */
  resume(runId: string, decisions: readonly ApprovalDecision[]): AgentRun;
  /** Dispose of the model when the runtime loaded it; the profile stays the caller's. */
  close(): Promise<void>;
}

function isChatModel(model: ChatModel | ModelReference): model is ChatModel {
  return typeof (model as Partial<ChatModel>).generate === "function";
}

/** Assemble a runtime around a loaded model. */
export function assembleRuntime(options: RuntimeOptions & { model: ChatModel }): Runtime {
  return assemble(options, options.model, false);
}

/** Assemble a runtime, resolving and loading the model when given a reference (see `locateModel`). */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  if (isChatModel(options.model)) return assemble(options, options.model, false);
  const model = await loadModel(options.model);
  try {
    return assemble(options, model, true);
  } catch (error) {
    await model.dispose();
    throw error;
  }
}

function assemble(options: RuntimeOptions, model: ChatModel, ownsModel: boolean): Runtime {
  const { profile } = options;
  const toolbox = new ToolBox(options.tools ?? profile.tools(), options.toolSelection);
  const safetyOptions = options.safety ?? {};
  let safety: SafetyLayer | undefined;
  let gate: PermissionGate;
  if ("approveAll" in safetyOptions) {
    if (safetyOptions.approveAll !== true) throw new InvalidInputError("safety.approveAll must be true when given.", { code: "invalid_option" });
    gate = new RiskGate({ allow: safetyOptions.risks ?? RISKS });
  } else {
    safety = createSafetyLayer(profile, safetyOptions);
    gate = options.approveEveryCall === true ? new RiskGate({ allow: RISKS }) : safety.gate;
  }
  const agent = new Agent({
    ...options.agent,
    model,
    profile,
    toolbox,
    gate,
    ...(safety ? { afterModelTurn: safety.afterModelTurn, formatToolResult: safety.formatToolResult } : {}),
  });
  return {
    profile,
    model,
    toolbox,
    gate,
    safety,
    agent,
    run: (request, runOptions) => agent.run(request, runOptions),
    resume: (runId, decisions) => (safety ? safety.resume(agent, runId, decisions) : agent.resume(runId, decisions)),
    async close() {
      if (ownsModel) await model.dispose();
    },
  };
}
