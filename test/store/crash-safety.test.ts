import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Store } from "../../src/store/store.js";

const folders: string[] = [];

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** Start the worker, wait until it has committed `until` actions, then SIGKILL its whole process group. */
function runAndKill(databasePath: string, until: number): Promise<{ reported: number; signal: NodeJS.Signals | null }> {
  const worker = fileURLToPath(new URL("./fixtures/crash-worker.ts", import.meta.url));
  const child = spawn("npx", ["tsx", worker, databasePath], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let reported = 0;
  let stderr = "";
  let killed = false;
  return new Promise((resolvePromise, reject) => {
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
    });
    let buffered = "";
    child.stdout.on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        const match = /^committed (\d+)$/.exec(line);
        if (match) reported = Number(match[1]);
      }
      if (reported >= until && !killed && child.pid !== undefined) {
        killed = true;
        // npx starts node underneath: kill the whole group, with no chance to clean up.
        process.kill(-child.pid, "SIGKILL");
      }
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (!killed) reject(new Error(`worker exited before it was killed (code ${code}): ${stderr}`));
      else resolvePromise({ reported, signal });
    });
  });
}

describe("crash safety", () => {
  it("a process killed with SIGKILL in the middle of a series of actions leaves no half action", async () => {
    const folder = mkdtempSync(join(tmpdir(), "botpsy-crash-"));
    folders.push(folder);
    const path = join(folder, "crash.db");
    const { reported, signal } = await runAndKill(path, 40);
    expect(signal).toBe("SIGKILL");

    const store = Store.open(path);
    expect(store.db.pragma("integrity_check", { simple: true })).toBe("ok");
    const state = store.read((tx) => ({
      a: tx.collection<{ balance: number }>("bank", "accounts").get("a")?.balance ?? Number.NaN,
      b: tx.collection<{ balance: number }>("bank", "accounts").get("b")?.balance ?? Number.NaN,
      ledger: tx.collection<{ index: number }>("bank", "ledger").all().map((entry) => entry.index),
    }));
    const transfers = store.db.prepare("SELECT id FROM actions WHERE tool = 'transfer' ORDER BY id").all() as { id: number }[];
    // Every committed transfer is whole: the money adds up, and the ledger and the journal agree with it.
    expect(state.a + state.b).toBe(1000);
    expect(state.b).toBeGreaterThanOrEqual(reported);
    // The worker may have committed one more than it managed to print before the kill.
    expect(state.b).toBeLessThanOrEqual(reported + 1);
    expect(state.ledger).toEqual(Array.from({ length: state.b }, (_, index) => index + 1));
    expect(transfers).toHaveLength(state.b);
    for (const { id } of transfers) {
      const changes = store.db.prepare("SELECT COUNT(*) AS count FROM action_changes WHERE action_id = ?").get(id) as { count: number };
      expect(changes.count).toBe(3);
    }

    // The journal of the killed process still undoes cleanly.
    await store.undo();
    const after = store.read((tx) => tx.collection<{ balance: number }>("bank", "accounts").all().map((account) => account.balance));
    expect(after).toEqual([1000 - state.b + 1, state.b - 1]);
    store.close();
  }, 90_000);
});
