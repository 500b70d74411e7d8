import { pruneToolSpecs } from "../../agent/argument-pruning.js";
import { routeToolChoice } from "../../tools/router.js";
import { addUsage, emptyUsage, type ChatMessage, type ChatModel, type GenerateOptions, type ToolSpec, type Usage } from "../../model/types.js";
import { type AstCheckResult, type BfclModelCall, checkAst } from "./ast-checker.js";
import { type BfclCase, type BfclMultiTurnCase, type BfclSingleTurnCase, loadBfclCategory } from "./loader.js";
import { ADDITIONAL_FUNCTIONS_PROMPT, MAXIMUM_STEPS_PER_TURN, MultiTurnChecker, type TurnCheck } from "./multi-turn.js";
import { ToolNameMap, toToolSpec } from "./schema.js";

/** Generation settings for every request of a run (greedy by default, as the model layer defaults). */
export type BfclGenerateOptions = Omit<GenerateOptions, "toolChoice" | "conversationId">;

export interface RunBfclCaseOptions {
  model: ChatModel;
  options?: BfclGenerateOptions;
  /** Default 20, the leaderboard's limit. */
  maxStepsPerTurn?: number;
  /**
   * Prune optional parameters the user's words say nothing about from the
   * tools of a turn's first request, as the agent does (default true; see
   * `pruneToolArguments`). The checks still use the full function documents.
   */
  pruneArguments?: boolean;
  signal?: AbortSignal;
}

export interface BfclCaseResult {
  id: string;
  category: string;
  valid: boolean;
  /** Why the case failed (`wrong_count`, `multi_turn:instance_state_mismatch`, `model_error`…). */
  errorType?: string;
  errors: string[];
  /** The model's calls per turn, under their BFCL names. */
  calls: BfclModelCall[][];
  /** Per-turn checks (multi-turn only; stops at the first failing turn). */
  turns?: TurnCheck[];
  /** Model requests made. */
  steps: number;
  usage: Usage;
  durationMs: number;
}

/**
 * Runs one BFCL case against a model: single-turn cases get one request with
 * the case's tools and an AST check; multi-turn cases loop per turn (model →
 * calls executed on the API instances → results back) until the model answers
 * without a call or hits 20 steps, with the state and response checks after
 * each turn.
 */
export async function runBfclCase(caseData: BfclCase, settings: RunBfclCaseOptions): Promise<BfclCaseResult> {
  const started = performance.now();
  const base = { id: caseData.id, category: caseData.category };
  try {
    const outcome = caseData.kind === "single-turn" ? await runSingleTurn(caseData, settings) : await runMultiTurn(caseData, settings);
    return { ...base, ...outcome, durationMs: performance.now() - started };
  } catch (error) {
    if (settings.signal?.aborted) throw error;
    return {
      ...base,
      valid: false,
      errorType: "model_error",
      errors: [error instanceof Error ? error.message : String(error)],
      calls: [],
      steps: 0,
      usage: emptyUsage(),
      durationMs: performance.now() - started,
    };
  }
}

type Outcome = Omit<BfclCaseResult, "id" | "category" | "durationMs">;

function userText(messages: readonly { role: string; content: string }[]): string {
  return messages
    .filter((message) => message.role === "user")
    .map((message) => message.content)
    .join("\n");
}

function toChatMessages(messages: BfclCase["question"][number]): ChatMessage[] {
  return messages.map((message) => ({ role: message.role, content: message.content }) as ChatMessage);
}

async function runSingleTurn(caseData: BfclSingleTurnCase, settings: RunBfclCaseOptions): Promise<Outcome> {
  const names = new ToolNameMap(caseData.functions.map((doc) => doc.name));
  const tools = caseData.functions.map((doc) => toToolSpec(doc, names, { language: caseData.language }));
  const request = userText(caseData.question.flat());
  const generation = settings.model.generate({
    ...settings.options,
    signal: settings.signal,
    messages: caseData.question.flatMap(toChatMessages),
    tools: settings.pruneArguments === false ? tools : pruneToolSpecs(tools, request),
    toolChoice: routeToolChoice(request, tools).toolChoice,
  });
  const result = await generation.result;
  const calls = result.toolCalls.map((call) => ({ name: names.functionName(call.name), arguments: call.arguments }));
  const check: AstCheckResult = checkAst({
    category: caseData.category,
    language: caseData.language,
    functions: caseData.functions,
    groundTruth: caseData.groundTruth,
    calls,
  });
  return { valid: check.valid, errorType: check.errorType, errors: check.errors, calls: [calls], steps: 1, usage: result.usage };
}

