import { statSync } from "node:fs";
import { sha256OfFile } from "../model/download.js";

const cache = new Map<string, string>();

/** sha256 of a (possibly large) model file, streamed; remembered per path, size and time of change. */
export async function fileSha256(path: string): Promise<string> {
  const stats = statSync(path);
  const key = `${path}\u0000${stats.size}\u0000${stats.mtimeMs}`;
  const known = cache.get(key);
  if (known) return known;
  const digest = await sha256OfFile(path);
  cache.set(key, digest);
  return digest;
}
