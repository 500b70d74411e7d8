import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { LlamaChatSession, type ChatSessionModelFunction, type GbnfJsonSchema, type LlamaContext } from "node-llama-cpp";
import { z } from "zod";
import type { AgentOutcome } from "../src/agent/types.js";
import { Profile } from "../src/apps/profile.js";
import { BotpsyError, errorMessage } from "../src/errors.js";
import { normalizeToolSchema } from "../src/model/json-schema.js";
import type { LlamaChatModel } from "../src/model/llama-chat-model.js";
import { loadLlamaModel } from "../src/model/resolve.js";
import type { ToolChoice } from "../src/model/types.js";
import { defineTool, toolSpec, type Tool } from "../src/tools/tool.js";
import { ToolBox } from "../src/tools/toolbox.js";
import { assembleRuntime } from "../src/runtime.js";

/**
 * `npm run bench -- agent [--json] [--limit N] [--model M] [--threads N] [--max-tokens N] [--skip-300]`
 *
 * On one model and the same single-step requests over the built-in apps:
 *   1. node-llama-cpp's `LlamaChatSession` with every app tool as a function,
 *      used the plain way (it runs the calls itself), and the same session
 *      given only the tools botpsy's retrieval picks for the request;
 *   2. botpsy's loop (ToolBox retrieval, grammar, validation), tool choice auto;
 *   3. botpsy's loop with the first turn required to call a tool;
 * and with 300 tools loaded (the built-in ones plus generated distractors):
 * botpsy with retrieval against botpsy with every tool in the prompt.
 *
 * A request succeeds when the first call names the expected tool with
 * arguments its schema accepts and the tool runs without error.
 */

const DEFAULT_TEST_MODEL = ".botpsy-test/models/SmolLM2-135M-Instruct.Q4_1.gguf";
const CLOCK = "2026-12-04T09:00:00Z";
const ZONE = "Europe/Lisbon";

/** 50 single-step requests and the tool each one needs. */
export const AGENT_BENCH_REQUESTS: readonly { request: string; tool: string }[] = [
  { request: "Turn on Wi-Fi", tool: "set_wifi" },
  { request: "Turn off Bluetooth", tool: "set_bluetooth" },
  { request: "Switch airplane mode on", tool: "set_airplane_mode" },
  { request: "Set the volume to 30", tool: "set_volume" },
  { request: "Set the screen brightness to 80", tool: "set_brightness" },
  { request: "Turn on do not disturb", tool: "set_do_not_disturb" },
  { request: "Set an alarm for 7:00", tool: "set_alarm" },
  { request: "List my alarms", tool: "list_alarms" },
  { request: "Start a timer for 10 minutes", tool: "start_timer" },
  { request: "Show my timers", tool: "list_timers" },
  { request: "List the files in my documents folder", tool: "list_files" },
  { request: "Search my files for invoice", tool: "search_files" },
  { request: "Create a folder called projects", tool: "create_folder" },
  { request: "What events are on my calendar today?", tool: "list_events" },
  { request: "Find the calendar event about the dentist", tool: "find_events" },
  { request: "Add an event called Team lunch on 2026-12-07 at 12:30", tool: "create_event" },
  { request: "Add a task: renew passport", tool: "add_task" },
  { request: "List my open tasks", tool: "list_tasks" },
  { request: "Create a task list called Garden", tool: "create_task_list" },
  { request: "Show my inbox emails", tool: "list_emails" },
  { request: "Search my email for the word invoice", tool: "search_email" },
  { request: "Check for new email", tool: "check_email" },
  { request: "List my documents", tool: "list_documents" },
  { request: "Create a note titled Ideas", tool: "create_document" },
  { request: "List my contacts", tool: "list_contacts" },
  { request: "Find the contact Frank", tool: "find_contact" },
  { request: "Show my chat conversations", tool: "list_conversations" },
  { request: "Search the web for electric bikes", tool: "search_web" },
  { request: "What is the weather in Lisbon today?", tool: "get_weather" },
  { request: "Get the latest news headlines", tool: "get_headlines" },
  { request: "Search the news for elections", tool: "search_news" },
  { request: "Play some jazz music", tool: "play_music" },
  { request: "Pause the music", tool: "pause_music" },
  { request: "What song is playing now?", tool: "get_now_playing" },
  { request: "Create a playlist called Road trip", tool: "create_playlist" },
  { request: "Show my watch list", tool: "list_watch_list" },
  { request: "List my photo albums", tool: "list_photo_albums" },
  { request: "Search recipes for pasta", tool: "search_recipes" },
  { request: "List my recent workouts", tool: "list_workouts" },
  { request: "Show my fitness progress", tool: "get_fitness_progress" },
  { request: "Show my account balances", tool: "get_account_balances" },
  { request: "List my bills", tool: "list_bills" },
  { request: "Find a cafe in Porto", tool: "search_places" },
  { request: "List my saved places", tool: "list_saved_places" },
  { request: "Search flights from Lisbon to Paris on 2026-12-20", tool: "search_flights" },
  { request: "List my bookings", tool: "list_bookings" },
  { request: "Search the shop for headphones", tool: "search_products" },
  { request: "Show my shopping cart", tool: "view_cart" },
  { request: "Show my shopping list", tool: "view_shopping_list" },
  { request: "Check the car's fuel level", tool: "check_fuel_level" },
];

