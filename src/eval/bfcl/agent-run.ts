import { randomUUID } from "node:crypto";
import type { AgentOutcome } from "../../agent/types.js";
import { Profile } from "../../apps/profile.js";
import { errorMessage } from "../../errors.js";
import { addUsage, emptyUsage, type ChatModel, type Usage } from "../../model/types.js";
import type { Tool } from "../../tools/tool.js";
import type { AgentFactory, ScenarioAgent } from "../runner.js";
import type { EvalSettings } from "../results.js";
import type { Scenario } from "../scenario.js";
import { type BfclModelCall, checkAst } from "./ast-checker.js";
import type { BfclCase, BfclMessage, BfclMultiTurnCase, BfclSingleTurnCase } from "./loader.js";
import { ADDITIONAL_FUNCTIONS_PROMPT, MultiTurnChecker, type TurnCheck } from "./multi-turn.js";
import { ToolNameMap } from "./schema.js";
import { CallRecorder, singleTurnTools, statefulApiTools } from "./tool-source.js";

/**
 * One BFCL case through botpsy's own agent, assembled as every other suite
 * assembles it (`agentFactory`): the case's functions are the agent's tools
 * (see tool-source.ts), each user turn is one request of one session, and
 * BFCL's checks score what the agent executed.
 */

/**
 * Model turns of a single-turn request. BFCL scores the calls of the first
 * model turn; they run (and so are recorded) only when a second turn may
 * read their results, and a second turn is all a user would wait for before
 * the answer. Calls of the second turn are not run (the step cap) and not checked.
 */
export const SINGLE_TURN_MAX_STEPS = 2;

/** The fixed clock and zone of the profile a BFCL case runs in (BFCL's questions name no date). */
const BFCL_CLOCK = "2026-12-01T09:00:00Z";
const BFCL_TIME_ZONE = "UTC";

export interface RunBfclCaseOptions {
  model: ChatModel;
  /** Builds the agent, as for the scenario suites (the CLI passes `botpsyAgentFactory`). */
  agentFactory: AgentFactory;
  /** The run's recorded settings; `options.maxSteps` is the step cap of each multi-turn turn (the leaderboard's is 20). */
  settings: EvalSettings;
  signal?: AbortSignal;
}

export interface BfclCaseResult {
  id: string;
  category: string;
  valid: boolean;
  /** Why the case failed (`wrong_count`, `multi_turn:instance_state_mismatch`, `model_error`…). */
  errorType?: string;
  errors: string[];
  /** The calls the agent executed per turn, under their BFCL names, with the arguments as validated. */
  calls: BfclModelCall[][];
  /**
   * Single-turn only: calls the scored model turn wrote that did not run (a
   * value the request never gave, arguments the schema refuses), under their
   * BFCL names with the arguments as written. Not scored; they say why a case
   * that shows no call failed.
   */
  notRun?: BfclUnrunCall[];
  /** Per-turn checks (multi-turn only; stops at the first failing turn). */
  turns?: TurnCheck[];
  /** Model requests made. */
  steps: number;
  usage: Usage;
  durationMs: number;
}

/** The text of one turn as a user request: BFCL's messages of the turn, in order. */
export function requestText(messages: readonly BfclMessage[]): string {
  return messages
    .filter((message) => message.role === "user" || message.role === "system")
    .map((message) => message.content)
    .join("\n")
    .trim();
}

/**
 * Runs one BFCL case through the agent and checks it: a single-turn case is
 * one request whose first model turn's calls get the AST check; a
 * multi-turn case is one request per turn, each turn's executed calls
 * followed by the state and response checks.
 */
