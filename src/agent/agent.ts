import { randomUUID } from "node:crypto";
import type { Profile } from "../apps/profile.js";
import { BotpsyError, errorMessage, InvalidInputError } from "../errors.js";
import {
  addUsage,
  emptyUsage,
  type ChatMessage,
  type ChatModel,
  type GenerateOptions,
  type GenerateResult,
  type ToolCall,
  type ToolChoice,
  type ToolSpec,
} from "../model/types.js";
import type { PermissionGate } from "../policy/types.js";
import { FIND_TOOLS_NAME, foundToolNames } from "../tools/find-tools.js";
import { routeToolChoice, type ToolRouterOptions } from "../tools/router.js";
import { toolSpec, type Tool } from "../tools/tool.js";
import { ToolBox } from "../tools/toolbox.js";
import { isAbstention } from "./abstention.js";
import { executeCall, invalidArgumentsMessage, previewCallChecked, type CallEnvironment } from "./call-execution.js";
import { compactTurns, type CompactionOptions } from "./compaction.js";
import { RiskGate } from "./default-gate.js";
import { EventChannel } from "./event-channel.js";
import { REPEATED_CALL_MESSAGE, RepeatedFailureGuard } from "./repeated-calls.js";
import type { CallPlan, RunState } from "./run-state.js";
import { AgentSessionStore, AgentStateError } from "./session-store.js";
import { pruneToolSpecs, type ArgumentPruningOptions } from "./argument-pruning.js";
import { composeAnswerFromCalls, isReadableAnswer, MarkupFilter, stripTemplateMarkup } from "./final-answer.js";
import { buildSystemPrompt } from "./system-prompt.js";
import { groundCallDates } from "./date-grounding.js";
import { formatToolResultAsData, type ToolOutcome, type ToolResultFormatter } from "./tool-result-format.js";
import type {
  AgentEvent,
  AgentOutcome,
  AgentRun,
  AgentStopReason,
  ApprovalDecision,
  ApprovalRequest,
  CallRecord,
} from "./types.js";

/** One model turn as it is about to be sent; a hook may return a changed copy. */
export interface ModelTurn {
  runId: string;
  sessionId: string;
  step: number;
  messages: ChatMessage[];
  tools: ToolSpec[];
}

/** Input guard: sees (and may replace) the messages and tools of a turn before the model does. */
export type BeforeModelTurnHook = (turn: ModelTurn) => ModelTurn | void | Promise<ModelTurn | void>;
/**
 * Output guard: sees (and may replace) the model's reply before the agent
 * acts on it. While one is set, text reaches the caller only after it, in one
 * piece, so nothing it removes is ever shown.
 */
export type AfterModelTurnHook = (reply: GenerateResult, turn: ModelTurn) => GenerateResult | void | Promise<GenerateResult | void>;

export interface AgentOptions {
  model: ChatModel;
  /** The user's world: store (sessions live there too), apps, clock. */
  profile: Profile;
  /** Default: a ToolBox of every tool of the profile's apps. */
  toolbox?: ToolBox;
  /** Default: `RiskGate` (read and write run, other risks ask). */
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
  /** How tool results are written for the model. Default: JSON marked as data. */
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
   * When the route forces a call without naming one tool ("required"), offer
   * that turn only the router's best this many tools. Default `false`: the
   * turn keeps every selected tool.
   */
  forcedTurnTools?: number | false;
  /**
   * Removes from the tool specs a model turn sees the optional parameters
   * the request has no word or value for (see `pruneToolArguments`), so the
   * call grammar cannot emit them. Default `{ turns: "first" }`; `false`
   * shows every parameter. Validation still uses the full input schema.
   */
  argumentPruning?: ArgumentPruningOptions | false;
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

const DECLINED_MESSAGE = "The user declined this call. Do not try it again; finish, or ask the user what to do instead.";

/**
 * The loop that turns a request into actions: model turn, tool calls (gated,
 * validated, run), results back, again, until the model answers in words.
 * Every stop is an outcome, never an exception: answered, abstained,
 * step_limit, aborted, awaiting_approval (resume with `resume`) or error.
 */
export class Agent {
  readonly model: ChatModel;
  readonly profile: Profile;
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
    this.gate = options.gate ?? new RiskGate();
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
    const state: RunState = {
      version: 1,
      runId: `run-${randomUUID()}`,
      sessionId,
      request,
      turnMessages: [{ role: "user", content: request }],
      steps: 0,
      maxSteps,
      usage: emptyUsage(),
      calls: [],
      failures: {},
      loadedTools: [],
      untrustedContent: [],
      toolsOffered: false,
      activeMs: 0,
    };
    return this.start(state, options.signal);
  }

