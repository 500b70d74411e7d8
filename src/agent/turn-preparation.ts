import type { ChatMessage, ToolChoice, ToolSpec } from "../model/types.js";
import { escapeRegExp } from "../policy/provenance.js";
import { FIND_TOOLS_NAME } from "../tools/find-tools.js";
import { routeToolChoice, type ToolRouterOptions } from "../tools/router.js";
import { toolSpec } from "../tools/tool.js";
import type { ToolBox } from "../tools/toolbox.js";
import { UNGROUNDED_CODE } from "./argument-grounding.js";
import { pruneToolSpecs, type ArgumentPruningOptions } from "./argument-pruning.js";
import { compactTurns, type CompactionOptions } from "./compaction.js";
import type { RunState } from "./run-state.js";
import type { CallRecord } from "./types.js";
import { buildSystemPrompt } from "./system-prompt.js";
import type { AgentWorld } from "./world.js";

/** The options that shape what a model turn is shown (the agent's options of the same names). */
export interface TurnPreparationOptions {
  argumentPruning?: ArgumentPruningOptions | false;
  firstStepToolChoice?: ToolChoice | "route";
  router?: ToolRouterOptions;
  forcedTurnTools?: number | false;
  /** The tool choice of every turn (`generation.toolChoice`); any but "auto" is the caller's decision, kept on the first turn too. */
  generationToolChoice?: ToolChoice;
  /** Keep the model on the path after a failed call (see `recoveryChoice`; default true); false leaves later turns free. */
  recoveryRouting?: boolean;
  /** After a failed call and a fix that worked, hold the next turn to the failed call (see `resumeChoice`; default false); needs `recoveryRouting`. */
  resumeAfterRecovery?: boolean;
  /** After a turn whose calls all succeeded, hold the next turn to the tool a part of the request not yet served points at (see `continuationChoice`; default true). */
  continuationRouting?: boolean;
}

/** Failures after which the model is no longer held to a call: it should tell the user what went wrong. */
const MAX_RECOVERY_TURNS = 2;
/** Failures no call of the model can fix: a stop, a timeout, a tool's own crash, values only the user can give. */
const UNRECOVERABLE = new Set(["aborted", "tool_timeout", "tool_failed", UNGROUNDED_CODE]);

/** A failure the model can act on: an error it may fix by calling, not a decline, a stop or a crash. */
function recoverable(record: CallRecord): boolean {
  return record.status === "error" && record.error !== undefined && !UNRECOVERABLE.has(record.error.code);
}

/** Whether the run has failed on more steps than the loop holds the model to a call for. */
function recoveryTurnsSpent(calls: readonly CallRecord[], step: number): boolean {
  const failedSteps = new Set(calls.filter((record) => record.step < step && recoverable(record)).map((record) => record.step));
  return failedSteps.size > MAX_RECOVERY_TURNS;
}

/**
 * The tool choice of the turn after a failed call, when the failure says how
 * to fix it: a small model left free after an error mostly writes nothing and
 * the task stays undone. When every call of the previous turn failed with an
 * error the model can act on, the next turn must call — the one offered tool
 * the error names ("turn it on with set_wifi"), `find_tools` when the tool it
 * names is not offered this turn, else the failed tool again with the error
 * in view. Never more than twice in a run, never when the
 * caller fixed the choice, and never for a call the user or a rule declined.
 */
export function recoveryChoice(
  calls: readonly CallRecord[],
  step: number,
  callable: readonly ToolSpec[],
  options: TurnPreparationOptions,
  isKnownTool: (name: string) => boolean = () => false,
): ToolChoice | undefined {
  if (options.recoveryRouting === false || step < 2) return undefined;
  if (options.generationToolChoice !== undefined && options.generationToolChoice !== "auto") return undefined;
  const previous = calls.filter((record) => record.step === step - 1);
  if (previous.length === 0 || !previous.every(recoverable)) return undefined;
  if (recoveryTurnsSpent(calls, step)) return undefined;
  const failed = previous[previous.length - 1]!;
  const names = new Set(callable.map((tool) => tool.name));
  const named = [...names].filter((name) => name !== failed.call.name && new RegExp(`\\b${escapeRegExp(name)}\\b`).test(failed.error!.message));
  if (named.length === 1) return { name: named[0]! };
  // The fix is a tool this turn does not offer (the ToolBox retrieved others): the model must find it first.
  const unoffered = [...failed.error!.message.matchAll(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g)].some(([word]) => !names.has(word) && isKnownTool(word));
  if (named.length === 0 && unoffered && names.has(FIND_TOOLS_NAME)) return { name: FIND_TOOLS_NAME };
  return names.has(failed.call.name) ? { name: failed.call.name } : undefined;
}