async function runMultiTurn(caseData: BfclMultiTurnCase, settings: RunBfclCaseOptions): Promise<Outcome> {
  const maxSteps = settings.maxStepsPerTurn ?? MAXIMUM_STEPS_PER_TURN;
  const names = new ToolNameMap(caseData.functions.map((doc) => doc.name));
  const heldBack = new Set(Object.values(caseData.missedFunctions).flat());
  const offered: ToolSpec[] = caseData.functions.filter((doc) => !heldBack.has(doc.name)).map((doc) => toToolSpec(doc, names));
  const checker = new MultiTurnChecker(caseData);
  const conversationId = `bfcl-${caseData.id}-${Math.random().toString(36).slice(2)}`;
  const messages: ChatMessage[] = [];
  const calls: BfclModelCall[][] = [];
  const turns: TurnCheck[] = [];
  let usage = emptyUsage();
  let steps = 0;
  let callCounter = 0;
  try {
    for (let turnIndex = 0; turnIndex < caseData.question.length; turnIndex++) {
      let turnMessages = toChatMessages(caseData.question[turnIndex] ?? []);
      const arriving = caseData.missedFunctions[turnIndex];
      if (arriving !== undefined) {
        for (const doc of caseData.functions.filter((candidate) => arriving.includes(candidate.name))) offered.push(toToolSpec(doc, names));
        if (turnMessages.length === 0) turnMessages = [{ role: "user", content: ADDITIONAL_FUNCTIONS_PROMPT }];
      }
      messages.push(...turnMessages);
      const turnCalls: BfclModelCall[] = [];
      calls.push(turnCalls);
      let turnSteps = 0;
      for (;;) {
        if (turnSteps >= maxSteps) {
          const check: TurnCheck = {
            turnIndex,
            valid: false,
            errorType: "multi_turn:force_terminated",
            message: `The model was stopped after ${maxSteps} steps at turn ${turnIndex}.`,
            groundTruthResults: [],
          };
          turns.push(check);
          return { valid: false, errorType: check.errorType, errors: [check.message!], calls, turns, steps, usage };
        }
        // The first step of a turn is routed (a call is forced when the user's words point at a tool); later steps choose freely.
        // So is the pruning of optional parameters: later steps also read results, which may name them.
        const firstStep = turnSteps === 0;
        const toolChoice = firstStep ? routeToolChoice(userText(turnMessages), offered).toolChoice : "auto";
        const tools = firstStep && settings.pruneArguments !== false ? pruneToolSpecs(offered, userText(turnMessages)) : [...offered];
        const result = await settings.model.generate({ ...settings.options, signal: settings.signal, messages: [...messages], tools, toolChoice, conversationId }).result;
        turnSteps++;
        steps++;
        usage = addUsage(usage, result.usage);
        const toolCalls = result.toolCalls.map((call) => ({ ...call, id: call.id || `call_${++callCounter}` }));
        messages.push({ role: "assistant", content: result.text, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
        if (toolCalls.length === 0) break;
        for (const call of toolCalls) {
          const name = names.functionName(call.name);
          turnCalls.push({ name, arguments: call.arguments });
          const output = checker.executeModelCall(name, call.arguments);
          messages.push({ role: "tool", toolCallId: call.id, name: call.name, content: output });
        }
      }
      const check = checker.finishTurn(turnIndex);
      turns.push(check);
      if (!check.valid) return { valid: false, errorType: check.errorType, errors: [check.message ?? "turn check failed"], calls, turns, steps, usage };
    }
    return { valid: true, errors: [], calls, turns, steps, usage };
  } finally {
    settings.model.endConversation?.(conversationId);
  }
}

export interface RunBfclOptions {
  /** Built-in category names or paths of BFCL files (a live category runs unchanged). */
  categories: string[];
  model: ChatModel;
  options?: BfclGenerateOptions;
  /** At most this many cases per category. */
  limit?: number;
  /** Cases in flight at once. Default 1. */
  concurrency?: number;
  dataDirectory?: string;
  signal?: AbortSignal;
  /** Called as each case finishes (in completion order). */
  onResult?: (result: BfclCaseResult) => void | Promise<void>;
  /** Skip cases already done (a resumed run): ids to leave out. */
  skipIds?: ReadonlySet<string>;
}

export interface BfclCategoryScore {
  category: string;
  total: number;
  correct: number;
  /** correct / total, 0 when the category ran no case. */
  accuracy: number;
}

export interface BfclRunSummary {
  results: BfclCaseResult[];
  categories: BfclCategoryScore[];
  durationMs: number;
}

/**
 * Runs whole categories and scores them: per-category accuracy over the cases
 * run. The entry point the general eval runner calls.
 */
export async function runBfcl(options: RunBfclOptions): Promise<BfclRunSummary> {
  const started = performance.now();
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a whole number of at least 1, not ${concurrency}.`);
  const cases = options.categories.flatMap((category) =>
    loadBfclCategory(category, { dataDirectory: options.dataDirectory, limit: options.limit }).filter((caseData) => !options.skipIds?.has(caseData.id)),
  );
  const results: BfclCaseResult[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      options.signal?.throwIfAborted();
      const caseData = cases[next++]!;
      const result = await runBfclCase(caseData, { model: options.model, options: options.options, signal: options.signal });
      results.push(result);
      await options.onResult?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(cases.length, 1)) }, worker));
  return { results, categories: scoreByCategory(results), durationMs: performance.now() - started };
}

export function scoreByCategory(results: readonly BfclCaseResult[]): BfclCategoryScore[] {
  const byCategory = new Map<string, BfclCategoryScore>();
  for (const result of results) {
    const score = byCategory.get(result.category) ?? { category: result.category, total: 0, correct: 0, accuracy: 0 };
    score.total++;
    if (result.valid) score.correct++;
    score.accuracy = score.correct / score.total;
    byCategory.set(result.category, score);
  }
  return [...byCategory.values()];
}
