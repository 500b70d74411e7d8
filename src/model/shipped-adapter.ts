import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { BotpsyError, InvalidInputError } from "../errors.js";
import { packageRoot } from "../version.js";
import type { CatalogEntry } from "./catalog.js";
import { OPTIONAL_ARGUMENTS, type OptionalArguments } from "./types.js";
import { adapterName, isUsableCallBias, isUsableForcedCallFloor, recordedCallBias, recordedForcedCallFloor, sha256OfFile, verifyAdapterBase } from "./lora-adapter.js";

/**
 * The LoRA adapters botpsy ships (data/adapters): a catalog model with one is
 * loaded tuned unless the caller names another adapter, or "none" for the
 * untuned base.
 */

/** The `--lora` value that loads a catalog model without its shipped adapter. */
export const NO_ADAPTER = "none";

/** What every command that loads a model says of its `--lora` option. */
export const LORA_OPTION_DESCRIPTION = `a LoRA adapter (.gguf from botpsy tune train) applied on the model, refused on another base; "${NO_ADAPTER}" for the untuned model (default: the adapter botpsy ships for a catalog model)`;

export const CALL_BIAS_OPTION_DESCRIPTION =
  "logit offset (-20 to 0) on opening a call where the model may answer in words instead: -2 makes a call about 7 times less likely (default: the adapter's recorded calibration, else 0)";

export const FORCED_CALL_FLOOR_OPTION_DESCRIPTION =
  "on a turn where a call is forced, make the call only where the model's own lead for writing one is at least this many logits, else answer in words (-20 to 20, or none; 0: the model's own choice; default: the adapter's recorded floor, else a forced call is always made)";

/** Reads a `--forced-call-floor` value: a number from -20 to 20, or "none" (null: forced calls always made, whatever an adapter records). */
export function parseForcedCallFloor(value: string): number | null {
  if (value.trim().toLowerCase() === "none") return null;
  const parsed = Number(value);
  if (value.trim() === "" || !isUsableForcedCallFloor(parsed)) {
    throw new InvalidInputError(`--forced-call-floor ${value} is not usable: give a number from -20 to 20 (0 makes a forced call only where the model would write one itself; higher values release more forced calls), or none to always make it.`);
  }
  return parsed;
}

/** Reads a `--call-bias` value: a number from -20 to 0. */
export function parseCallBias(value: string): number {
  const parsed = Number(value);
  if (value.trim() === "" || !isUsableCallBias(parsed)) {
    throw new InvalidInputError(`--call-bias ${value} is not usable: give a number from -20 to 0 (0 leaves calls as they are; -2 makes opening a call about 7 times less likely).`);
  }
  return parsed;
}

export function shippedAdaptersDirectory(): string {
  return join(packageRoot(), "data", "adapters");
}

/** Paths already checked in this process, with the size and hash they were checked against. */
const verified = new Set<string>();

/** The path of an entry's shipped adapter, checked once per process against its recorded size and sha256. */
export async function shippedAdapterPath(entry: CatalogEntry, directory = shippedAdaptersDirectory()): Promise<string | undefined> {
  const shipped = entry.shippedAdapter;
  if (shipped === undefined) return undefined;
  const path = join(directory, shipped.fileName);
  const key = `${path}\0${shipped.sizeBytes}\0${shipped.sha256}`;
  if (verified.has(key)) return path;
  if (!existsSync(path)) throw new ShippedAdapterError(entry.id, path, "is missing");
  const size = statSync(path).size;
  if (size !== shipped.sizeBytes) throw new ShippedAdapterError(entry.id, path, `has ${size} bytes where ${shipped.sizeBytes} were shipped`);
  const sha256 = await sha256OfFile(path);
  if (sha256 !== shipped.sha256) throw new ShippedAdapterError(entry.id, path, `has sha256 ${sha256} where ${shipped.sha256} was shipped`);
  verified.add(key);
  return path;
}

/**
 * The adapter a load applies: the one asked for; none for "none"; else the
 * shipped adapter of the catalog entry (a model given by path loads as it is).
 */
export async function chooseAdapter(requested: string | undefined, entry: CatalogEntry | undefined, directory = shippedAdaptersDirectory()): Promise<string | undefined> {
  if (requested !== undefined && isNoAdapter(requested)) return undefined;
  if (requested !== undefined) return requested;
  return entry !== undefined ? shippedAdapterPath(entry, directory) : undefined;
}

/** Whether a `--lora` value asks for no adapter. */
export function isNoAdapter(value: string): boolean {
  return value.trim().toLowerCase() === NO_ADAPTER;
}

/** What a load applies on the base: the adapter file, if any, the call bias and the floor of forced calls. */
export interface AdapterForLoad {
  lora: string | undefined;
  callBias: number;
  forcedCallFloor: number | undefined;
}

/**
 * The adapter a load applies (`chooseAdapter`), checked against the base it
 * goes on: an adapter on a base it was not trained on loads silently and
 * writes nonsense. `baseSha256`, when known, spares hashing the base. The call
 * bias is the one asked for, else the calibration the adapter's record carries.
 */
export async function adapterForLoad(
  requested: { lora?: string | undefined; callBias?: number | undefined; forcedCallFloor?: number | null | undefined },
  entry: CatalogEntry | undefined,
  basePath: string,
  baseSha256?: string,
): Promise<AdapterForLoad> {
  const lora = await chooseAdapter(requested.lora, entry);
  const metadata = lora !== undefined ? await verifyAdapterBase(lora, basePath, baseSha256 ?? entry?.sha256) : undefined;
  return {
    lora,
    callBias: requested.callBias ?? (metadata !== undefined ? recordedCallBias(metadata) : 0),
    // null: no floor, whatever the record says.
    forcedCallFloor: requested.forcedCallFloor === null ? undefined : (requested.forcedCallFloor ?? (metadata !== undefined ? recordedForcedCallFloor(metadata) : undefined)),
  };
}

/** The id of a model with an adapter applied, as results and reports name it (with the settings that change its calls when not the defaults). */
export function tunedModelId(baseId: string, adapter: string | undefined, callBias = 0, forcedCallFloor?: number, optionalArguments: OptionalArguments = "written"): string {
  const tuned = adapter === undefined ? baseId : `${baseId}+lora:${adapterName(adapter)}`;
  const biased = callBias === 0 ? tuned : `${tuned}+call-bias:${callBias}`;
  const floored = forcedCallFloor === undefined ? biased : `${biased}+call-floor:${forcedCallFloor}`;
  return optionalArguments === "written" ? floored : `${floored}+optional-arguments:${optionalArguments}`;
}

export const OPTIONAL_ARGUMENTS_OPTION_DESCRIPTION =
  "who decides which optional parameters a call writes: written (every one the request has a word for; the default) or chosen (the grammar lets the model leave each one out)";

/** Reads an `--optional-arguments` value. */
export function parseOptionalArguments(value: string): OptionalArguments {
  const known = OPTIONAL_ARGUMENTS.find((name) => name === value);
  if (known === undefined) {
    throw new InvalidInputError(`--optional-arguments ${value} is not known: give written (every optional parameter the call's form keeps is written) or chosen (the model may leave each one out).`);
  }
  return known;
}

/** A shipped adapter file that is missing or not the one shipped. */
export class ShippedAdapterError extends BotpsyError {
  constructor(
    readonly modelId: string,
    readonly adapterPath: string,
    problem: string,
  ) {
    super(
      "shipped_adapter_corrupt",
      `The tuned adapter botpsy ships for ${modelId} (${adapterPath}) ${problem}. Reinstall botpsy to restore it, or run the untuned model with --lora none.`,
    );
  }
}
