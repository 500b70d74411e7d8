import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { AgentRun } from "../src/agent/types.js";
import { Profile } from "../src/apps/profile.js";
import { errorMessage, InvalidInputError } from "../src/errors.js";
import { option, positiveInteger } from "./options.js";
import { createChatModel } from "../src/model/resolve.js";
import type { ChatModel, GenerateRequest } from "../src/model/types.js";
import { assembleRuntime } from "../src/runtime.js";
import { createAgentService } from "../src/server/agent-routes.js";
import { startServer, type RunningServer } from "../src/server/server.js";
import { ScriptedModel, type ScriptedReply } from "../src/testing/scripted-model.js";

/**
 * `npm run bench -- serve [--json] [--model PATH] [--threads N] [--max-tokens N] [--concurrency 1,4,16] [--agent-model scripted|real]`
 *
 * What `botpsy serve` costs over calling the library in the same process:
 * N concurrent clients (default 1, 4 and 16) send chat completions (streamed,
 * real model, small max_tokens) and agent runs (streamed events) to a real
 * HTTP server on loopback; the same work is then done by calling the model
 * (`ChatModel.generate`) and the runtime (`Runtime.run`) directly. Reported
 * per path: requests/s, p50/p95 latency, p50 time to first token, and the
 * overhead ratio (server requests/s over direct requests/s; 1.0 is no cost).
 *
 * Agent runs use a scripted model by default (`--agent-model real` for the
 * real one): one read-only call (list_alarms), then an answer, so what is
 * measured is the server's share (HTTP, SSE, the run lane, the journal),
 * not the model's speed. Both sides run agent runs one at a time, as the
 * server's run lane does; clients queue for it.
 */

const DEFAULT_MODEL = resolve(".botpsy-test/models/SmolLM2-135M-Instruct.Q4_1.gguf");
const CHAT_PROMPT = "Say hello in three words.";
const AGENT_REQUEST = "What alarms do I have?";

export interface ServeBenchRow {
  workload: "chat" | "agent";
  model: string;
  path: "direct" | "server";
  concurrency: number;
  requests: number;
  requestsPerSecond: number;
  p50LatencyMs: number;
  p95LatencyMs: number;
  p50TimeToFirstTokenMs: number;
}

interface Timed {
  latencyMs: number;
  timeToFirstTokenMs: number;
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((first, second) => first - second);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

/** Runs `total` tasks with `concurrency` clients at once; returns each task's timings and the wall time. */
async function drive(concurrency: number, total: number, task: () => Promise<Timed>): Promise<{ timings: Timed[]; wallMs: number }> {
  const timings: Timed[] = [];
  let next = 0;
  const startedAt = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        timings.push(await task());
      }
    }),
  );
  return { timings, wallMs: performance.now() - startedAt };
}

/** Both paths in two halves, direct-server then server-direct, so a machine getting busier or quieter favours neither. */
async function interleaved(concurrency: number, total: number, direct: () => Promise<Timed>, served: () => Promise<Timed>): Promise<{ direct: { timings: Timed[]; wallMs: number }; server: { timings: Timed[]; wallMs: number } }> {
  const half = Math.ceil(total / 2);
  const firstDirect = await drive(concurrency, half, direct);
  const firstServer = await drive(concurrency, half, served);
  const secondServer = await drive(concurrency, total - half, served);
  const secondDirect = await drive(concurrency, total - half, direct);
  const join = (a: { timings: Timed[]; wallMs: number }, b: { timings: Timed[]; wallMs: number }) => ({ timings: [...a.timings, ...b.timings], wallMs: a.wallMs + b.wallMs });
  return { direct: join(firstDirect, secondDirect), server: join(firstServer, secondServer) };
}

function row(workload: ServeBenchRow["workload"], model: string, path: ServeBenchRow["path"], concurrency: number, result: { timings: Timed[]; wallMs: number }): ServeBenchRow {
  const latencies = result.timings.map((timing) => timing.latencyMs);
  return {
    workload,
    model,
    path,
    concurrency,
    requests: result.timings.length,
    requestsPerSecond: result.timings.length / (result.wallMs / 1000),
    p50LatencyMs: percentile(latencies, 0.5),
    p95LatencyMs: percentile(latencies, 0.95),
    p50TimeToFirstTokenMs: percentile(
      result.timings.map((timing) => timing.timeToFirstTokenMs),
      0.5,
    ),
  };
}

