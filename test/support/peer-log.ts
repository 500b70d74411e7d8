import { readFileSync } from "node:fs";
import type { ReceivedEntry } from "../../src/peer/peer-server.js";

/** The entries a lender wrote to its `--log-requests` file (none when it wrote none yet). */
export function readReceivedLog(path: string): ReceivedEntry[] {
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as ReceivedEntry);
}
