import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { botpsyHome } from "../config.js";
import { TrainingEnvironmentError } from "./errors.js";

/**
 * The exact Python packages training runs on. torch from the package index is
 * its CUDA build (about 5.6 GB with its CUDA libraries); it runs on CPU too.
 */
export const TRAINING_PINS: readonly string[] = [
  "torch==2.15.0",
  "transformers==5.24.0",
  "peft==0.21.2",
  "gguf==0.19.0",
  // llama.cpp's convert_hf_to_gguf.py imports it while writing a merged model's vocabulary (--merged).
  "sentencepiece==0.2.3",
];

export function tuneDirectory(home = botpsyHome()): string {
  return join(home, "tune");
}

export interface TrainingEnvironment {
  python: string;
  /** llama.cpp's source at the exact version node-llama-cpp runs (for its GGUF converters). */
  llamaCppDirectory: string;
}

/** The training script shipped with botpsy (source and build both find it under src/tune/python). */
export function trainingScriptPath(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    const candidate = join(directory, "src", "tune", "python", "train.py");
    if (existsSync(candidate)) return candidate;
    const sibling = join(directory, "python", "train.py");
    if (existsSync(sibling)) return sibling;
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  throw new TrainingEnvironmentError("The training script src/tune/python/train.py is missing from this botpsy install: reinstall botpsy.");
}

function run(command: string, args: readonly string[], options: { quiet?: boolean } = {}): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: options.quiet === true ? ["ignore", "ignore", "pipe"] : ["ignore", "inherit", "inherit"] });
    let errorText = "";
    child.stderr?.on("data", (chunk: Buffer) => (errorText += chunk.toString()));
    child.on("error", (error) => reject(new TrainingEnvironmentError(`Could not run ${command}: ${error.message}. Install it and try again.`, { cause: error })));
    child.on("exit", (code) => {
      if (code === 0) resolvePromise();
      else reject(new TrainingEnvironmentError(`${command} ${args.join(" ")} failed with exit code ${code}.${errorText === "" ? "" : ` ${errorText.trim().slice(-600)}`}`));
    });
  });
}

function findSystemPython(): string {
  for (const candidate of ["python3", "python"]) {
    const probe = spawnSync(candidate, ["-c", "import sys, venv; print(sys.version_info[0] * 100 + sys.version_info[1])"], { encoding: "utf8" });
    if (probe.status === 0 && Number(probe.stdout.trim()) >= 310) return candidate;
  }
  throw new TrainingEnvironmentError("Training needs Python 3.10 or newer with the venv module on the PATH (python3). Install it and run the command again.");
}

/** Whether the environment's packages are exactly the pins (recorded once the install succeeded). */
function pinsMatch(directory: string): boolean {
  const record = join(directory, "pins.txt");
  return existsSync(record) && readFileSync(record, "utf8").trim() === TRAINING_PINS.join("\n");
}

/**
 * Creates (once) and returns the Python environment for training:
 * BOTPSY_HOME/tune/venv with the exact pins, and llama.cpp's source cloned
 * from the git bundle node-llama-cpp ships. Installing takes minutes and
 * about 5.6 GB; later calls return at once.
 */
export async function ensureTrainingEnvironment(options: { home?: string; log?: (line: string) => void } = {}): Promise<TrainingEnvironment> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const directory = tuneDirectory(options.home);
  const venv = join(directory, "venv");
  const python = join(venv, "bin", "python");
  mkdirSync(directory, { recursive: true });
  if (!pinsMatch(directory) || !existsSync(python)) {
    const systemPython = findSystemPython();
    log(`creating the training environment in ${venv}: ${TRAINING_PINS.join(" ")} (about 5.6 GB, several minutes)`);
    rmSync(join(directory, "pins.txt"), { force: true });
    if (!existsSync(python)) await run(systemPython, ["-m", "venv", venv]);
    await run(python, ["-m", "pip", "install", "--disable-pip-version-check", ...TRAINING_PINS]);
    writeFileSync(join(directory, "pins.txt"), `${TRAINING_PINS.join("\n")}\n`);
  }
  const llamaCppDirectory = await ensureLlamaCppSource(directory, log);
  return { python, llamaCppDirectory };
}

/** node-llama-cpp's bundle of the llama.cpp commit it was built from. */
export function llamaCppBundlePath(): string {
  const require = createRequire(import.meta.url);
  const entry = require.resolve("node-llama-cpp");
  let directory = dirname(entry);
  for (let depth = 0; depth < 5; depth++) {
    const candidate = join(directory, "llama", "gitRelease.bundle");
    if (existsSync(candidate)) return candidate;
    directory = dirname(directory);
  }
  throw new TrainingEnvironmentError("node-llama-cpp's llama/gitRelease.bundle was not found: reinstall botpsy's dependencies (npm ci).");
}

async function ensureLlamaCppSource(directory: string, log: (line: string) => void): Promise<string> {
  const target = join(directory, "llama.cpp");
  if (existsSync(join(target, "convert_lora_to_gguf.py"))) return target;
  const bundle = llamaCppBundlePath();
  log(`cloning llama.cpp's converters from ${bundle}`);
  rmSync(target, { recursive: true, force: true });
  await run("git", ["clone", "--quiet", bundle, target], { quiet: true });
  if (!existsSync(join(target, "convert_lora_to_gguf.py"))) {
    throw new TrainingEnvironmentError(`The llama.cpp source cloned into ${target} has no convert_lora_to_gguf.py: node-llama-cpp's bundle is incomplete; reinstall it.`);
  }
  return target;
}
