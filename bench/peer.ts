import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import createTestnet from "@hyperswarm/testnet";
import { InvalidInputError } from "../src/errors.js";
import { SMOLLM2_ID } from "../src/model/catalog.js";
import { LlamaChatModel } from "../src/model/llama-chat-model.js";
import { resolveModel } from "../src/model/resolve.js";
import type { ChatModel, GenerateRequest, Generation } from "../src/model/types.js";
import { assertLoopbackBootstrap, type PeerNetworkOptions } from "../src/peer/bootstrap.js";
import { modelInfoOf } from "../src/peer/model-info.js";
import { OffloadingModel } from "../src/peer/offloading-model.js";
import { PeerBook } from "../src/peer/peer-book.js";
import { PeerClient } from "../src/peer/peer-client.js";
import { PeerServer } from "../src/peer/peer-server.js";
import { assembleRuntime } from "../src/runtime.js";
import { openTestProfile, ScriptedModel } from "../src/testing/index.js";
import { median } from "./options.js";

/**
 * `npm run bench -- peer [--json] [--threads N] [--runs N]`
 *
 * The same agent job ("set an alarm for 7 am tomorrow", tools set_alarm and
 * list_alarms, at most 3 model turns) played with its model turns here and
 * offloaded to a lender over the peer link, on a local testnet (every DHT
 * node on 127.0.0.1). The lender lends the very model the local runs use,
 * so the difference per turn is what the link adds: framing, Noise
 * encryption, UDP on loopback, and the lender's queue. A ScriptedModel row
 * measures the link alone (no inference). Then 4 devices run the job at once
 * on the one lender: turns per second against one device alone.
 */

const JOB = "set an alarm for 7 am tomorrow";
const TOOL_NAMES = ["set_alarm", "list_alarms"];

/** Records how long each model turn took, end to end, as the agent sees it. */
class TimedModel implements ChatModel {
  readonly durationsMs: number[] = [];
  constructor(private readonly inner: ChatModel) {}
  get id(): string {
    return this.inner.id;
  }
  generate(request: GenerateRequest): Generation {
    const startedAt = performance.now();
    const generation = this.inner.generate(request);
    void generation.result.then(
      () => this.durationsMs.push(performance.now() - startedAt),
      () => undefined,
    );
    return generation;
  }
  endConversation(conversationId: string): void {
    this.inner.endConversation?.(conversationId);
  }
  async dispose(): Promise<void> {
    // The inner model is the caller's.
  }
}

export interface PeerBenchRow {
  mode: string;
  turns: number;
  medianTurnMs: number;
  addedMsPerTurn?: number;
  bytesSentPerTurn?: number;
  bytesReceivedPerTurn?: number;
  answer: string;
}

export interface PeerBenchFigures {
  model: string;
  threads: number;
  runs: number;
  rows: PeerBenchRow[];
  concurrent: { devices: number; turns: number; wallMs: number; turnsPerSecond: number; oneDeviceTurnsPerSecond: number };
}


async function playJob(model: ChatModel): Promise<string> {
  const profile = openTestProfile();
  try {
    const runtime = assembleRuntime({ profile, model, tools: profile.tools().filter((tool) => TOOL_NAMES.includes(tool.name)), safety: { approveAll: true }, agent: { maxSteps: 3 } });
    const run = runtime.run(JOB);
    for await (const _event of run) {
      // Only the outcome and the timings matter here.
    }
    const outcome = await run.outcome;
    model.endConversation?.(outcome.sessionId);
    return `${outcome.stopReason}: ${outcome.calls.map((call) => `${call.call.name}(${JSON.stringify(call.call.arguments)})`).join(", ")}`;
  } finally {
    profile.close();
  }
}

interface Device {
  model: OffloadingModel;
  timed: TimedModel;
  client: () => PeerClient | undefined;
}

