import { fork } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { LlamaChatSession, getLlama, LlamaLogLevel } from "node-llama-cpp";
import { errorMessage } from "../src/errors.js";
import { median, option, positiveInteger } from "./options.js";
import { ensureModelFile, bestPresentModel } from "../src/model/resolve.js";
import { SMOLLM2_ID } from "../src/model/catalog.js";
import { LlamaChatModel } from "../src/model/llama-chat-model.js";
import type { ChatMessage } from "../src/model/types.js";

/**
 * `npm run bench -- model [--json] [--model M] [--threads N] [--rounds N] [--max-tokens N]`
 *
 * On the default model (the best present, else SmolLM2 pulled now) with 2
 * threads: prompt tokens/s, output tokens/s, time to first token, the second
 * turn's time to first token with the cached prefix, and peak RSS, for
 * botpsy's `LlamaChatModel` and for bare node-llama-cpp (`LlamaChatSession`,
 * its plain chat API) as the baseline. Each measurement runs in a fresh child
 * process (so peak RSS is its own), alternating botpsy and baseline so that
 * load from other processes falls on both alike; medians are reported.
 */

export interface ModelBenchFigures {
  promptTokens: number;
  promptTokensPerSecond: number;
  outputTokens: number;
  outputTokensPerSecond: number;
  timeToFirstTokenMs: number;
  secondTurnTimeToFirstTokenMs: number;
  secondTurnEvaluatedPromptTokens: number;
  peakRssMegabytes: number;
}

interface WorkerRequest {
  kind: "botpsy" | "baseline";
  modelPath: string;
  threads: number;
  maxTokens: number;
}

const SYSTEM_PROMPT = [
  "You are botpsy, a personal assistant that runs on the user's own device.",
  "You help with messages, calendars, reminders, notes, errands, the weather and the news.",
  "Answer in plain language. Keep answers short unless the user asks for detail.",
  "Never invent facts about the user; when something is missing, say so and ask.",
  "When the user asks for a story, write it in simple sentences, one scene after another.",
].join(" ");
const FIRST_REQUEST = "Write a long story about a robot who tends a rooftop garden in a busy city, through all four seasons.";
const SECOND_REQUEST = "Now tell the same story from the point of view of a pigeon.";

async function measureBotpsy(request: WorkerRequest): Promise<ModelBenchFigures> {
  const model = await LlamaChatModel.load({ modelPath: request.modelPath, threads: request.threads, contextSize: 2048, maxConversations: 1 });
  try {
    const messages: ChatMessage[] = [
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: FIRST_REQUEST },
    ];
    const first = await model.generate({ messages, maxTokens: request.maxTokens, conversationId: "bench" }).result;
    messages.push({ role: "assistant", content: first.text }, { role: "user", content: SECOND_REQUEST });
    const second = await model.generate({ messages, maxTokens: 8, conversationId: "bench" }).result;
    return {
      promptTokens: first.usage.promptTokens,
      promptTokensPerSecond: first.timings.promptTokensPerSecond,
      outputTokens: first.usage.outputTokens,
      outputTokensPerSecond: first.timings.outputTokensPerSecond,
      timeToFirstTokenMs: first.timings.timeToFirstTokenMs,
      secondTurnTimeToFirstTokenMs: second.timings.timeToFirstTokenMs,
      secondTurnEvaluatedPromptTokens: second.usage.promptTokens - second.usage.cachedPromptTokens,
      peakRssMegabytes: process.resourceUsage().maxRSS / 1024,
    };
  } finally {
    await model.dispose();
  }
}

async function measureBaseline(request: WorkerRequest): Promise<ModelBenchFigures> {
  const llama = await getLlama({ logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath: request.modelPath });
  const context = await model.createContext({ contextSize: 2048, threads: request.threads });
  const sequence = context.getSequence();
  const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: SYSTEM_PROMPT });
  try {
    const turn = async (text: string, maxTokens: number): Promise<{ promptTokens: number; evaluated: number; outputTokens: number; ttftMs: number; outputSeconds: number }> => {
      const before = sequence.contextTokens.slice();
      const meter = sequence.tokenMeter.getState();
      const startedAt = performance.now();
      let firstAt: number | undefined;
      let promptTokens = 0;
      let cached = 0;
      await session.prompt(text, {
        maxTokens,
        temperature: 0,
        seed: 1,
        onTextChunk: () => {
          if (firstAt !== undefined) return;
          firstAt = performance.now();
          const tokens = sequence.contextTokens;
          promptTokens = tokens.length;
          while (cached < Math.min(before.length, tokens.length) && before[cached] === tokens[cached]) cached++;
        },
      });
      const finishedAt = performance.now();
      const outputTokens = sequence.tokenMeter.diff(meter).usedOutputTokens;
      const first = firstAt ?? finishedAt;
      return { promptTokens, evaluated: promptTokens - cached, outputTokens, ttftMs: first - startedAt, outputSeconds: (finishedAt - first) / 1000 };
    };
    const first = await turn(FIRST_REQUEST, request.maxTokens);
    const second = await turn(SECOND_REQUEST, 8);
    return {
      promptTokens: first.promptTokens,
      promptTokensPerSecond: first.evaluated / (first.ttftMs / 1000),
      outputTokens: first.outputTokens,
      outputTokensPerSecond: first.outputTokens > 1 ? (first.outputTokens - 1) / first.outputSeconds : 0,
      timeToFirstTokenMs: first.ttftMs,
      secondTurnTimeToFirstTokenMs: second.ttftMs,
      secondTurnEvaluatedPromptTokens: second.evaluated,
      peakRssMegabytes: process.resourceUsage().maxRSS / 1024,
    };
  } finally {
    session.dispose();
    await context.dispose();
    await model.dispose();
  }
}