/** Reads an SSE body, calling `onData` with each event's name and data, until it ends. */
async function readSse(response: Response, onData: (event: string, data: string) => void): Promise<void> {
  if (!response.ok || !response.body) throw new Error(`the server answered ${response.status}: ${await response.text()}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (true) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n");
      onData(event, data);
    }
  }
}

async function chatDirect(model: ChatModel, maxTokens: number): Promise<Timed> {
  const startedAt = performance.now();
  let first: number | undefined;
  const request: GenerateRequest = { messages: [{ role: "user", content: CHAT_PROMPT }], maxTokens };
  for await (const event of model.generate(request)) {
    if (first === undefined && (event.type === "text-delta" || event.type === "tool-call")) first = performance.now();
  }
  const end = performance.now();
  return { latencyMs: end - startedAt, timeToFirstTokenMs: (first ?? end) - startedAt };
}

async function chatServer(server: RunningServer, modelId: string, maxTokens: number): Promise<Timed> {
  const startedAt = performance.now();
  let first: number | undefined;
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: modelId, messages: [{ role: "user", content: CHAT_PROMPT }], max_tokens: maxTokens, stream: true }),
  });
  await readSse(response, (_event, data) => {
    if (first !== undefined || data === "[DONE]") return;
    const delta = (JSON.parse(data) as { choices?: { delta?: { content?: string; tool_calls?: unknown[] } }[] }).choices?.[0]?.delta;
    if ((delta?.content ?? "") !== "" || (delta?.tool_calls?.length ?? 0) > 0) first = performance.now();
  });
  const end = performance.now();
  return { latencyMs: end - startedAt, timeToFirstTokenMs: (first ?? end) - startedAt };
}

/** One at a time, as the server's run lane runs them. */
class Lane {
  private tail: Promise<unknown> = Promise.resolve();
  run<Result>(task: () => Promise<Result>): Promise<Result> {
    const next = this.tail.then(task, task);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

async function agentDirect(start: () => AgentRun, lane: Lane, mustAnswer: boolean): Promise<Timed> {
  const startedAt = performance.now();
  let first: number | undefined;
  await lane.run(async () => {
    const run = start();
    for await (const event of run) {
      if (first === undefined && (event.type === "text-delta" || event.type === "tool-call")) first = performance.now();
    }
    const outcome = await run.outcome;
    if (mustAnswer && outcome.stopReason !== "answered") throw new Error(`a direct agent run ended ${outcome.stopReason}: ${outcome.error?.message ?? outcome.answer}`);
  });
  const end = performance.now();
  return { latencyMs: end - startedAt, timeToFirstTokenMs: (first ?? end) - startedAt };
}

async function agentServer(server: RunningServer, mustAnswer: boolean): Promise<Timed> {
  const startedAt = performance.now();
  let first: number | undefined;
  let stopReason = "";
  const response = await fetch(`${server.url}/v1/agent/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ request: AGENT_REQUEST }) });
  await readSse(response, (event, data) => {
    if (first === undefined && (event === "text-delta" || event === "tool-call")) first = performance.now();
    if (event === "done") stopReason = (JSON.parse(data) as { outcome: { stopReason: string } }).outcome.stopReason;
  });
  // The scripted model always answers; the real one may stop otherwise, but every run must end.
  if (stopReason === "" || (mustAnswer && stopReason !== "answered")) throw new Error(`a served agent run ended ${stopReason || "without a done event"}`);
  const end = performance.now();
  return { latencyMs: end - startedAt, timeToFirstTokenMs: (first ?? end) - startedAt };
}

/** A model that calls list_alarms, then answers from its result: the same two turns for every run. */
function scriptedAgentModel(): ScriptedModel {
  const turn = (request: GenerateRequest): ScriptedReply =>
    request.messages.at(-1)?.role === "tool" ? { text: "You have three alarms: 06:45, 09:30 and 18:00." } : { toolCalls: [{ name: "list_alarms", arguments: {} }] };
  return new ScriptedModel([turn], { id: "scripted (list_alarms, then an answer)", whenExhausted: "repeat-last" });
}


export function formatServeBenchTable(rows: readonly ServeBenchRow[]): string {
  const lines = [
    "| workload | model | clients | path | requests | req/s | p50 ms | p95 ms | p50 first token ms | server / direct req/s |",
    "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const item of rows) {
    const direct = rows.find((other) => other.workload === item.workload && other.concurrency === item.concurrency && other.path === "direct");
    const ratio = item.path === "server" && direct ? (item.requestsPerSecond / direct.requestsPerSecond).toFixed(3) : "";
    lines.push(
      `| ${item.workload} | ${item.model} | ${item.concurrency} | ${item.path} | ${item.requests} | ${item.requestsPerSecond.toFixed(2)} | ${item.p50LatencyMs.toFixed(0)} | ${item.p95LatencyMs.toFixed(0)} | ${item.p50TimeToFirstTokenMs.toFixed(0)} | ${ratio} |`,
    );
  }
  return lines.join("\n");
}