export class AgentBenchUsageError extends BotpsyError {
  constructor(message: string) {
    super("bench_usage", message);
  }
}

interface AgentBenchOptions {
  json: boolean;
  limit: number;
  model: string;
  threads: number | undefined;
  maxTokens: number;
  skip300: boolean;
}

export interface AgentBenchRow {
  system: string;
  tools: number;
  requests: number;
  successRate: number;
  invalidOrInventedCalls: number;
  /** Runs that failed outright, by error code (a prompt too long for the context above all). */
  failedRuns: Record<string, number>;
  /** Mean prompt tokens evaluated per request (cached ones not counted). */
  promptTokensPerRequest: number;
  /** Mean prompt tokens the model read per request, cached or not (botpsy only). */
  contextTokensPerRequest: number | null;
  secondsPerRequest: number;
}

interface Attempt {
  /** The run failed outright (e.g. the prompt does not fit in the context): its code. */
  error?: string;
  success: boolean;
  invalid: number;
  promptTokens: number;
  contextTokens: number | null;
  seconds: number;
}

function parseArguments(argv: readonly string[]): AgentBenchOptions {
  const options: AgentBenchOptions = { json: false, limit: AGENT_BENCH_REQUESTS.length, model: DEFAULT_TEST_MODEL, threads: undefined, maxTokens: 64, skip300: false };
  const wholeNumber = (flag: string, text: string | undefined): number => {
    const value = Number(text);
    if (text === undefined || !Number.isInteger(value) || value < 1) throw new AgentBenchUsageError(`${flag} needs a whole number, 1 or more (got ${text ?? "nothing"}).`);
    return value;
  };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === "--json") options.json = true;
    else if (argument === "--skip-300") options.skip300 = true;
    else if (argument === "--limit") options.limit = Math.min(wholeNumber("--limit", argv[++index]), AGENT_BENCH_REQUESTS.length);
    else if (argument === "--threads") options.threads = wholeNumber("--threads", argv[++index]);
    else if (argument === "--max-tokens") options.maxTokens = wholeNumber("--max-tokens", argv[++index]);
    else if (argument === "--model") {
      const model = argv[++index];
      if (!model) throw new AgentBenchUsageError("--model needs a catalog id or a GGUF path.");
      options.model = model;
    } else throw new AgentBenchUsageError(`Unknown option ${argument}. Options: --json, --limit N, --model M, --threads N, --max-tokens N, --skip-300.`);
  }
  return options;
}

function openBenchProfile(): Profile {
  return Profile.open({ databasePath: ":memory:", home: resolve(".botpsy-test/bench-agent"), clock: CLOCK, timeZone: ZONE });
}

/** Made-up tools from domains the requests never touch, so retrieval has something to leave out. */
export function distractorTools(count: number): Tool[] {
  const verbs = ["calibrate", "archive", "inspect", "register", "validate", "polish", "rotate", "audit", "tune", "measure", "label", "prune"];
  const nouns = ["telescope", "greenhouse", "aquarium", "warehouse_shelf", "satellite", "violin", "glacier_sensor", "beehive", "lighthouse", "vineyard", "kiln", "loom", "printing_press"];
  const tools: Tool[] = [];
  for (const noun of nouns) {
    for (const verb of verbs) {
      if (tools.length >= count) return tools;
      tools.push(
        defineTool({
          name: `${verb}_${noun}`,
          description: `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${noun.replace(/_/g, " ")} by its number.`,
          input: z.object({ [`${noun}_number`]: z.number().int(), note: z.string().optional() }),
          risk: "write",
          app: "distractors",
          run: () => ({ ok: true }),
        }),
      );
    }
  }
  return tools;
}

