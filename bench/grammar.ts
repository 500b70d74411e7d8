import { errorMessage } from "../src/errors.js";
import { findCatalogEntry, SMOLLM2_ID } from "../src/model/catalog.js";
import { LlamaChatModel } from "../src/model/llama-chat-model.js";
import { bestPresentModel, ensureModelFile } from "../src/model/resolve.js";
import type { JsonSchema, ToolSpec } from "../src/model/types.js";
import { median, option, positiveInteger } from "./options.js";

/**
 * `npm run bench -- grammar [--json] [--model M] [--threads N] [--rounds N]`
 *
 * What holding integer arguments to their bounds costs and gives. The call
 * grammar lists the values of an integer whose bounds allow at most 128 of
 * them; llama.cpp checks each alternative against the vocabulary while the
 * number is written. Each row is a forced call to one tool, once with its
 * bounds and once with the same tool unbounded (the baseline: the grammar
 * botpsy used before, and the same prompt token for token), alternating in
 * one process on the untuned model, greedy. Requests ask for numbers in range
 * and far out of it. Reported: calls whose value is in range, median time per
 * call and per output token.
 */

interface Variant {
  label: string;
  minimum: number;
  maximum: number;
}

const VARIANTS: Variant[] = [
  { label: "1-10", minimum: 1, maximum: 10 },
  { label: "1-128 (the widest listed)", minimum: 1, maximum: 128 },
];

const REQUESTS = [
  "Skip 3 songs.",
  "Skip 500000 songs.",
  "skip two tracks",
  "Skip 2026 tracks please",
  "Skip a million songs.",
  "Skip 12 songs",
  "skip 99999 of them",
  "Skip the next 7.",
];

interface CallFigures {
  inRange: number;
  calls: number;
  milliseconds: number[];
  msPerOutputToken: number[];
}

function tool(variant: Variant, bounded: boolean): ToolSpec {
  const count: JsonSchema = bounded ? { type: "integer", minimum: variant.minimum, maximum: variant.maximum, description: "How many songs" } : { type: "integer", description: "How many songs" };
  return { name: "skip_track", description: "Skip songs in the playing queue.", parameters: { type: "object", properties: { count }, required: ["count"] } };
}

async function measure(model: LlamaChatModel, variant: Variant, bounded: boolean, request: string, figures: CallFigures): Promise<void> {
  const startedAt = performance.now();
  const result = await model.generate({ messages: [{ role: "user", content: request }], tools: [tool(variant, bounded)], toolChoice: "required", maxTokens: 48 }).result;
  const elapsed = performance.now() - startedAt;
  const value = result.toolCalls[0]?.arguments.count;
  figures.calls += 1;
  if (typeof value === "number" && Number.isInteger(value) && value >= variant.minimum && value <= variant.maximum) figures.inRange += 1;
  figures.milliseconds.push(elapsed);
  figures.msPerOutputToken.push(elapsed / Math.max(1, result.usage.outputTokens));
}


export function formatGrammarBenchTable(modelId: string, threads: number, rows: Array<{ variant: string; bounded: CallFigures; unbounded: CallFigures }>): string {
  const lines = [
    `model ${modelId} (untuned), ${threads} threads, forced call to skip_track{count}, greedy, ${rows[0]?.bounded.calls ?? 0} calls a cell`,
    "",
    "| count's bounds | values in range: listed / unbounded (baseline) | ms per call: listed / unbounded | ratio | ms per output token: listed / unbounded | ratio |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const row of rows) {
    const callRatio = median(row.bounded.milliseconds) / median(row.unbounded.milliseconds);
    const tokenRatio = median(row.bounded.msPerOutputToken) / median(row.unbounded.msPerOutputToken);
    lines.push(
      `| ${row.variant} | ${row.bounded.inRange}/${row.bounded.calls} / ${row.unbounded.inRange}/${row.unbounded.calls} | ${median(row.bounded.milliseconds).toFixed(0)} / ${median(row.unbounded.milliseconds).toFixed(0)} | ${callRatio.toFixed(2)} | ${median(row.bounded.msPerOutputToken).toFixed(1)} / ${median(row.unbounded.msPerOutputToken).toFixed(1)} | ${tokenRatio.toFixed(2)} |`,
    );
  }
  return lines.join("\n");
}

export async function runGrammarBench(argv: readonly string[]): Promise<number> {
  const json = argv.includes("--json");
  const threads = positiveInteger(option(argv, "--threads"), "--threads", 1);
  const rounds = positiveInteger(option(argv, "--rounds"), "--rounds", 2);
  const name = option(argv, "--model") ?? bestPresentModel()?.name ?? SMOLLM2_ID;
  const { path } = await ensureModelFile(name, { progress: !json });
  const chatFormat = findCatalogEntry(name)?.chatFormat;
  const model = await LlamaChatModel.load({ modelPath: path, threads, contextSize: 1024, maxConversations: 1, ...(chatFormat !== undefined ? { chatFormat } : {}) });
  try {
    const rows: Array<{ variant: string; bounded: CallFigures; unbounded: CallFigures }> = [];
    for (const variant of VARIANTS) {
      const bounded: CallFigures = { inRange: 0, calls: 0, milliseconds: [], msPerOutputToken: [] };
      const unbounded: CallFigures = { inRange: 0, calls: 0, milliseconds: [], msPerOutputToken: [] };
      for (let round = 0; round < rounds; round++) {
        for (const [index, request] of REQUESTS.entries()) {
          if (!json) process.stderr.write(`\r${variant.label}: round ${round + 1}/${rounds}, request ${index + 1}/${REQUESTS.length}   `);
          // Alternate which goes first, so that load from elsewhere falls on both alike.
          const order = (round + index) % 2 === 0 ? [true, false] : [false, true];
          for (const isBounded of order) await measure(model, variant, isBounded, request, isBounded ? bounded : unbounded);
        }
      }
      rows.push({ variant: variant.label, bounded, unbounded });
    }
    if (!json) process.stderr.write("\n");
    if (json) process.stdout.write(`${JSON.stringify({ benchmark: "grammar", model: name, threads, rounds, rows }, null, 2)}\n`);
    else process.stdout.write(`${formatGrammarBenchTable(name, threads, rows)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`bench grammar: ${errorMessage(error)}\n`);
    return 1;
  } finally {
    await model.dispose();
  }
}
