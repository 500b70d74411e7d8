import { randomUUID } from "node:crypto";
import { BotpsyError, errorMessage, InvalidInputError } from "../errors.js";
import { boundCallArguments } from "../model/argument-bounds.js";
import { addUsage, type ChatMessage, type ChatModel, type ToolCall, type GenerateOptions, type GenerateResult, type ToolChoice, type ToolSpec } from "../model/types.js";
import { formatToolResultAsData } from "../policy/result-format.js";
import type { PermissionGate, ToolOutcome, ToolResultFormatter } from "../policy/types.js";
import type { Tool } from "../tools/tool.js";
import type { ToolRouterOptions } from "../tools/router.js";
import { ToolBox } from "../tools/toolbox.js";
import type { ArgumentPruningOptions } from "./argument-pruning.js";
import type { CallEnvironment } from "./call-execution.js";
import { ApprovalStore } from "../policy/approvals.js";
import { groundedNumberChoices, holdNumberParameters, ungroundedAnswer } from "./argument-grounding.js";
import { gateInputFor, groundingSourceOf, planCalls } from "./call-planning.js";
import type { CompactionOptions } from "./compaction.js";
import { RiskGate } from "./default-gate.js";
import { EventChannel } from "./event-channel.js";
import { executePlans, type ExecutionContext } from "./execution.js";
import { MarkupFilter } from "./final-answer.js";
import { playModelTurn, type AfterModelTurnHook, type BeforeModelTurnHook, type ModelTurn } from "./model-turn.js";
import { RepeatedFailureGuard, standingFailure, standingFailureAnswer, standingFailureError } from "./repeated-calls.js";
import { reachedStepLimit, repeatsSucceededCalls, resolveFinalAnswer, skipCallsAtStepLimit, uniqueCallIds } from "./resolution.js";
import { applyDecisions, checkDecisions } from "./resumption.js";
import { createRunState, type RunState } from "./run-state.js";
import { AgentSessionStore, AgentStateError } from "./session-store.js";
import { callableForms, continuationChoice, offeredForms, prepareFirstTurn, recoveryChoice, resumeChoice, selectedTools, sessionHistory, systemMessage, type FirstTurn } from "./turn-preparation.js";
import type { AgentEvent, AgentOutcome, AgentRun, AgentStopReason, ApprovalDecision, ApprovalRequest } from "./types.js";
import type { AgentWorld } from "./world.js";

export type { AfterModelTurnHook, BeforeModelTurnHook, ModelTurn } from "./model-turn.js";
export type { FirstTurn } from "./turn-preparation.js";
export type { AgentWorld } from "./world.js";