async function pairedDevice(lender: PeerServer, lenderHome: string, name: string, network: PeerNetworkOptions, local: ChatModel, homes: string[]): Promise<Device> {
  const home = mkdtempSync(join(tmpdir(), "botpsy-peer-bench-device-"));
  homes.push(home);
  const book = PeerBook.open(home);
  const { secret } = PeerBook.open(lenderHome).createInvite(name, 60_000);
  const paired = await PeerClient.connectAnd({ book, publicKey: lender.publicKey, network }, (client) => client.pair(secret));
  await paired.client.close();
  let current: PeerClient | undefined;
  const model = new OffloadingModel({
    local,
    localInfo: { contextSize: 4096, sizeBytes: 1 },
    measurePrompt: () => 0,
    lenderName: "home",
    mode: "always",
    connect: async () => {
      const { client, value } = await PeerClient.connectAnd({ book, publicKey: lender.publicKey, network }, (opened) => opened.info());
      current = client;
      return { client, info: value };
    },
    onNotice: (text) => process.stderr.write(`peer bench: ${text}\n`),
  });
  return { model, timed: new TimedModel(model), client: () => current };
}

async function measureMode(mode: string, model: TimedModel, runs: number, bytes?: () => { sent: number; received: number }): Promise<{ row: PeerBenchRow; durations: number[] }> {
  let answer = "";
  for (let run = 0; run < runs; run++) answer = await playJob(model);
  const turns = model.durationsMs.length;
  const counted = bytes?.();
  return {
    row: {
      mode,
      turns,
      medianTurnMs: median(model.durationsMs),
      ...(counted !== undefined && turns > 0 ? { bytesSentPerTurn: Math.round(counted.sent / turns), bytesReceivedPerTurn: Math.round(counted.received / turns) } : {}),
      answer,
    },
    durations: model.durationsMs,
  };
}

export async function measurePeerLink(modelPath: string, threads: number, runs: number): Promise<PeerBenchFigures> {
  const homes: string[] = [];
  const testnet = await createTestnet(3, { host: "127.0.0.1" });
  assertLoopbackBootstrap(testnet.bootstrap);
  const network: PeerNetworkOptions = { bootstrap: testnet.bootstrap };
  const model = await LlamaChatModel.load({ modelPath, threads, gpu: false, maxConversations: 4 });
  // A call on the job's first turn, words on the next: the shape of the real job, without inference.
  const scriptedTurn = new ScriptedModel([(request) => (request.messages.at(-1)?.role === "user" ? { toolCalls: [{ name: "set_alarm", arguments: { time: "07:00" } }] } : "Done.")], {
    id: "scripted",
    whenExhausted: "repeat-last",
  });
  const lenderHome = mkdtempSync(join(tmpdir(), "botpsy-peer-bench-lender-"));
  homes.push(lenderHome);
  const scriptedHome = mkdtempSync(join(tmpdir(), "botpsy-peer-bench-scripted-"));
  homes.push(scriptedHome);
  const lender = await PeerServer.start({ book: PeerBook.open(lenderHome), model, modelInfo: modelInfoOf(model), network });
  const scriptedLender = await PeerServer.start({ book: PeerBook.open(scriptedHome), model: scriptedTurn, modelInfo: modelInfoOf(scriptedTurn), network });
  try {
    const local = await measureMode("local", new TimedModel(model), runs);
    const device = await pairedDevice(lender, lenderHome, "device-0", network, model, homes);
    const bytesOf = (target: Device) => () => ({ sent: target.client()?.bytesSent ?? 0, received: target.client()?.bytesReceived ?? 0 });
    const offloaded = await measureMode("offloaded", device.timed, runs, bytesOf(device));
    offloaded.row.addedMsPerTurn = offloaded.row.medianTurnMs - local.row.medianTurnMs;

    const scriptedLocal = await measureMode("link only: ScriptedModel here", new TimedModel(scriptedTurn), runs);
    const scriptedDevice = await pairedDevice(scriptedLender, scriptedHome, "device-s", network, scriptedTurn, homes);
    const scriptedRemote = await measureMode("link only: ScriptedModel on the peer", scriptedDevice.timed, runs, bytesOf(scriptedDevice));
    scriptedRemote.row.addedMsPerTurn = scriptedRemote.row.medianTurnMs - scriptedLocal.row.medianTurnMs;

    const devices = [device];
    for (let index = 1; index < 4; index++) devices.push(await pairedDevice(lender, lenderHome, `device-${index}`, network, model, homes));
    const turnsBefore = devices.map((entry) => entry.timed.durationsMs.length);
    const startedAt = performance.now();
    await Promise.all(devices.map((entry) => playJob(entry.timed)));
    const wallMs = performance.now() - startedAt;
    const turns = devices.reduce((sum, entry, index) => sum + entry.timed.durationsMs.length - turnsBefore[index]!, 0);
    const oneDeviceTurnsPerSecond = offloaded.durations.length / (offloaded.durations.reduce((sum, value) => sum + value, 0) / 1000);
    for (const entry of [...devices, scriptedDevice]) await entry.model.dispose();
    return {
      model: model.id,
      threads,
      runs,
      rows: [local.row, offloaded.row, scriptedLocal.row, scriptedRemote.row],
      concurrent: { devices: devices.length, turns, wallMs, turnsPerSecond: turns / (wallMs / 1000), oneDeviceTurnsPerSecond },
    };
  } finally {
    await lender.close();
    await scriptedLender.close();
    await model.dispose();
    await testnet.destroy();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  }
}

