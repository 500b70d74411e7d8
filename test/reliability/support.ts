import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { build } from "esbuild";
import { Profile } from "../../src/apps/profile.js";
import { AuditLog } from "../../src/policy/audit.js";
import { WORKER_APPS } from "./fixtures/worker-apps.js";

export { WORKER_APPS };

export const CLOCK = "2026-12-01T09:00:00Z";
export const ZONE = "Europe/Lisbon";

/**
 * Bundle the worker once (our sources only; packages stay imports), beside
 * the repository's node_modules: a child then starts in a fraction of the
 * time a TypeScript loader takes, so many kills fit in one test.
 */
export async function bundleWorker(): Promise<{ path: string; remove: () => void }> {
  const path = resolve(".botpsy-test", `agent-worker-${process.pid}-${Date.now()}.mjs`);
  await build({
    entryPoints: [resolve("test/reliability/fixtures/agent-worker.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    outfile: path,
    logLevel: "warning",
  });
  return { path, remove: () => rmSync(path, { force: true }) };
}

export interface WorkerRun {
  child: ChildProcess;
  /** Resolves when the worker has opened the profile. */
  ready: Promise<void>;
  /** Resolves when it exits: the runs it finished, by stop reason, and its stderr. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; runs: string[]; stderr: string }>;
}

export function startWorker(bundle: string, databasePath: string, first: number, runs?: number, mode?: "heavy"): WorkerRun {
  const args = [bundle, databasePath, String(first), runs === undefined ? "forever" : String(runs), ...(mode === undefined ? [] : [mode])];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  const runsDone: string[] = [];
  let stderr = "";
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolvePromise) => {
    markReady = resolvePromise;
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  let buffered = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "ready") markReady();
      const match = /^run \d+ (\w+)$/.exec(line);
      if (match) runsDone.push(match[1]!);
    }
  });
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; runs: string[]; stderr: string }>((resolvePromise, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      markReady();
      resolvePromise({ code, signal, runs: runsDone, stderr });
    });
  });
  return { child, ready, done };
}

export interface ProfileFindings {
  integrity: string;
  actions: number;
  /** Committed actions with no change journaled. */
  actionsWithoutChanges: number[];
  /** Committed actions with no audit "result" entry. */
  actionsWithoutAuditResult: number[];
  /** Records whose state is not what the journal says (or, never journaled, not the seed's). */
  recordsOffJournal: string[];
  /** Files (or folders) whose state on disk is not what the journal says, files the journal does not know, leftovers. */
  filesOffJournal: string[];
  auditOk: boolean;
  auditProblem: string | undefined;
  auditEntries: number;
  auditResults: number;
  /** The errors of calls in the audit log, as "tool: code". */
  auditErrors: string[];
}

type RecordKey = string;

/** Every record of the store, by app/collection/id, as stored text. */
export function snapshotRecords(profile: Profile): Map<RecordKey, string> {
  const rows = profile.store.db.prepare("SELECT app, collection, id, data FROM records").all() as { app: string; collection: string; id: string; data: string }[];
  return new Map(rows.map((row) => [`${row.app}/${row.collection}/${row.id}`, row.data]));
}

function walkAll(root: string, relative = "", into: { path: string; folder: boolean }[] = []): { path: string; folder: boolean }[] {
  const absolute = relative === "" ? root : join(root, relative);
  for (const name of readdirSync(absolute)) {
    const path = relative === "" ? name : `${relative}/${name}`;
    const folder = lstatSync(join(root, path)).isDirectory();
    into.push({ path, folder });
    if (folder) walkAll(root, path, into);
  }
  return into;
}

/**
 * Open the profile as a user would after the crash (which reconciles its
 * files), and hold its state against its journal and its audit log. Files
 * and folders under `workerFolder` are the worker's: each must be explained
 * by a committed journal entry.
 */
export function inspectProfile(databasePath: string, seedRecords: Map<RecordKey, string>, workerFolder = "crash"): ProfileFindings {
  const profile = Profile.open({ databasePath, clock: CLOCK, timeZone: ZONE, apps: WORKER_APPS() });
  try {
    const db = profile.store.db;
    const integrity = db.pragma("integrity_check", { simple: true }) as string;
    const actions = db.prepare("SELECT id FROM actions WHERE undone = 0 ORDER BY id").all() as { id: number }[];
    const actionsWithoutChanges = actions
      .filter((action) => db.prepare("SELECT 1 FROM action_changes WHERE action_id = ?").get(action.id) === undefined)
      .map((action) => action.id);
    const audited = new Set(
      (db.prepare("SELECT json_extract(data, '$.actionId') AS id FROM policy_audit WHERE kind = 'result'").all() as { id: number | null }[]).map((row) => row.id),
    );
    const actionsWithoutAuditResult = actions.filter((action) => !audited.has(action.id)).map((action) => action.id);

    // Records: the latest journaled "after" of each record, else the seed's.
    const changes = db
      .prepare(
        `SELECT c.app, c.collection, c.record_id, c.after, c.external_kind, c.external_payload FROM action_changes c
         JOIN actions a ON a.id = c.action_id WHERE a.undone = 0 ORDER BY c.action_id, c.seq`,
      )
      .all() as { app: string | null; collection: string | null; record_id: string | null; after: string | null; external_kind: string | null; external_payload: string | null }[];
    const expected = new Map<RecordKey, string | null>(seedRecords);
    const files = new Map<string, { folder: boolean; after: string | null }>();
    for (const change of changes) {
      if (change.external_kind === "file") {
        const payload = JSON.parse(change.external_payload!) as { path: string; folder?: boolean; after: string | null };
        files.set(payload.path, { folder: payload.folder === true, after: payload.after });
      } else if (change.external_kind === null) {
        expected.set(`${change.app}/${change.collection}/${change.record_id}`, change.after);
      }
    }
    const actual = snapshotRecords(profile);
    const recordsOffJournal: string[] = [];
    for (const [key, data] of expected) {
      if ((actual.get(key) ?? null) !== data) recordsOffJournal.push(key);
    }
    for (const key of actual.keys()) if (!expected.has(key)) recordsOffJournal.push(key);

    // Files: each journaled path as its latest change left it; nothing else of the worker's; no leftovers.
    const root = profile.environment.filesDirectory!;
    const filesOffJournal: string[] = [];
    for (const [path, state] of files) {
      const absolute = join(root, ...path.split("/"));
      const exists = existsSync(absolute);
      if (state.folder) {
        if ((state.after !== null) !== exists) filesOffJournal.push(`${path} (folder ${exists ? "there" : "missing"})`);
      } else if (state.after === null ? exists : !exists || readFileSync(absolute).toString("base64") !== state.after) {
        filesOffJournal.push(`${path} (${exists ? "content differs" : "missing"})`);
      }
    }
    for (const entry of walkAll(root)) {
      if (entry.path.endsWith(".tmp") || basename(entry.path).startsWith(".")) filesOffJournal.push(`${entry.path} (leftover)`);
      else if ((entry.path === workerFolder || entry.path.startsWith(`${workerFolder}/`)) && !files.has(entry.path)) filesOffJournal.push(`${entry.path} (not journaled)`);
    }
    const intents = join(dirname(root), `.${basename(root)}.intents`);
    if (existsSync(intents)) for (const name of readdirSync(intents)) filesOffJournal.push(`intent ${name} (left)`);

    const audit = new AuditLog(profile.store);
    const verification = audit.verify();
    return {
      integrity,
      actions: actions.length,
      actionsWithoutChanges,
      actionsWithoutAuditResult,
      recordsOffJournal,
      filesOffJournal,
      auditOk: verification.ok,
      auditProblem: verification.problem,
      auditEntries: verification.checked,
      auditResults: audit.entries().filter((entry) => entry.kind === "result").length,
      auditErrors: audit
        .entries()
        .filter((entry) => entry.kind === "error")
        .map((entry) => `${entry.tool}: ${(entry.data as { error?: { code?: string } }).error?.code}`),
    };
  } finally {
    profile.close();
  }
}

/** A small deterministic random source, so a failing kill schedule can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}
