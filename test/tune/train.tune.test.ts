import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { readGgufFileInfo } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { LlamaChatModel } from "../../src/model/llama-chat-model.js";
import { readAdapterMetadata, sha256OfFile } from "../../src/model/lora-adapter.js";
import type { TrainingSummary } from "../../src/tune/train.js";

/**
 * A real training run through the CLI: it creates botpsy's training
 * environment when missing (about 5.6 GB, several minutes), builds a handful of
 * examples, trains 6 steps, is killed after its checkpoint and resumed, and the
 * GGUF adapter is loaded by node-llama-cpp. Run with
 * `BOTPSY_TUNE_TEST=1 npx vitest run --config vitest.tune.config.ts`
 * (BOTPSY_TUNE_HOME reuses an environment already installed there).
 */
const modelPath = process.env.BOTPSY_TEST_MODEL!;
const home = resolve(process.env.BOTPSY_TUNE_HOME ?? join(".botpsy-test", "tune-home"));
const adapter = join(home, "adapters", "tune-test.gguf");
const data = join(home, "tune-test.jsonl");
const cli = resolve("dist", "src", "cli", "main.js");

function botpsy(args: string[], options: { killWhen?: () => boolean } = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise, reject) => {
    // Its own process group, so that a kill reaches the Python child too.
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, BOTPSY_HOME: home }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    let timer: NodeJS.Timeout | undefined;
    if (options.killWhen !== undefined) {
      timer = setInterval(() => {
        // Kill the whole run (node and its Python child) as a crash or Ctrl-C would.
        if (options.killWhen!()) {
          clearInterval(timer);
          process.kill(-child.pid!, "SIGKILL");
        }
      }, 500);
    }
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (timer !== undefined) clearInterval(timer);
      resolvePromise({ code, output });
    });
  });
}

async function firstCall(lora: string | undefined): Promise<string> {
  const model = await LlamaChatModel.load({ modelPath, threads: 1, maxConversations: 1, contextSize: 1024, ...(lora !== undefined ? { lora } : {}) });
  try {
    const tools = [
      { name: "start_timer", description: "Start a countdown timer.", parameters: { type: "object" as const, properties: { duration: { type: "string" }, label: { type: "string" } }, required: ["duration"] } },
    ];
    const result = await model.generate({ messages: [{ role: "user", content: "Start a 25 minute timer for the laundry" }], tools, maxTokens: 32 }).result;
    return JSON.stringify({ text: result.text, calls: result.toolCalls.map((call) => [call.name, call.arguments]) });
  } finally {
    await model.dispose();
  }
}