export async function runBfclCase(caseData: BfclCase, options: RunBfclCaseOptions): Promise<BfclCaseResult> {
  const started = performance.now();
  const base = { id: caseData.id, category: caseData.category };
  const profile = Profile.open({ databasePath: ":memory:", name: "bfcl", seed: "empty", clock: BFCL_CLOCK, timeZone: BFCL_TIME_ZONE });
  const progress: Progress = { calls: [], steps: 0, usage: emptyUsage() };
  try {
    const outcome = caseData.kind === "single-turn" ? await runSingleTurn(caseData, profile, options, progress) : await runMultiTurn(caseData, profile, options, progress);
    return { ...base, ...outcome, durationMs: performance.now() - started };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return {
      ...base,
      valid: false,
      errorType: "model_error",
      errors: [errorMessage(error)],
      calls: progress.calls,
      steps: progress.steps,
      usage: progress.usage,
      durationMs: performance.now() - started,
    };
  } finally {
    profile.close();
  }
}

/** A call of the scored turn that did not run, and why (`CallRecord.status` and its error code). */
export interface BfclUnrunCall extends BfclModelCall {
  status: "error" | "declined" | "skipped";
  errorCode?: string;
}

type Outcome = Omit<BfclCaseResult, "id" | "category" | "durationMs">;

/** What a case has done so far, kept when the agent fails part-way. */
interface Progress {
  calls: BfclModelCall[][];
  steps: number;
  usage: Usage;
}

/** The agent's run failed (the model or the harness, not the model's choices): the case is a harness failure. */
class AgentRunFailedError extends Error {
  constructor(outcome: AgentOutcome) {
    super(`The agent stopped with an error: ${outcome.error?.code ?? "error"}: ${outcome.error?.message ?? "no message"}`);
  }
}

/** The scenario record the agent factory is given: the BFCL case in the scenario vocabulary (its checks stay BFCL's). */
function scenarioOf(caseData: BfclCase, turns: readonly string[], tools: readonly Tool[]): Scenario {
  return {
    id: caseData.id,
    description: `BFCL case ${caseData.id}`,
    tags: { group: "other", steps: caseData.kind === "multi-turn" ? "multi" : "single", source: "bfcl", labels: [caseData.category] },
    setup: { seed: "empty", clock: BFCL_CLOCK, timeZone: BFCL_TIME_ZONE, settings: {}, records: [], meta: {} },
    tools: tools.length > 0 ? { names: tools.map((tool) => tool.name) } : "all",
    turns: turns.map((user) => ({ user })),
    expect: { noCall: caseData.category.includes("irrelevance"), ordered: false, exactCalls: false },
  };
}

async function buildAgent(
  caseData: BfclCase,
  turns: readonly string[],
  tools: Tool[],
  profile: Profile,
  options: RunBfclCaseOptions,
  maxSteps: number,
): Promise<ScenarioAgent> {
  const settings: EvalSettings = { ...options.settings, options: { ...options.settings.options, maxSteps } };
  return options.agentFactory({ scenario: scenarioOf(caseData, turns, tools), profile, tools, model: options.model, settings });
}

async function runRequest(agent: ScenarioAgent, request: string, sessionId: string, options: RunBfclCaseOptions, progress: Progress): Promise<AgentOutcome> {
  options.signal?.throwIfAborted();
  const outcome = await agent.run(request, { sessionId, signal: options.signal }).outcome;
  progress.steps += outcome.steps;
  progress.usage = addUsage(progress.usage, outcome.usage);
  if (outcome.stopReason === "aborted") options.signal?.throwIfAborted();
  if (outcome.stopReason === "error" || outcome.stopReason === "aborted" || outcome.stopReason === "awaiting_approval") throw new AgentRunFailedError(outcome);
  return outcome;
}

/** A session id of its own per case run, so conversations (and a model's KV cache) never mix. */
function sessionIdOf(caseData: BfclCase): string {
  return `bfcl-${caseData.id}-${randomUUID().slice(0, 8)}`;
}

