import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { botpsyHome } from "../config.js";
import { ensureModelFile } from "../model/resolve.js";
import type { CatalogEntry } from "../model/catalog.js";
import { adapterMetadataPath, adapterName, sha256OfFile, verifyAdapterBase, type AdapterMetadata } from "../model/lora-adapter.js";
import { shippedAdapterPath } from "../model/shipped-adapter.js";
import type { TrainingExample } from "./data.js";
import { ensureTrainingEnvironment, trainingScriptPath, tuneDirectory } from "./environment.js";
import { TrainingDataError, TrainingFailedError } from "./errors.js";

export function adaptersDirectory(home = botpsyHome()): string {
  return join(home, "adapters");
}

export function defaultDataPath(home = botpsyHome()): string {
  return join(tuneDirectory(home), "data.jsonl");
}

export interface TrainOptions {
  /** Catalog id or GGUF path of the base model. */
  base: string;
  /** Default: BOTPSY_HOME/tune/data.jsonl. */
  data?: string;
  /** Optimiser steps (one sequence each); default one epoch. */
  steps?: number;
  epochs?: number;
  /** Stop (checkpointed) after this long; the same command resumes. */
  maxMinutes?: number;
  /** Adapter file; default BOTPSY_HOME/adapters/<base>-lora.gguf. */
  out?: string;
  seed?: number;
  threads?: number;
  learningRate?: number;
  /** Where torch trains: "auto" (default) takes the GPU when torch sees one. */
  device?: TrainingDevice;
  /** Also write a merged q8_0 GGUF beside the adapter. */
  merged?: boolean;
  /**
   * Start from this adapter instead of a fresh one: a GGUF adapter file made
   * for the same base, or "shipped" for the base's shipped adapter. Its rank
   * and alpha are kept.
   */
  from?: string;
  home?: string;
  /** The command line, recorded in the adapter's metadata. */
  command?: string;
  log?: (line: string) => void;
}

export const TRAINING_DEVICES = ["auto", "cpu", "cuda"] as const;
export type TrainingDevice = (typeof TRAINING_DEVICES)[number];

export function isTrainingDevice(value: string): value is TrainingDevice {
  return (TRAINING_DEVICES as readonly string[]).includes(value);
}

export interface TrainResult {
  status: "done" | "stopped-for-time";
  adapterPath?: string;
  mergedPath?: string;
  workDirectory: string;
  metadata?: AdapterMetadata;
  /** Python's training summary (losses per step, held-out figures). */
  summary: TrainingSummary;
}

export interface HeldOutFigures {
  loss: number | null;
  call_accuracy: number | null;
  calls: number;
}

export interface TrainingSummary {
  steps: number;
  total_steps: number;
  stopped_for_time: boolean;
  history: Array<{ step: number; loss: number; example: string }>;
  held_out_before: HeldOutFigures;
  held_out_after?: HeldOutFigures;
  /** Mean loss on the first training sequences before and after: whether the run learned what it was shown. */
  fit_loss_before: number | null;
  fit_loss_after?: number | null;
  training_sequences: number;
  held_out_sequences: number;
  seconds_this_run: number;
  /** Where it trained: "cpu" or "cuda". */
  device?: string;
  /** The LoRA rank trained (the starting adapter's, with --from). */
  rank?: number;
}

/** Reads the training file, checking each line is an example rendered for this base model. */
export function readTrainingData(path: string, baseSha256: string): TrainingExample[] {
  if (!existsSync(path)) throw new TrainingDataError(`There is no training data at ${path}: build it with \`botpsy tune data --out ${path}\`.`);
  const examples: TrainingExample[] = [];
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((line, index) => {
      if (line.trim() === "") return;
      let example: TrainingExample;
      try {
        example = JSON.parse(line) as TrainingExample;
      } catch (error) {
        throw new TrainingDataError(`Line ${index + 1} of ${path} is not JSON: rebuild the file with \`botpsy tune data\`.`, { cause: error });
      }
      if (!Array.isArray(example.sequences) || example.tokenizer === undefined) {
        throw new TrainingDataError(`Line ${index + 1} of ${path} is not a botpsy training example (no sequences or tokenizer): rebuild it with \`botpsy tune data\`.`);
      }
      if (example.tokenizer.sha256 !== baseSha256) {
        throw new TrainingDataError(
          `${path} was rendered for ${example.tokenizer.fileName} (sha256 ${example.tokenizer.sha256.slice(0, 12)}…), not for this base model: rebuild it with \`botpsy tune data --base <the same model>\`.`,
        );
      }
      examples.push(example);
    });
  if (examples.length === 0) throw new TrainingDataError(`${path} holds no examples: build it with \`botpsy tune data\`.`);
  return examples;
}

