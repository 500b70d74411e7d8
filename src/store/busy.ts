import { StoreError, type DatabaseHandle } from "./types.js";

/** How long SQLite itself waits for another connection's lock before answering SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;
/** How many more times a write that still met a lock is tried, after SQLite's own wait. */
export const BUSY_RETRIES = 4;

export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** Wait without giving the event loop away: the work retried is synchronous, and a write must not interleave with another. */
function pause(milliseconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
}

/**
 * Run `attempt` again while another process holds the database's write lock,
 * a bounded number of times with a growing, jittered pause; the last busy
 * error becomes a `store_busy` error that says what to do.
 */
export function retryWhileBusy<T>(path: string, attempt: () => T): T {
  for (let tried = 0; ; tried++) {
    try {
      return attempt();
    } catch (error) {
      if (!isBusyError(error)) throw error;
      if (tried >= BUSY_RETRIES) {
        throw new StoreError(
          "store_busy",
          `The database ${path} stayed locked by another botpsy process for too long. Wait for it to finish (or stop it) and retry.`,
          { cause: error },
        );
      }
      pause(50 * 2 ** tried + Math.random() * 50);
    }
  }
}

/**
 * Run `work` in one IMMEDIATE transaction: the write lock is taken at BEGIN,
 * so a transaction never fails half way when it upgrades from reading to
 * writing while another process writes. Waits for the lock, and retries.
 */
export function immediateTransaction<T>(db: DatabaseHandle, path: string, work: () => T): T {
  const transaction = db.transaction(work);
  // Nested in an open transaction it is a savepoint: the lock is already held.
  if (db.inTransaction) return transaction();
  return retryWhileBusy(path, () => transaction.immediate());
}

/** The same under an EXCLUSIVE lock (migrations: two first opens of one profile must not both create its tables). */
export function exclusiveTransaction<T>(db: DatabaseHandle, path: string, work: () => T): T {
  const transaction = db.transaction(work);
  if (db.inTransaction) return transaction();
  return retryWhileBusy(path, () => transaction.exclusive());
}