  /**
   * Continue a run that paused for approval, with a decision for each of its
   * requests. Works in any process that opens the same profile.
   */
  resume(runId: string, decisions: readonly ApprovalDecision[], options: ResumeOptions = {}): AgentRun {
    const state = this.sessions.loadPausedRun(runId);
    const pending = state.pending;
    if (!pending) throw new AgentStateError("run_not_paused", `Run "${runId}" has no calls waiting for approval.`);
    const asks = pending.plans.filter((plan): plan is Extract<CallPlan, { kind: "ask" }> => plan.kind === "ask");
    const byId = new Map<string, ApprovalDecision>();
    for (const decision of decisions) {
      if (!asks.some((plan) => plan.request.id === decision.requestId)) {
        throw new InvalidInputError(
          `Run "${runId}" has no approval request "${decision.requestId}". Its requests: ${asks.map((plan) => plan.request.id).join(", ")}.`,
          { code: "unknown_approval" },
        );
      }
      byId.set(decision.requestId, decision);
    }
    const missing = asks.filter((plan) => !byId.has(plan.request.id));
    if (missing.length > 0) {
      throw new InvalidInputError(`Decide every request of run "${runId}": ${missing.map((plan) => plan.request.id).join(", ")} has no decision.`, {
        code: "missing_approval",
      });
    }
    this.sessions.claimPausedRun(runId);
    pending.plans = pending.plans.map((plan): CallPlan => {
      if (plan.kind !== "ask") return plan;
      const decision = byId.get(plan.request.id)!;
      if (!decision.approved) {
        return { kind: "resolved", call: plan.call, outcome: { status: "declined", error: { code: "declined_by_user", message: DECLINED_MESSAGE } } };
      }
      if (decision.scope === "session" || decision.scope === "always") this.sessions.grant(plan.call.name, decision.scope, state.sessionId);
      return { kind: "run", call: plan.call, reason: "approved by the user" };
    });
    return this.start(state, options.signal);
  }

