import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { BotpsyError } from "../errors.js";
import { sha256OfFile } from "./download.js";

/**
 * What `botpsy tune train` records beside an adapter (`<adapter>.gguf.json`):
 * the base it fits, by content, and how it was made.
 */
export interface AdapterMetadata {
  kind: "botpsy-lora-adapter";
  /** Base model file name and sha256 (lower-case hex) it was trained on. */
  base: { name: string; fileName: string; sha256: string };
  rank: number;
  /** Steps of this run only. */
  steps: number;
  /** The adapter this run continued (`tune train --from`), with its own steps. */
  from?: { name: string; sha256: string; steps: number };
  seed: number;
  data: { path: string; examples: number; sha256: string };
  createdAt: string;
  /** The command line that made it. */
  command: string;
  /** Where torch trained it ("cpu" or "cuda"); absent in records written before botpsy recorded it (all of them CPU). */
  device?: string;
  heldOut?: { lossBefore: number | null; lossAfter: number | null; callAccuracyBefore: number | null; callAccuracyAfter: number | null };
  /**
   * The adapter's calibration: the logit offset on opening a call where the
   * model may answer in words (`LlamaChatModelOptions.callBias`), chosen on a
   * development split and applied whenever the adapter is loaded unless a
   * command's `--call-bias` says otherwise. Absent: 0.
   */
  callBias?: number;
  /**
   * The adapter's floor of forced calls (`LlamaChatModelOptions.forcedCallFloor`),
   * chosen on a development split like `callBias` and applied unless a
   * command's `--forced-call-floor` says otherwise. Absent: forced calls are made.
   */
  forcedCallFloor?: number;
}

/** Whether a call bias is one botpsy applies: a finite logit offset from -20 to 0. */
export function isUsableCallBias(value: number): boolean {
  return Number.isFinite(value) && value <= 0 && value >= -20;
}

/** Whether a forced-call floor is one botpsy applies: a finite logit margin from -20 to 20. */
export function isUsableForcedCallFloor(value: number): boolean {
  return Number.isFinite(value) && value >= -20 && value <= 20;
}

/** The forced-call floor a record carries (none without one). */
export function recordedForcedCallFloor(metadata: AdapterMetadata): number | undefined {
  return typeof metadata.forcedCallFloor === "number" ? metadata.forcedCallFloor : undefined;
}

/** The call bias a record carries (0 without a calibration). */
export function recordedCallBias(metadata: AdapterMetadata): number {
  return typeof metadata.callBias === "number" ? metadata.callBias : 0;
}

export function adapterMetadataPath(adapterPath: string): string {
  return `${adapterPath}.json`;
}

/** The one streamed file hash of the model layer (downloads verify with it too). */
export { sha256OfFile };

export function readAdapterMetadata(adapterPath: string): AdapterMetadata {
  const path = adapterMetadataPath(adapterPath);
  if (!existsSync(path)) throw new AdapterMetadataMissingError(adapterPath, path);
  return JSON.parse(readFileSync(path, "utf8")) as AdapterMetadata;
}

/**
 * Refuses an adapter on a base it was not trained on: a LoRA applied to other
 * weights loads without complaint and writes nonsense.
 */
export async function verifyAdapterBase(adapterPath: string, baseModelPath: string, knownBaseSha256?: string): Promise<AdapterMetadata> {
  if (!existsSync(adapterPath)) throw new AdapterFileMissingError(adapterPath);
  const metadata = readAdapterMetadata(adapterPath);
  const actual = knownBaseSha256 ?? (await sha256OfFile(baseModelPath));
  if (actual !== metadata.base.sha256) {
    throw new AdapterBaseMismatchError(adapterPath, metadata.base.sha256, actual, `${metadata.base.name} (${metadata.base.fileName})`);
  }
  return metadata;
}

export interface ListedAdapter {
  path: string;
  sizeBytes: number;
  metadata: AdapterMetadata | undefined;
}

/** Adapters in a folder (BOTPSY_HOME/adapters by default): `*.gguf` files with or without their record. */
export function listAdapters(directory: string): ListedAdapter[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    // A merged model written beside its adapter is a model, not an adapter.
    .filter((entry) => entry.endsWith(".gguf") && !entry.endsWith("-merged-q8_0.gguf"))
    .map((entry) => {
      const path = join(directory, entry);
      let metadata: AdapterMetadata | undefined;
      try {
        metadata = readAdapterMetadata(path);
      } catch {
        metadata = undefined;
      }
      return { path, sizeBytes: statSync(path).size, metadata };
    });
}

export function adapterName(path: string): string {
  return basename(path).replace(/\.gguf$/i, "");
}

/** An adapter was trained on another base model than the one it is loaded on. */
export class AdapterBaseMismatchError extends BotpsyError {
  constructor(
    readonly adapterPath: string,
    readonly expectedSha256: string,
    readonly actualSha256: string,
    baseDescription: string,
  ) {
    super(
      "adapter_base_mismatch",
      `The LoRA adapter ${adapterPath} was trained on base model ${baseDescription} (sha256 ${expectedSha256}), but the model given has sha256 ${actualSha256}. Load it on the base it was trained on, or train an adapter for this model with \`botpsy tune train --base <model>\`.`,
    );
  }
}

export class AdapterMetadataMissingError extends BotpsyError {
  constructor(
    readonly adapterPath: string,
    metadataPath: string,
  ) {
    super(
      "adapter_metadata_missing",
      `The LoRA adapter ${adapterPath} has no ${metadataPath} saying which base model it was trained on, so botpsy cannot check that it fits. Use an adapter made by \`botpsy tune train\`, or write that file (see the README's tune section).`,
    );
  }
}

export class AdapterFileMissingError extends BotpsyError {
  constructor(readonly adapterPath: string) {
    super("adapter_file_missing", `The LoRA adapter ${adapterPath} does not exist. Give the path of a .gguf adapter made by \`botpsy tune train\` (see \`botpsy models list\`).`);
  }
}