export async function runServeBench(argv: readonly string[]): Promise<number> {
  const json = argv.includes("--json");
  const modelPath = resolve(option(argv, "--model") ?? DEFAULT_MODEL);
  if (!existsSync(modelPath)) throw new InvalidInputError(`There is no model file at ${modelPath}; give one with --model (a GGUF path).`);
  const threads = positiveInteger(option(argv, "--threads"), "--threads", 1);
  const maxTokens = positiveInteger(option(argv, "--max-tokens"), "--max-tokens", 8);
  const concurrencies = (option(argv, "--concurrency") ?? "1,4,16").split(",").map((value) => positiveInteger(value.trim(), "--concurrency", 1));
  const agentModelKind = option(argv, "--agent-model") ?? "scripted";
  if (agentModelKind !== "scripted" && agentModelKind !== "real") throw new InvalidInputError(`--agent-model must be "scripted" or "real", not "${agentModelKind}".`);
  const requestsFor = (concurrency: number): number => Math.max(16, concurrency * 2);
  const say = (line: string): void => {
    if (!json) process.stderr.write(`${line}\n`);
  };

  const directory = mkdtempSync(join(tmpdir(), "botpsy-serve-bench-"));
  const model = await createChatModel({ model: modelPath, threads });
  const rows: ServeBenchRow[] = [];
  const profiles: Profile[] = [];
  const openProfile = (name: string): Profile => {
    const profile = Profile.open({ databasePath: join(directory, `${name}.db`), home: directory, clock: "2026-12-01T09:00:00Z", timeZone: "UTC" });
    profiles.push(profile);
    return profile;
  };
  let server: RunningServer | undefined;
  try {
    // Chat completions: the real model, directly and through the server.
    server = await startServer({ model, port: 0, webRoot: false });
    await chatDirect(model, maxTokens);
    await chatServer(server, model.id, maxTokens);
    for (const concurrency of concurrencies) {
      const total = requestsFor(concurrency);
      say(`chat, ${concurrency} client(s), ${total} requests each way`);
      const measured = await interleaved(concurrency, total, () => chatDirect(model, maxTokens), () => chatServer(server!, model.id, maxTokens));
      rows.push(row("chat", model.id, "direct", concurrency, measured.direct), row("chat", model.id, "server", concurrency, measured.server));
    }
    await server.close();
    server = undefined;

    // Agent runs: the same request through the runtime directly and through the server's agent routes.
    const agentModel = agentModelKind === "real" ? model : scriptedAgentModel();
    const directRuntime = assembleRuntime({ profile: openProfile("direct"), model: agentModel, agent: { maxSteps: 3 } });
    const lane = new Lane();
    server = await startServer({ model: agentModel, port: 0, webRoot: false, agent: createAgentService(openProfile("served"), agentModel, { maxSteps: 3 }) });
    const mustAnswer = agentModelKind === "scripted";
    await agentDirect(() => directRuntime.run(AGENT_REQUEST), lane, mustAnswer);
    await agentServer(server, mustAnswer);
    for (const concurrency of concurrencies) {
      const total = requestsFor(concurrency);
      say(`agent runs, ${concurrency} client(s), ${total} runs each way`);
      const measured = await interleaved(
        concurrency,
        total,
        () => agentDirect(() => directRuntime.run(AGENT_REQUEST), lane, mustAnswer),
        () => agentServer(server!, mustAnswer),
      );
      rows.push(row("agent", agentModel.id, "direct", concurrency, measured.direct), row("agent", agentModel.id, "server", concurrency, measured.server));
    }
  } finally {
    await server?.close();
    for (const profile of profiles) profile.close();
    await model.dispose();
    rmSync(directory, { recursive: true, force: true });
  }

  if (json) {
    process.stdout.write(`${JSON.stringify({ benchmark: "serve", model: modelPath, threads, maxTokens, agentModel: agentModelKind, rows }, null, 2)}\n`);
  } else {
    process.stdout.write(`botpsy serve against direct library calls; ${threads} thread(s), max_tokens ${maxTokens}; agent runs on the ${agentModelKind} model\n\n${formatServeBenchTable(rows)}\n`);
  }
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runServeBench(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`bench serve: ${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}