/** The steps a fix may take before the failed call is retried: a search for the tool, then the tool. */
const MAX_FIX_STEPS = 2;

/**
 * The tool choice of the turn after a fix worked: a call failed with an error
 * the model could act on ("Wi-Fi is off: turn it on with set_wifi"), and every
 * call since succeeded — the fix. A small model then mostly stops as if the
 * task were done and the message is never sent; this holds the turn to the
 * failed tool again, or, when the only calls since were `find_tools`
 * searches, to a call of any offered tool (the one the search found). At most
 * two steps of fixes, never once the failed tool has been called again,
 * within the same budget of held turns as `recoveryChoice`, and never when
 * the caller fixed the choice. Off unless `resumeAfterRecovery` is true.
 */
export function resumeChoice(calls: readonly CallRecord[], step: number, callable: readonly ToolSpec[], options: TurnPreparationOptions): ToolChoice | undefined {
  if (options.recoveryRouting === false || options.resumeAfterRecovery !== true || step < 3) return undefined;
  if (options.generationToolChoice !== undefined && options.generationToolChoice !== "auto") return undefined;
  const failure = calls.findLast((record) => record.step < step - 1 && recoverable(record));
  if (failure === undefined || failure.step < step - 1 - MAX_FIX_STEPS) return undefined;
  const since = calls.filter((record) => record.step > failure.step);
  if (!since.some((record) => record.step === step - 1)) return undefined;
  if (!since.every((record) => record.status === "ok") || since.some((record) => record.call.name === failure.call.name)) return undefined;
  if (recoveryTurnsSpent(calls, step)) return undefined;
  if (since.every((record) => record.call.name === FIND_TOOLS_NAME)) return callable.length > 0 ? "required" : undefined;
  return callable.some((tool) => tool.name === failure.call.name) ? { name: failure.call.name } : undefined;
}

/**
 * The parts of a request, each of which may ask for its own action: split at
 * sentence ends, semicolons and colons, commas, "then" and "and". "Pause the
 * music and set an alarm for 6:30" is two parts; a part that names no tool
 * clearly (a list's second item, "Slow Burn") is read by the router as
 * asking for nothing, so splitting too often costs nothing.
 */
export function requestParts(request: string): string[] {
  return request
    .split(/[.;:!?]+(?:\s+|$)|,\s*|\s+(?:and\s+)?then\s+|\s+and\s+|\s+also\s+/i)
    .map((part) => part.trim().replace(/^(?:and|then|also|so)\s+/i, ""))
    .filter((part) => part !== "");
}

const QUESTION_OPENING = /^(?:what|which|who|whom|whose|when|where|why|how|is|are|am|was|were|do|does|did|can|could|will|would|should|shall|may|have|has)\b/i;

/**
 * The parts of a request that ask for an action: not its questions ("What
 * does Frank want me to bring?" asks to be told, and a tool its words match,
 * `send_email`, would act where nobody asked). A question is a sentence that
 * ends in "?" or a part that opens like one.
 */
export function requestActions(request: string): string[] {
  const questions = new Set(
    request
      .split(/(?<=[.!?])\s+/)
      .filter((sentence) => sentence.trim().endsWith("?"))
      .flatMap(requestParts),
  );
  return requestParts(request).filter((part) => !questions.has(part) && !QUESTION_OPENING.test(part));
}

/**
 * The tool choice of the turn after a turn whose calls all succeeded, when a
 * part of the request is not served yet: a small model that has done the
 * first thing asked mostly stops there ("Pause the music and set an alarm
 * for 6:30" ends after `pause_music`). Each part of the request that asks
 * for an action (`requestActions`: its questions do not) is routed as a
 * first turn is (`routeToolChoice`, on the offered tools but `find_tools`);
 * a part of which two words or more clearly point at one dominant tool that
 * no call of this run has named is not served, and the next turn is held to
 * that tool, the first such part in the request's order. A held turn calls
 * its tool, so each part holds at most one turn; never after a failed call
 * (recovery routing's case), and never when the caller fixed the choice.
 * Only the user's words count: a tool result cannot make the loop call
 * anything. On unless `continuationRouting` is false.
 */
