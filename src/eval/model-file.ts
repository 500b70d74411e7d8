import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";

const cache = new Map<string, string>();

/** sha256 of a (possibly large) model file, streamed; remembered per path, size and time of change. */
export async function fileSha256(path: string): Promise<string> {
  const stats = statSync(path);
  const key = `${path}\u0000${stats.size}\u0000${stats.mtimeMs}`;
  const known = cache.get(key);
  if (known) return known;
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  const digest = hash.digest("hex");
  cache.set(key, digest);
  return digest;
}
