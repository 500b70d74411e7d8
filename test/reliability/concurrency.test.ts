import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Profile } from "../../src/apps/profile.js";
import { makeTempDir } from "../support/temp-dir.js";
import { bundleWorker, CLOCK, WORKER_APPS, inspectProfile, snapshotRecords, startWorker, ZONE } from "./support.js";

const RUNS = 12;

let worker: { path: string; remove: () => void };
beforeAll(async () => {
  worker = await bundleWorker();
});
afterAll(() => worker?.remove());

describe("two processes on one profile", () => {
  it(`both open a new profile at once, each does ${RUNS} writing runs, and every run succeeds with an intact audit log`, async () => {
    // The demo seed on a fixed clock is the same in every profile: the state the journal starts from.
    const reference = Profile.open({ databasePath: ":memory:", seed: "demo", clock: CLOCK, timeZone: ZONE, apps: WORKER_APPS() });
    const seedRecords = snapshotRecords(reference);
    reference.close();

    const databasePath = join(makeTempDir("botpsy-concurrent-"), "profile.db");
    // Run numbers that start a cycle of the worker's six kinds, so every call finds the files it needs.
    const first = startWorker(worker.path, databasePath, 6 * 200, RUNS);
    const second = startWorker(worker.path, databasePath, 6 * 400, RUNS);
    const [one, two] = await Promise.all([first.done, second.done]);
    expect(one.code, one.stderr).toBe(0);
    expect(two.code, two.stderr).toBe(0);
    expect(one.runs, one.stderr).toEqual(Array.from({ length: RUNS }, () => "answered"));
    expect(two.runs, two.stderr).toEqual(Array.from({ length: RUNS }, () => "answered"));

    const findings = inspectProfile(databasePath, seedRecords);
    expect(findings).toMatchObject({
      integrity: "ok",
      actionsWithoutChanges: [],
      actionsWithoutAuditResult: [],
      recordsOffJournal: [],
      filesOffJournal: [],
      auditOk: true,
    });
    // Two calls a run in both processes, plus each worker's warm-up read: each ran and its result is
    // audited (a call that changed nothing commits no action).
    expect(findings.auditResults).toBe(2 * 2 * RUNS + 2);
    expect(findings.auditErrors).toEqual([]);
  }, 120_000);
});