export interface AgentOptions {
  model: ChatModel;
  /** The user's world: store (sessions live there too), tools, clock. A `Profile` of apps is one. */
  profile: AgentWorld;
  /** Default: a ToolBox of every tool of the world. */
  toolbox?: ToolBox;
  /** Default: `RiskGate` (read and write run, other risks ask) over the profile's approvals. */
  gate?: PermissionGate;
  /** Model turns per user turn. Default 10. */
  maxSteps?: number;
  /** Added to the system prompt. */
  instructions?: string;
  /** How the system prompt states the clock (see `SystemPromptInput.clock`). Default "date-and-time". */
  promptClock?: "date-and-time" | "date";
  /** Sampling options for every model turn. Default temperature 0, seed 1. */
  generation?: Omit<GenerateOptions, "signal" | "conversationId">;
  beforeModelTurn?: BeforeModelTurnHook;
  afterModelTurn?: AfterModelTurnHook;
  /** How tool results are written for the model; it gets the run's context. Default: JSON marked as data. */
  formatToolResult?: ToolResultFormatter;
  /** How earlier turns of a session are shortened; `false` keeps them whole. */
  compaction?: CompactionOptions | false;
  /** Failures of one exact call before it is refused. Default 2. */
  repeatedFailureLimit?: number;
  /**
   * Tool choice for the first model turn of each request (later turns use
   * `generation.toolChoice`, default "auto"). "route" (the default) forces a
   * call when the request's own words clearly point at an offered tool and
   * leaves the choice free otherwise (see `routeToolChoice`); "required"
   * always forces one, at the price of never abstaining at once.
   */
  firstStepToolChoice?: ToolChoice | "route";
  /** Thresholds of the "route" choice (see `ToolRouterOptions` for their defaults). */
  router?: ToolRouterOptions;
  /**
   * When the route forces a call without naming one tool ("required"), let
   * that turn call only the router's best this many tools (the prompt still
   * documents every selected tool). Default `false`: the turn may call every
   * selected tool.
   */
  forcedTurnTools?: number | false;
  /**
   * Removes from the tool specs a model turn sees the optional parameters
   * the request has no word or value for (see `pruneToolArguments`), so the
   * call grammar cannot emit them. Default `{ turns: "recovery" }` (the
   * first turn and each turn held to a call after a failure); `false`
   * shows every parameter. Validation still uses the full input schema.
   */
  argumentPruning?: ArgumentPruningOptions | false;
  /**
   * When the model's final words are not readable (markup, a dump, a loop),
   * answer from the calls' results instead (`composeAnswerFromCalls`).
   * Default true; false keeps the model's words (for measuring the rule).
   */
  composeUnreadableAnswers?: boolean;
  /**
   * After a turn whose calls all failed with errors the model can act on,
   * make the next turn call: the tool the error names, else the failed one
   * again (see `recoveryChoice`). Default true: on the apps dev split it
   * turned one more case of 37 into a pass and none into a failure.
   */
  recoveryRouting?: boolean;
  /**
   * After a failed call and calls that fixed it (Wi-Fi turned on), make the
   * next turn call the failed tool again (see `resumeChoice`), so the task
   * the fix was for gets done. Needs `recoveryRouting`. Default false: on
   * the apps dev split with botpsy-v3 it changed 12 runs and passed none
   * more (43 of 151 either way); the tuned 135M model mostly repeated the
   * failed call as it was, and once completed the wrong task.
   */
  resumeAfterRecovery?: boolean;
  /**
   * After a turn whose calls all succeeded, make the next turn call the tool
   * that a part of the request not yet served clearly points at ("… and set
   * an alarm for 6:30" after `pause_music`; see `continuationChoice`).
   * Default true: on the apps dev split it passed one more case with
   * botpsy-v4 (48 of 151 against 47) and, with the default botpsy-v3,
   * changed one run (the task the request also asked for was added) and
   * passed the same 43; no run lost.
   */
  continuationRouting?: boolean;
  /**
   * A turn whose every call repeats, with the same arguments, a call that
   * already succeeded in the run, with nothing but successful reads since
   * (`repeatsSucceededCalls`), ends the run with the answer composed from
   * the results, instead of running the calls again: small models (tuned
   * ones too) loop on a call that worked, straight or through `find_tools`.
   * Default true.
   */
  endRepeatedSuccess?: boolean;
  /**
   * End the run, saying what failed, when a failure keeps coming back: the
   * model writes again an exact call that already failed `repeatedFailureLimit`
   * times, or one tool fails once more than that with the same kind of error
   * (`standingFailure`). The outcome carries the error `repeated_failure`.
   * Default true; false leaves the model to go on to the step limit.
   */
  endRepeatedFailure?: boolean;
  /**
   * Refuse a call whose values nothing in the conversation carries (the
   * user's words, earlier results, the tool's own choices and defaults: see
   * `argument-grounding.ts`); when every call of a turn guessed, the run ends
   * asking the user for the values instead of acting on guesses. Default true.
   */
  argumentGrounding?: boolean;
  /**
   * With argument grounding, hold every turn's free number parameters to the
   * numbers the conversation carries (see `holdNumberParameters`), so the
   * call grammar cannot write one grounding would refuse. Default false
   * (see the README's measurements).
   */
  numberHolding?: boolean;
}

export interface RunOptions {
  /** Continue this session (created when new). Default: a new session. */
  sessionId?: string;
  signal?: AbortSignal;
  /** Override of the agent's `maxSteps` for this run. */
  maxSteps?: number;
}

export interface ResumeOptions {
  signal?: AbortSignal;
}

export const DEFAULT_MAX_STEPS = 10;

/**
 * The loop that turns a request into actions: prepare a model turn, play it,
 * resolve the reply (an answer ends the run; calls are planned, gated and
 * executed), results back, again. Each of those decisions lives in its own
 * module (see ARCHITECTURE.md beside this file); this class only sequences
 * them and keeps the run's state. Every stop is an outcome, never an
 * exception: answered, abstained, step_limit, aborted, awaiting_approval
 * (resume with `resume`) or error.
 */
export class Agent {
  readonly model: ChatModel;
  readonly profile: AgentWorld;
  readonly toolbox: ToolBox;
  readonly gate: PermissionGate;
  readonly maxSteps: number;
  readonly sessions: AgentSessionStore;
  private readonly options: AgentOptions;
  private readonly formatToolResult: ToolResultFormatter;

