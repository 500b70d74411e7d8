import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { StoreError, type DatabaseHandle } from "./types.js";

/**
 * Open (or create) the SQLite file at `path` with the settings every store
 * uses (WAL, foreign keys, a busy timeout), and the table that records each
 * owner's schema version.
 */
export function openDatabase(path: string): DatabaseHandle {
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
  return db;
}