async function runSingleTurn(caseData: BfclSingleTurnCase, profile: Profile, options: RunBfclCaseOptions, progress: Progress): Promise<Outcome> {
  const names = new ToolNameMap(caseData.functions.map((doc) => doc.name));
  const recorder = new CallRecorder();
  const tools = singleTurnTools(caseData.functions, names, recorder, { language: caseData.language });
  const request = requestText(caseData.question.flat());
  const agent = await buildAgent(caseData, [request], tools, profile, options, SINGLE_TURN_MAX_STEPS);
  const sessionId = sessionIdOf(caseData);
  try {
    const outcome = await runRequest(agent, request, sessionId, options, progress);
    // Every call that ran went through a tool's run, in order; keep those of the first model turn.
    const ranInOrder = outcome.calls.filter((record) => record.status === "ok" && tools.some((tool) => tool.name === record.call.name));
    const calls = recorder.calls.filter((_, index) => ranInOrder[index]?.step === 1);
    progress.calls.push(calls);
    const notRun = outcome.calls.flatMap((record): BfclUnrunCall[] =>
      record.step === 1 && record.status !== "ok"
        ? [{ name: names.functionName(record.call.name), arguments: record.call.arguments, status: record.status, ...(record.error !== undefined ? { errorCode: record.error.code } : {}) }]
        : [],
    );
    const check = checkAst({ category: caseData.category, language: caseData.language, functions: caseData.functions, groundTruth: caseData.groundTruth, calls });
    return { valid: check.valid, errorType: check.errorType, errors: check.errors, calls: [calls], ...(notRun.length > 0 ? { notRun } : {}), steps: progress.steps, usage: progress.usage };
  } finally {
    await agent.dispose?.();
    options.model.endConversation?.(sessionId);
  }
}

async function runMultiTurn(caseData: BfclMultiTurnCase, profile: Profile, options: RunBfclCaseOptions, progress: Progress): Promise<Outcome> {
  const maxSteps = options.settings.options.maxSteps;
  const names = new ToolNameMap(caseData.functions.map((doc) => doc.name));
  const checker = new MultiTurnChecker(caseData);
  const heldBack = new Set(Object.values(caseData.missedFunctions).flat());
  const offeredDocs = caseData.functions.filter((doc) => !heldBack.has(doc.name));
  const requests = caseData.question.map((messages, turnIndex) => requestText(messages) || (caseData.missedFunctions[turnIndex] !== undefined ? ADDITIONAL_FUNCTIONS_PROMPT : ""));
  const sessionId = sessionIdOf(caseData);
  const turns: TurnCheck[] = [];
  const turnRecorder = new CallRecorder();
  let agent: ScenarioAgent | undefined;
  try {
    for (let turnIndex = 0; turnIndex < caseData.question.length; turnIndex++) {
      const arriving = caseData.missedFunctions[turnIndex];
      if (arriving !== undefined) offeredDocs.push(...caseData.functions.filter((doc) => arriving.includes(doc.name)));
      // The agent's tools are fixed when it is built: when held-back functions arrive, the next
      // agent continues the same session (it lives in the profile's store) with the larger set.
      if (agent === undefined || arriving !== undefined) {
        await agent?.dispose?.();
        agent = await buildAgent(caseData, requests, statefulApiTools(offeredDocs, names, checker, turnRecorder), profile, options, maxSteps);
      }
      turnRecorder.calls.length = 0;
      const outcome = await runRequest(agent, requests[turnIndex] ?? "", sessionId, options, progress);
      progress.calls.push([...turnRecorder.calls]);
      if (outcome.stopReason === "step_limit") {
        const check: TurnCheck = {
          turnIndex,
          valid: false,
          errorType: "multi_turn:force_terminated",
          message: `The agent was stopped after ${maxSteps} steps at turn ${turnIndex}.`,
          groundTruthResults: [],
        };
        turns.push(check);
        return { valid: false, errorType: check.errorType, errors: [check.message!], calls: progress.calls, turns, steps: progress.steps, usage: progress.usage };
      }
      const check = checker.finishTurn(turnIndex);
      turns.push(check);
      if (!check.valid) {
        return { valid: false, errorType: check.errorType, errors: [check.message ?? "turn check failed"], calls: progress.calls, turns, steps: progress.steps, usage: progress.usage };
      }
    }
    return { valid: true, errors: [], calls: progress.calls, turns, steps: progress.steps, usage: progress.usage };
  } finally {
    await agent?.dispose?.();
    options.model.endConversation?.(sessionId);
  }
}