function runWorker(request: WorkerRequest): Promise<ModelBenchFigures> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ["--worker", JSON.stringify(request)], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
    let figures: ModelBenchFigures | undefined;
    child.on("message", (message) => {
      figures = message as ModelBenchFigures;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (figures !== undefined) resolve(figures);
      else reject(new Error(`the ${request.kind} measurement exited with code ${code} before reporting`));
    });
  });
}


function medianFigures(runs: ModelBenchFigures[]): ModelBenchFigures {
  const keys = Object.keys(runs[0]!) as Array<keyof ModelBenchFigures>;
  return Object.fromEntries(keys.map((key) => [key, median(runs.map((run) => run[key]))])) as unknown as ModelBenchFigures;
}


export function formatModelBenchTable(modelId: string, threads: number, botpsy: ModelBenchFigures, baseline: ModelBenchFigures): string {
  const rows: Array<[string, keyof ModelBenchFigures, number]> = [
    ["prompt tokens/s", "promptTokensPerSecond", 1],
    ["output tokens/s", "outputTokensPerSecond", 1],
    ["time to first token (ms)", "timeToFirstTokenMs", 0],
    ["2nd turn time to first token (ms)", "secondTurnTimeToFirstTokenMs", 0],
    ["2nd turn prompt tokens evaluated", "secondTurnEvaluatedPromptTokens", 0],
    ["peak RSS (MB)", "peakRssMegabytes", 0],
  ];
  const lines = [
    `model ${modelId}, ${threads} threads, prompt ${botpsy.promptTokens} tokens, output ${botpsy.outputTokens} (botpsy) / ${baseline.outputTokens} (baseline) tokens`,
    "",
    `| figure | botpsy | node-llama-cpp | botpsy / baseline |`,
    `| --- | ---: | ---: | ---: |`,
  ];
  for (const [label, key, digits] of rows) {
    const ours = botpsy[key];
    const theirs = baseline[key];
    lines.push(`| ${label} | ${ours.toFixed(digits)} | ${theirs.toFixed(digits)} | ${theirs !== 0 ? (ours / theirs).toFixed(3) : "-"} |`);
  }
  return lines.join("\n");
}

export async function runModelBench(argv: readonly string[]): Promise<number> {
  const json = argv.includes("--json");
  const threads = positiveInteger(option(argv, "--threads"), "--threads", 2);
  const rounds = positiveInteger(option(argv, "--rounds"), "--rounds", 3);
  const maxTokens = positiveInteger(option(argv, "--max-tokens"), "--max-tokens", 160);
  const name = option(argv, "--model") ?? bestPresentModel()?.name ?? SMOLLM2_ID;
  const { path } = await ensureModelFile(name, { progress: !json });
  const runs = { botpsy: [] as ModelBenchFigures[], baseline: [] as ModelBenchFigures[] };
  for (let round = 0; round < rounds; round++) {
    for (const kind of round % 2 === 0 ? (["botpsy", "baseline"] as const) : (["baseline", "botpsy"] as const)) {
      if (!json) process.stderr.write(`round ${round + 1}/${rounds}: ${kind}\n`);
      runs[kind].push(await runWorker({ kind, modelPath: path, threads, maxTokens }));
    }
  }
  const botpsy = medianFigures(runs.botpsy);
  const baseline = medianFigures(runs.baseline);
  const outputRatio = botpsy.outputTokensPerSecond / baseline.outputTokensPerSecond;
  if (json) {
    process.stdout.write(`${JSON.stringify({ benchmark: "model", model: name, threads, rounds, botpsy, baseline, outputTokensPerSecondRatio: outputRatio, runs }, null, 2)}\n`);
  } else {
    process.stdout.write(`${formatModelBenchTable(name, threads, botpsy, baseline)}\n\n`);
    process.stdout.write(`output tokens/s: botpsy is ${(outputRatio * 100).toFixed(1)}% of the baseline (target: at least 95%); medians of ${rounds} rounds.\n`);
  }
  return 0;
}

async function workerMain(request: WorkerRequest): Promise<void> {
  const figures = request.kind === "botpsy" ? await measureBotpsy(request) : await measureBaseline(request);
  process.send?.(figures);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const workerIndex = process.argv.indexOf("--worker");
  const task =
    workerIndex >= 0
      ? workerMain(JSON.parse(process.argv[workerIndex + 1] ?? "{}") as WorkerRequest).then(() => 0)
      : runModelBench(process.argv.slice(2));
  task.then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`bench model: ${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}
