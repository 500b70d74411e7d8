import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { BotpsyError } from "../errors.js";

export type DatabaseHandle = Database.Database;

/** One step of a schema: SQL text or a function over the open database. */
export type Migration = string | ((db: DatabaseHandle) => void);

export class StoreError extends BotpsyError {}

/** A change made to app state inside one action; kept so the action can be undone. */
export interface Change {
  app: string;
  collection: string;
  recordId: string;
  /** null when the record did not exist before. */
  before: unknown;
  /** null when the record was deleted. */
  after: unknown;
}

/** A change outside the records table (a file on disk): undone by the handler registered for its kind. */
export interface ExternalChange {
  kind: string;
  payload: unknown;
}

export interface ActionInfo {
  tool: string;
  args: unknown;
  sessionId?: string;
}

export interface ActionRecord {
  id: number;
  tool: string;
  args: unknown;
  sessionId: string | null;
  at: string;
  undone: boolean;
  changes: Change[];
}

export interface UndoneAction {
  id: number;
  tool: string;
  args: unknown;
  changeCount: number;
}

/** A record as an undo left it: `data` null when the undo deleted it. */
export interface RestoredRecord {
  app: string;
  collection: string;
  recordId: string;
  data: unknown;
}

export type RestoreListener = (restored: RestoredRecord[]) => void;

/** Undo handlers get the payload and must restore the state before the change. */
export type UndoHandler = (payload: unknown, db: DatabaseHandle) => void;

/**
 * Optional check run for every external change of an action before any of it
 * is reverted: it throws (an `undo_conflict` StoreError) when the change cannot
 * be undone, so a conflict found late never leaves an action half reverted.
 */
export type UndoCheck = (payload: unknown, db: DatabaseHandle) => void;

export interface Collection<T> {
  get(id: string): T | undefined;
  /** Every record, in insertion order. */
  all(): T[];
  find(predicate: (value: T) => boolean): T[];
  put(id: string, value: T): void;
  /** Apply `update` to the record; throws when it does not exist. */
  update(id: string, update: (value: T) => T): T;
  delete(id: string): boolean;
  /** A fresh id `prefix-N`, never reused within the collection. */
  nextId(prefix: string): string;
}

/** The view of the store a tool call gets: reads and writes that are journaled for undo. */
export interface StoreTransaction {
  readonly db: DatabaseHandle;
  collection<T>(app: string, name: string): Collection<T>;
  /** Record a change outside the records table (undone by the handler for `kind`). */
  recordExternal(change: ExternalChange): void;
  /** Work to do only once the transaction committed (a timer to arm, a file to publish). */
  onCommit(callback: () => void): void;
  /** Profile-level settings (clock, time zone, signed-in accounts…). */
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  readonly changes: readonly Change[];
}

const CORE_MIGRATIONS: Migration[] = [
  `CREATE TABLE records (
     app TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
     data TEXT NOT NULL, seq INTEGER NOT NULL,
     PRIMARY KEY (app, collection, id)
   );
   CREATE INDEX records_by_seq ON records (app, collection, seq);
   CREATE TABLE counters (app TEXT NOT NULL, collection TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (app, collection));
   CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE actions (
     id INTEGER PRIMARY KEY AUTOINCREMENT, tool TEXT NOT NULL, args TEXT NOT NULL,
     session_id TEXT, at TEXT NOT NULL, undone INTEGER NOT NULL DEFAULT 0
   );
   CREATE TABLE action_changes (
     action_id INTEGER NOT NULL REFERENCES actions(id), seq INTEGER NOT NULL,
     app TEXT, collection TEXT, record_id TEXT, before TEXT, after TEXT,
     external_kind TEXT, external_payload TEXT,
     PRIMARY KEY (action_id, seq)
   );`,
];

/**
 * One SQLite file per profile (WAL). App state lives in journaled records, so
 * every tool call is one transaction that can be undone, dry-run and rolled back.
 *
 * better-sqlite3 is synchronous but tools may be async, so actions are run one
 * at a time on this connection: `action()` queues.
 */
