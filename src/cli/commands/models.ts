import type { Command } from "commander";
import { join } from "node:path";
import { botpsyHome } from "../../config.js";
import { MODEL_CATALOG, findCatalogEntry } from "../../model/catalog.js";
import { UnknownModelError } from "../../model/errors.js";
import { formatParameterCount, readModelInfo } from "../../model/info.js";
import { checkModelFile, describeModelFileState, type ModelFileState } from "../../model/integrity.js";
import { adapterName, listAdapters } from "../../model/lora-adapter.js";
import { shippedAdaptersDirectory } from "../../model/shipped-adapter.js";
import { bestPresentModel, listModels, pullWithProgress, removeModel, resolveModel } from "../../model/resolve.js";

/** `botpsy models list | pull <id> | rm <id> | info <id|path>`. */
export function registerModelsCommand(program: Command): void {
  const models = program.command("models").description("List, pull, remove and inspect local models (GGUF files under BOTPSY_HOME/models).");

  models
    .command("list")
    .description("Show the catalog: which models are present, their size, format, licence and whether they were verified.")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const listed = listModels();
      const best = bestPresentModel();
      // A present file is checked against the catalog (size, sha256): a cut-short file is not "present".
      const checks = new Map<string, ModelFileState>();
      for (const model of listed) if (model.present) checks.set(model.entry.id, await checkModelFile(model.path, model.entry));
      const stateOf = (id: string): string => {
        const check = checks.get(id);
        return check === undefined || check.state === "ok" ? "present" : describeModelFileState(check);
      };
      if (options.json === true) {
        const models = listed.map((model) => ({ ...model, ...(checks.has(model.entry.id) ? { integrity: checks.get(model.entry.id) } : {}) }));
        const defaultCorrupt = best !== undefined && checks.get(best.name) !== undefined && checks.get(best.name)!.state !== "ok";
        process.stdout.write(`${JSON.stringify({ default: best?.name ?? null, ...(defaultCorrupt ? { defaultCorrupt: true } : {}), models, adapters: listAdapters(join(botpsyHome(), "adapters")), shippedAdapters: listAdapters(shippedAdaptersDirectory()) }, null, 2)}\n`);
        return;
      }
      const rows = listed.map((model) => [
        model.entry.id === best?.name ? `${model.entry.id} *` : model.entry.id,
        model.present ? stateOf(model.entry.id) : model.partialBytes !== undefined ? `partial ${megabytes(model.partialBytes)}` : "-",
        model.entry.sizeBytes !== undefined ? megabytes(model.entry.sizeBytes) : "?",
        model.entry.chatFormat,
        model.entry.license,
        model.entry.verified ? "yes" : "no",
        model.entry.shippedAdapter !== undefined ? adapterName(model.entry.shippedAdapter.fileName) : "-",
        model.entry.title,
      ]);
      printTable(["id", "state", "size", "format", "licence", "verified", "tuned by default with", "model"], rows);
      const corrupt = [...checks.entries()].filter(([, check]) => check.state !== "ok").map(([id]) => id);
      if (corrupt.length > 0) process.stdout.write(`\nCorrupt: ${corrupt.join(", ")}. \`botpsy models pull <id>\` moves the file aside and fetches it again.\n`);
      // The adapters botpsy ships (applied by default; --lora none loads the model untuned), then the user's own.
      const adapters = [...listAdapters(shippedAdaptersDirectory()).map((adapter) => ({ ...adapter, origin: "shipped" })), ...listAdapters(join(botpsyHome(), "adapters")).map((adapter) => ({ ...adapter, origin: "yours" }))];
      if (adapters.length > 0) {
        process.stdout.write("\nLoRA adapters (use with --lora <path>; --lora none runs a model untuned):\n");
        printTable(
          ["adapter", "from", "size", "base", "steps", "call bias", "forced-call floor", "path"],
          adapters.map((adapter) => [
            adapterName(adapter.path),
            adapter.origin,
            megabytes(adapter.sizeBytes),
            adapter.metadata?.base.name ?? "unknown (no record)",
            String(adapter.metadata?.steps ?? "-"),
            String(adapter.metadata?.callBias ?? 0),
            adapter.metadata?.forcedCallFloor !== undefined ? String(adapter.metadata.forcedCallFloor) : "-",
            adapter.path,
          ]),
        );
      }
      // The default stays the default when its file is corrupt: its first use moves the file aside and fetches it again.
      const bestCheck = best !== undefined ? checks.get(best.name) : undefined;
      const bestNote = bestCheck !== undefined && bestCheck.state !== "ok" ? ` (its file is corrupt: the next run moves it aside and fetches ${best!.name} again)` : "";
      process.stdout.write(
        best !== undefined
          ? `\n* default model${bestNote}. Models directory: ${listed[0] !== undefined ? listed[0].path.replace(/[^/\\]+$/, "") : ""}\n`
          : `\nNo model present: the first use pulls ${MODEL_CATALOG.find((entry) => entry.verified)?.id ?? "the default"}.\n`,
      );
    });

  models
    .command("pull <id>")
    .description("Download a catalog model or an hf:owner/repo/file.gguf; resumable, checksum-verified.")
    .action(async (id: string) => {
      const resolved = resolveModel(id);
      if (resolved.kind === "path") throw new UnknownModelError(id, MODEL_CATALOG.map((entry) => entry.id));
      // The file already there is verified in full; a corrupt one is reported, moved aside and fetched again.
      const entry = resolved.entry;
      if (entry === undefined) throw new UnknownModelError(id, MODEL_CATALOG.map((candidate) => candidate.id));
      const pulled = await pullWithProgress(entry, { progress: true });
      process.stdout.write(pulled.downloaded ? `pulled ${id} to ${pulled.path} (sha256 ${pulled.sha256})\n` : `${id} is already present at ${pulled.path} and intact (sha256 ${pulled.sha256})\n`);
    });

  models
    .command("rm <id>")
    .description("Delete a downloaded model (and any partial download of it).")
    .action(async (id: string) => {
      const removed = await removeModel(id);
      process.stdout.write(removed ? `removed ${id}\n` : `${id} was not present\n`);
    });

  models
    .command("info <model>")
    .description("Read a model's GGUF header: architecture, parameters, quantisation, context length, chat template.")
    .option("--json", "print JSON")
    .option("--template", "print the whole chat template")
    .action(async (name: string, options: { json?: boolean; template?: boolean }) => {
      const resolved = resolveModel(name);
      const info = await readModelInfo(resolved.path);
      const entry = findCatalogEntry(name);
      if (options.json === true) {
        process.stdout.write(`${JSON.stringify({ ...info, catalog: entry ?? null }, null, 2)}\n`);
        return;
      }
      const template = info.chatTemplate ?? "(none)";
      const lines: Array<[string, string]> = [
        ["file", info.path],
        ["size", megabytes(info.sizeBytes)],
        ["name", info.name ?? "-"],
        ["architecture", info.architecture],
        ["parameters", `${formatParameterCount(info.parameterCount)} (${info.parameterCount})`],
        ["quantisation", info.quantization],
        ["context length", info.contextLength !== undefined ? String(info.contextLength) : "-"],
        ["licence", info.license ?? entry?.license ?? "-"],
        ["dialect", info.dialect],
        ["template sha256", info.chatTemplateSha256 ?? "-"],
        ["self-test", info.selfTest],
        ["chat template", options.template === true ? `\n${template}` : `${template.slice(0, 100).replaceAll("\n", "\\n")}${template.length > 100 ? "… (--template for all)" : ""}`],
      ];
      for (const [label, value] of lines) process.stdout.write(`${label.padEnd(15)} ${value}\n`);
    });
}

function megabytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
  const format = (row: string[]): string => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ").trimEnd();
  process.stdout.write(`${format(header)}\n`);
  for (const row of rows) process.stdout.write(`${format(row)}\n`);
}
