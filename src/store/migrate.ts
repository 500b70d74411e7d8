import { exclusiveTransaction } from "./busy.js";
import { StoreError, type DatabaseHandle, type Migration } from "./types.js";

/** The store's own tables: records, counters, meta and the action journal. */
export const CORE_MIGRATIONS: Migration[] = [
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

/** The schema version `owner` has reached in `db` (0 before its first migration). */
export function schemaVersion(db: DatabaseHandle, owner: string): number {
  const row = db.prepare("SELECT version FROM schema_versions WHERE owner = ?").get(owner) as { version: number } | undefined;
  return row?.version ?? 0;
}

/**
 * Apply the migrations of `owner` that have not run yet, each in its own
 * transaction under an exclusive lock, recording the version reached: a
 * second process opening the same new profile waits, then finds the tables
 * made (the version is read again inside the lock). `path` names the
 * database in errors.
 */
export function migrate(db: DatabaseHandle, path: string, owner: string, migrations: readonly Migration[]): void {
  const check = (current: number): void => {
    if (current > migrations.length) {
      throw new StoreError(
        "store_too_new",
        `The database ${path} has ${owner} schema version ${current}, newer than this botpsy knows (${migrations.length}). Update botpsy.`,
      );
    }
  };
  check(schemaVersion(db, owner));
  // Most opens find nothing to do and take no lock.
  while (schemaVersion(db, owner) < migrations.length) {
    exclusiveTransaction(db, path, () => {
      const current = schemaVersion(db, owner);
      check(current);
      if (current >= migrations.length) return;
      const version = current + 1;
      const migration = migrations[version - 1]!;
      if (typeof migration === "string") db.exec(migration);
      else migration(db);
      db.prepare("INSERT INTO schema_versions (owner, version) VALUES (?, ?) ON CONFLICT(owner) DO UPDATE SET version = excluded.version").run(
        owner,
        version,
      );
    });
  }
}
