import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { InvalidInputError } from "../src/errors.js";
import { SMOLLM2_ID } from "../src/model/catalog.js";
import { ContextOverflowError } from "../src/model/errors.js";
import { LlamaChatModel } from "../src/model/llama-chat-model.js";
import { resolveModel } from "../src/model/resolve.js";
import type { ChatMessage, ToolChoice, ToolSpec } from "../src/model/types.js";
import { assembleRuntime } from "../src/runtime.js";
import { ScriptedModel, openTestProfile } from "../src/testing/index.js";

/**
 * `npm run bench -- cache [--json] [--threads N] [--model PATH ...]`
 *
 * KV reuse across an agent-like loop and load time, per model (default: the
 * SmolLM2 test model and the Qwen 3.5 fixture): a four-step conversation
 * (three forced calls, each with its result, then an answer), printing per
 * step the prompt tokens evaluated and read from the cache and the time to
 * first token; the same loop (three required calls, then an answer) on the
 * agent's own first request for it (its system prompt and the tools the
 * ToolBox selects, from the shipped runtime on the test profile); and the load time with the format named (template resolution
 * skipped), resolved from the template, and found in the format cache.
 */

const TOOLS: ToolSpec[] = [
  {
    name: "add_event",
    description: "Add an event to the calendar.",
    parameters: { type: "object", properties: { title: { type: "string", maxLength: 32 }, minutes: { type: "integer" } }, required: ["title", "minutes"] },
  },
  { name: "list_alarms", description: "List the alarms.", parameters: { type: "object", properties: {} } },
  { name: "send_message", description: "Send a text message.", parameters: { type: "object", properties: { to: { type: "string", maxLength: 24 }, text: { type: "string", maxLength: 48 } }, required: ["to", "text"] } },
];

export interface CacheStep {
  step: number;
  promptTokens: number;
  cachedPromptTokens: number;
  evaluatedPromptTokens: number;
  timeToFirstTokenMs: number;
}

export interface CacheBenchFigures {
  model: string;
  format: string;
  /** The short conversation: a one-line system prompt, three tools. */
  steps: CacheStep[];
  /** The agent's first request (system prompt, ToolBox-selected tools) in the same loop. */
  agentSteps: CacheStep[];
  agentTools: string[];
  /** Why the agent's conversation did not run (its prompt does not fit the context). */
  agentSkipped?: string;
  loadMs: { named: number; template: number; cached: number };
}

async function timedLoad(modelPath: string, threads: number, extra: { chatFormat?: "qwen3.5" | "prompted"; formatCacheFile?: string }): Promise<{ model: LlamaChatModel; ms: number }> {
  const startedAt = performance.now();
  const model = await LlamaChatModel.load({ modelPath, threads, gpu: false, contextSize: 4096, maxConversations: 1, ...extra });
  return { model, ms: performance.now() - startedAt };
}

