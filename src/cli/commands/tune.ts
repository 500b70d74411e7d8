import type { Command } from "commander";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { InvalidInputError } from "../../errors.js";
import { SMOLLM2_ID } from "../../model/catalog.js";
import { ensureModelFile } from "../../model/resolve.js";
import { sha256OfFile } from "../../model/lora-adapter.js";
import { buildTrainingSet } from "../../tune/data.js";
import { EvaluationIndex, OVERLAP_NGRAM } from "../../tune/disjointness.js";
import { isRecipeSetName, RECIPE_SET_NAMES, type RecipeSetName } from "../../tune/recipes.js";
import { TrainingRenderer } from "../../tune/render.js";
import { defaultDataPath, isTrainingDevice, trainAdapter } from "../../tune/train.js";

function positiveInteger(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidInputError(`${option} ${value} is not usable: give a whole number, 1 or more.`);
  return parsed;
}

function recipeSetOption(value: string): RecipeSetName {
  if (isRecipeSetName(value)) return value;
  throw new InvalidInputError(`--recipes ${value} is not a recipe set: choose one of ${RECIPE_SET_NAMES.join(", ")}.`, { code: "invalid_option" });
}

function positiveNumber(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidInputError(`${option} ${value} is not usable: give a number above 0.`);
  return parsed;
}

