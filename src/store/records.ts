import type { DatabaseHandle } from "./types.js";

/** The stored JSON text of one record, or undefined when there is none. */
export function readRecordData(db: DatabaseHandle, app: string, collection: string, id: string): string | undefined {
  const row = db.prepare("SELECT data FROM records WHERE app = ? AND collection = ? AND id = ?").get(app, collection, id) as
    | { data: string }
    | undefined;
  return row?.data;
}

/** Write a record's JSON text: in place when it exists (keeping its order), else last in its collection. */
export function writeRecord(db: DatabaseHandle, app: string, collection: string, id: string, data: string): void {
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

export function deleteRecord(db: DatabaseHandle, app: string, collection: string, id: string): void {
  db.prepare("DELETE FROM records WHERE app = ? AND collection = ? AND id = ?").run(app, collection, id);
}

export function readMeta(db: DatabaseHandle, key: string): string | undefined {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
  return row?.value;
}

export function writeMeta(db: DatabaseHandle, key: string, value: string): void {
  db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
}