  /** Give up a paused run: its calls never run and the session takes new requests. */
  abandon(runId: string): void {
    this.sessions.loadPausedRun(runId);
    this.sessions.abandonPausedRun(runId);
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

    try {
      if (state.pending) {
        const { step, plans } = state.pending;
        for (const plan of plans) emit({ type: "tool-call", call: plan.call, risk: this.toolbox.get(plan.call.name)?.risk, step });
        state.pending = undefined;
        await this.executePlans(state, plans, step, environment, guard, emit);
        if (signal.aborted) return finish("aborted", "", abortedError());
      }
      const history = this.options.compaction === false ? this.sessions.turns(state.sessionId).flat() : compactTurns(this.sessions.turns(state.sessionId), this.options.compaction);
      const system: ChatMessage = {
        role: "system",
        content: buildSystemPrompt({
          now: this.profile.environment.now(),
          timeZone: this.profile.environment.timeZone,
          instructions: this.options.instructions,
          ...(this.options.promptClock !== undefined ? { clock: this.options.promptClock } : {}),
        }),
      };

      while (true) {
        if (signal.aborted) return finish("aborted", "", abortedError());
        state.steps++;
        const step = state.steps;
        emit({ type: "step", step });
        const include = [...state.loadedTools, ...state.calls.map((record) => record.call.name)];
        const offered = this.toolbox.select(state.request, { include });
        let turn: ModelTurn = {
          runId: state.runId,
          sessionId: state.sessionId,
          step,
          messages: [system, ...history, ...state.turnMessages],
          tools: this.pruneArguments(offered.map(toolSpec), state, step),
        };
        turn = (await this.options.beforeModelTurn?.(turn)) ?? turn;
        if (turn.tools.length > 0) state.toolsOffered = true;

        let reply: GenerateResult;
        const filter = new MarkupFilter();
        const flush = (): void => {
          const rest = filter.end();
          if (rest !== "") emit({ type: "text-delta", text: rest });
        };
        try {
          reply = await this.generate(turn, state.sessionId, signal, emit, filter);
        } catch (error) {
          if (signal.aborted) return finish("aborted", "", abortedError());
          throw error;
        }
        state.usage = addUsage(state.usage, reply.usage);
        if (reply.stopReason === "aborted" || signal.aborted) {
          flush();
          if (reply.text !== "") state.turnMessages.push({ role: "assistant", content: reply.text });
          return finish("aborted", reply.text, abortedError());
        }

        if (reply.toolCalls.length === 0) {
          let answer = reply.text.trim();
          // After calls a small model often writes no words, only imitated results; then say what was done.
          const composed = isReadableAnswer(answer) ? undefined : composeAnswerFromCalls(state.calls);
          if (composed !== undefined) {
            answer = composed;
            emit({ type: "text-delta", text: filter.shown.trim() === "" ? composed : `\n${composed}` });
          } else flush();
          state.turnMessages.push({ role: "assistant", content: answer });
          const abstained = isAbstention({ toolsOffered: state.toolsOffered, calls: state.calls });
          return finish(abstained ? "abstained" : "answered", answer);
        }
        flush();

        const calls = uniqueCallIds(reply.toolCalls, state.turnMessages, step);
        state.turnMessages.push({ role: "assistant", content: reply.text, toolCalls: calls });

        // The cap is checked before any call runs: a call whose result no model turn will read must not act.
        if (step >= state.maxSteps) {
          for (const call of calls) {
            const tool = this.toolbox.get(call.name);
            const error = { code: "step_limit", message: `Not run: the limit of ${state.maxSteps} steps was reached.` };
            state.calls.push({ call, risk: tool?.risk, status: "skipped", error, durationMs: 0, step });
            state.turnMessages.push(this.toolMessage(tool, call, { status: "skipped", error }));
          }
          return finish("step_limit", reply.text.trim(), {
            code: "step_limit",
            message: `Stopped after ${state.maxSteps} model turns without a final answer. Raise the step limit or split the request.`,
          });
        }

        const plans = await this.plan(state, calls, step, environment, guard);
        for (const plan of plans) emit({ type: "tool-call", call: plan.call, risk: this.toolbox.get(plan.call.name)?.risk, step });
        const asks = plans.flatMap((plan) => (plan.kind === "ask" ? [plan.request] : []));
        if (asks.length > 0) {
          state.pending = { step, plans };
          pendingApprovals = asks;
          for (const request of asks) emit({ type: "approval-request", request });
          return finish("awaiting_approval", reply.text.trim());
        }
        await this.executePlans(state, plans, step, environment, guard, emit);
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

  /**
   * One model turn. Text reaches the caller through `filter`, which holds back
   * whatever may be template markup; the returned reply's text is cleaned of
   * it. The caller flushes the filter once it knows what the turn was.
   */
  private async generate(turn: ModelTurn, sessionId: string, signal: AbortSignal, emit: (event: AgentEvent) => void, filter: MarkupFilter): Promise<GenerateResult> {
    const firstStep = turn.step === 1 && turn.tools.length > 0 ? this.firstStep(turn) : undefined;
    const tools = firstStep?.tools ?? turn.tools;
    const generation = this.model.generate({
      temperature: 0,
      seed: 1,
      ...this.options.generation,
      ...(firstStep !== undefined ? { toolChoice: firstStep.choice } : {}),
      messages: turn.messages,
      tools: tools.length > 0 ? tools : undefined,
      signal,
      conversationId: sessionId,
    });
    const guarded = this.options.afterModelTurn !== undefined;
    if (!guarded) {
      for await (const event of generation) {
        if (event.type === "thought-delta") emit(event);
        if (event.type === "text-delta") {
          const shown = filter.push(event.text);
          if (shown !== "") emit({ type: "text-delta", text: shown });
        }
      }
    }
    const raw = await generation.result;
    const reply = { ...raw, text: stripTemplateMarkup(raw.text) };
    if (!guarded) return reply;
    const checked = (await this.options.afterModelTurn?.(reply, turn)) ?? reply;
    const shown = filter.push(checked.text);
    if (shown !== "") emit({ type: "text-delta", text: shown });
    return checked;
  }

  private pruneArguments(specs: ToolSpec[], state: RunState, step: number): ToolSpec[] {
    const pruning = this.options.argumentPruning ?? {};
    if (pruning === false) return specs;
    if ((pruning.turns ?? "first") === "first" && step > 1) return specs;
    // On later turns a tool result may name a value the next call needs ("turn it on with set_wifi(on=true)").
    const results = state.turnMessages.flatMap((message) => (message.role === "tool" ? [message.content] : []));
    return pruneToolSpecs(specs, [state.request, ...results].join("\n"));
  }

  /** The tool choice of a request's first turn, and the tools that turn is offered. */
  private firstStep(turn: ModelTurn): { choice: ToolChoice; tools: ToolSpec[] } {
    const configured = this.options.firstStepToolChoice ?? "route";
    if (configured !== "route") return { choice: configured, tools: turn.tools };
    // An explicit generation setting other than "auto" is the caller's decision.
    const generationChoice = this.options.generation?.toolChoice;
    if (generationChoice !== undefined && generationChoice !== "auto") return { choice: generationChoice, tools: turn.tools };
    const request = [...turn.messages].reverse().find((message) => message.role === "user")?.content ?? "";
    const route = routeToolChoice(request, turn.tools, this.options.router);
    const narrowTo = this.options.forcedTurnTools ?? false;
    if (route.toolChoice !== "required" || narrowTo === false) return { choice: route.toolChoice, tools: turn.tools };
    // A forced call among a few close candidates: the rest (and find_tools) only give a small model more ways to be wrong.
    const candidates = new Set(route.ranked.filter((name) => name !== FIND_TOOLS_NAME).slice(0, narrowTo));
    const tools = turn.tools.filter((tool) => candidates.has(tool.name));
    return { choice: "required", tools: tools.length > 0 ? tools : turn.tools };
  }

  /** Decide, for every call of a model turn, what happens to it; nothing runs yet. */
  private async plan(state: RunState, calls: ToolCall[], step: number, environment: CallEnvironment, guard: RepeatedFailureGuard): Promise<CallPlan[]> {
    const plans: CallPlan[] = [];
    const userText = userTextOf(state, this.sessions.turns(state.sessionId));
    for (const [index, written] of calls.entries()) {
      // A day or time that contradicts the request's own words is corrected, or sent back to the model.
      const grounding = groundCallDates(written, state.request, { now: this.profile.environment.now(), timeZone: this.profile.environment.timeZone });
      const call = grounding.call;
      if (grounding.kind === "contradiction") {
        plans.push({ kind: "resolved", call, outcome: { status: "error", error: grounding.error } });
        continue;
      }
      const tool = this.toolbox.get(call.name);
      if (!tool) {
        plans.push({ kind: "resolved", call, outcome: { status: "error", error: { code: "unknown_tool", message: this.unknownToolMessage(call.name) } } });
        continue;
      }
      if (guard.shouldStop(call)) {
        plans.push({ kind: "resolved", call, outcome: { status: "skipped", error: { code: "repeated_call", message: REPEATED_CALL_MESSAGE } } });
        continue;
      }
      const parsed = tool.input.safeParse(call.arguments);
      if (!parsed.success) {
        plans.push({
          kind: "resolved",
          call,
          outcome: { status: "error", error: { code: "invalid_arguments", message: invalidArgumentsMessage(tool, parsed.error) } },
        });
        continue;
      }
      let verdict;
      try {
        verdict = this.gate.decide({
          call,
          app: tool.app,
          risk: tool.risk,
          sessionId: state.sessionId,
          userText,
          untrustedContent: state.untrustedContent,
        });
      } catch (error) {
        verdict = { decision: "deny" as const, reason: `the permission check failed (${errorMessage(error)})` };
      }
      if (verdict.decision === "deny") {
        plans.push({
          kind: "resolved",
          call,
          outcome: { status: "declined", error: { code: "blocked_by_policy", message: `blocked by policy: ${verdict.reason}` } },
        });
        continue;
      }
      if (verdict.decision === "ask" && !this.sessions.isGranted(tool.name, state.sessionId)) {
        const { preview, failure } = await previewCallChecked(tool, call.arguments, environment);
        // A call whose dry run already fails is the model's to fix, not the user's to approve.
        if (failure !== undefined && failure.code !== "aborted") {
          plans.push({ kind: "resolved", call, outcome: { status: "error", error: failure } });
          continue;
        }
        plans.push({ kind: "ask", call, request: { id: `approval-${step}-${index + 1}`, call, risk: tool.risk, preview, reason: verdict.reason } });
        continue;
      }
      plans.push({ kind: "run", call, reason: verdict.reason });
    }
    return plans;
  }

  /**
   * Run the planned calls. Consecutive reads run concurrently (they change
   * nothing, so their order cannot matter); a call that changes state runs
   * alone, in the order the model gave, so a later call sees its effect.
   * Results enter the conversation in call order.
   */
  private async executePlans(
    state: RunState,
    plans: CallPlan[],
    step: number,
    environment: CallEnvironment,
    guard: RepeatedFailureGuard,
    emit: (event: AgentEvent) => void,
  ): Promise<void> {
    const messages: ChatMessage[] = new Array<ChatMessage>(plans.length);
    const records: CallRecord[] = new Array<CallRecord>(plans.length);
    const settle = (index: number, tool: Tool | undefined, call: ToolCall, outcome: ToolOutcome, durationMs: number): void => {
      const record: CallRecord = { call, risk: tool?.risk, status: outcome.status, durationMs, step };
      if (outcome.status === "ok") {
        record.result = outcome.value;
        emit({ type: "tool-result", call, result: outcome.value, durationMs });
        if (call.name === FIND_TOOLS_NAME) state.loadedTools.push(...foundToolNames(outcome.value));
        if (tool?.resultTrust === "untrusted") {
          state.untrustedContent.push({ tool: call.name, source: call.name, text: JSON.stringify(outcome.value ?? null).slice(0, 4000) });
        }
      } else {
        record.error = outcome.error;
        emit({ type: "tool-error", call, error: outcome.error, durationMs });
        if (outcome.status === "error") guard.recordFailure(call);
      }
      records[index] = record;
      messages[index] = this.toolMessage(tool, call, outcome);
    };
    const runOne = async (index: number, call: ToolCall): Promise<void> => {
      const tool = this.toolbox.get(call.name);
      const begun = performance.now();
      const outcome: ToolOutcome = tool
        ? await executeCall(tool, call.arguments, environment)
        : { status: "error", error: { code: "unknown_tool", message: this.unknownToolMessage(call.name) } };
      settle(index, tool, call, outcome, Math.round(performance.now() - begun));
    };

    let concurrentReads: Promise<void>[] = [];
    for (const [index, plan] of plans.entries()) {
      if (plan.kind === "resolved") {
        settle(index, this.toolbox.get(plan.call.name), plan.call, plan.outcome, 0);
        continue;
      }
      if (plan.kind === "ask") throw new AgentStateError("approval_missing", `Call ${plan.call.name} has no decision; it cannot run.`);
      const tool = this.toolbox.get(plan.call.name);
      if (tool?.risk === "read") {
        concurrentReads.push(runOne(index, plan.call));
        continue;
      }
      await Promise.all(concurrentReads);
      concurrentReads = [];
      await runOne(index, plan.call);
    }
    await Promise.all(concurrentReads);
    state.calls.push(...records);
    state.turnMessages.push(...messages);
  }

  private toolMessage(tool: Tool | undefined, call: ToolCall, outcome: ToolOutcome): ChatMessage {
    return { role: "tool", toolCallId: call.id, name: call.name, content: this.formatToolResult(tool, outcome, call) };
  }

  private unknownToolMessage(name: string): string {
    const names = this.toolbox.list().map((tool) => tool.name);
    const shown = names.slice(0, 30).join(", ");
    const more = this.toolbox.retrievalActive ? ` Call ${FIND_TOOLS_NAME} to search for others.` : "";
    return `There is no tool "${name}". Use one of: ${shown}${names.length > 30 ? ", …" : ""}.${more}`;
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

/** Backends invent ids, but a script or a remote server may repeat one; results are matched by id. */
function uniqueCallIds(calls: ToolCall[], earlier: ChatMessage[], step: number): ToolCall[] {
  const seen = new Set<string>();
  for (const message of earlier) if (message.role === "assistant") for (const call of message.toolCalls ?? []) seen.add(call.id);
  return calls.map((call, index) => {
    let id = call.id;
    if (id === "" || seen.has(id)) id = `call-${step}-${index + 1}`;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

function userTextOf(state: RunState, earlierTurns: ChatMessage[][]): string {
  const texts: string[] = [];
  for (const message of [...earlierTurns.flat(), ...state.turnMessages]) if (message.role === "user") texts.push(message.content);
  return texts.join("\n");
}