  constructor(options: AgentOptions) {
    this.options = options;
    this.model = options.model;
    this.profile = options.profile;
    this.toolbox = options.toolbox ?? new ToolBox(options.profile.tools());
    this.gate = options.gate ?? new RiskGate({ approvals: new ApprovalStore(options.profile.store) });
    this.maxSteps = validateMaxSteps(options.maxSteps ?? DEFAULT_MAX_STEPS);
    const narrowTo = options.forcedTurnTools;
    if (narrowTo !== undefined && narrowTo !== false && (!Number.isInteger(narrowTo) || narrowTo < 1)) {
      throw new InvalidInputError(`forcedTurnTools ${String(narrowTo)} is not usable: give a whole number of tools, 1 or more, or false.`, {
        code: "invalid_option",
      });
    }
    this.formatToolResult = options.formatToolResult ?? formatToolResultAsData;
    this.sessions = new AgentSessionStore(options.profile.store);
  }

  /** Start a run of `request`; iterate the result for events, await `outcome` for the end. */
  run(request: string, options: RunOptions = {}): AgentRun {
    if (typeof request !== "string" || request.trim() === "") {
      throw new InvalidInputError("The request is empty: say what botpsy should do.", { code: "empty_request" });
    }
    const maxSteps = validateMaxSteps(options.maxSteps ?? this.maxSteps);
    const sessionId = this.sessions.ensureSession(options.sessionId);
    const paused = this.sessions.pausedRunOf(sessionId);
    if (paused !== undefined) {
      throw new AgentStateError(
        "approval_pending",
        `Session ${sessionId} has run ${paused} waiting for approval. Resume it with its decisions, or abandon it, before a new request.`,
      );
    }
    return this.start(createRunState({ runId: `run-${randomUUID()}`, sessionId, request, maxSteps }), options.signal);
  }

  /**
   * Continue a run that paused for approval, with a decision for each of its
   * requests. Works in any process that opens the same profile.
   */
  resume(runId: string, decisions: readonly ApprovalDecision[], options: ResumeOptions = {}): AgentRun {
    const state = this.sessions.loadPausedRun(runId);
    const byId = checkDecisions(state, decisions);
    this.sessions.claimPausedRun(runId);
    const requests = (state.pending?.plans ?? []).flatMap((plan) => (plan.kind === "ask" ? [plan.request] : []));
    // The gate keeps the decisions (a standing scope per call pattern), then decides the approved calls again.
    this.gate.recordDecisions?.(requests, decisions, { sessionId: state.sessionId, runId });
    const earlierTurns = this.sessions.turns(state.sessionId);
    const step = state.pending!.step;
    state.pending!.plans = applyDecisions(state, byId, (call) => {
      const tool = this.toolbox.get(call.name);
      if (!tool) return { decision: "deny", reason: `the tool ${call.name} is no longer available` };
      return this.gate.decide(gateInputFor(state, call, tool, step, earlierTurns));
    });
    return this.start(state, options.signal);
  }

  /** The approval requests of a paused run, with its session (to record the decisions before resuming). */
  pendingApprovals(runId: string): { sessionId: string; requests: ApprovalRequest[] } {
    const state = this.sessions.loadPausedRun(runId);
    const requests = (state.pending?.plans ?? []).flatMap((plan) => (plan.kind === "ask" ? [plan.request] : []));
    return { sessionId: state.sessionId, requests };
  }

  /** Give up a paused run: its calls never run and the session takes new requests. */
  abandon(runId: string): void {
    this.sessions.requirePausedRun(runId);
    this.sessions.abandonPausedRun(runId);
  }

  /**
   * What this agent does to the first turn of a request, for a caller that
   * offers its own tool specs (a benchmark): the specs with argument pruning
   * applied, and the routed tool choice, both by this agent's options.
   */
  prepareFirstTurn(request: string, tools: readonly ToolSpec[]): FirstTurn {
    return prepareFirstTurn(request, tools, { ...this.options, generationToolChoice: this.options.generation?.toolChoice });
  }

  private start(state: RunState, signal: AbortSignal | undefined): AgentRun {
    const channel = new EventChannel<AgentEvent>();
    const outcome = this.drive(state, (event) => channel.push(event), signal ?? new AbortController().signal).then((result) => {
      channel.push({ type: "done", outcome: result });
      channel.close();
      return result;
    });
    return {
      runId: state.runId,
      outcome,
      [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator](),
    };
  }

