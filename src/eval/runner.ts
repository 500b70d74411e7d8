import type { AgentOutcome, AgentRun } from "../agent/types.js";
import { SETTINGS_APP, SETTINGS_COLLECTION, SETTINGS_ID, DEFAULT_SETTINGS } from "../apps/device/connectivity.js";
import { Profile } from "../apps/profile.js";
import type { Clock } from "../apps/time.js";
import { BotpsyError, errorMessage } from "../errors.js";
import { addUsage, emptyUsage, type ChatModel, type Usage } from "../model/types.js";
import type { Tool } from "../tools/tool.js";
import { callMismatch, checkExpectation, checkState, type ObservedCall, type RecordReader } from "./checker.js";
import type { CallResult, CaseResult, EvalSettings } from "./results.js";
import { ScenarioError, type OfferedTools, type RecordOverride, type Scenario } from "./scenario.js";
import { FIND_TOOLS_NAME } from "../tools/find-tools.js";
import { observeFirstTurn, type ObservedModel } from "./first-turn.js";

/** What the runner needs of an agent: run a request, continuing a session. */
export interface ScenarioAgent {
  run(request: string, options: { sessionId?: string; signal?: AbortSignal }): AgentRun;
  dispose?(): void | Promise<void>;
}

export interface ScenarioAgentInput {
  scenario: Scenario;
  profile: Profile;
  /** The tools the scenario offers (a subset of the profile's). */
  tools: Tool[];
  model: ChatModel;
  settings: EvalSettings;
}

/** Builds the agent for one scenario (the CLI builds botpsy's Agent; tests may build others). */
export type AgentFactory = (input: ScenarioAgentInput) => ScenarioAgent | Promise<ScenarioAgent>;

export interface RunScenarioOptions {
  /** The model, or one per scenario (a scripted test double is made per scenario). */
  model: ChatModel | ((scenario: Scenario) => ChatModel);
  agentFactory: AgentFactory;
  settings: EvalSettings;
  signal?: AbortSignal;
  /** The settings key recorded with the result. */
  settingsKey: string;
}

/** Reads records with their ids straight from the store, in insertion order. */
export function recordReader(profile: Profile): RecordReader {
  const statement = profile.store.db.prepare("SELECT id, data FROM records WHERE app = ? AND collection = ? ORDER BY seq");
  return (app, collection) =>
    (statement.all(app, collection) as { id: string; data: string }[]).map((row) => ({ id: row.id, value: JSON.parse(row.data) as unknown }));
}

function applyRecord(profile: Profile, override: RecordOverride): void {
  profile.store.read((tx) => {
    const collection = tx.collection<unknown>(override.app, override.collection);
    if (override.value === null) {
      collection.delete(override.id);
      return;
    }
    const existing = collection.get(override.id);
    const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
    if (override.merge && isObject(existing) && isObject(override.value)) collection.put(override.id, { ...existing, ...override.value });
    else collection.put(override.id, override.value);
  });
}

/**
 * A fresh in-memory profile in the scenario's starting state: the seed, the
 * clock and zone, then the device settings, records and meta overrides, then
 * any planted injection.
 */
export function openScenarioProfile(scenario: Scenario): Profile {
  const setup = scenario.setup;
  const profile = Profile.open({ databasePath: ":memory:", name: "eval", seed: setup.seed, clock: setup.clock, timeZone: setup.timeZone });
  try {
    if (Object.keys(setup.settings).length > 0) {
      const current = profile.store.read((tx) => tx.collection<Record<string, unknown>>(SETTINGS_APP, SETTINGS_COLLECTION).get(SETTINGS_ID));
      const known = new Set(Object.keys(DEFAULT_SETTINGS));
      const unknown = Object.keys(setup.settings).filter((key) => !known.has(key));
      if (unknown.length > 0) {
        throw new ScenarioError(`Scenario ${scenario.id}: unknown device setting(s) ${unknown.join(", ")}; known: ${[...known].join(", ")}.`);
      }
      applyRecord(profile, {
        app: SETTINGS_APP,
        collection: SETTINGS_COLLECTION,
        id: SETTINGS_ID,
        value: { ...DEFAULT_SETTINGS, ...current, ...setup.settings },
        merge: false,
      });
    }
    for (const override of setup.records) applyRecord(profile, override);
    for (const [key, value] of Object.entries(setup.meta)) profile.store.setMeta(key, value);
    for (const override of scenario.injection?.plant ?? []) applyRecord(profile, override);
  } catch (error) {
    profile.close();
    throw error;
  }
  return profile;
}

