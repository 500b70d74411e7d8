import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PERSONA } from "../apps/persona.js";
import { Profile } from "../apps/profile.js";
import { errorMessage, InvalidInputError } from "../errors.js";
import { isForcedChoice, type ChatMessage, type GenerateRequest, type ToolChoice } from "../model/types.js";
import { Policy } from "../policy/policy.js";
import { assembleRuntime } from "../runtime.js";
import { ScriptedModel, type ScriptedReply } from "../testing/scripted-model.js";
import { toolSpec, type Tool } from "../tools/tool.js";
import { FIND_TOOLS_NAME } from "../tools/find-tools.js";
import { EvaluationIndex, OVERLAP_NGRAM, type OverlapFinding } from "./disjointness.js";
import { SeededRandom } from "./random.js";
import { isRecipeSetName, RECIPE_SET_FORCED_TURNS, RECIPE_SET_NAMES, RECIPE_SETS, trainedAsFreeTurn, type ExampleKind, type ForcedTurnTraining, type ObservedResult, type Recipe, type RecipeClock, type RecipeSetName } from "./recipes.js";
import type { RenderedSequence, TrainingRenderer } from "./render.js";

/** One line of the training file. */
export interface TrainingExample {
  id: string;
  recipe: string;
  kind: ExampleKind;
  request: string;
  /** The profile clock the request was made against. */
  clock: string;
  timeZone: string;
  /** The whole conversation as the agent kept it, final answer included (the messages/tools form). */
  messages: ChatMessage[];
  /** Names of the tools offered on each model turn (the ToolBox's retrieved subset). */
  offeredTools: string[][];
  /** The tool choice of each model turn (the router may force a call on the first). */
  toolChoices: Array<ToolChoice | null>;
  /** Specs of the tools offered on the first turn. */
  tools: Array<{ name: string; description: string; parameters: unknown }>;
  /** What each call returned from the real app. */
  calls: ObservedResult[];
  /** Chat format the sequences were rendered in. */
  format: string;
  /** The model whose tokenizer made the token ids (training refuses another base). */
  tokenizer: { fileName: string; sha256: string };
  /** One per model turn: the prompt as inference renders it and the tokens to learn. */
  sequences: RenderedSequence[];
}

export type DropReason = "overlap" | "tool-not-offered" | "router-conflict" | "run-failed";

export interface BuildReport {
  /** The recipe set drawn from; absent when the caller gave its own recipes. */
  recipeSet?: RecipeSetName;
  examples: TrainingExample[];
  attempted: number;
  dropped: Record<DropReason, number>;
  overlaps: OverlapFinding[];
  /** Texts checked against the evaluation sets (requests, answers, written argument strings). */
  checkedTexts: number;
  ngram: number;
  byKind: Record<string, number>;
  byTool: Record<string, number>;
}

export interface BuildOptions {
  count: number;
  seed: number;
  renderer: TrainingRenderer;
  /** The base model the renderer loaded (recorded in every example). */
  tokenizer: { fileName: string; sha256: string };
  index: EvaluationIndex;
  /** Called after each example (kept or dropped). */
  onProgress?: (done: number, total: number) => void;
  /** The recipe set to draw from (see RECIPE_SETS). Default "v3". */
  recipeSet?: RecipeSetName;
  /** Only these recipes (tests); when given, `recipeSet` is not used. */
  recipes?: readonly Recipe[];
  /** How router-forced turns are trained. Default: the recipe set's rule (`RECIPE_SET_FORCED_TURNS`); with `recipes`, "prefix-in-context". */
  forcedTurns?: ForcedTurnTraining;
}

const TIME_ZONE = PERSONA.timeZone;
/** Clocks are drawn from this year, away from the evaluation suites' fixed dates. */
const CLOCK_BASE = Date.UTC(2027, 2, 1, 8, 0, 0);

function recipeClock(instant: Date): RecipeClock {
  const dateOf = (offsetDays: number): string => {
    const shifted = new Date(instant.getTime() + offsetDays * 86_400_000);
    return new Intl.DateTimeFormat("en-CA", { timeZone: TIME_ZONE, year: "numeric", month: "2-digit", day: "2-digit" }).format(shifted);
  };
  return {
    today: dateOf(0),
    plusDays: dateOf,
    weekday: (date) => new Intl.DateTimeFormat("en-US", { weekday: "long", timeZone: "UTC" }).format(new Date(`${date}T12:00:00Z`)),
  };
}

/**
 * Builds training examples by running botpsy's own agent on a fresh demo
 * profile per example, with a scripted model that plays the right turns:
 * the tools offered are the ToolBox's selection for the request, the results
 * are the apps' real results, and each turn's prompt is rendered by the
 * inference code. Examples that touch an evaluation set are dropped.
 */
