import Database from "better-sqlite3";
import { existsSync, linkSync, mkdirSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { BUSY_TIMEOUT_MS, retryWhileBusy } from "./busy.js";
import { StoreError, type DatabaseHandle } from "./types.js";

function unreadable(path: string, reason: string, cause?: unknown): StoreError {
  return new StoreError(
    "store_unreadable",
    `Cannot open the database ${path}: ${reason}. It is not a usable botpsy database: move it aside (or restore it from a backup) and botpsy will create a new one.`,
    { cause },
  );
}

/**
 * Create a new, empty database at `path` whole: it is made under a temporary
 * name and linked into place, so no other process ever sees a zero-byte file
 * there (which is refused as damaged). Losing the race to another process
 * that created it first is fine: its file is used.
 */
function createDatabaseFile(path: string): void {
  const temporary = `${path}.${process.pid}-${Date.now()}.creating`;
  try {
    const db = new Database(temporary);
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE IF NOT EXISTS schema_versions (owner TEXT PRIMARY KEY, version INTEGER NOT NULL)");
    db.close();
    try {
      linkSync(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  } finally {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${temporary}${suffix}`, { force: true });
  }
}

/**
 * Open (or create) the SQLite file at `path` with the settings every store
 * uses (WAL, foreign keys, a busy timeout), and the table that records each
 * owner's schema version. A file that is not a database, or an empty one, is
 * refused: it is never replaced without the user's say.
 */
export function openDatabase(path: string): DatabaseHandle {
  const inMemory = path === ":memory:";
  if (!inMemory) {
    mkdirSync(dirname(path), { recursive: true });
    if (!existsSync(path)) createDatabaseFile(path);
    if (statSync(path).size === 0) throw unreadable(path, "the file is empty (0 bytes), so whatever it held is gone");
  }
  let db: DatabaseHandle | undefined;
  try {
    db = new Database(path, { fileMustExist: !inMemory });
    // The wait for another process's lock comes first: switching to WAL itself needs the lock.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const opened = db;
    retryWhileBusy(path, () => opened.pragma("journal_mode = WAL"));
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    retryWhileBusy(path, () => opened.exec("CREATE TABLE IF NOT EXISTS schema_versions (owner TEXT PRIMARY KEY, version INTEGER NOT NULL)"));
  } catch (error) {
    db?.close();
    if (error instanceof StoreError) throw error;
    throw unreadable(path, String(error), error);
  }
  return db;
}