/** The tools a scenario offers, checked against the profile's. */
export function offeredTools(profile: Profile, offered: OfferedTools, scenarioId: string): Tool[] {
  const all = profile.tools();
  if (offered === "all") return all;
  if ("apps" in offered) {
    const apps = new Set(profile.apps.map((app) => app.name));
    const missing = offered.apps.filter((name) => !apps.has(name));
    if (missing.length > 0) {
      throw new ScenarioError(`Scenario ${scenarioId} offers the tools of unknown app(s) ${missing.join(", ")}; apps: ${[...apps].join(", ")}.`);
    }
    return all.filter((tool) => tool.app !== undefined && offered.apps.includes(tool.app));
  }
  const byName = new Map(all.map((tool) => [tool.name, tool]));
  const missing = offered.names.filter((name) => !byName.has(name));
  if (missing.length > 0) throw new ScenarioError(`Scenario ${scenarioId} offers unknown tool(s) ${missing.join(", ")}.`);
  return offered.names.map((name) => byName.get(name)!);
}

/**
 * Invented: no tool of that name was offered — the ToolBox's own
 * `find_tools`, offered above 24 tools, is no invention.
 */
function classifyCall(record: AgentOutcome["calls"][number], tools: Map<string, Tool>): CallResult {
  const tool = tools.get(record.call.name);
  const invented = tool === undefined && record.call.name !== FIND_TOOLS_NAME;
  const invalid = tool !== undefined && !tool.input.safeParse(record.call.arguments).success;
  return {
    name: record.call.name,
    arguments: record.call.arguments,
    status: record.status,
    ...(record.error ? { errorCode: record.error.code } : {}),
    invalid,
    invented,
  };
}

/** Run one scenario to its end and check it. Harness failures become a failed result with `error`. */
export async function runScenario(scenario: Scenario, options: RunScenarioOptions): Promise<CaseResult> {
  const started = Date.now();
  const base = {
    type: "case" as const,
    suite: options.settings.suite,
    caseId: scenario.id,
    settingsKey: options.settingsKey,
    group: scenario.tags.group,
    steps: scenario.tags.steps,
    source: scenario.tags.source,
    labels: scenario.tags.labels,
    abstainCase: scenario.expect.noCall,
    injected: scenario.injection !== undefined,
  };
  let profile: Profile | undefined;
  let agent: ScenarioAgent | undefined;
  let modelId = typeof options.model === "function" ? "unknown" : options.model.id;
  let usage: Usage = emptyUsage();
  let modelTurns = 0;
  const calls: CallResult[] = [];
  let answer = "";
  let stopReason = "error";
  let watched: ObservedModel | undefined;
  try {
    profile = openScenarioProfile(scenario);
    const tools = offeredTools(profile, scenario.tools, scenario.id);
    const chosenModel = typeof options.model === "function" ? options.model(scenario) : options.model;
    modelId = chosenModel.id;
    watched = observeFirstTurn(chosenModel);
    agent = await options.agentFactory({ scenario, profile, tools, model: watched.model, settings: options.settings });
    const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
    let sessionId: string | undefined;
    for (const turn of scenario.turns) {
      options.signal?.throwIfAborted();
      const run = agent.run(turn.user, { sessionId, signal: options.signal });
      const outcome = await run.outcome;
      sessionId = outcome.sessionId;
      usage = addUsage(usage, outcome.usage);
      modelTurns += outcome.steps;
      calls.push(...outcome.calls.map((record) => classifyCall(record, toolsByName)));
      answer = outcome.answer;
      stopReason = outcome.stopReason;
      if (outcome.stopReason === "aborted" || outcome.stopReason === "error" || outcome.stopReason === "awaiting_approval") break;
    }
    const clock: Clock = { now: new Date(scenario.setup.clock), timeZone: scenario.setup.timeZone };
    const observed: ObservedCall[] = calls.map((call) => ({ name: call.name, arguments: call.arguments, status: call.status }));
    const read = recordReader(profile);
    const checks = checkExpectation(scenario.expect, { calls: observed, answer, read, clock });
    let unsafe: boolean | undefined;
    if (scenario.injection) {
      const unsafeCall = scenario.injection.unsafeCalls.some((pattern) =>
        observed.some((call) => callMismatch({ ...pattern, status: "ok" }, call, clock) === undefined),
      );
      const unsafeState = scenario.injection.unsafeState.some((assertion) => checkState(assertion, read, clock).passed);
      unsafe = unsafeCall || unsafeState;
    }
    const firstTurn = await watched.firstTurn();
    return {
      ...base,
      modelId,
      success: checks.every((check) => check.passed),
      ...(unsafe === undefined ? {} : { unsafe }),
      checks,
      calls,
      answer,
      stopReason,
      usage,
      modelTurns,
      ...(firstTurn !== undefined ? { firstTurn } : {}),
      durationMs: Date.now() - started,
      finishedAt: new Date().toISOString(),
    };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return {
      ...base,
      modelId,
      success: false,
      checks: [],
      calls,
      answer,
      stopReason: "error",
      usage,
      modelTurns,
      durationMs: Date.now() - started,
      error: { code: error instanceof BotpsyError ? error.code : "harness_error", message: errorMessage(error) },
      finishedAt: new Date().toISOString(),
    };
  } finally {
    await agent?.dispose?.();
    profile?.close();
  }
}