export function continuationChoice(
  request: string,
  calls: readonly CallRecord[],
  step: number,
  callable: readonly ToolSpec[],
  options: TurnPreparationOptions,
): ToolChoice | undefined {
  if (options.continuationRouting === false || step < 2) return undefined;
  if (options.generationToolChoice !== undefined && options.generationToolChoice !== "auto") return undefined;
  const previous = calls.filter((record) => record.step === step - 1);
  if (previous.length === 0 || !previous.every((record) => record.status === "ok")) return undefined;
  const tools = callable.filter((tool) => tool.name !== FIND_TOOLS_NAME);
  const named = new Set(calls.map((record) => record.call.name));
  for (const part of requestActions(request)) {
    const route = routeToolChoice(part, tools, options.router);
    // Two of the part's own words, not one: "if it is" must not point anywhere.
    if (typeof route.toolChoice !== "object" || route.matchedTerms < 2) continue;
    const tool = route.toolChoice.name;
    if (!named.has(tool)) return { name: tool };
  }
  return undefined;
}

/** How the first turn of a request calls: the tool choice and the tools it is offered. */
export interface FirstTurn {
  toolChoice: ToolChoice;
  tools: ToolSpec[];
  /** The choice is the router's forced call (not a caller's): a model's forced-call floor may release it (`GenerateOptions.routedChoice`). */
  routed?: true;
}

/** The system message of every turn of a run: fixed lines, the clock, the caller's instructions. */
export function systemMessage(world: AgentWorld, options: { instructions?: string; promptClock?: "date-and-time" | "date" }): ChatMessage {
  return {
    role: "system",
    content: buildSystemPrompt({
      now: world.environment.now(),
      timeZone: world.environment.timeZone,
      instructions: options.instructions,
      ...(options.promptClock !== undefined ? { clock: options.promptClock } : {}),
    }),
  };
}

/** The session's earlier turns as the prompt carries them: compacted, or whole when compaction is off. */
export function sessionHistory(turns: ChatMessage[][], compaction: CompactionOptions | false | undefined): ChatMessage[] {
  return compaction === false ? turns.flat() : compactTurns(turns, compaction);
}

/**
 * The tools a turn is offered, whole (before any pruning): those the ToolBox
 * selects for the request, plus any `find_tools` loaded and any already
 * called in this run (a model that called a tool must be able to call it
 * again).
 */
export function selectedTools(toolbox: ToolBox, state: RunState): ToolSpec[] {
  const include = [...state.loadedTools, ...state.calls.map((record) => record.call.name)];
  return toolbox.select(state.request, { include }).map(toolSpec);
}

/**
 * The specs the prompt documents this turn: `selected` pruned when pruning
 * takes parameters out of the prompt too (`scope: "prompt"`) and applies to
 * this turn (`held`: the agent holds it to a call after a failure).
 */
export function offeredForms(selected: ToolSpec[], state: RunState, step: number, options: TurnPreparationOptions, held = false): ToolSpec[] {
  const pruning = options.argumentPruning;
  if (pruning === false || (pruning?.scope ?? "call") === "call") return selected;
  return turnForms(selected, state, step, pruning, held);
}

/**
 * The forms of the offered tools the model may call this turn, when argument
 * pruning takes parameters out of the call only (`scope: "call"`); undefined
 * when the offered specs are what the model may call.
 */
export function callableForms(offered: ToolSpec[], state: RunState, step: number, options: TurnPreparationOptions, held = false): ToolSpec[] | undefined {
  const pruning = options.argumentPruning;
  if (pruning === false || (pruning?.scope ?? "call") !== "call") return undefined;
  const forms = turnForms(offered, state, step, pruning, held);
  return forms === offered ? undefined : forms;
}

/** What pruning keeps parameters for: the request, and on later turns the results, which may name a value the next call needs ("turn it on with set_wifi(on=true)"). */
function pruningWords(state: RunState): string {
  const results = state.turnMessages.flatMap((message) => (message.role === "tool" ? [message.content] : []));
  return [state.request, ...results].join("\n");
}

/**
 * The turns pruned by default: the first and those held to a call after a
 * failure. Chosen on the apps dev split with botpsy-v3: 43 of 151 cases pass
 * either way; with the recovery turns pruned, 73 calls failed against 81, and
 * in 5 cases a call made after a failure succeeded where it had failed again
 * with an invented value (a `repeat` of "24", a `limit` of 1000), in none the
 * other way round.
 */
const DEFAULT_PRUNED_TURNS = "recovery";

