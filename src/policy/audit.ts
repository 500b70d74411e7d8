import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { BotpsyError } from "../errors.js";
import type { Store } from "../store/store.js";
import { canonicalJson, migratePolicyTables } from "./schema.js";

/**
 * What the audit log records: each call with the decision on it (by a rule or
 * by the user), each result or error, each undo, any note of the guard, and
 * what happened to the chain itself (re-keyed from an older, unkeyed one), and
 * each model turn played off this device (where it ran), and each web request
 * that went out through a peer lending its internet.
 */
export const AUDIT_KINDS = ["decision", "approval", "result", "error", "undo", "guard", "chain", "model-turn", "web-request"] as const;
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
  /** The first entry that does not chain (edited, inserted, forged or after a removed one). */
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

/**
 * The chain's head, kept outside the database and signed with the key: the
 * last entry known written, and the first entry of the keyed chain (entries
 * before it are from an unkeyed chain that could not be re-keyed).
 */
interface HeadRecord {
  version: 1;
  keyedFrom: number;
  seq: number;
  hash: string;
  mac: string;
}

type HeadState = { state: "missing" } | { state: "altered" } | { state: "ok"; head: HeadRecord };

/** The hash of the chain before its first entry. */
export const GENESIS_HASH = "0".repeat(64);

export class AuditError extends BotpsyError {}

/** The fields of an entry, in a fixed order: what the chain signs. */
function entryBody(entry: Omit<AuditEntry, "hash" | "previousHash">): string {
  return canonicalJson([
    entry.seq,
    entry.at,
    entry.kind,
    entry.sessionId ?? null,
    entry.runId ?? null,
    entry.callId ?? null,
    entry.tool ?? null,
    entry.data ?? null,
  ]);
}

/** sha256 over the previous hash and every field of the entry: the unkeyed chain of older profiles. */
export function entryHash(previousHash: string, entry: Omit<AuditEntry, "hash" | "previousHash">): string {
  return createHash("sha256").update(previousHash).update("\n").update(entryBody(entry)).digest("hex");
}

/** HMAC-SHA256 with the profile's audit key over the previous hash and every field: only the key's holder can write a link. */
export function entryMac(key: Buffer, previousHash: string, entry: Omit<AuditEntry, "hash" | "previousHash">): string {
  return createHmac("sha256", key).update(previousHash).update("\n").update(entryBody(entry)).digest("hex");
}

function headMac(key: Buffer, head: Omit<HeadRecord, "mac">): string {
  return createHmac("sha256", key).update(canonicalJson(["audit-head", head.version, head.keyedFrom, head.seq, head.hash])).digest("hex");
}