export class Store {
  readonly db: DatabaseHandle;
  readonly path: string;
  private readonly undoHandlers = new Map<string, UndoHandler>();
  private readonly undoChecks = new Map<string, UndoCheck>();
  private readonly restoreListeners = new Map<string, RestoreListener[]>();
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(db: DatabaseHandle, path: string) {
    this.db = db;
    this.path = path;
  }

  /** Open (or create) the store at `path`; ":memory:" for a throwaway one. */
  static open(path: string): Store {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    let db: DatabaseHandle;
    try {
      db = new Database(path);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.pragma("foreign_keys = ON");
      db.pragma("busy_timeout = 5000");
    } catch (error) {
      throw new StoreError(
        "store_unreadable",
        `Cannot open the database ${path}: ${String(error)}. If the file is damaged, move it aside and botpsy will create a new one.`,
        { cause: error },
      );
    }
    db.exec("CREATE TABLE IF NOT EXISTS schema_versions (owner TEXT PRIMARY KEY, version INTEGER NOT NULL)");
    const store = new Store(db, path);
    store.migrate("core", CORE_MIGRATIONS);
    return store;
  }

  /**
   * Apply the migrations of `owner` that have not run yet, each in its own
   * transaction, recording the version reached.
   */
  migrate(owner: string, migrations: readonly Migration[]): void {
    const row = this.db.prepare("SELECT version FROM schema_versions WHERE owner = ?").get(owner) as
      | { version: number }
      | undefined;
    const current = row?.version ?? 0;
    if (current > migrations.length) {
      throw new StoreError(
        "store_too_new",
        `The database ${this.path} has ${owner} schema version ${current}, newer than this botpsy knows (${migrations.length}). Update botpsy.`,
      );
    }
    for (let version = current + 1; version <= migrations.length; version++) {
      const migration = migrations[version - 1]!;
      this.db.transaction(() => {
        if (typeof migration === "string") this.db.exec(migration);
        else migration(this.db);
        this.db
          .prepare("INSERT INTO schema_versions (owner, version) VALUES (?, ?) ON CONFLICT(owner) DO UPDATE SET version = excluded.version")
          .run(owner, version);
      })();
    }
  }

  schemaVersion(owner: string): number {
    const row = this.db.prepare("SELECT version FROM schema_versions WHERE owner = ?").get(owner) as
      | { version: number }
      | undefined;
    return row?.version ?? 0;
  }

  registerUndoHandler(kind: string, handler: UndoHandler, check?: UndoCheck): void {
    this.undoHandlers.set(kind, handler);
    if (check) this.undoChecks.set(kind, check);
    else this.undoChecks.delete(kind);
  }

  /**
   * Hear about the records of `app` that an undo put back, after the undo
   * committed: an app whose state has a life outside the database (a timer
   * armed in this process) brings that in line. A listener that throws does
   * not make the undo fail.
   */
  onRecordsRestored(app: string, listener: RestoreListener): void {
    const listeners = this.restoreListeners.get(app) ?? [];
    listeners.push(listener);
    this.restoreListeners.set(app, listeners);
  }

  private notifyRestored(restored: RestoredRecord[]): void {
    for (const [app, listeners] of this.restoreListeners) {
      const mine = restored.filter((record) => record.app === app);
      if (mine.length === 0) continue;
      for (const listener of listeners) {
        try {
          listener(mine);
        } catch {
          // The records are back whatever the listener does; it owns its own errors.
        }
      }
    }
  }

  getMeta(key: string): string | undefined {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
  }

  /** Read without journaling (app views, `apps show`). */
  read<T>(fn: (tx: StoreTransaction) => T): T {
    const tx = new JournaledTransaction(this.db);
    return fn(tx);
  }