export function formatPeerTable(figures: PeerBenchFigures): string {
  const lines = [
    `model ${figures.model}, ${figures.threads} thread(s), ${figures.runs} run(s) of "${JOB}" per row, local testnet on 127.0.0.1`,
    "",
    "| where the model turns ran | turns | median ms/turn | added ms/turn | bytes sent/turn | bytes received/turn | last outcome |",
    "|---|---:|---:|---:|---:|---:|---|",
  ];
  for (const row of figures.rows) {
    lines.push(
      `| ${row.mode} | ${row.turns} | ${row.medianTurnMs.toFixed(0)} | ${row.addedMsPerTurn !== undefined ? row.addedMsPerTurn.toFixed(0) : "–"} | ${row.bytesSentPerTurn ?? "–"} | ${row.bytesReceivedPerTurn ?? "–"} | ${row.answer} |`,
    );
  }
  const concurrent = figures.concurrent;
  lines.push(
    "",
    `${concurrent.devices} devices at once on one peer: ${concurrent.turns} turns in ${(concurrent.wallMs / 1000).toFixed(1)} s = ${concurrent.turnsPerSecond.toFixed(2)} turns/s (one device alone: ${concurrent.oneDeviceTurnsPerSecond.toFixed(2)} turns/s)`,
  );
  return lines.join("\n");
}

export async function runPeerBench(argv: readonly string[]): Promise<number> {
  const json = argv.includes("--json");
  const option = (name: string, fallback: number): number => {
    const index = argv.indexOf(name);
    if (index < 0) return fallback;
    const value = Number(argv[index + 1]);
    if (!Number.isInteger(value) || value < 1) throw new InvalidInputError(`${name} must be a whole number of at least 1, not "${argv[index + 1]}".`);
    return value;
  };
  const threads = option("--threads", 1);
  const runs = option("--runs", 2);
  const smollm2 = resolveModel(SMOLLM2_ID);
  const modelPath = smollm2.present ? smollm2.path : resolve(".botpsy-test/models/SmolLM2-135M-Instruct.Q4_1.gguf");
  if (!json) process.stderr.write(`peer bench: ${modelPath}\n`);
  const figures = await measurePeerLink(modelPath, threads, runs);
  if (json) process.stdout.write(`${JSON.stringify({ benchmark: "peer", ...figures }, null, 2)}\n`);
  else process.stdout.write(`${formatPeerTable(figures)}\n`);
  return 0;
}
