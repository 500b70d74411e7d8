import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { InvalidInputError } from "../src/errors.js";
import { SMOLLM2_ID } from "../src/model/catalog.js";
import { LlamaChatModel } from "../src/model/llama-chat-model.js";
import { resolveModel } from "../src/model/resolve.js";
import type { ChatMessage, ToolSpec } from "../src/model/types.js";

/**
 * `npm run bench -- cache [--json] [--threads N] [--model PATH ...]`
 *
 * KV reuse across an agent-like loop and load time, per model (default: the
 * SmolLM2 test model and the Qwen 3.5 fixture): a four-step conversation
 * (three forced calls, each with its result, then an answer), printing per
 * step the prompt tokens evaluated and read from the cache and the time to
 * first token; and the load time with the format named (template resolution
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
  steps: CacheStep[];
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
        { role: "user", content: "Add lunch with Tom for an hour, then tell Anna." },
      ];
      const steps: CacheStep[] = [];
      for (let step = 1; step <= 4; step++) {
        const choice = step === 4 ? ("none" as const) : { name: step === 2 ? "send_message" : "add_event" };
        const result = await model.generate({ messages, tools: TOOLS, toolChoice: choice, maxTokens: 96, conversationId: "bench" }).result;
        steps.push({
          step,
          promptTokens: result.usage.promptTokens,
          cachedPromptTokens: result.usage.cachedPromptTokens,
          evaluatedPromptTokens: result.usage.promptTokens - result.usage.cachedPromptTokens,
          timeToFirstTokenMs: result.timings.timeToFirstTokenMs,
        });
        messages.push({ role: "assistant", content: result.text, ...(result.toolCalls.length > 0 ? { toolCalls: result.toolCalls } : {}) });
        for (const call of result.toolCalls) messages.push({ role: "tool", toolCallId: call.id, name: call.name, content: '{"ok": true}' });
      }
      return { model: model.id, format, steps, loadMs: { named: named.ms, template: template.ms, cached: cached.ms } };
    } finally {
      await model.dispose();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export function formatCacheTable(figures: readonly CacheBenchFigures[]): string {
  const lines = ["| model (format) | step | prompt tokens | evaluated | from cache | cached % | TTFT ms |", "|---|---:|---:|---:|---:|---:|---:|"];
  for (const entry of figures) {
    for (const step of entry.steps) {
      const share = step.promptTokens > 0 ? (100 * step.cachedPromptTokens) / step.promptTokens : 0;
      lines.push(`| ${entry.model} (${entry.format}) | ${step.step} | ${step.promptTokens} | ${step.evaluatedPromptTokens} | ${step.cachedPromptTokens} | ${share.toFixed(1)} | ${step.timeToFirstTokenMs.toFixed(1)} |`);
    }
  }
  lines.push("", "| model | load, format named | load, resolved from template | load, format cache |", "|---|---:|---:|---:|");
  for (const entry of figures) {
    lines.push(`| ${entry.model} | ${entry.loadMs.named.toFixed(0)} ms | ${entry.loadMs.template.toFixed(0)} ms | ${entry.loadMs.cached.toFixed(0)} ms |`);
  }
  return lines.join("\n");
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