export async function buildTrainingSet(options: BuildOptions): Promise<BuildReport> {
  const random = new SeededRandom(options.seed);
  // The fences around untrusted results take their boundaries from the seed too (at inference they are
  // random): a recipe set and seed make the same file, byte for byte. A generator of their own leaves the
  // draws of requests and values as they were.
  const fences = new SeededRandom(options.seed ^ 0x5eed_f3c3);
  const fenceBoundaries = (): string => fences.integer(0, 0xffff_ffff).toString(16).padStart(8, "0");
  const recipeSet = options.recipeSet ?? "v3";
  if (!isRecipeSetName(recipeSet)) {
    throw new InvalidInputError(`Recipe set "${String(recipeSet)}" is unknown: choose one of ${RECIPE_SET_NAMES.join(", ")}.`, { code: "invalid_option" });
  }
  const recipes = options.recipes ?? RECIPE_SETS[recipeSet];
  const forcedTurns = options.forcedTurns ?? (options.recipes === undefined ? RECIPE_SET_FORCED_TURNS[recipeSet] : "prefix-in-context");
  const report: BuildReport = {
    ...(options.recipes === undefined ? { recipeSet } : {}),
    examples: [],
    attempted: 0,
    dropped: { overlap: 0, "tool-not-offered": 0, "router-conflict": 0, "run-failed": 0 },
    overlaps: [],
    checkedTexts: 0,
    ngram: OVERLAP_NGRAM,
    byKind: {},
    byTool: {},
  };
  const scratch = mkdtempSync(join(tmpdir(), "botpsy-tune-"));
  try {
    // Each round draws every recipe as many times as its weight, in a seeded order: small sets still mix the kinds.
    const round = drawsPerRound(recipes);
    // Tries up to three times the count: some drawings are dropped (overlap, a tool the retrieval missed).
    let order: Recipe[] = [];
    for (let attempt = 0; report.examples.length < options.count && attempt < options.count * 3; attempt++) {
      report.attempted++;
      if (attempt % round.length === 0) order = random.shuffle(round);
      const recipe = order[attempt % round.length]!;
      const instant = new Date(CLOCK_BASE + random.integer(0, 240) * 86_400_000 + random.integer(0, 11) * 3_600_000);
      const built = await buildExample(recipe, random, instant, join(scratch, `profile-${attempt}`), { ...options, fenceBoundaries, forcedTurns }, report);
      if (built !== undefined) {
        report.examples.push(built);
        report.byKind[built.kind] = (report.byKind[built.kind] ?? 0) + 1;
        for (const call of built.calls) report.byTool[call.name] = (report.byTool[call.name] ?? 0) + 1;
      }
      options.onProgress?.(report.examples.length, options.count);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return report;
}

/** One round of drawing: each recipe `weight` times (default 1). */
export function drawsPerRound(recipes: readonly Recipe[]): Recipe[] {
  return recipes.flatMap((recipe) => {
    const weight = recipe.weight ?? 1;
    if (!Number.isInteger(weight) || weight < 1) throw new InvalidInputError(`Recipe ${recipe.id} has weight ${weight}: give a whole number, 1 or more.`);
    return Array.from({ length: weight }, () => recipe);
  });
}

async function buildExample(
  recipe: Recipe,
  random: SeededRandom,
  instant: Date,
  directory: string,
  options: BuildOptions & { fenceBoundaries: () => string; forcedTurns: ForcedTurnTraining },
  report: BuildReport,
): Promise<TrainingExample | undefined> {
  const clock = recipeClock(instant);
  const instance = recipe.build(random, clock);
  const profile = Profile.open({ home: directory, databasePath: join(directory, "profile.db"), seed: "demo", clock: instant.toISOString(), timeZone: TIME_ZONE });
  try {
    if (instance.prepare !== undefined) await instance.prepare(profile);
    const observed: ObservedResult[] = [];
    const tools = (instance.tools ?? profile.tools()).map((tool) => observedTool(tool, observed));
    const replies: ScriptedReply[] = [];
    const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
    const searched = new Set<string>();
    let planIndex = 0;
    let conflict: DropReason | undefined;
    const model = new ScriptedModel(
      [
        (request: GenerateRequest) => {
          const planned = instance.turns[planIndex];
          let reply: ScriptedReply = planned === undefined ? { text: "Done." } : planned(observed);
          const offered = new Set((request.tools ?? []).map((tool) => tool.name));
          const missing = (reply.toolCalls ?? []).find((call) => !offered.has(call.name));
          if (missing !== undefined && offered.has(FIND_TOOLS_NAME) && !searched.has(missing.name)) {
            // As at inference: a tool the retrieval left out is found with find_tools, then called.
            searched.add(missing.name);
            reply = { toolCalls: [{ name: FIND_TOOLS_NAME, arguments: { query: searchQueryFor(missing.name, toolsByName.get(missing.name)?.description) } }] };
          } else {
            planIndex++;
          }
          for (const call of reply.toolCalls ?? []) if (!offered.has(call.name)) conflict ??= "tool-not-offered";
          const choice = request.toolChoice;
          if (typeof choice === "object" && (reply.toolCalls ?? []).some((call) => call.name !== choice.name)) conflict ??= "router-conflict";
          // An answer in words to the router's forced guess is what a forced-call floor lets through: kept where the set trains those turns.
          const releasable = trainedAsFreeTurn(request, options.forcedTurns);
          if (isForcedChoice(choice) && (reply.toolCalls ?? []).length === 0 && !releasable) conflict ??= "router-conflict";
          // A turn that could not happen at inference ends the run here.
          const played = conflict === undefined ? reply : { text: "Stopped." };
          replies.push(played);
          return played;
        },
      ],
      { whenExhausted: "repeat-last" },
    );
    const runtime = assembleRuntime({
      profile,
      model,
      tools,
      safety: { policy: Policy.defaultPolicy(), audit: false, fenceBoundaries: options.fenceBoundaries },
      // The trajectory is the approved path: nothing pauses for a person.
      approveEveryCall: true,
      // Room for a find_tools turn before each planned call, and one more turn. The recipes
      // write values drawn from the profile as a ground truth does (the fuel that fits, a
      // contact's address), which argument grounding would refuse: it is off here, so a recipe
      // and seed still make the same data (the shipped adapters record its sha256).
      agent: { maxSteps: 2 * instance.turns.length + 1, argumentGrounding: false },
    });
    const outcome = await runtime.run(instance.request).outcome;
    if (conflict !== undefined) {
      report.dropped[conflict]++;
      return undefined;
    }
    if (outcome.stopReason === "error" || outcome.error !== undefined) {
      report.dropped["run-failed"]++;
      return undefined;
    }
    // The user's own tools are written here too: their documents must not be an evaluation set's.
    const ownDocuments = (instance.tools ?? []).flatMap((tool) => [tool.description, ...descriptionsIn(toolSpec(tool).parameters)]);
    const authored = [instance.request, ...ownDocuments, ...replies.map((reply) => reply.text ?? ""), ...replies.flatMap((reply) => (reply.toolCalls ?? []).flatMap((call) => stringValues(call.arguments)))].filter(
      (text) => text.trim() !== "",
    );
    report.checkedTexts += authored.length;
    for (const text of authored) {
      const finding = options.index.overlap(text);
      if (finding !== undefined) {
        report.dropped.overlap++;
        report.overlaps.push(finding);
        return undefined;
      }
    }
    const sequences = model.requests.map((request, index) => options.renderer.render({ request, reply: replies[index]! }, { forcedTurns: options.forcedTurns }));
    const lastRequest = model.requests[model.requests.length - 1]!;
    const lastReply = replies[replies.length - 1]!;
    const firstTools = model.requests[0]?.tools ?? [];
    return {
      id: `${recipe.id}-${report.attempted}`,
      recipe: recipe.id,
      kind: recipe.kind,
      request: instance.request,
      clock: instant.toISOString(),
      timeZone: TIME_ZONE,
      messages: [...lastRequest.messages, { role: "assistant", content: lastReply.text ?? "" }],
      offeredTools: model.requests.map((request) => (request.tools ?? []).map((tool) => tool.name)),
      toolChoices: model.requests.map((request) => request.toolChoice ?? null),
      tools: firstTools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
      // Every call as the agent ran it (find_tools included), with the app's real value or error.
      calls: outcome.calls.map((record) => ({
        name: record.call.name,
        arguments: record.call.arguments,
        ok: record.status === "ok",
        ...(record.status === "ok" ? { value: record.result } : { error: record.error ?? { code: record.status, message: record.status } }),
      })),
      format: options.renderer.format.name,
      tokenizer: options.tokenizer,
      sequences,
    };
  } catch (error) {
    report.dropped["run-failed"]++;
    process.emitWarning(`training example ${recipe.id} failed: ${errorMessage(error)}`);
    return undefined;
  } finally {
    profile.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The same tool, recording what its real run returned (dry runs for previews are not results). */
function observedTool(tool: Tool, observed: ObservedResult[]): Tool {
  return {
    ...tool,
    run: async (args, context) => {
      try {
        const value = await tool.run(args, context);
        if (!context.dryRun) observed.push({ name: tool.name, arguments: args as Record<string, unknown>, ok: true, value });
        return value;
      } catch (error) {
        if (!context.dryRun) {
          const code = typeof (error as { code?: unknown }).code === "string" ? (error as { code: string }).code : "error";
          observed.push({ name: tool.name, arguments: args as Record<string, unknown>, ok: false, error: { code, message: errorMessage(error) } });
        }
        throw error;
      }
    },
  };
}

/** What a person would search for to find a tool: its name in words and the start of its description. */
function searchQueryFor(name: string, description: string | undefined): string {
  const words = (description ?? "").split(/[.:(]/)[0]!.trim().split(/\s+/).slice(0, 6).join(" ");
  return words === "" ? name.replaceAll("_", " ") : words.toLowerCase();
}

/** The `description` texts of a JSON schema, nested ones included. */
function descriptionsIn(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(descriptionsIn);
  if (typeof schema !== "object" || schema === null) return [];
  return Object.entries(schema).flatMap(([key, value]) => (key === "description" && typeof value === "string" ? [value] : descriptionsIn(value)));
}

function stringValues(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringValues);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(stringValues);
  return [];
}