  /**
   * Run `fn` as one action: one transaction, journaled for undo when it
   * changed anything. On a throw nothing of it stays. With `dryRun`, the
   * transaction is always rolled back and the changes it would make returned.
   */
  async action<T>(
    info: ActionInfo,
    fn: (tx: StoreTransaction) => Promise<T> | T,
    options: { dryRun?: boolean } = {},
  ): Promise<{ value: T; changes: Change[]; actionId: number | undefined }> {
    const run = async (): Promise<{ value: T; changes: Change[]; actionId: number | undefined }> => {
      this.assertOpen();
      const tx = new JournaledTransaction(this.db);
      this.db.exec("BEGIN IMMEDIATE");
      let value: T;
      try {
        value = await fn(tx);
      } catch (error) {
        this.db.exec("ROLLBACK");
        throw this.revertExternalChanges(tx, error);
      }
      if (options.dryRun) {
        this.db.exec("ROLLBACK");
        return { value, changes: [...tx.changes], actionId: undefined };
      }
      let actionId: number | undefined;
      try {
        if (tx.changes.length > 0 || tx.externalChanges.length > 0) actionId = this.journal(info, tx);
        this.db.exec("COMMIT");
      } catch (error) {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        throw this.revertExternalChanges(tx, error);
      }
      for (const callback of tx.commitCallbacks) callback();
      return { value, changes: [...tx.changes], actionId };
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * An action that failed after changing things outside the database (a file
   * written) takes those changes back too, newest first, through the undo
   * handlers of their kinds: a failed action leaves nothing behind. Returns
   * the error to throw: the original one, or, when something could not be
   * put back, a `rollback_incomplete` error that says what and why.
   */
  private revertExternalChanges(tx: JournaledTransaction, error: unknown): unknown {
    const failures: string[] = [];
    for (const change of [...tx.externalChanges].reverse()) {
      const handler = this.undoHandlers.get(change.kind);
      if (handler === undefined) {
        failures.push(`no undo handler for "${change.kind}" changes is loaded`);
        continue;
      }
      try {
        handler(change.payload, this.db);
      } catch (revertError) {
        failures.push(revertError instanceof Error ? revertError.message : String(revertError));
      }
    }
    if (failures.length === 0) return error;
    const reason = error instanceof Error ? error.message : String(error);
    return new StoreError(
      "rollback_incomplete",
      `The action failed (${reason}) and ${failures.length} change(s) outside the database could not be put back: ${failures.join("; ")}. Check those files by hand.`,
      { cause: error },
    );
  }

  private journal(info: ActionInfo, tx: JournaledTransaction): number {
    const result = this.db
      .prepare("INSERT INTO actions (tool, args, session_id, at) VALUES (?, ?, ?, ?)")
      .run(info.tool, JSON.stringify(info.args ?? null), info.sessionId ?? null, new Date().toISOString());
    const actionId = Number(result.lastInsertRowid);
    const insert = this.db.prepare(
      "INSERT INTO action_changes (action_id, seq, app, collection, record_id, before, after, external_kind, external_payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    let seq = 0;
    for (const entry of tx.ordered) {
      if ("kind" in entry) {
        insert.run(actionId, seq++, null, null, null, null, null, entry.kind, JSON.stringify(entry.payload));
      } else {
        insert.run(
          actionId,
          seq++,
          entry.app,
          entry.collection,
          entry.recordId,
          entry.before === null ? null : JSON.stringify(entry.before),
          entry.after === null ? null : JSON.stringify(entry.after),
          null,
          null,
        );
      }
    }
    return actionId;
  }

  /** The latest actions that changed state, newest first. */
  history(options: { limit?: number; includeUndone?: boolean; sessionId?: string } = {}): ActionRecord[] {
    const rows = this.db
      .prepare(
        `SELECT id, tool, args, session_id, at, undone FROM actions
         WHERE (? = 1 OR undone = 0) AND (? IS NULL OR session_id = ?)
         ORDER BY id DESC LIMIT ?`,
      )
      .all(options.includeUndone ? 1 : 0, options.sessionId ?? null, options.sessionId ?? null, options.limit ?? 20) as {
      id: number;
      tool: string;
      args: string;
      session_id: string | null;
      at: string;
      undone: number;
    }[];
    return rows.map((row) => ({
      id: row.id,
      tool: row.tool,
      args: JSON.parse(row.args) as unknown,
      sessionId: row.session_id,
      at: row.at,
      undone: row.undone === 1,
      changes: this.changesOf(row.id),
    }));
  }

  private changesOf(actionId: number): Change[] {
    const rows = this.db
      .prepare("SELECT app, collection, record_id, before, after FROM action_changes WHERE action_id = ? AND external_kind IS NULL ORDER BY seq")
      .all(actionId) as { app: string; collection: string; record_id: string; before: string | null; after: string | null }[];
    return rows.map((row) => ({
      app: row.app,
      collection: row.collection,
      recordId: row.record_id,
      before: row.before === null ? null : (JSON.parse(row.before) as unknown),
      after: row.after === null ? null : (JSON.parse(row.after) as unknown),
    }));
  }

  /**
   * Revert the last `count` actions that changed state (optionally only those of
   * one session), newest first, each in one transaction. A record changed
   * since by something not being undone is a conflict: nothing of that action
   * is reverted and the error says which record.
   */
  async undo(count = 1, options: { sessionId?: string } = {}): Promise<UndoneAction[]> {
    const run = (): UndoneAction[] => {
      this.assertOpen();
      const targets = this.history({ limit: count, sessionId: options.sessionId });
      const undone: UndoneAction[] = [];
      for (const action of targets) {
        const restored: RestoredRecord[] = [];
        this.db.transaction(() => {
          const entries = this.db
            .prepare("SELECT app, collection, record_id, before, after, external_kind, external_payload FROM action_changes WHERE action_id = ? ORDER BY seq DESC")
            .all(action.id) as {
            app: string | null;
            collection: string | null;
            record_id: string | null;
            before: string | null;
            after: string | null;
            external_kind: string | null;
            external_payload: string | null;
          }[];
          // Check every change first: files and other external state cannot be
          // rolled back with the transaction, so nothing is reverted until all can be.
          // A record changed twice in the action is compared with what reverting the
          // later change will have left.
          const simulated = new Map<string, string | null>();
          for (const entry of entries) {
            if (entry.external_kind !== null) {
              if (!this.undoHandlers.has(entry.external_kind)) continue;
              this.undoChecks.get(entry.external_kind)?.(JSON.parse(entry.external_payload ?? "null") as unknown, this.db);
              continue;
            }
            const key = JSON.stringify([entry.app, entry.collection, entry.record_id]);
            const stored = this.db
              .prepare("SELECT data FROM records WHERE app = ? AND collection = ? AND id = ?")
              .get(entry.app, entry.collection, entry.record_id) as { data: string } | undefined;
            const current = simulated.has(key) ? simulated.get(key) : (stored?.data ?? null);
            simulated.set(key, entry.before);
            if (current !== entry.after) {
              throw new StoreError(
                "undo_conflict",
                `Cannot undo "${action.tool}": ${entry.app}/${entry.collection}/${entry.record_id} was changed again after it. Undo the later action first.`,
              );
            }
          }
          for (const entry of entries) {
            if (entry.external_kind !== null) {
              const handler = this.undoHandlers.get(entry.external_kind);
              if (!handler) {
                throw new StoreError(
                  "undo_unavailable",
                  `Cannot undo "${action.tool}": no undo handler for "${entry.external_kind}" changes is loaded. Load the app that made it and retry.`,
                );
              }
              handler(JSON.parse(entry.external_payload ?? "null") as unknown, this.db);
              continue;
            }
            const current = this.db
              .prepare("SELECT data FROM records WHERE app = ? AND collection = ? AND id = ?")
              .get(entry.app, entry.collection, entry.record_id) as { data: string } | undefined;
            if ((current?.data ?? null) !== entry.after) {
              throw new StoreError(
                "undo_conflict",
                `Cannot undo "${action.tool}": ${entry.app}/${entry.collection}/${entry.record_id} was changed again after it. Undo the later action first.`,
              );
            }
            if (entry.before === null) {
              this.db.prepare("DELETE FROM records WHERE app = ? AND collection = ? AND id = ?").run(entry.app, entry.collection, entry.record_id);
            } else {
              writeRecord(this.db, entry.app!, entry.collection!, entry.record_id!, entry.before);
            }
            restored.push({
              app: entry.app!,
              collection: entry.collection!,
              recordId: entry.record_id!,
              data: entry.before === null ? null : (JSON.parse(entry.before) as unknown),
            });
          }
          this.db.prepare("UPDATE actions SET undone = 1 WHERE id = ?").run(action.id);
        })();
        this.notifyRestored(restored);
        undone.push({ id: action.id, tool: action.tool, args: action.args, changeCount: action.changes.length });
      }
      return undone;
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError("store_closed", `The store ${this.path} is closed; open it again.`);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

function writeRecord(db: DatabaseHandle, app: string, collection: string, id: string, data: string): void {
  const existing = db.prepare("SELECT seq FROM records WHERE app = ? AND collection = ? AND id = ?").get(app, collection, id) as
    | { seq: number }
    | undefined;
  if (existing) {
    db.prepare("UPDATE records SET data = ? WHERE app = ? AND collection = ? AND id = ?").run(data, app, collection, id);
    return;
  }
  const max = db.prepare("SELECT COALESCE(MAX(seq), 0) AS seq FROM records WHERE app = ? AND collection = ?").get(app, collection) as {
    seq: number;
  };
  db.prepare("INSERT INTO records (app, collection, id, data, seq) VALUES (?, ?, ?, ?, ?)").run(app, collection, id, data, max.seq + 1);
}

class JournaledTransaction implements StoreTransaction {
  readonly db: DatabaseHandle;
  readonly changes: Change[] = [];
  readonly externalChanges: ExternalChange[] = [];
  readonly ordered: (Change | ExternalChange)[] = [];
  readonly commitCallbacks: (() => void)[] = [];

  constructor(db: DatabaseHandle) {
    this.db = db;
  }

  collection<T>(app: string, name: string): Collection<T> {
    const db = this.db;
    const record = (change: Change): void => {
      this.changes.push(change);
      this.ordered.push(change);
    };
    const read = (id: string): string | undefined =>
      (db.prepare("SELECT data FROM records WHERE app = ? AND collection = ? AND id = ?").get(app, name, id) as { data: string } | undefined)
        ?.data;
    const collection: Collection<T> = {
      get(id) {
        const data = read(id);
        return data === undefined ? undefined : (JSON.parse(data) as T);
      },
      all() {
        const rows = db.prepare("SELECT data FROM records WHERE app = ? AND collection = ? ORDER BY seq").all(app, name) as { data: string }[];
        return rows.map((row) => JSON.parse(row.data) as T);
      },
      find(predicate) {
        return collection.all().filter(predicate);
      },
      put(id, value) {
        const before = read(id);
        const after = JSON.stringify(value);
        if (before === after) return;
        writeRecord(db, app, name, id, after);
        record({ app, collection: name, recordId: id, before: before === undefined ? null : JSON.parse(before), after: value });
      },
      update(id, update) {
        const current = collection.get(id);
        if (current === undefined) throw new StoreError("record_missing", `${app}/${name}/${id} does not exist.`);
        const next = update(structuredClone(current));
        collection.put(id, next);
        return next;
      },
      delete(id) {
        const before = read(id);
        if (before === undefined) return false;
        db.prepare("DELETE FROM records WHERE app = ? AND collection = ? AND id = ?").run(app, name, id);
        record({ app, collection: name, recordId: id, before: JSON.parse(before), after: null });
        return true;
      },
      nextId(prefix) {
        const row = db.prepare("SELECT value FROM counters WHERE app = ? AND collection = ?").get(app, name) as { value: number } | undefined;
        const value = (row?.value ?? 0) + 1;
        db.prepare(
          "INSERT INTO counters (app, collection, value) VALUES (?, ?, ?) ON CONFLICT(app, collection) DO UPDATE SET value = excluded.value",
        ).run(app, name, value);
        return `${prefix}-${value}`;
      },
    };
    return collection;
  }

  recordExternal(change: ExternalChange): void {
    this.externalChanges.push(change);
    this.ordered.push(change);
  }

  onCommit(callback: () => void): void {
    this.commitCallbacks.push(callback);
  }

  getMeta(key: string): string | undefined {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
  }
}
