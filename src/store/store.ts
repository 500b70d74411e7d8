import { immediateTransaction, retryWhileBusy } from "./busy.js";
import { readHistory, journalAction, type HistoryOptions } from "./journal.js";
import { CORE_MIGRATIONS, migrate, schemaVersion } from "./migrate.js";
import { openDatabase } from "./open.js";
import { readMeta, writeMeta } from "./records.js";
import { JournaledTransaction } from "./transaction.js";
import {
  StoreError,
  type ActionInfo,
  type ActionRecord,
  type ActionCommitHook,
  type Change,
  type DatabaseHandle,
  type Migration,
  type RestoreListener,
  type StoreTransaction,
  type UndoCheck,
  type UndoHandler,
  type UndoneAction,
} from "./types.js";
import { UndoRegistry } from "./undo.js";

// The store's public names stay importable from this module; each lives in the file for its job.
export * from "./types.js";

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
  private readonly undoRegistry = new UndoRegistry();
  private readonly commitHooks: ActionCommitHook[] = [];
  private readonly closeHooks: (() => void)[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(db: DatabaseHandle, path: string) {
    this.db = db;
    this.path = path;
  }

  /** Open (or create) the store at `path`; ":memory:" for a throwaway one. */
  static open(path: string): Store {
    const store = new Store(openDatabase(path), path);
    store.migrate("core", CORE_MIGRATIONS);
    return store;
  }

  /**
   * Apply the migrations of `owner` that have not run yet, each in its own
   * transaction, recording the version reached.
   */
  migrate(owner: string, migrations: readonly Migration[]): void {
    migrate(this.db, this.path, owner, migrations);
  }

  schemaVersion(owner: string): number {
    return schemaVersion(this.db, owner);
  }

  registerUndoHandler(kind: string, handler: UndoHandler, check?: UndoCheck): void {
    this.undoRegistry.register(kind, handler, check);
  }

  /**
   * Hear about the records of `app` that an undo put back, after the undo
   * committed: an app whose state has a life outside the database (a timer
   * armed in this process) brings that in line. A listener that throws does
   * not make the undo fail.
   */
  onRecordsRestored(app: string, listener: RestoreListener): void {
    this.undoRegistry.onRecordsRestored(app, listener);
  }

  /**
   * Write more inside every action's transaction, just before it commits
   * (the audit log's "result" entry): the action and what is written here
   * are one commit, so a crash keeps both or neither. A hook that throws
   * fails the action.
   */
  onActionCommitting(hook: ActionCommitHook): () => void {
    this.commitHooks.push(hook);
    return () => {
      const index = this.commitHooks.indexOf(hook);
      if (index >= 0) this.commitHooks.splice(index, 1);
    };
  }

  /**
   * Run synchronous writes as one IMMEDIATE transaction (the write lock taken
   * at the start, waited for and retried when another process holds it).
   * Inside an open transaction it is a savepoint of it.
   */
  immediate<T>(work: () => T): T {
    return immediateTransaction(this.db, this.path, work);
  }

  getMeta(key: string): string | undefined {
    return readMeta(this.db, key);
  }

  setMeta(key: string, value: string): void {
    writeMeta(this.db, key, value);
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
    return this.enqueue(async () => {
      this.assertOpen();
      const tx = new JournaledTransaction(this.db);
      // The write lock is taken at the start (waited for, then retried): a deferred transaction
      // that upgrades to writing while another process writes fails half way.
      retryWhileBusy(this.path, () => this.db.exec("BEGIN IMMEDIATE"));
      let value: T;
      try {
        value = await fn(tx);
      } catch (error) {
        this.db.exec("ROLLBACK");
        throw this.undoRegistry.revertExternalChanges(this.db, tx, error);
      }
      if (options.dryRun) {
        this.db.exec("ROLLBACK");
        return { value, changes: [...tx.changes], actionId: undefined };
      }
      let actionId: number | undefined;
      try {
        if (tx.changes.length > 0 || tx.externalChanges.length > 0) actionId = journalAction(this.db, info, tx);
        for (const hook of this.commitHooks) hook({ info, actionId, value, transaction: tx });
        this.db.exec("COMMIT");
      } catch (error) {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        throw this.undoRegistry.revertExternalChanges(this.db, tx, error);
      }
      for (const callback of tx.commitCallbacks) callback();
      return { value, changes: [...tx.changes], actionId };
    });
  }

  /** The latest actions that changed state, newest first. */
  history(options: HistoryOptions = {}): ActionRecord[] {
    return readHistory(this.db, options);
  }

  /**
   * Revert the last `count` actions that changed state (optionally only those of
   * one session), newest first, each in one transaction. A record changed
   * since by something not being undone is a conflict: nothing of that action
   * is reverted and the error says which record.
   */
  async undo(count = 1, options: { sessionId?: string } = {}): Promise<UndoneAction[]> {
    return this.enqueue(() => {
      this.assertOpen();
      const targets = this.history({ limit: count, sessionId: options.sessionId });
      const undone: UndoneAction[] = [];
      for (const action of targets) {
        const restored = this.undoRegistry.undoAction(this.db, action);
        this.undoRegistry.notifyRestored(restored);
        undone.push({ id: action.id, tool: action.tool, args: action.args, changeCount: action.changes.length });
      }
      return undone;
    });
  }

  /** Run `work` after every action and undo queued before it, whether those failed or not. */
  private enqueue<T>(work: () => Promise<T> | T): Promise<T> {
    const next = this.queue.then(work, work);
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
    for (const hook of this.closeHooks.splice(0)) hook();
  }

  /** Run `hook` once the store is closed (what lives only as long as the store: a temporary folder). */
  onClose(hook: () => void): void {
    this.closeHooks.push(hook);
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
