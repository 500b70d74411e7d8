import { deleteRecord, readMeta, readRecordData, writeMeta, writeRecord } from "./records.js";
import { StoreError, type Change, type Collection, type DatabaseHandle, type ExternalChange, type StoreTransaction } from "./types.js";

/**
 * The store view one action (or one read) gets: every write is kept, in
 * order, so the action can be journaled and later undone.
 */
export class JournaledTransaction implements StoreTransaction {
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
    const read = (id: string): string | undefined => readRecordData(db, app, name, id);
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
        deleteRecord(db, app, name, id);
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
    return readMeta(this.db, key);
  }

  setMeta(key: string, value: string): void {
    writeMeta(this.db, key, value);
  }
}
