import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/** botpsy's own version, read from its package.json (works from src/ and from dist/). */
export function botpsyVersion(): string {
  if (cached) return cached;
  let directory = dirname(fileURLToPath(import.meta.url));
  while (true) {
    const candidate = join(directory, "package.json");
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "botpsy" && pkg.version) return (cached = pkg.version);
    }
    const parent = dirname(directory);
    if (parent === directory) return (cached = "0.0.0");
    directory = parent;
  }
}

/** The repository (or installed package) root: where `data/` lives. */
export function packageRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  while (true) {
    if (existsSync(join(directory, "package.json")) && existsSync(join(directory, "data"))) return directory;
    const parent = dirname(directory);
    if (parent === directory) throw new Error("botpsy's package root (with data/) was not found");
    directory = parent;
  }
}