async function runBotpsy(
  model: LlamaChatModel,
  requests: readonly { request: string; tool: string }[],
  options: { threshold: number; firstStepToolChoice?: ToolChoice; extraTools?: Tool[]; maxTokens: number },
): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  for (const item of requests) {
    const profile = openBenchProfile();
    // The shipped assembly with every call approved: the bench measures tool choice, not the gate.
    const { agent } = assembleRuntime({
      profile,
      model,
      safety: { approveAll: true },
      tools: [...profile.tools(), ...(options.extraTools ?? [])],
      toolSelection: { threshold: options.threshold },
      agent: {
        maxSteps: 2,
        generation: { maxTokens: options.maxTokens },
        ...(options.firstStepToolChoice ? { firstStepToolChoice: options.firstStepToolChoice } : {}),
      },
    });
    const started = performance.now();
    let outcome: AgentOutcome;
    try {
      outcome = await agent.run(item.request).outcome;
    } finally {
      profile.close();
    }
    const first = outcome.calls.find((record) => record.call.name !== "find_tools");
    const invalid = outcome.calls.filter((record) => record.error?.code === "unknown_tool" || record.error?.code === "invalid_arguments").length;
    attempts.push({
      ...(outcome.error && outcome.stopReason === "error" ? { error: outcome.error.code } : {}),
      success: first !== undefined && first.call.name === item.tool && first.status === "ok",
      invalid,
      promptTokens: outcome.usage.promptTokens - outcome.usage.cachedPromptTokens,
      contextTokens: outcome.usage.promptTokens,
      seconds: (performance.now() - started) / 1000,
    });
    model.endConversation?.(outcome.sessionId);
  }
  return attempts;
}

/** node-llama-cpp's own function calling, used as its documentation shows: the session calls the handlers. */
async function runLlamaChatSession(
  context: LlamaContext,
  requests: readonly { request: string; tool: string }[],
  maxTokens: number,
  selectTools: (tools: Tool[], request: string) => Tool[],
): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  for (const item of requests) {
    const profile = openBenchProfile();
    const calls: { name: string; valid: boolean; ok: boolean }[] = [];
    const controller = new AbortController();
    const functions: Record<string, ChatSessionModelFunction> = {};
    for (const tool of selectTools(profile.tools(), item.request)) {
      // What defineChatSessionFunction returns, written out: its generic typing wants a schema known at compile time.
      functions[tool.name] = {
        description: tool.description,
        params: normalizeToolSchema(tool.name, toolSpec(tool).parameters) as GbnfJsonSchema,
        handler: async (params: unknown) => {
          const parsed = tool.input.safeParse(params ?? {});
          if (!parsed.success) {
            calls.push({ name: tool.name, valid: false, ok: false });
            return { error: "invalid arguments" };
          }
          try {
            const result = await profile.runTool(tool, params ?? {});
            calls.push({ name: tool.name, valid: true, ok: true });
            return result.value;
          } catch (error) {
            calls.push({ name: tool.name, valid: true, ok: false });
            return { error: errorMessage(error) };
          } finally {
            // Single-step requests: one round of calls is all the benchmark reads.
            if (calls.length >= 2) controller.abort();
          }
        },
      } as ChatSessionModelFunction;
    }
    let failure: string | undefined;
    const sequence = context.getSequence();
    const session = new LlamaChatSession({ contextSequence: sequence });
    const before = sequence.tokenMeter.usedInputTokens;
    const started = performance.now();
    try {
      await session.prompt(item.request, { functions, maxTokens, temperature: 0, seed: 1, signal: controller.signal, stopOnAbortSignal: true });
    } catch (error) {
      if (process.env.BENCH_DEBUG) process.stderr.write(`${errorMessage(error)}\n`);
      if (!controller.signal.aborted) failure = error instanceof Error && /context/i.test(error.message) ? "context_overflow" : `failed: ${errorMessage(error).slice(0, 80)}`;
    }
    const seconds = (performance.now() - started) / 1000;
    const promptTokens = sequence.tokenMeter.usedInputTokens - before;
    session.dispose();
    sequence.dispose();
    profile.close();
    const first = calls[0];
    attempts.push({
      ...(failure !== undefined ? { error: failure } : {}),
      success: first !== undefined && first.name === item.tool && first.ok,
      invalid: calls.filter((call) => !call.valid).length,
      promptTokens,
      contextTokens: null,
      seconds,
    });
  }
  return attempts;
}

function summarise(system: string, tools: number, attempts: Attempt[]): AgentBenchRow {
  const mean = (values: number[]): number => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);
  const failedRuns: Record<string, number> = {};
  for (const attempt of attempts) if (attempt.error !== undefined) failedRuns[attempt.error] = (failedRuns[attempt.error] ?? 0) + 1;
  const completed = attempts.filter((attempt) => attempt.error === undefined);
  const contexts = completed.map((attempt) => attempt.contextTokens).filter((value): value is number => value !== null);
  return {
    system,
    tools,
    requests: attempts.length,
    successRate: attempts.length === 0 ? 0 : attempts.filter((attempt) => attempt.success).length / attempts.length,
    invalidOrInventedCalls: attempts.reduce((sum, attempt) => sum + attempt.invalid, 0),
    failedRuns,
    promptTokensPerRequest: Math.round(mean(completed.map((attempt) => attempt.promptTokens))),
    contextTokensPerRequest: contexts.length === 0 ? null : Math.round(mean(contexts)),
    secondsPerRequest: Number(mean(attempts.map((attempt) => attempt.seconds)).toFixed(2)),
  };
}