export async function measureCache(modelPath: string, threads: number): Promise<CacheBenchFigures> {
  const directory = mkdtempSync(join(tmpdir(), "botpsy-cache-bench-"));
  try {
    const formatCacheFile = join(directory, "formats.json");
    const template = await timedLoad(modelPath, threads, { formatCacheFile });
    const format = template.model.format.name;
    await template.model.dispose();
    const cached = await timedLoad(modelPath, threads, { formatCacheFile });
    await cached.model.dispose();
    const named = await timedLoad(modelPath, threads, { chatFormat: format === "qwen3.5" ? "qwen3.5" : "prompted" });
    const model = named.model;
    try {
      const messages: ChatMessage[] = [
        { role: "system", content: "You are botpsy, a personal assistant." },
        { role: "user", content: USER_REQUEST },
      ];
      const steps = await runLoop(model, messages, TOOLS, [{ name: "add_event" }, { name: "send_message" }, { name: "add_event" }, "none"]);
      const agent = await agentRequest(join(directory, "profile"));
      let agentSteps: CacheStep[] = [];
      let agentSkipped: string | undefined;
      try {
        agentSteps = await runLoop(model, agent.messages, agent.tools, ["required", "required", "required", "none"]);
      } catch (error) {
        // The Qwen 3.5 fixture's tokenizer is tiny: the agent's prompt outgrows its 4096-token context.
        if (!(error instanceof ContextOverflowError)) throw error;
        agentSkipped = error.message;
      }
      return { model: model.id, format, steps, agentSteps, agentTools: agent.tools.map((tool) => tool.name), ...(agentSkipped !== undefined ? { agentSkipped } : {}), loadMs: { named: named.ms, template: template.ms, cached: cached.ms } };
    } finally {
      await model.dispose();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const USER_REQUEST = "Add lunch with Tom for an hour, then tell Anna.";

/** One conversation: a step per tool choice, each call answered `{"ok": true}`, on a conversation of its own. */
async function runLoop(model: LlamaChatModel, start: readonly ChatMessage[], tools: ToolSpec[], choices: readonly ToolChoice[]): Promise<CacheStep[]> {
  const messages = [...start];
  const conversationId = `bench-${randomUUID()}`;
  const steps: CacheStep[] = [];
  for (const [index, toolChoice] of choices.entries()) {
    const result = await model.generate({ messages, tools, toolChoice, maxTokens: 96, conversationId }).result;
    steps.push({
      step: index + 1,
      promptTokens: result.usage.promptTokens,
      cachedPromptTokens: result.usage.cachedPromptTokens,
      evaluatedPromptTokens: result.usage.promptTokens - result.usage.cachedPromptTokens,
      timeToFirstTokenMs: result.timings.timeToFirstTokenMs,
    });
    messages.push({ role: "assistant", content: result.text, ...(result.toolCalls.length > 0 ? { toolCalls: result.toolCalls } : {}) });
    for (const call of result.toolCalls) messages.push({ role: "tool", toolCallId: call.id, name: call.name, content: '{"ok": true}' });
  }
  model.endConversation(conversationId);
  return steps;
}

/** The messages and tools of the shipped agent's first model request for USER_REQUEST (no model runs: a scripted one records it). */
async function agentRequest(home: string): Promise<{ messages: ChatMessage[]; tools: ToolSpec[] }> {
  const profile = openTestProfile({ home });
  try {
    const recorder = new ScriptedModel(["Done."], { whenExhausted: "repeat-last" });
    const runtime = assembleRuntime({ profile, model: recorder });
    await runtime.run(USER_REQUEST).outcome;
    const first = recorder.requests[0];
    if (first === undefined) throw new Error("The agent made no model request.");
    return { messages: [...first.messages], tools: [...(first.tools ?? [])] };
  } finally {
    profile.close();
  }
}

export function formatCacheTable(figures: readonly CacheBenchFigures[]): string {
  const lines = [...stepTable(figures, (entry) => entry.steps)];
  lines.push("", "The agent's first request (its system prompt and the tools the ToolBox selects), three required calls, then an answer:", "");
  lines.push(...stepTable(figures, (entry) => entry.agentSteps));
  for (const entry of figures) if (entry.agentSkipped !== undefined) lines.push("", `${entry.model}: not run (${entry.agentSkipped})`);
  lines.push("", "| model | load, format named | load, resolved from template | load, format cache |", "|---|---:|---:|---:|");
  for (const entry of figures) {
    lines.push(`| ${entry.model} | ${entry.loadMs.named.toFixed(0)} ms | ${entry.loadMs.template.toFixed(0)} ms | ${entry.loadMs.cached.toFixed(0)} ms |`);
  }
  return lines.join("\n");
}

function stepTable(figures: readonly CacheBenchFigures[], stepsOf: (entry: CacheBenchFigures) => readonly CacheStep[]): string[] {
  const lines = ["| model (format) | step | prompt tokens | evaluated | from cache | cached % | TTFT ms |", "|---|---:|---:|---:|---:|---:|---:|"];
  for (const entry of figures) {
    for (const step of stepsOf(entry)) {
      const share = step.promptTokens > 0 ? (100 * step.cachedPromptTokens) / step.promptTokens : 0;
      lines.push(`| ${entry.model} (${entry.format}) | ${step.step} | ${step.promptTokens} | ${step.evaluatedPromptTokens} | ${step.cachedPromptTokens} | ${share.toFixed(1)} | ${step.timeToFirstTokenMs.toFixed(1)} |`);
    }
  }
  return lines;
}

export async function runCacheBench(argv: readonly string[]): Promise<number> {
  const json = argv.includes("--json");
  const threadsIndex = argv.indexOf("--threads");
  const threads = threadsIndex >= 0 ? Number(argv[threadsIndex + 1]) : 1;
  if (!Number.isInteger(threads) || threads < 1) throw new InvalidInputError(`--threads must be a whole number of at least 1, not "${argv[threadsIndex + 1]}".`);
  const chosen = argv.flatMap((value, index) => (argv[index - 1] === "--model" ? [value] : []));
  const smollm2 = resolveModel(SMOLLM2_ID);
  const defaults = [smollm2.present ? smollm2.path : resolve(".botpsy-test/models/SmolLM2-135M-Instruct.Q4_1.gguf"), resolve("test/fixtures/qwen35-tiny.gguf")];
  const figures: CacheBenchFigures[] = [];
  for (const path of chosen.length > 0 ? chosen : defaults) {
    if (!json) process.stderr.write(`cache bench: ${path}\n`);
    figures.push(await measureCache(path, threads));
  }
  if (json) process.stdout.write(`${JSON.stringify({ benchmark: "cache", threads, figures }, null, 2)}\n`);
  else process.stdout.write(`${threads} thread(s)\n\n${formatCacheTable(figures)}\n`);
  return 0;
}
