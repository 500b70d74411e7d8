import type { JournaledTransaction } from "./transaction.js";
import type { ActionInfo, ActionRecord, Change, DatabaseHandle } from "./types.js";

/** Write one committed action and its changes, in the order they were made; returns the action's id. */
export function journalAction(db: DatabaseHandle, info: ActionInfo, tx: JournaledTransaction): number {
  const result = db
    .prepare("INSERT INTO actions (tool, args, session_id, at) VALUES (?, ?, ?, ?)")
    .run(info.tool, JSON.stringify(info.args ?? null), info.sessionId ?? null, new Date().toISOString());
  const actionId = Number(result.lastInsertRowid);
  const insert = db.prepare(
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

export interface HistoryOptions {
  limit?: number;
  includeUndone?: boolean;
  sessionId?: string;
}

/** The latest journaled actions, newest first. */
export function readHistory(db: DatabaseHandle, options: HistoryOptions = {}): ActionRecord[] {
  const rows = db
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
    changes: recordChangesOf(db, row.id),
  }));
}

/** The record changes of one action (external changes left out), in the order made. */
function recordChangesOf(db: DatabaseHandle, actionId: number): Change[] {
  const rows = db
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
