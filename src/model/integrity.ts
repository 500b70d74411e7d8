/**
 * Whether a model file on disk is the file the catalog names: its size and
 * sha256, and for any GGUF file whether the tensor data its header describes
 * is all there. A file cut short must never be listed as present, loaded, or
 * kept by `pull` as "already present".
 *
 * Hashing a large model takes seconds, so a successful check is remembered in
 * a small stamp beside the file (`<file>.verified`: size, modification time,
 * sha256); a file changed since is hashed again.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import type { CatalogEntry } from "./catalog.js";
import { sha256OfFile } from "./download.js";

export type ModelFileState =
  | { state: "ok"; sizeBytes: number; sha256?: string }
  | { state: "missing" }
  | { state: "wrong_size"; sizeBytes: number; expectedBytes: number }
  | { state: "checksum_mismatch"; sizeBytes: number; sha256: string; expectedSha256: string };

interface VerifiedStamp {
  sizeBytes: number;
  modifiedMs: number;
  sha256: string;
}

export function verifiedStampPath(path: string): string {
  return `${path}.verified`;
}

function readStamp(path: string): VerifiedStamp | undefined {
  try {
    return JSON.parse(readFileSync(verifiedStampPath(path), "utf8")) as VerifiedStamp;
  } catch {
    return undefined;
  }
}

/** Remember that `path`, as it is now, hashed to `sha256`. */
export function writeVerifiedStamp(path: string, sha256: string): void {
  const stats = statSync(path);
  const stamp: VerifiedStamp = { sizeBytes: stats.size, modifiedMs: stats.mtimeMs, sha256 };
  try {
    writeFileSync(verifiedStampPath(path), `${JSON.stringify(stamp)}\n`);
  } catch {
    // A read-only models folder only costs a new hash next time.
  }
}

/**
 * Check `path` against the catalog entry: size first (free), then sha256
 * (skipped when a stamp says this very file was hashed already).
 */
export async function checkModelFile(path: string, entry: Pick<CatalogEntry, "sizeBytes" | "sha256">, options: { signal?: AbortSignal } = {}): Promise<ModelFileState> {
  if (!existsSync(path)) return { state: "missing" };
  const stats = statSync(path);
  if (entry.sizeBytes !== undefined && stats.size !== entry.sizeBytes) return { state: "wrong_size", sizeBytes: stats.size, expectedBytes: entry.sizeBytes };
  if (entry.sha256 === undefined) return { state: "ok", sizeBytes: stats.size };
  const expected = entry.sha256.toLowerCase();
  const stamp = readStamp(path);
  if (stamp !== undefined && stamp.sizeBytes === stats.size && stamp.modifiedMs === stats.mtimeMs && stamp.sha256 === expected) {
    return { state: "ok", sizeBytes: stats.size, sha256: expected };
  }
  const sha256 = await sha256OfFile(path, undefined, options.signal);
  if (sha256 !== expected) return { state: "checksum_mismatch", sizeBytes: stats.size, sha256, expectedSha256: expected };
  writeVerifiedStamp(path, sha256);
  return { state: "ok", sizeBytes: stats.size, sha256 };
}

/** A failed check in words: "98.4 MB, expected 98.4 MB" / "sha256 abc…, expected def…". */
export function describeModelFileState(state: ModelFileState): string {
  switch (state.state) {
    case "ok":
      return "intact";
    case "missing":
      return "missing";
    case "wrong_size":
      return `corrupt: ${state.sizeBytes} bytes, the catalog says ${state.expectedBytes}`;
    case "checksum_mismatch":
      return `corrupt: sha256 ${state.sha256.slice(0, 12)}…, the catalog says ${state.expectedSha256.slice(0, 12)}…`;
  }
}

/** Move a corrupt file aside (`<file>.corrupt-<time>`) so it is neither loaded nor lost; returns the new path. */
export async function quarantineModelFile(path: string, now: Date = new Date()): Promise<string> {
  const aside = `${path}.corrupt-${now.toISOString().replace(/[:.]/g, "-")}`;
  await rename(path, aside);
  await rm(verifiedStampPath(path), { force: true });
  return aside;
}

/** Bytes per block and elements per block of the GGML tensor types a GGUF file may hold (the common ones). */
const GGML_TYPE_SIZES: Record<number, { blockBytes: number; blockElements: number }> = {
  0: { blockBytes: 4, blockElements: 1 }, // F32
  1: { blockBytes: 2, blockElements: 1 }, // F16
  2: { blockBytes: 18, blockElements: 32 }, // Q4_0
  3: { blockBytes: 20, blockElements: 32 }, // Q4_1
  6: { blockBytes: 22, blockElements: 32 }, // Q5_0
  7: { blockBytes: 24, blockElements: 32 }, // Q5_1
  8: { blockBytes: 34, blockElements: 32 }, // Q8_0
  9: { blockBytes: 36, blockElements: 32 }, // Q8_1
  10: { blockBytes: 84, blockElements: 256 }, // Q2_K
  11: { blockBytes: 110, blockElements: 256 }, // Q3_K
  12: { blockBytes: 144, blockElements: 256 }, // Q4_K
  13: { blockBytes: 176, blockElements: 256 }, // Q5_K
  14: { blockBytes: 210, blockElements: 256 }, // Q6_K
  15: { blockBytes: 292, blockElements: 256 }, // Q8_K
  24: { blockBytes: 1, blockElements: 1 }, // I8
  25: { blockBytes: 2, blockElements: 1 }, // I16
  26: { blockBytes: 4, blockElements: 1 }, // I32
  27: { blockBytes: 8, blockElements: 1 }, // I64
  28: { blockBytes: 8, blockElements: 1 }, // F64
  30: { blockBytes: 2, blockElements: 1 }, // BF16
};

export interface TensorExtent {
  ggmlType: number;
  dimensions: readonly (number | bigint)[];
  /** Where the tensor's data starts, from the start of the file. */
  fileOffset: number | bigint;
}

/**
 * Where the last tensor's data ends, from the header's tensor table: a file
 * shorter than this was cut short. Tensors of types not in the table count
 * from their start only (the check is then weaker, never wrong).
 */
export function expectedDataEnd(tensors: readonly TensorExtent[]): number {
  let end = 0;
  for (const tensor of tensors) {
    const elements = tensor.dimensions.reduce<number>((product, dimension) => product * Number(dimension), 1);
    const size = GGML_TYPE_SIZES[tensor.ggmlType];
    const bytes = size === undefined ? 0 : Math.ceil(elements / size.blockElements) * size.blockBytes;
    end = Math.max(end, Number(tensor.fileOffset) + bytes);
  }
  return end;
}
