import { existsSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Profile } from "../../src/apps/profile.js";
import { makeTempDir } from "../support/temp-dir.js";
import { bundleWorker, CLOCK, WORKER_APPS, inspectProfile, seededRandom, snapshotRecords, startWorker, ZONE } from "./support.js";

const KILLS = Number(process.env.BOTPSY_CRASH_KILLS ?? 22);
const SEED = Number(process.env.BOTPSY_CRASH_SEED ?? 20261201);

let worker: { path: string; remove: () => void };
beforeAll(async () => {
  worker = await bundleWorker();
});
afterAll(() => worker?.remove());

describe("crash safety of the agent's side effects", () => {
  it(`SIGKILLed ${KILLS} times at random moments, the profile never holds half an action, an unjournaled file or an unaudited action`, async () => {
    const folder = makeTempDir("botpsy-crash-");
    const databasePath = join(folder, "profile.db");
    const fresh = Profile.open({ databasePath, seed: "demo", clock: CLOCK, timeZone: ZONE, apps: WORKER_APPS() });
    const seedRecords = snapshotRecords(fresh);
    const root = fresh.environment.filesDirectory!;
    fresh.close();
    const intents = join(dirname(root), `.${basename(root)}.intents`);

    const random = seededRandom(SEED);
    const rows: { kill: number; delayMs: number; runsDone: number; intentsLeft: number; actions: number; problems: string[] }[] = [];
    for (let kill = 1; kill <= KILLS; kill++) {
      // Every other kill, the worker appends large pieces to growing files: each action then journals
      // megabytes and its commit takes long, which widens the window between a file change and its commit.
      const run = startWorker(worker.path, databasePath, kill * 1000, undefined, kill % 2 === 0 ? "heavy" : undefined);
      await run.ready;
      const delayMs = Math.round(random() * 700);
      await new Promise((resolvePromise) => setTimeout(resolvePromise, delayMs));
      run.child.kill("SIGKILL");
      const ended = await run.done;
      expect(ended.signal, ended.stderr).toBe("SIGKILL");
      // What the killed process left for the next open to settle.
      const intentsLeft = existsSync(intents) ? readdirSync(intents).length : 0;
      const findings = inspectProfile(databasePath, seedRecords);
      const problems = [
        ...(findings.integrity === "ok" ? [] : [`integrity: ${findings.integrity}`]),
        ...findings.actionsWithoutChanges.map((id) => `action ${id} has no changes`),
        ...findings.actionsWithoutAuditResult.map((id) => `action ${id} has no audit result`),
        ...findings.recordsOffJournal.map((key) => `record ${key} is not what the journal says`),
        ...findings.filesOffJournal.map((path) => `file ${path}`),
        ...(findings.auditOk ? [] : [`audit: ${findings.auditProblem}`]),
      ];
      rows.push({ kill, delayMs, runsDone: ended.runs.length, intentsLeft, actions: findings.actions, problems });
      // Runs that finished did what they were asked (a run's calls may fail only for a file an earlier killed run never made).
      expect(ended.runs.filter((reason) => reason !== "answered"), ended.stderr).toEqual([]);
    }
    const totalRuns = rows.reduce((sum, row) => sum + row.runsDone, 0);
    const midFileAction = rows.filter((row) => row.intentsLeft > 0).length;
    console.info(
      `crash test: ${KILLS} kills (seed ${SEED}), ${totalRuns} runs finished, ${rows.at(-1)!.actions} actions committed; ` +
        `${midFileAction} kills left file intents to settle on open; problems: ${rows.reduce((sum, row) => sum + row.problems.length, 0)}`,
    );
    expect(rows.flatMap((row) => row.problems.map((problem) => `kill ${row.kill} after ${row.delayMs} ms: ${problem}`))).toEqual([]);
    // The kills landed among writing runs, not only while the worker was starting.
    expect(totalRuns).toBeGreaterThan(0);
  }, 120_000);
});