/** `botpsy tune data | train`: training data from the apps, and LoRA training of the on-device model. */
export function registerTuneCommand(program: Command): void {
  const tune = program.command("tune").description("Fine-tune the on-device model with LoRA on training data built from your apps' tools.");

  tune
    .command("data")
    .description("Build training data (JSON lines): requests, the agent's prompts as the model sees them, real tool results, answers; disjoint from every evaluation set.")
    .option("--out <file>", "where to write it (default BOTPSY_HOME/tune/data.jsonl)")
    .option("--count <n>", "examples to build", "200")
    .option("--seed <n>", "seed of the drawing", "1")
    .option("--base <model>", "model whose chat format and tokenizer render the prompts", SMOLLM2_ID)
    .option("--recipes <set>", `recipe set to draw from: ${RECIPE_SET_NAMES.join(" or ")} (v4 adds single calls of more app tools and recoveries that finish the task; v5 adds the user's own tools whose descriptions say what form a value takes; v6 is v5 with the router's forced first turns trained, the call or the answer in words; v7 is v5 plus tools composed from parts, with choices named by paraphrase, lists, whole names and optional values, and requests none of the offered tools serves)`, "v3")
    .option("--json", "print the report as JSON")
    .action(async (options: { out?: string; count: string; seed: string; base: string; recipes: string; json?: boolean }) => {
      const recipeSet = recipeSetOption(options.recipes);
      const count = positiveInteger(options.count, "--count")!;
      const seed = Number(options.seed);
      if (!Number.isInteger(seed) || seed < 0) throw new InvalidInputError(`--seed ${options.seed} is not usable: give a whole number, 0 or more.`);
      const out = resolve(options.out ?? defaultDataPath());
      const { path, resolved } = await ensureModelFile(options.base, { progress: true });
      const sha256 = resolved.entry?.sha256 ?? (await sha256OfFile(path));
      const index = EvaluationIndex.load();
      const renderer = await TrainingRenderer.load(path, resolved.kind === "catalog" ? resolved.entry?.chatFormat : undefined);
      try {
        const report = await buildTrainingSet({
          count,
          seed,
          renderer,
          index,
          recipeSet,
          tokenizer: { fileName: path.split(/[\\/]/).pop()!, sha256 },
          onProgress: (done, total) => {
            if (!options.json) process.stderr.write(`\rexamples ${done}/${total}`);
          },
        });
        if (!options.json) process.stderr.write("\n");
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, report.examples.map((example) => JSON.stringify(example)).join("\n") + (report.examples.length > 0 ? "\n" : ""));
        const sequences = report.examples.reduce((sum, example) => sum + example.sequences.length, 0);
        const tokens = report.examples.reduce((sum, example) => sum + example.sequences.reduce((inner, sequence) => inner + sequence.tokens.length, 0), 0);
        const summary = {
          out,
          recipes: recipeSet,
          examples: report.examples.length,
          sequences,
          tokens,
          attempted: report.attempted,
          dropped: report.dropped,
          overlap: { ngram: OVERLAP_NGRAM, checkedTexts: report.checkedTexts, overlapping: report.dropped.overlap, examples: report.overlaps.slice(0, 5), evaluationNgrams: index.sizes },
          byKind: report.byKind,
          byTool: report.byTool,
        };
        if (options.json === true) {
          process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
          return;
        }
        process.stdout.write(`wrote ${report.examples.length} examples of recipe set ${recipeSet} (${sequences} model turns, ${tokens} tokens) to ${out}\n`);
        process.stdout.write(
          `evaluation overlap (${OVERLAP_NGRAM}-gram or whole text, against ${Object.entries(index.sizes).map(([name, size]) => `${name} ${size} n-grams`).join(", ")}): ` +
            `${report.dropped.overlap} of ${report.attempted} drawn examples overlapped and were dropped; the file has 0\n`,
        );
        for (const finding of report.overlaps.slice(0, 5)) process.stdout.write(`  dropped: "${finding.shared}" is in the ${finding.source}\n`);
        process.stdout.write(`also dropped: ${report.dropped["tool-not-offered"]} whose tool the ToolBox did not offer, ${report.dropped["router-conflict"]} the router would not allow, ${report.dropped["run-failed"]} failed\n`);
        process.stdout.write(`kinds: ${Object.entries(report.byKind).map(([kind, number]) => `${kind} ${number}`).join(", ")}\n`);
      } finally {
        await renderer.dispose();
      }
    });

  tune
    .command("train")
    .description("Train a LoRA adapter (GGUF) for a base model on CPU or GPU; creates its own Python environment on first use (about 5.6 GB).")
    .requiredOption("--base <model>", "catalog id or GGUF path of the base model")
    .option("--data <file>", "training data (default BOTPSY_HOME/tune/data.jsonl)")
    .option("--steps <n>", "optimiser steps (one model turn each)")
    .option("--epochs <n>", "passes over the data (default 1 when --steps is not given)")
    .option("--max-minutes <n>", "stop after this long, checkpointed; the same command resumes")
    .option("--out <file>", "adapter file (default BOTPSY_HOME/adapters/<base>-lora.gguf)")
    .option("--seed <n>", "seed of the training run", "1")
    .option("--threads <n>", "CPU threads for training")
    .option("--learning-rate <rate>", "AdamW learning rate", "0.0002")
    .option("--device <device>", "cpu, cuda, or auto (the GPU when torch sees one)", "auto")
    .option("--merged", "also write a merged q8_0 GGUF of the tuned model")
    .option("--from <adapter>", "continue from a GGUF adapter made for this base (or \"shipped\": the base's shipped adapter) instead of a fresh one")
    .option("--json", "print the result as JSON")
    .action(
      async (options: {
        base: string;
        data?: string;
        steps?: string;
        epochs?: string;
        maxMinutes?: string;
        out?: string;
        seed: string;
        threads?: string;
        learningRate: string;
        device: string;
        merged?: boolean;
        from?: string;
        json?: boolean;
      }) => {
        if (options.steps !== undefined && options.epochs !== undefined) throw new InvalidInputError("Give --steps or --epochs, not both.");
        if (!isTrainingDevice(options.device)) throw new InvalidInputError(`--device ${options.device} is not a training device: give cpu, cuda or auto.`);
        const device = options.device;
        const seed = Number(options.seed);
        if (!Number.isInteger(seed) || seed < 0) throw new InvalidInputError(`--seed ${options.seed} is not usable: give a whole number, 0 or more.`);
        const controller = new AbortController();
        const onInterrupt = (): void => controller.abort();
        process.once("SIGINT", onInterrupt);
        try {
          const steps = positiveInteger(options.steps, "--steps");
          const epochs = positiveNumber(options.epochs, "--epochs");
          const maxMinutes = positiveNumber(options.maxMinutes, "--max-minutes");
          const threads = positiveInteger(options.threads, "--threads");
          const learningRate = positiveNumber(options.learningRate, "--learning-rate");
          const result = await trainAdapter(
            {
              base: options.base,
              ...(options.data !== undefined ? { data: options.data } : {}),
              ...(steps !== undefined ? { steps } : {}),
              ...(epochs !== undefined ? { epochs } : {}),
              ...(maxMinutes !== undefined ? { maxMinutes } : {}),
              ...(options.out !== undefined ? { out: options.out } : {}),
              ...(threads !== undefined ? { threads } : {}),
              ...(learningRate !== undefined ? { learningRate } : {}),
              seed,
              device,
              merged: options.merged === true,
              ...(options.from !== undefined ? { from: options.from } : {}),
              command: `botpsy ${process.argv.slice(2).join(" ")}`,
            },
            controller.signal,
          );
          if (options.json === true) {
            process.stdout.write(`${JSON.stringify({ ...result, summary: { ...result.summary, history: undefined } }, null, 2)}\n`);
            return;
          }
          const first = result.summary.history[0]?.loss;
          const last = result.summary.history[result.summary.history.length - 1]?.loss;
          process.stdout.write(
            result.status === "done"
              ? `adapter ${result.adapterPath}${result.mergedPath !== undefined ? `, merged model ${result.mergedPath}` : ""}\n` +
                  `steps ${result.summary.steps}, loss ${first?.toFixed(4)} → ${last?.toFixed(4)}; held-out loss ${result.summary.held_out_before.loss?.toFixed(4) ?? "-"} → ${result.summary.held_out_after?.loss?.toFixed(4) ?? "-"}, ` +
                  `call accuracy ${result.summary.held_out_before.call_accuracy ?? "-"} → ${result.summary.held_out_after?.call_accuracy ?? "-"}\n` +
                  `use it with --lora ${result.adapterPath}\n`
              : `stopped at step ${result.summary.steps}/${result.summary.total_steps} (--max-minutes); run the same command again to resume\n`,
          );
        } finally {
          process.removeListener("SIGINT", onInterrupt);
        }
      },
    );
}
