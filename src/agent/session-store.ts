import { randomUUID } from "node:crypto";
import type { ChatMessage } from "../model/types.js";
import type { Store } from "../store/store.js";
import { BotpsyError } from "../errors.js";
import { parseRunState, type RunState } from "./run-state.js";
import type { AgentStopReason } from "./types.js";

export class AgentStateError extends BotpsyError {}

const AGENT_MIGRATIONS = [
  `CREATE TABLE agent_sessions (
     id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL
   );
   CREATE TABLE agent_turns (
     session_id TEXT NOT NULL REFERENCES agent_sessions(id), turn_index INTEGER NOT NULL,
     run_id TEXT NOT NULL, stop_reason TEXT NOT NULL, messages TEXT NOT NULL, created_at TEXT NOT NULL,
     PRIMARY KEY (session_id, turn_index)
   );
   CREATE TABLE agent_runs (
     id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES agent_sessions(id),
     status TEXT NOT NULL, state TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL
   );
   CREATE INDEX agent_runs_by_session ON agent_runs (session_id, status);
   -- Per-tool grants of older versions: no longer written or read (the gate's approvals are the one record).
   CREATE TABLE agent_grants (
     tool TEXT NOT NULL, scope TEXT NOT NULL, session_id TEXT NOT NULL, created_at TEXT NOT NULL,
     PRIMARY KEY (tool, scope, session_id)
   );`,
];

export interface SessionSummary {
  id: string;
  createdAt: string;
  updatedAt: string;
  turns: number;
}

/**
 * The agent's own tables in the profile's store: sessions and their finished
 * turns, and runs paused for approval (their state as JSON, checked against
 * its schema before a resume). Approvals are not kept here: the gate keeps
 * them, and the run carries its own.
 */