export function formatAgentBenchTable(rows: readonly AgentBenchRow[]): string {
  const header =
    "| system | tools | requests | success | invalid/invented calls | failed runs | prompt tokens evaluated / request | prompt tokens read / request | s / request |";
  const rule = "|---|---:|---:|---:|---:|---|---:|---:|---:|";
  const lines = rows.map(
    (row) =>
      `| ${row.system} | ${row.tools} | ${row.requests} | ${(row.successRate * 100).toFixed(0)}% | ${row.invalidOrInventedCalls} | ${describeFailures(row.failedRuns)} | ${row.promptTokensPerRequest} | ${row.contextTokensPerRequest ?? "—"} | ${row.secondsPerRequest} |`,
  );
  return [header, rule, ...lines].join("\n");
}

function describeFailures(failures: Record<string, number>): string {
  const entries = Object.entries(failures);
  return entries.length === 0 ? "0" : entries.map(([code, count]) => `${count} ${code}`).join(", ");
}

export async function runAgentBench(argv: readonly string[]): Promise<AgentBenchRow[]> {
  const options = parseArguments(argv);
  const requests = AGENT_BENCH_REQUESTS.slice(0, options.limit);
  const progress = (text: string): void => {
    if (!options.json) process.stderr.write(`${text}\n`);
  };
  const rows: AgentBenchRow[] = [];
  const builtIn = openBenchProfile().tools().length;
  const threads = options.threads !== undefined ? { threads: options.threads } : {};

  const model = await loadLlamaModel({ model: options.model, ...threads });
  try {
    progress(`model ${model.id}, ${requests.length} requests, ${builtIn} built-in tools`);
    // The whole tool list goes into the session's prompt: give it the model's full trained context.
    const context = await model.model.createContext({ contextSize: { max: 8192 }, sequences: 1, ...threads });
    try {
      rows.push(summarise("LlamaChatSession (node-llama-cpp, all tools)", builtIn, await runLlamaChatSession(context, requests, options.maxTokens, (tools) => tools)));
      progress("LlamaChatSession with all tools done");
      // The same session given only the tools botpsy's retrieval picks: the loop compared with retrieval held equal.
      const retrieved = (tools: Tool[], request: string): Tool[] => new ToolBox(tools).search(request);
      rows.push(summarise("LlamaChatSession (node-llama-cpp, retrieved tools)", builtIn, await runLlamaChatSession(context, requests, options.maxTokens, retrieved)));
      progress("LlamaChatSession with retrieved tools done");
    } finally {
      await context.dispose();
    }
    rows.push(summarise("botpsy loop (retrieval, auto)", builtIn, await runBotpsy(model, requests, { threshold: 24, maxTokens: options.maxTokens })));
    progress("botpsy auto done");
    rows.push(
      summarise("botpsy loop (retrieval, first turn must call)", builtIn, await runBotpsy(model, requests, { threshold: 24, firstStepToolChoice: "required", maxTokens: options.maxTokens })),
    );
    progress("botpsy required done");
  } finally {
    await model.dispose();
  }

  if (!options.skip300) {
    const distractors = distractorTools(300 - builtIn);
    // Every tool in the prompt needs a longer context than the default.
    const wide = await loadLlamaModel({ model: options.model, contextSize: 8192, ...threads });
    try {
      const settings = { firstStepToolChoice: "required" as const, extraTools: distractors, maxTokens: options.maxTokens };
      rows.push(summarise("botpsy, 300 tools, retrieval (first turn must call)", 300, await runBotpsy(wide, requests, { ...settings, threshold: 24 })));
      progress("300 tools with retrieval done");
      rows.push(summarise("botpsy, 300 tools, all in prompt (first turn must call)", 300, await runBotpsy(wide, requests, { ...settings, threshold: 1000 })));
      progress("300 tools all in prompt done");
    } finally {
      await wide.dispose();
    }
  }
  return rows;
}

/** Prints the table (or JSON with `--json`) and returns the exit code: what `npm run bench -- agent` runs. */
export async function runAgentBenchMain(argv: readonly string[]): Promise<number> {
  const json = argv.includes("--json");
  try {
    const rows = await runAgentBench(argv);
    process.stdout.write(json ? `${JSON.stringify({ benchmark: "agent", rows }, null, 2)}\n` : `${formatAgentBenchTable(rows)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`bench agent: ${errorMessage(error)}\n`);
    return error instanceof AgentBenchUsageError ? 2 : 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = await runAgentBenchMain(process.argv.slice(2));