function turnForms(specs: ToolSpec[], state: RunState, step: number, pruning: ArgumentPruningOptions | undefined, held: boolean): ToolSpec[] {
  // A held turn is never the first: it follows a failed call (recovery) or a successful one (continuation).
  if (held && (pruning?.turns ?? DEFAULT_PRUNED_TURNS) === "recovery") return heldTurnForms(specs, state.request, state.calls.filter((record) => record.step === step - 1));
  return pruneTurnArguments(specs, pruningWords(state), step, pruning);
}

/**
 * The forms of a turn held to a call after `failures` (`turns: "recovery"`):
 * pruned against the request, as the first turn was, so a value the model
 * invented for a parameter the request has no word for (and that may be what
 * failed) cannot be written again; plus the parameters an error names that
 * the failed call did not carry ("pass force=true"), which are the fix. The
 * errors' other words do not count: "names no time of day" must not bring
 * back `repeat` ("Days to repeat").
 */
export function heldTurnForms(specs: ToolSpec[], request: string, failures: readonly CallRecord[]): ToolSpec[] {
  return pruneToolSpecs(specs, request).map((spec, index) => {
    const whole = specs[index]!;
    if (spec === whole) return spec;
    const pruned = spec.parameters.properties as Record<string, unknown>;
    const named = (name: string): boolean =>
      failures.some(
        (record) =>
          record.error !== undefined &&
          new RegExp(`(?<![\\w-])${escapeRegExp(name)}(?![\\w-])`).test(record.error.message) &&
          !(record.call.name === spec.name && Object.hasOwn(record.call.arguments, name)),
      );
    // In the whole spec's order: what pruning kept, and what an error asks for.
    const kept = Object.entries(whole.parameters.properties as Record<string, unknown>).filter(([name]) => name in pruned || named(name));
    if (kept.length === Object.keys(pruned).length) return spec;
    return { ...spec, parameters: { ...spec.parameters, properties: Object.fromEntries(kept) } };
  });
}

/**
 * Removes the optional parameters the words have nothing for (see
 * `pruneToolArguments`): on the first turn, on every turn with
 * `turns: "all"`, never with `false` (`turns: "recovery"`, the default, adds
 * the turns held to a call after a failure: `heldTurnForms`).
 */
export function pruneTurnArguments(specs: ToolSpec[], words: string, step: number, pruning: ArgumentPruningOptions | false | undefined): ToolSpec[] {
  const options = pruning ?? {};
  if (options === false) return specs;
  if ((options.turns ?? DEFAULT_PRUNED_TURNS) !== "all" && step > 1) return specs;
  return pruneToolSpecs(specs, words);
}

/**
 * The tool choice of a request's first turn, and the tools that turn is
 * offered. "route" (the default) forces a call when the request's own words
 * clearly point at an offered tool (naming it when one dominates) and leaves
 * the choice free otherwise; `forcedTurnTools` narrows a forced turn that
 * names no tool to the router's best few.
 */
export function firstTurnChoice(request: string, tools: ToolSpec[], options: TurnPreparationOptions): FirstTurn {
  const configured = options.firstStepToolChoice ?? "route";
  if (configured !== "route") return { toolChoice: configured, tools };
  const generationChoice = options.generationToolChoice;
  if (generationChoice !== undefined && generationChoice !== "auto") return { toolChoice: generationChoice, tools };
  const route = routeToolChoice(request, tools, options.router);
  const narrowTo = options.forcedTurnTools ?? false;
  const routed = route.toolChoice !== "auto" && route.toolChoice !== "none" ? ({ routed: true } as const) : {};
  if (route.toolChoice !== "required" || narrowTo === false) return { toolChoice: route.toolChoice, tools, ...routed };
  // A forced call among a few close candidates: the rest (and find_tools) only give a small model more ways to be wrong.
  const candidates = new Set(route.ranked.filter((name) => name !== FIND_TOOLS_NAME).slice(0, narrowTo));
  const narrowed = tools.filter((tool) => candidates.has(tool.name));
  return { toolChoice: "required", tools: narrowed.length > 0 ? narrowed : tools, ...routed };
}

/**
 * Everything the agent does to the first turn of a request, for a caller that
 * builds its own turn (a benchmark that offers its own tool specs): argument
 * pruning of the specs against the request, then the first-turn tool choice.
 */
export function prepareFirstTurn(request: string, tools: readonly ToolSpec[], options: TurnPreparationOptions): FirstTurn {
  const pruned = pruneTurnArguments([...tools], request, 1, options.argumentPruning);
  return firstTurnChoice(request, pruned, options);
}