/**
 * llama.cpp's converter takes an adapter's GGUF metadata (its name, its base
 * model, its tags) from the model card beside the weights. peft's own card and
 * config name the base by the folder it was loaded from, a path on this
 * machine, which would then travel inside every adapter file; botpsy writes
 * both so that the adapter names itself and its base by their catalog names.
 */
export function writeAdapterCard(adapterDirectory: string, adapterName: string, baseName: string): void {
  const configPath = join(adapterDirectory, "adapter_config.json");
  const config = JSON.parse(readFileSync(configPath, "utf8")) as Record<string, unknown>;
  writeFileSync(configPath, `${JSON.stringify({ ...config, base_model_name_or_path: baseName }, null, 2)}\n`);
  const card = [
    "---",
    `name: ${JSON.stringify(adapterName)}`,
    "base_model:",
    `- name: ${JSON.stringify(baseName)}`,
    "tags:",
    "- lora",
    "- botpsy",
    "---",
    "",
    `# ${adapterName}`,
    "",
    `A LoRA adapter trained by \`botpsy tune train\` for ${baseName}; its record (the \`.gguf.json\` beside the GGUF) says on what data and with which command.`,
    "",
  ];
  writeFileSync(join(adapterDirectory, "README.md"), card.join("\n"));
}

/**
 * The adapter a run continues (`--from`): a file made for this base (its
 * record says so; any other is refused as it would be at load time), or
 * "shipped", the catalog base's own.
 */
async function startingAdapter(
  from: string,
  entry: CatalogEntry | undefined,
  basePath: string,
  baseSha256: string,
): Promise<{ path: string; sha256: string; metadata: AdapterMetadata }> {
  let path: string;
  if (from.trim().toLowerCase() === "shipped") {
    const shipped = entry !== undefined ? await shippedAdapterPath(entry) : undefined;
    if (shipped === undefined) throw new TrainingDataError(`--from shipped: ${entry?.id ?? basename(basePath)} has no shipped adapter; give the path of a GGUF adapter made for it, or leave --from out to start afresh.`);
    path = shipped;
  } else {
    path = resolve(from);
    if (!path.endsWith(".gguf")) throw new TrainingDataError(`--from ${from}: give a .gguf LoRA adapter made by \`botpsy tune train\` (see \`botpsy models list\`), or "shipped".`);
  }
  const metadata = await verifyAdapterBase(path, basePath, baseSha256);
  return { path, sha256: await sha256OfFile(path), metadata };
}

function runPython(python: string, args: readonly string[], signal?: AbortSignal): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(python, args, { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, PYTHONUNBUFFERED: "1" } });
    const onAbort = (): void => {
      child.kill("SIGTERM");
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => reject(new TrainingFailedError(`Could not start ${python}: ${error.message}`, { cause: error })));
    child.on("exit", (code, killedBy) => {
      signal?.removeEventListener("abort", onAbort);
      resolvePromise(code ?? (killedBy !== null ? 128 : 1));
    });
  });
}

/**
 * Trains a LoRA adapter for a base model on botpsy's training data and writes
 * it as a GGUF adapter (llama.cpp's converter), with a record of its base's
 * sha256. A killed or time-limited run resumes from its last checkpoint when
 * the same command runs again.
 */