describe("botpsy tune train (real training)", () => {
  it("needs BOTPSY_TUNE_TEST=1: it installs the training environment and trains on the CPU", () => {
    expect(process.env.BOTPSY_TUNE_TEST, "set BOTPSY_TUNE_TEST=1 to run the training tests (they install about 5.6 GB)").toBe("1");
  });

  it("trains, survives a kill, resumes, and writes an adapter that loads and changes the output", async () => {
    expect(existsSync(cli), "build first: npm run build").toBe(true);
    mkdirSync(home, { recursive: true });
    const built = await botpsy(["tune", "data", "--count", "5", "--seed", "2", "--base", modelPath, "--out", data]);
    expect(built.code, built.output).toBe(0);
    expect(built.output).toMatch(/0 of \d+ drawn examples overlapped|overlapped and were dropped/);

    const train = ["tune", "train", "--base", modelPath, "--data", data, "--steps", "6", "--threads", "1", "--learning-rate", "0.001", "--device", "cpu", "--out", adapter];
    const checkpoint = join(adapter.replace(/\.gguf$/, ".work"), "checkpoint", "state.json");
    const killed = await botpsy(train, { killWhen: () => existsSync(checkpoint) });
    expect(killed.code, killed.output).not.toBe(0);
    expect(JSON.parse(readFileSync(checkpoint, "utf8")).step).toBe(5);

    const resumed = await botpsy(train);
    expect(resumed.code, resumed.output).toBe(0);
    expect(resumed.output).toContain("resuming from step 5/6");
    const summary = JSON.parse(readFileSync(join(adapter.replace(/\.gguf$/, ".work"), "training.json"), "utf8")) as TrainingSummary;
    expect(summary.steps).toBe(6);
    expect(summary.fit_loss_after!).toBeLessThan(summary.fit_loss_before!);

    expect(statSync(adapter).size).toBeGreaterThan(1_000_000);
    expect(readAdapterMetadata(adapter).base.sha256).toBe(await sha256OfFile(modelPath));
    expect(readAdapterMetadata(adapter).device).toBe("cpu");
    // The GGUF names the adapter and its base, and carries no path of this machine (peft's card would give the float cache's folder).
    const { metadata } = await readGgufFileInfo(adapter, { readTensorInfo: false });
    const general = metadata.general as unknown as Record<string, unknown>;
    expect(general.name).toBe("tune-test");
    expect(general.base_model).toEqual({ count: 1, 0: { name: basename(modelPath, ".gguf") } });
    expect(JSON.stringify(metadata)).not.toContain(home);
    expect(JSON.stringify(metadata)).not.toMatch(/huggingface\.co|tune\/float/);
    const before = await firstCall(undefined);
    const after = await firstCall(adapter);
    expect(after).not.toBe(before);
  });

  it("continues from an adapter (--from): the run starts where the first one ended, and says so in its record", async () => {
    expect(existsSync(adapter), "the test above writes the adapter this one continues").toBe(true);
    const first = JSON.parse(readFileSync(join(adapter.replace(/\.gguf$/, ".work"), "training.json"), "utf8")) as TrainingSummary;
    const more = join(home, "adapters", "tune-test-more.gguf");
    const continued = await botpsy(["tune", "train", "--base", modelPath, "--data", data, "--steps", "2", "--threads", "1", "--learning-rate", "0.001", "--device", "cpu", "--from", adapter, "--out", more]);
    expect(continued.code, continued.output).toBe(0);
    expect(continued.output).toContain("started from tune-test.gguf: 210 LoRA modules, rank 16, alpha 32");
    const summary = JSON.parse(readFileSync(join(more.replace(/\.gguf$/, ".work"), "training.json"), "utf8")) as TrainingSummary;
    // The same sequences measured with the weights read back from the GGUF (f16) as the first run measured them in float: equal to rounding.
    expect(summary.fit_loss_before!).toBeCloseTo(first.fit_loss_after!, 2);
    expect(summary.held_out_before.loss!).toBeCloseTo(first.held_out_after!.loss!, 2);
    const record = readAdapterMetadata(more);
    expect(record.from).toEqual({ name: "tune-test", sha256: await sha256OfFile(adapter), steps: 6 });
    expect(record.steps).toBe(2);

    const same = await botpsy(["tune", "train", "--base", modelPath, "--data", data, "--steps", "1", "--device", "cpu", "--from", more, "--out", more]);
    expect(same.code).not.toBe(0);
    expect(same.output).toContain("--from and --out are the same file");
  });

  it("refuses to continue an adapter made for another base", async () => {
    const foreign = join(home, "adapters", "foreign.gguf");
    writeFileSync(foreign, readFileSync(adapter));
    writeFileSync(`${foreign}.json`, JSON.stringify({ ...readAdapterMetadata(adapter), base: { name: "other", fileName: "other.gguf", sha256: "0".repeat(64) } }));
    const refused = await botpsy(["tune", "train", "--base", modelPath, "--data", data, "--steps", "1", "--device", "cpu", "--from", foreign, "--out", join(home, "adapters", "never.gguf")]);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain("was trained on base model other (other.gguf)");
    expect(existsSync(join(home, "adapters", "never.gguf"))).toBe(false);
  });
});