export class AgentSessionStore {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
    store.migrate("agent", AGENT_MIGRATIONS);
  }

  /** The session of that id, created when absent; a new id when none is given. */
  ensureSession(sessionId?: string): string {
    if (sessionId !== undefined && !/^[A-Za-z0-9_.:-]{1,128}$/.test(sessionId)) {
      throw new AgentStateError(
        "invalid_session",
        `Session id "${sessionId}" is not usable: use letters, digits, ".", ":", "-" and "_" (at most 128).`,
      );
    }
    const id = sessionId ?? `s-${randomUUID().slice(0, 13)}`;
    const now = new Date().toISOString();
    this.store.db.prepare("INSERT INTO agent_sessions (id, created_at, updated_at) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING").run(id, now, now);
    return id;
  }

  sessionExists(sessionId: string): boolean {
    return this.store.db.prepare("SELECT 1 FROM agent_sessions WHERE id = ?").get(sessionId) !== undefined;
  }

  /** Finished turns of a session, oldest first, each its messages. */
  turns(sessionId: string): ChatMessage[][] {
    const rows = this.store.db
      .prepare("SELECT messages FROM agent_turns WHERE session_id = ? ORDER BY turn_index")
      .all(sessionId) as { messages: string }[];
    return rows.map((row) => JSON.parse(row.messages) as ChatMessage[]);
  }

  appendTurn(sessionId: string, runId: string, stopReason: AgentStopReason, messages: ChatMessage[]): void {
    const now = new Date().toISOString();
    // Immediate: a read-then-write transaction must hold the write lock from the start when another process writes too.
    this.store.immediate(() => {
      const row = this.store.db.prepare("SELECT COALESCE(MAX(turn_index), -1) AS last FROM agent_turns WHERE session_id = ?").get(sessionId) as {
        last: number;
      };
      this.store.db
        .prepare("INSERT INTO agent_turns (session_id, turn_index, run_id, stop_reason, messages, created_at) VALUES (?, ?, ?, ?, ?, ?)")
        .run(sessionId, row.last + 1, runId, stopReason, JSON.stringify(messages), now);
      this.store.db.prepare("UPDATE agent_sessions SET updated_at = ? WHERE id = ?").run(now, sessionId);
    });
  }

  listSessions(limit = 20): SessionSummary[] {
    const rows = this.store.db
      .prepare(
        `SELECT s.id, s.created_at, s.updated_at, (SELECT COUNT(*) FROM agent_turns t WHERE t.session_id = s.id) AS turns
         FROM agent_sessions s ORDER BY s.updated_at DESC, s.id LIMIT ?`,
      )
      .all(limit) as { id: string; created_at: string; updated_at: string; turns: number }[];
    return rows.map((row) => ({ id: row.id, createdAt: row.created_at, updatedAt: row.updated_at, turns: row.turns }));
  }

  savePausedRun(state: RunState): void {
    const now = new Date().toISOString();
    this.store.db
      .prepare(
        `INSERT INTO agent_runs (id, session_id, status, state, created_at, updated_at) VALUES (?, ?, 'awaiting_approval', ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET status = 'awaiting_approval', state = excluded.state, updated_at = excluded.updated_at`,
      )
      .run(state.runId, state.sessionId, JSON.stringify(state), now, now);
  }

  /** The stored row of a run waiting for approval; an error saying why when there is none. */
  requirePausedRun(runId: string): { state: string } {
    const row = this.store.db.prepare("SELECT status, state FROM agent_runs WHERE id = ?").get(runId) as
      | { status: string; state: string }
      | undefined;
    if (!row) throw new AgentStateError("unknown_run", `There is no run "${runId}" in this profile. Check the run id (botpsy prints it when a run pauses).`);
    if (row.status !== "awaiting_approval") {
      throw new AgentStateError("run_not_paused", `Run "${runId}" is not waiting for approval (it is ${row.status}); there is nothing to resume.`);
    }
    return row;
  }

  /** The paused run's state, checked against its schema; an error saying why when there is none to resume. */
  loadPausedRun(runId: string): RunState {
    const row = this.requirePausedRun(runId);
    let value: unknown;
    try {
      value = JSON.parse(row.state) as unknown;
    } catch (error) {
      throw new AgentStateError("run_state_invalid", `The saved state of run "${runId}" is not JSON, so it cannot be resumed; abandon it and start the request again.`, {
        cause: error,
      });
    }
    const version = value !== null && typeof value === "object" ? (value as { version?: unknown }).version : undefined;
    if (version !== 1) {
      throw new AgentStateError("run_state_unknown", `Run "${runId}" was saved by another botpsy version (state version ${String(version)}); start the request again.`);
    }
    const parsed = parseRunState(value);
    if (!parsed.ok) {
      throw new AgentStateError(
        "run_state_invalid",
        `The saved state of run "${runId}" is damaged (${parsed.problems}), so it cannot be resumed; abandon it and start the request again.`,
      );
    }
    return parsed.state;
  }

  /** Mark a paused run as being continued (so two resumes cannot both run it). */
  claimPausedRun(runId: string): void {
    const result = this.store.db
      .prepare("UPDATE agent_runs SET status = 'resumed', updated_at = ? WHERE id = ? AND status = 'awaiting_approval'")
      .run(new Date().toISOString(), runId);
    if (result.changes !== 1) throw new AgentStateError("run_not_paused", `Run "${runId}" is no longer waiting for approval; it was resumed already.`);
  }

  /** The id of a run of this session that waits for approval, if any. */
  pausedRunOf(sessionId: string): string | undefined {
    const row = this.store.db
      .prepare("SELECT id FROM agent_runs WHERE session_id = ? AND status = 'awaiting_approval' ORDER BY created_at DESC LIMIT 1")
      .get(sessionId) as { id: string } | undefined;
    return row?.id;
  }

  /** Give up a paused run (the user moved on): its calls are never run. */
  abandonPausedRun(runId: string): void {
    this.store.db.prepare("UPDATE agent_runs SET status = 'abandoned', updated_at = ? WHERE id = ? AND status = 'awaiting_approval'").run(new Date().toISOString(), runId);
  }
}
