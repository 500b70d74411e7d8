import { createHash } from "node:crypto";
import { BotpsyError } from "../errors.js";
import type { Store } from "../store/store.js";
import { canonicalJson, migratePolicyTables } from "./schema.js";

/**
 * What the audit log records: each call with the decision on it (by a rule or
 * by the user), each result or error, each undo, any note of the guard, and
 * each model turn played off this device (where it ran).
 */
export const AUDIT_KINDS = ["decision", "approval", "result", "error", "undo", "guard", "model-turn"] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

export interface AuditEntryInput {
  kind: AuditKind;
  sessionId?: string;
  runId?: string;
  callId?: string;
  tool?: string;
  /** Any JSON: the arguments and verdict, the result, what was undone. */
  data: unknown;
  /** Default now. */
  at?: Date;
}

export interface AuditEntry {
  seq: number;
  at: string;
  kind: AuditKind;
  sessionId: string | undefined;
  runId: string | undefined;
  callId: string | undefined;
  tool: string | undefined;
  data: unknown;
  previousHash: string;
  hash: string;
}

export interface AuditVerification {
  ok: boolean;
  /** Entries checked. */
  checked: number;
  /** The first entry that does not chain (edited, inserted or after a removed one). */
  brokenAt?: number;
  problem?: string;
}

interface AuditRow {
  seq: number;
  at: string;
  kind: string;
  session_id: string | null;
  run_id: string | null;
  call_id: string | null;
  tool: string | null;
  data: string;
  previous_hash: string;
  hash: string;
}

/** The hash of the chain before its first entry. */
export const GENESIS_HASH = "0".repeat(64);

export class AuditError extends BotpsyError {}

/** sha256 over the previous hash and every field of the entry, in a fixed order. */
export function entryHash(previousHash: string, entry: Omit<AuditEntry, "hash" | "previousHash">): string {
  const body = canonicalJson([
    entry.seq,
    entry.at,
    entry.kind,
    entry.sessionId ?? null,
    entry.runId ?? null,
    entry.callId ?? null,
    entry.tool ?? null,
    entry.data ?? null,
  ]);
  return createHash("sha256").update(previousHash).update("\n").update(body).digest("hex");
}

/**
 * An append-only, hash-chained log in the profile's store. Every entry holds
 * the hash of the one before, so editing, inserting or removing an entry in
 * the middle breaks the chain at that point, and `verify()` names it.
 * (Cutting entries off the end is only detectable against a head hash kept
 * elsewhere: `head()` gives it.)
 */
export class AuditLog {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
    migratePolicyTables(store);
  }

  append(input: AuditEntryInput): AuditEntry {
    if (!(AUDIT_KINDS as readonly string[]).includes(input.kind)) {
      throw new AuditError("invalid_audit_entry", `Audit entry kind "${input.kind}" is unknown; use one of ${AUDIT_KINDS.join(", ")}.`);
    }
    // Round-trip so the hash covers exactly what is stored (no undefined, no class instances).
    const data = JSON.parse(JSON.stringify(input.data ?? null)) as unknown;
    return this.store.db.transaction((): AuditEntry => {
      const last = this.store.db.prepare("SELECT seq, hash FROM policy_audit ORDER BY seq DESC LIMIT 1").get() as
        | { seq: number; hash: string }
        | undefined;
      const previousHash = last?.hash ?? GENESIS_HASH;
      const entry = {
        seq: (last?.seq ?? 0) + 1,
        at: (input.at ?? new Date()).toISOString(),
        kind: input.kind,
        sessionId: input.sessionId,
        runId: input.runId,
        callId: input.callId,
        tool: input.tool,
        data,
      };
      const hash = entryHash(previousHash, entry);
      this.store.db
        .prepare(
          "INSERT INTO policy_audit (seq, at, kind, session_id, run_id, call_id, tool, data, previous_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(entry.seq, entry.at, entry.kind, entry.sessionId ?? null, entry.runId ?? null, entry.callId ?? null, entry.tool ?? null, canonicalJson(data), previousHash, hash);
      return { ...entry, previousHash, hash };
    })();
  }

  /** Entries in order; `since` keeps those at or after that instant. */
  entries(options: { since?: Date; limit?: number; sessionId?: string } = {}): AuditEntry[] {
    const rows = this.store.db
      .prepare(
        `SELECT * FROM policy_audit WHERE (? IS NULL OR at >= ?) AND (? IS NULL OR session_id = ?) ORDER BY seq LIMIT ?`,
      )
      .all(
        options.since?.toISOString() ?? null,
        options.since?.toISOString() ?? null,
        options.sessionId ?? null,
        options.sessionId ?? null,
        options.limit ?? -1,
      ) as AuditRow[];
    return rows.map(fromRow);
  }

  /** The hash of the last entry (keep it elsewhere to detect a cut-off tail). */
  head(): { seq: number; hash: string } {
    const last = this.store.db.prepare("SELECT seq, hash FROM policy_audit ORDER BY seq DESC LIMIT 1").get() as
      | { seq: number; hash: string }
      | undefined;
    return last ?? { seq: 0, hash: GENESIS_HASH };
  }

  /** Recompute the chain from the start; stops at the first entry that does not fit. */
  verify(): AuditVerification {
    const rows = this.store.db.prepare("SELECT * FROM policy_audit ORDER BY seq").iterate() as IterableIterator<AuditRow>;
    let previousHash = GENESIS_HASH;
    let expectedSeq = 1;
    let checked = 0;
    for (const row of rows) {
      if (row.seq !== expectedSeq) {
        return { ok: false, checked, brokenAt: row.seq, problem: `entry ${expectedSeq} is missing (the next is ${row.seq})` };
      }
      if (row.previous_hash !== previousHash) {
        return { ok: false, checked, brokenAt: row.seq, problem: `entry ${row.seq} does not link to the entry before it` };
      }
      let entry: AuditEntry;
      try {
        entry = fromRow(row);
      } catch {
        return { ok: false, checked, brokenAt: row.seq, problem: `entry ${row.seq} holds data that is not JSON` };
      }
      if (entryHash(previousHash, entry) !== row.hash) {
        return { ok: false, checked, brokenAt: row.seq, problem: `entry ${row.seq} was changed after it was written` };
      }
      previousHash = row.hash;
      expectedSeq++;
      checked++;
    }
    return { ok: true, checked };
  }
}

function fromRow(row: AuditRow): AuditEntry {
  return {
    seq: row.seq,
    at: row.at,
    kind: row.kind as AuditKind,
    sessionId: row.session_id ?? undefined,
    runId: row.run_id ?? undefined,
    callId: row.call_id ?? undefined,
    tool: row.tool ?? undefined,
    data: JSON.parse(row.data) as unknown,
    previousHash: row.previous_hash,
    hash: row.hash,
  };
}