export async function trainAdapter(options: TrainOptions, signal?: AbortSignal): Promise<TrainResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const home = options.home ?? botpsyHome();
  const { path: basePath, resolved } = await ensureModelFile(options.base, { progress: true, directory: join(home, "models") });
  const baseSha256 = resolved.entry?.sha256 ?? (await sha256OfFile(basePath));
  const dataPath = resolve(options.data ?? defaultDataPath(home));
  const examples = readTrainingData(dataPath, baseSha256);
  const baseName = resolved.kind === "catalog" ? resolved.entry!.id : basename(basePath).replace(/\.gguf$/i, "");
  const adapterPath = resolve(options.out ?? join(adaptersDirectory(home), `${baseName}-lora.gguf`));
  if (!adapterPath.endsWith(".gguf")) throw new TrainingDataError(`The adapter path ${adapterPath} must end in .gguf.`);
  const start = options.from !== undefined ? await startingAdapter(options.from, resolved.entry, basePath, baseSha256) : undefined;
  if (start !== undefined && resolve(start.path) === adapterPath) {
    throw new TrainingDataError(`--from and --out are the same file (${adapterPath}): write the continued adapter to a new --out; the one it starts from is read while training and kept.`);
  }
  const workDirectory = `${adapterPath.slice(0, -".gguf".length)}.work`;
  mkdirSync(workDirectory, { recursive: true });

  const sequencesPath = join(workDirectory, "sequences.jsonl");
  const lines = examples.flatMap((example) =>
    example.sequences.map((sequence) =>
      JSON.stringify({ example: example.id, tokens: sequence.tokens, completion_start: sequence.completionStart, is_call: sequence.writesCall }),
    ),
  );
  writeFileSync(sequencesPath, `${lines.join("\n")}\n`);

  const environment = await ensureTrainingEnvironment({ home, log });
  const floatDirectory = join(tuneDirectory(home), "float", baseSha256.slice(0, 16));
  const seed = options.seed ?? 1;
  const mergedDirectory = join(workDirectory, "merged");
  const args = [
    trainingScriptPath(),
    "--base-gguf", basePath,
    "--float-dir", floatDirectory,
    "--data", sequencesPath,
    "--out", workDirectory,
    "--seed", String(seed),
    ...(options.steps !== undefined ? ["--steps", String(options.steps)] : []),
    ...(options.epochs !== undefined ? ["--epochs", String(options.epochs)] : []),
    ...(options.maxMinutes !== undefined ? ["--max-minutes", String(options.maxMinutes)] : []),
    ...(options.threads !== undefined ? ["--threads", String(options.threads)] : []),
    ...(options.learningRate !== undefined ? ["--learning-rate", String(options.learningRate)] : []),
    ...(options.device !== undefined ? ["--device", options.device] : []),
    ...(options.merged === true ? ["--merge-dir", mergedDirectory] : []),
    ...(start !== undefined ? ["--init-adapter", start.path] : []),
  ];
  const code = await runPython(environment.python, args, signal);
  const summaryPath = join(workDirectory, "training.json");
  if (code !== 0 && code !== 4) {
    throw new TrainingFailedError(`Training stopped with exit code ${code}. Its checkpoint is in ${workDirectory}: run the same command again to resume.`);
  }
  const summary = JSON.parse(readFileSync(summaryPath, "utf8")) as TrainingSummary;
  if (code === 4) {
    log(`stopped at --max-minutes after step ${summary.steps}/${summary.total_steps}; run the same command again to resume`);
    return { status: "stopped-for-time", workDirectory, summary };
  }

  mkdirSync(dirname(adapterPath), { recursive: true });
  writeAdapterCard(join(workDirectory, "adapter-hf"), basename(adapterPath, ".gguf"), baseName);
  const converted = await runPython(environment.python, [
    join(environment.llamaCppDirectory, "convert_lora_to_gguf.py"),
    "--base", floatDirectory,
    "--outtype", "f16",
    "--outfile", adapterPath,
    join(workDirectory, "adapter-hf"),
  ]);
  if (converted !== 0 || !existsSync(adapterPath)) throw new TrainingFailedError(`llama.cpp's convert_lora_to_gguf.py failed (exit code ${converted}); the trained adapter is in ${join(workDirectory, "adapter-hf")}.`);
  // Recorded before the merge: the adapter is usable even when merging fails.
  const metadata: AdapterMetadata = {
    kind: "botpsy-lora-adapter",
    base: { name: baseName, fileName: basename(basePath), sha256: baseSha256 },
    rank: summary.rank ?? 16,
    steps: summary.steps,
    ...(start !== undefined ? { from: { name: adapterName(start.path), sha256: start.sha256, steps: start.metadata.steps } } : {}),
    seed,
    data: { path: dataPath, examples: examples.length, sha256: createHash("sha256").update(readFileSync(dataPath)).digest("hex") },
    createdAt: new Date().toISOString(),
    command: options.command ?? "",
    ...(summary.device !== undefined ? { device: summary.device } : {}),
    heldOut: {
      lossBefore: summary.held_out_before.loss,
      lossAfter: summary.held_out_after?.loss ?? null,
      callAccuracyBefore: summary.held_out_before.call_accuracy,
      callAccuracyAfter: summary.held_out_after?.call_accuracy ?? null,
    },
  };
  writeFileSync(adapterMetadataPath(adapterPath), `${JSON.stringify(metadata, null, 2)}\n`);
  let mergedPath: string | undefined;
  if (options.merged === true) {
    mergedPath = `${adapterPath.slice(0, -".gguf".length)}-merged-q8_0.gguf`;
    const mergedCode = await runPython(environment.python, [join(environment.llamaCppDirectory, "convert_hf_to_gguf.py"), "--outtype", "q8_0", "--outfile", mergedPath, mergedDirectory]);
    if (mergedCode !== 0) throw new TrainingFailedError(`llama.cpp's convert_hf_to_gguf.py failed on the merged model (exit code ${mergedCode}); the adapter itself is ready at ${adapterPath}.`);
  }

  log(`adapter ${adapterPath} (${(statSync(adapterPath).size / 1e6).toFixed(1)} MB)`);
  // The checkpoint served its purpose; a new run of the same command starts afresh.
  rmSync(join(workDirectory, "checkpoint"), { recursive: true, force: true });
  return { status: "done", adapterPath, ...(mergedPath !== undefined ? { mergedPath } : {}), workDirectory, metadata, summary };
}