function sameText(first: string, second: string): boolean {
  const a = Buffer.from(first);
  const b = Buffer.from(second);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Where a profile's audit key and head live: files beside its database. */
export function auditKeyPath(databasePath: string): string {
  return `${databasePath}.audit-key`;
}

export function auditHeadPath(databasePath: string): string {
  return `${databasePath}.audit-head`;
}

// A throwaway (":memory:") store keeps its key and head in memory, shared by every log over it.
const memoryChains = new WeakMap<Store, { key: Buffer; head?: HeadRecord }>();
// The calls whose result was written with their action, per store: one hook a store, however many logs (safety layers) use it.
const committedResultsOf = new WeakMap<Store, Set<string>>();

/**
 * An append-only, keyed, hash-chained log in the profile's store. Every entry
 * holds an HMAC (with a key kept in a file beside the database, mode 0600)
 * over the entry and the one before, so editing, inserting or forging an
 * entry breaks the chain even when the rest is recomputed without the key;
 * the head (last entry, signed) is kept outside the database too, so cutting
 * entries off the end is detected. `verify()` names the first break.
 */
export class AuditLog {
  private readonly store: Store;
  private readonly key: Buffer;
  /** Set when this open re-keyed an older unkeyed chain (or found it broken): say so to the user. */
  readonly notice: string | undefined;

  constructor(store: Store) {
    this.store = store;
    migratePolicyTables(store);
    this.requireTable();
    const { key, created } = this.loadKey();
    this.key = key;
    this.notice = this.prepareHead(created);
  }

  append(input: AuditEntryInput): AuditEntry {
    if (!(AUDIT_KINDS as readonly string[]).includes(input.kind)) {
      throw new AuditError("invalid_audit_entry", `Audit entry kind "${input.kind}" is unknown; use one of ${AUDIT_KINDS.join(", ")}.`);
    }
    // Inside a caller's transaction the head moves once that commits (see `recordActionResults`); a head behind the log is fine.
    if (this.store.db.inTransaction) return this.insert(input);
    const entry = this.store.immediate(() => this.insert(input));
    this.advanceHead(entry);
    return entry;
  }

  /**
   * Write the "result" entry of every action inside the action's own
   * transaction: the action, its journal and its audit entry are one commit.
   * The result formatter then skips the entry already written (see
   * `takeCommittedResult`). Installed once per store, whichever log asks first.
   */
  recordActionResults(): void {
    if (committedResultsOf.has(this.store)) return;
    const committedResults = new Set<string>();
    committedResultsOf.set(this.store, committedResults);
    this.store.onActionCommitting(({ info, actionId, value, transaction }) => {
      const entry = this.insert({
        kind: "result",
        sessionId: info.sessionId,
        runId: info.runId,
        callId: info.callId,
        tool: info.tool,
        data: { status: "ok", result: truncateJson(value), actionId: actionId ?? null },
      });
      transaction.onCommit(() => this.advanceHead(entry));
      if (info.runId !== undefined && info.callId !== undefined) committedResults.add(`${info.runId}\u0000${info.callId}`);
    });
  }

  /** Whether the result of this call was already written with its action (then it is not written again). */
  takeCommittedResult(runId: string, callId: string): boolean {
    return committedResultsOf.get(this.store)?.delete(`${runId}\u0000${callId}`) ?? false;
  }

  /** Entries in order; `since` keeps those at or after that instant. */
  entries(options: { since?: Date; limit?: number; sessionId?: string } = {}): AuditEntry[] {
    this.requireTable();
    const rows = this.store.db
      .prepare(`SELECT * FROM policy_audit WHERE (? IS NULL OR at >= ?) AND (? IS NULL OR session_id = ?) ORDER BY seq LIMIT ?`)
      .all(
        options.since?.toISOString() ?? null,
        options.since?.toISOString() ?? null,
        options.sessionId ?? null,
        options.sessionId ?? null,
        options.limit ?? -1,
      ) as AuditRow[];
    return rows.map(fromRow);
  }

  /** The last entry in the database. */
  head(): { seq: number; hash: string } {
    const last = this.store.db.prepare("SELECT seq, hash FROM policy_audit ORDER BY seq DESC LIMIT 1").get() as
      | { seq: number; hash: string }
      | undefined;
    return last ?? { seq: 0, hash: GENESIS_HASH };
  }

  /**
   * Recompute the chain from the start with the key and hold it against the
   * head kept outside the database; stops at the first entry that does not fit.
   */
  verify(): AuditVerification {
    this.requireTable();
    const head = this.readHead();
    const keyedFrom = head.state === "ok" ? head.head.keyedFrom : 1;
    const rows = this.store.db.prepare("SELECT * FROM policy_audit ORDER BY seq").iterate() as IterableIterator<AuditRow>;
    let previousHash = GENESIS_HASH;
    let expectedSeq = 1;
    let checked = 0;
    let hashAtHead: string | undefined;
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
      const keyed = row.seq >= keyedFrom;
      const expected = keyed ? entryMac(this.key, previousHash, entry) : entryHash(previousHash, entry);
      if (!sameText(expected, row.hash)) {
        const problem = keyed
          ? `entry ${row.seq} was changed after it was written, or written without the audit key (a forged or re-hashed entry)`
          : `entry ${row.seq} (of the older unkeyed chain) was changed after it was written`;
        return { ok: false, checked, brokenAt: row.seq, problem };
      }
      if (head.state === "ok" && row.seq === head.head.seq) hashAtHead = row.hash;
      previousHash = row.hash;
      expectedSeq++;
      checked++;
    }
    const headPath = this.store.path === ":memory:" ? "kept in memory" : auditHeadPath(this.store.path);
    if (head.state === "missing") {
      if (checked === 0) return { ok: true, checked };
      return {
        ok: false,
        checked,
        problem: `the head record (${headPath}) is missing, so entries cut off the end cannot be detected; restore it with the profile, or treat the log as tampered with`,
      };
    }
    if (head.state === "altered") {
      return { ok: false, checked, problem: `the head record (${headPath}) was altered or is not signed with this profile's audit key` };
    }
    const anchored = head.head;
    if (checked < anchored.seq) {
      return {
        ok: false,
        checked,
        brokenAt: checked + 1,
        problem: `the log ends at entry ${checked} but its head record says entry ${anchored.seq} was written: entries ${checked + 1} to ${anchored.seq} were removed`,
      };
    }
    if (anchored.seq > 0 && (hashAtHead === undefined || !sameText(hashAtHead, anchored.hash))) {
      return { ok: false, checked, brokenAt: anchored.seq, problem: `entry ${anchored.seq} is not the entry the head record anchored (it was replaced)` };
    }
    return { ok: true, checked };
  }

  private requireTable(): void {
    const table = this.store.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'policy_audit'").get();
    if (table === undefined) {
      throw new AuditError(
        "audit_table_missing",
        `The audit log's table is missing from ${this.store.path}, though the profile says it was made: it was removed. Nothing can be verified; restore the profile from a backup.`,
      );
    }
  }

  private insert(input: AuditEntryInput): AuditEntry {
    // Round-trip so the MAC covers exactly what is stored (no undefined, no class instances).
    const data = JSON.parse(JSON.stringify(input.data ?? null)) as unknown;
    const last = this.store.db.prepare("SELECT seq, hash FROM policy_audit ORDER BY seq DESC LIMIT 1").get() as { seq: number; hash: string } | undefined;
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
    const hash = entryMac(this.key, previousHash, entry);
    this.store.db
      .prepare(
        "INSERT INTO policy_audit (seq, at, kind, session_id, run_id, call_id, tool, data, previous_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(entry.seq, entry.at, entry.kind, entry.sessionId ?? null, entry.runId ?? null, entry.callId ?? null, entry.tool ?? null, canonicalJson(data), previousHash, hash);
    return { ...entry, previousHash, hash };
  }

  /** The key, from its file beside the database (made on first use, 0600), or this store's in-memory one. */
  private loadKey(): { key: Buffer; created: boolean } {
    if (this.store.path === ":memory:") {
      const known = memoryChains.get(this.store);
      if (known) return { key: known.key, created: false };
      const key = randomBytes(32);
      memoryChains.set(this.store, { key });
      return { key, created: true };
    }
    const path = auditKeyPath(this.store.path);
    const read = (): Buffer => {
      const text = readFileSync(path, "utf8").trim();
      if (!/^[0-9a-f]{64}$/.test(text)) {
        throw new AuditError("audit_key_unreadable", `The audit key ${path} is not a key botpsy wrote (64 hex digits). Restore it from the profile's backup; without it the log cannot be verified.`);
      }
      return Buffer.from(text, "hex");
    };
    try {
      return { key: read(), created: false };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    // A head without its key: the log was keyed, and a new key would quietly start another chain.
    if (existsSync(auditHeadPath(this.store.path))) {
      throw new AuditError(
        "audit_key_missing",
        `The audit key ${path} is missing, though the log was keyed with it (its head ${auditHeadPath(this.store.path)} is there). Restore the key from the profile's backup; without it the log cannot be verified or continued.`,
      );
    }
    const key = randomBytes(32);
    // Written whole under a name of its own, then linked into place: the link
    // fails if the key exists, and a process opening the profile at the same
    // moment never reads a key file that is still empty.
    const pending = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(pending, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
    try {
      linkSync(pending, path);
      return { key, created: true };
    } catch (error) {
      // Another process made it first: use that one.
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return { key: read(), created: false };
      throw error;
    } finally {
      rmSync(pending, { force: true });
    }
  }

  private readHead(): HeadState {
    let head: HeadRecord;
    if (this.store.path === ":memory:") {
      const known = memoryChains.get(this.store)?.head;
      if (known === undefined) return { state: "missing" };
      head = known;
    } else {
      let text: string;
      try {
        text = readFileSync(auditHeadPath(this.store.path), "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: "missing" };
        throw error;
      }
      try {
        head = JSON.parse(text) as HeadRecord;
      } catch {
        return { state: "altered" };
      }
    }
    if (
      head.version !== 1 ||
      !Number.isInteger(head.seq) ||
      !Number.isInteger(head.keyedFrom) ||
      typeof head.hash !== "string" ||
      typeof head.mac !== "string" ||
      !sameText(headMac(this.key, head), head.mac)
    ) {
      return { state: "altered" };
    }
    return { state: "ok", head };
  }

  private writeHead(head: Omit<HeadRecord, "mac" | "version">): void {
    const record: HeadRecord = { version: 1, ...head, mac: "" };
    record.mac = headMac(this.key, record);
    if (this.store.path === ":memory:") {
      memoryChains.get(this.store)!.head = record;
      return;
    }
    const path = auditHeadPath(this.store.path);
    const temporary = `${path}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    renameSync(temporary, path);
  }

  /**
   * Move the head to `entry` once it is committed. Only a head that is there
   * and signed moves: a missing or altered one stays so, and `verify` says so.
   * Two processes may race here; the head can then lag the log, never lead it.
   */
  private advanceHead(entry: AuditEntry): void {
    const current = this.readHead();
    if (current.state !== "ok" || current.head.seq >= entry.seq) return;
    this.writeHead({ keyedFrom: current.head.keyedFrom, seq: entry.seq, hash: entry.hash });
  }

  /**
   * A log with no head yet: a new one gets one; one whose key was made just
   * now holds an older, unkeyed chain, re-keyed when it verifies (a "chain"
   * entry says so) and otherwise kept as it is, unkeyed and reported broken.
   * Any other log without its head was tampered with: left for `verify`.
   * Returns the notice for the user when a chain was migrated.
   */
  private prepareHead(keyCreated: boolean): string | undefined {
    if (this.readHead().state !== "missing") return undefined;
    let notice: string | undefined;
    let head: Omit<HeadRecord, "mac" | "version"> | undefined;
    this.store.immediate(() => {
      if (this.readHead().state !== "missing") return;
      const last = this.head();
      if (last.seq === 0) {
        head = { keyedFrom: 1, seq: 0, hash: GENESIS_HASH };
        return;
      }
      if (!keyCreated) return;
      const broken = verifyUnkeyed(this.store);
      if (broken === undefined) {
        this.rekey();
        const entry = this.insert({ kind: "chain", data: { event: "rekeyed", entries: last.seq } });
        notice = `The audit log of this profile was written before it was keyed; its ${last.seq} entries verified intact and were re-keyed with the new audit key.`;
        head = { keyedFrom: 1, seq: entry.seq, hash: entry.hash };
      } else {
        const entry = this.insert({ kind: "chain", data: { event: "unkeyed-chain-broken", entries: last.seq, brokenAt: broken.seq, problem: broken.problem } });
        notice = `The audit log of this profile was written before it was keyed, and it does not verify (${broken.problem}): it was kept as it is, unkeyed, and will be reported as tampered with. New entries are keyed.`;
        head = { keyedFrom: last.seq + 1, seq: entry.seq, hash: entry.hash };
      }
    });
    if (head !== undefined) this.writeHead(head);
    return notice;
  }

  /** Rewrite the chain's links with the key, entry by entry (the entries themselves are unchanged). */
  private rekey(): void {
    const rows = this.store.db.prepare("SELECT * FROM policy_audit ORDER BY seq").all() as AuditRow[];
    const update = this.store.db.prepare("UPDATE policy_audit SET previous_hash = ?, hash = ? WHERE seq = ?");
    let previousHash = GENESIS_HASH;
    for (const row of rows) {
      const hash = entryMac(this.key, previousHash, fromRow(row));
      update.run(previousHash, hash, row.seq);
      previousHash = hash;
    }
  }
}

/** Check an older, unkeyed chain; undefined when intact, else where it breaks. */
function verifyUnkeyed(store: Store): { seq: number; problem: string } | undefined {
  const rows = store.db.prepare("SELECT * FROM policy_audit ORDER BY seq").iterate() as IterableIterator<AuditRow>;
  let previousHash = GENESIS_HASH;
  let expectedSeq = 1;
  for (const row of rows) {
    if (row.seq !== expectedSeq) return { seq: row.seq, problem: `entry ${expectedSeq} is missing` };
    if (row.previous_hash !== previousHash) return { seq: row.seq, problem: `entry ${row.seq} does not link to the entry before it` };
    let entry: AuditEntry;
    try {
      entry = fromRow(row);
    } catch {
      return { seq: row.seq, problem: `entry ${row.seq} holds data that is not JSON` };
    }
    if (entryHash(previousHash, entry) !== row.hash) return { seq: row.seq, problem: `entry ${row.seq} was changed after it was written` };
    previousHash = row.hash;
    expectedSeq++;
  }
  return undefined;
}

/** A result as the log keeps it: long ones cut, so one large result does not swell the log. */
export function truncateJson(value: unknown, limit = 2000): unknown {
  const text = JSON.stringify(value ?? null);
  return text.length <= limit ? (JSON.parse(text) as unknown) : { truncated: `${text.slice(0, limit)}…` };
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
