import { immediateTransaction } from "./busy.js";
import { deleteRecord, readRecordData, writeRecord } from "./records.js";
import type { JournaledTransaction } from "./transaction.js";
import {
  StoreError,
  type ActionRecord,
  type DatabaseHandle,
  type RestoredRecord,
  type RestoreListener,
  type UndoCheck,
  type UndoHandler,
} from "./types.js";

interface JournalEntry {
  app: string | null;
  collection: string | null;
  record_id: string | null;
  before: string | null;
  after: string | null;
  external_kind: string | null;
  external_payload: string | null;
}

/**
 * What a store knows about undoing: the handlers (and their checks) for
 * changes outside the records table, and the apps listening for records an
 * undo put back.
 */
export class UndoRegistry {
  private readonly handlers = new Map<string, UndoHandler>();
  private readonly checks = new Map<string, UndoCheck>();
  private readonly restoreListeners = new Map<string, RestoreListener[]>();

  register(kind: string, handler: UndoHandler, check?: UndoCheck): void {
    this.handlers.set(kind, handler);
    if (check) this.checks.set(kind, check);
    else this.checks.delete(kind);
  }

  onRecordsRestored(app: string, listener: RestoreListener): void {
    const listeners = this.restoreListeners.get(app) ?? [];
    listeners.push(listener);
    this.restoreListeners.set(app, listeners);
  }

  notifyRestored(restored: RestoredRecord[]): void {
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

  /**
   * An action that failed after changing things outside the database (a file
   * written) takes those changes back too, newest first, through the undo
   * handlers of their kinds: a failed action leaves nothing behind. Returns
   * the error to throw: the original one, or, when something could not be
   * put back, a `rollback_incomplete` error that says what and why.
   */
  revertExternalChanges(db: DatabaseHandle, tx: JournaledTransaction, error: unknown): unknown {
    const failures: string[] = [];
    for (const change of [...tx.externalChanges].reverse()) {
      const handler = this.handlers.get(change.kind);
      if (handler === undefined) {
        failures.push(`no undo handler for "${change.kind}" changes is loaded`);
        continue;
      }
      try {
        handler(change.payload, db);
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

  /**
   * Revert one journaled action in one transaction and mark it undone;
   * returns the records put back. A record changed since the action is a
   * conflict: nothing of the action is reverted and the error says which record.
   */
  undoAction(db: DatabaseHandle, action: ActionRecord): RestoredRecord[] {
    const restored: RestoredRecord[] = [];
    immediateTransaction(db, db.name, () => {
      const entries = db
        .prepare("SELECT app, collection, record_id, before, after, external_kind, external_payload FROM action_changes WHERE action_id = ? ORDER BY seq DESC")
        .all(action.id) as JournalEntry[];
      this.checkUndoable(db, action, entries);
      for (const entry of entries) {
        if (entry.external_kind !== null) {
          const handler = this.handlers.get(entry.external_kind);
          if (!handler) {
            throw new StoreError(
              "undo_unavailable",
              `Cannot undo "${action.tool}": no undo handler for "${entry.external_kind}" changes is loaded. Load the app that made it and retry.`,
            );
          }
          handler(JSON.parse(entry.external_payload ?? "null") as unknown, db);
          continue;
        }
        const current = readRecordData(db, entry.app!, entry.collection!, entry.record_id!);
        if ((current ?? null) !== entry.after) throw changedAgain(action, entry);
        if (entry.before === null) {
          deleteRecord(db, entry.app!, entry.collection!, entry.record_id!);
        } else {
          writeRecord(db, entry.app!, entry.collection!, entry.record_id!, entry.before);
        }
        restored.push({
          app: entry.app!,
          collection: entry.collection!,
          recordId: entry.record_id!,
          data: entry.before === null ? null : (JSON.parse(entry.before) as unknown),
        });
      }
      db.prepare("UPDATE actions SET undone = 1 WHERE id = ?").run(action.id);
    });
    return restored;
  }

  /**
   * Check every change first: files and other external state cannot be
   * rolled back with the transaction, so nothing is reverted until all can be.
   * A record changed twice in the action is compared with what reverting the
   * later change will have left.
   */
  private checkUndoable(db: DatabaseHandle, action: ActionRecord, entries: readonly JournalEntry[]): void {
    const simulated = new Map<string, string | null>();
    for (const entry of entries) {
      if (entry.external_kind !== null) {
        if (!this.handlers.has(entry.external_kind)) continue;
        this.checks.get(entry.external_kind)?.(JSON.parse(entry.external_payload ?? "null") as unknown, db);
        continue;
      }
      const key = JSON.stringify([entry.app, entry.collection, entry.record_id]);
      const stored = readRecordData(db, entry.app!, entry.collection!, entry.record_id!);
      const current = simulated.has(key) ? simulated.get(key) : (stored ?? null);
      simulated.set(key, entry.before);
      if (current !== entry.after) throw changedAgain(action, entry);
    }
  }
}

function changedAgain(action: ActionRecord, entry: JournalEntry): StoreError {
  return new StoreError(
    "undo_conflict",
    `Cannot undo "${action.tool}": ${entry.app}/${entry.collection}/${entry.record_id} was changed again after it. Undo the later action first.`,
  );
}