  private async drive(state: RunState, emit: (event: AgentEvent) => void, signal: AbortSignal): Promise<AgentOutcome> {
    const started = performance.now();
    const environment: CallEnvironment = { profile: this.profile, sessionId: state.sessionId, signal };
    const guard = new RepeatedFailureGuard(this.options.repeatedFailureLimit ?? 2, state.failures);
    const earlierTurns = (): ChatMessage[][] => this.sessions.turns(state.sessionId);
    const afterCall = this.gate.afterCall?.bind(this.gate);
    const execution: ExecutionContext = {
      toolbox: this.toolbox,
      guard,
      environment,
      formatToolResult: this.formatToolResult,
      emit,
      // The gate notes what a state-changing call stored, decided on the same input it was allowed with.
      ...(afterCall ? { afterCall: (tool: Tool, call: ToolCall, outcome: ToolOutcome, step: number) => afterCall(gateInputFor(state, call, tool, step, earlierTurns()), outcome) } : {}),
    };
    let pendingApprovals: ApprovalRequest[] = [];

    const finish = (stopReason: AgentStopReason, answer: string, error?: { code: string; message: string }): AgentOutcome => {
      state.failures = guard.toJSON();
      state.activeMs += performance.now() - started;
      if (stopReason === "awaiting_approval") this.sessions.savePausedRun(state);
      else this.sessions.appendTurn(state.sessionId, state.runId, stopReason, state.turnMessages);
      return {
        runId: state.runId,
        sessionId: state.sessionId,
        stopReason,
        answer,
        calls: state.calls,
        usage: state.usage,
        steps: state.steps,
        durationMs: Math.round(state.activeMs),
        pendingApprovals,
        ...(error ? { error } : {}),
      };
    };

    // The run ends on words the agent wrote (not the model's): streamed, kept in the turn, judged like any answer.
    const answerAndFinish = (answer: string, error?: { code: string; message: string }): AgentOutcome => {
      emit({ type: "text-delta", text: answer });
      state.turnMessages.push({ role: "assistant", content: answer });
      return finish(resolveFinalAnswer(state, answer).stopReason, answer, error);
    };

    try {
      if (state.pending) {
        const { step, plans } = state.pending;
        for (const plan of plans) emit({ type: "tool-call", call: plan.call, risk: this.toolbox.get(plan.call.name)?.risk, step });
        state.pending = undefined;
        await executePlans(state, plans, step, execution);
        if (signal.aborted) return finish("aborted", "", abortedError());
      }
      const history = sessionHistory(this.sessions.turns(state.sessionId), this.options.compaction);
      const system = systemMessage(this.profile, this.options);

      while (true) {
        if (signal.aborted) return finish("aborted", "", abortedError());
        state.steps++;
        const step = state.steps;
        emit({ type: "step", step });
        const selected = selectedTools(this.toolbox, state);
        // Recovery routing reads the offered names only, which pruning never changes.
        const preparation = { ...this.options, generationToolChoice: this.options.generation?.toolChoice };
        // A turn held to a call: after a fixable failure, after its fix, or while the request names an action not yet taken.
        const heldChoice =
          recoveryChoice(state.calls, step, selected, preparation, (name) => this.toolbox.get(name) !== undefined) ??
          resumeChoice(state.calls, step, selected, preparation) ??
          continuationChoice(state.request, state.calls, step, selected, preparation);
        const held = heldChoice !== undefined;
        let turn: ModelTurn = {
          runId: state.runId,
          sessionId: state.sessionId,
          step,
          messages: [system, ...history, ...state.turnMessages],
          tools: offeredForms(selected, state, step, this.options, held),
        };
        let callable = callableForms(turn.tools, state, step, this.options, held);
        if (this.options.argumentGrounding !== false && this.options.numberHolding === true) {
          const base = callable ?? turn.tools;
          const numbers = holdNumberParameters(base, groundedNumberChoices(groundingSourceOf(state, this.sessions.turns(state.sessionId))));
          if (numbers.some((spec, index) => spec !== base[index])) callable = numbers;
        }
        if (callable !== undefined) turn.callableTools = callable;
        if (heldChoice !== undefined) turn.toolChoice = heldChoice;
        turn = (await this.options.beforeModelTurn?.(turn)) ?? turn;
        if (turn.tools.length > 0) state.toolsOffered = true;

        let reply: GenerateResult;
        const filter = new MarkupFilter();
        const flush = (): void => {
          const rest = filter.end();
          if (rest !== "") emit({ type: "text-delta", text: rest });
        };
        try {
          reply = await playModelTurn(turn, this.options, signal, emit, filter);
        } catch (error) {
          if (signal.aborted) return finish("aborted", "", abortedError());
          throw error;
        }
        emit({ type: "model-turn", step, ranOn: reply.servedBy ?? "local" });
        state.usage = addUsage(state.usage, reply.usage);
        if (reply.stopReason === "aborted" || signal.aborted) {
          flush();
          if (reply.text !== "") state.turnMessages.push({ role: "assistant", content: reply.text });
          return finish("aborted", reply.text, abortedError());
        }

        if (reply.toolCalls.length === 0) {
          const final = resolveFinalAnswer(state, reply.text, { composeUnreadable: this.options.composeUnreadableAnswers });
          if (final.composed !== undefined) emit({ type: "text-delta", text: filter.shown.trim() === "" ? final.composed : `\n${final.composed}` });
          else flush();
          state.turnMessages.push({ role: "assistant", content: final.answer });
          return finish(final.stopReason, final.answer);
        }
        flush();

        // Bounded first: the checks below walk the arguments.
        const bounded = reply.toolCalls.map(boundCallArguments);
        if (this.options.endRepeatedSuccess !== false && repeatsSucceededCalls(state, bounded, step)) {
          const final = resolveFinalAnswer(state, "", { composeUnreadable: true });
          if (final.answer !== "") emit({ type: "text-delta", text: final.answer });
          state.turnMessages.push({ role: "assistant", content: final.answer });
          return finish(final.stopReason, final.answer);
        }

        const calls = uniqueCallIds(bounded, state.turnMessages, step);
        state.turnMessages.push({ role: "assistant", content: reply.text, toolCalls: calls });
        if (reachedStepLimit(state, step)) {
          const error = skipCallsAtStepLimit(state, calls, step, this.toolbox, this.formatToolResult);
          return finish("step_limit", reply.text.trim(), error);
        }

        const plans = await planCalls(state, calls, step, {
          toolbox: this.toolbox,
          gate: this.gate,
          guard,
          environment,
          earlierTurns: this.sessions.turns(state.sessionId),
          argumentGrounding: this.options.argumentGrounding,
        });
        for (const plan of plans) emit({ type: "tool-call", call: plan.call, risk: this.toolbox.get(plan.call.name)?.risk, step });
        const asks = plans.flatMap((plan) => (plan.kind === "ask" ? [plan.request] : []));
        if (asks.length > 0) {
          state.pending = { step, plans };
          pendingApprovals = asks;
          for (const request of asks) emit({ type: "approval-request", request });
          return finish("awaiting_approval", reply.text.trim());
        }
        await executePlans(state, plans, step, execution);
        // Every call of the turn guessed values the user never gave: ask for them rather than go on guessing.
        const guessed = plans.flatMap((plan) => (plan.kind === "resolved" && plan.guessed !== undefined ? [plan] : []));
        if (guessed.length === plans.length) {
          return answerAndFinish(ungroundedAnswer(guessed[0]!.call.name, guessed[0]!.guessed!));
        }
        // A failure the model keeps running into: end, saying what failed, instead of guessing on to the step limit.
        const standing = this.options.endRepeatedFailure !== false ? standingFailure(state.calls, step, guard.limit) : undefined;
        if (standing !== undefined) return answerAndFinish(standingFailureAnswer(standing), standingFailureError(standing));
      }
    } catch (error) {
      const code = error instanceof BotpsyError ? error.code : "agent_failed";
      const message = error instanceof BotpsyError ? error.message : `The run failed unexpectedly: ${errorMessage(error)}`;
      try {
        return finish("error", "", { code, message });
      } catch (persistError) {
        return {
          runId: state.runId,
          sessionId: state.sessionId,
          stopReason: "error",
          answer: "",
          calls: state.calls,
          usage: state.usage,
          steps: state.steps,
          durationMs: Math.round(state.activeMs),
          pendingApprovals: [],
          error: { code, message: `${message} (and the session could not be saved: ${errorMessage(persistError)})` },
        };
      }
    }
  }
}

function validateMaxSteps(value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new InvalidInputError(`maxSteps ${String(value)} is not usable: give a whole number of model turns, 1 or more.`, { code: "invalid_option" });
  }
  return value;
}

function abortedError(): { code: string; message: string } {
  return { code: "aborted", message: "The run was stopped before it finished." };
}
