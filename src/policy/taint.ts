import type { Store } from "../store/store.js";
import { extractCandidates, type TaintFinding } from "./provenance.js";

/**
 * The taint of stored values: its own migration owner, so the table comes and
 * goes with this module and numbers no migration of another.
 */
const TAINT_MIGRATIONS = [
  `CREATE TABLE policy_taint (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     value TEXT NOT NULL,
     kind TEXT NOT NULL,
     argument TEXT NOT NULL,
     tool TEXT NOT NULL,
     source TEXT NOT NULL,
     session_id TEXT,
     run_id TEXT,
     stored_at TEXT NOT NULL
   );
   CREATE INDEX policy_taint_by_value ON policy_taint (value);`,
];

/** A value a write stored that came from untrusted content, and where it came from. */
export interface StoredTaint {
  value: string;
  kind: string;
  /** The argument of the write that carried it (`phone`). */
  argument: string;
  /** The write that stored it (`update_contact`). */
  tool: string;
  /** Where the value was read ("an email from x@…"). */
  source: string;
}

type TaintContext = { tool: string; sessionId?: string; runId?: string; at?: Date };

interface PendingTaint {
  findings: readonly TaintFinding[];
  context: TaintContext;
  written: boolean;
}

/** Expected taint per store, by run and call: one map and one commit hook per store, however many safety layers share it. */
const pendingByStore = new WeakMap<Store, Map<string, PendingTaint>>();

/** At most this many calls' taint waits for its call to end; the oldest is dropped past it. */
export const MAX_PENDING_TAINTS = 256;

function pendingOf(store: Store): Map<string, PendingTaint> {
  let pending = pendingByStore.get(store);
  if (pending === undefined) pendingByStore.set(store, (pending = new Map()));
  return pending;
}

function callKeyOf(runId: string, callId: string): string {
  return `${runId}\u0000${callId}`;
}

function installCommitHook(store: Store): void {
  if (pendingByStore.has(store)) return;
  const pending = pendingOf(store);
  store.onActionCommitting(({ info, transaction }) => {
    if (info.runId === undefined || info.callId === undefined) return;
    const expected = pending.get(callKeyOf(info.runId, info.callId));
    if (expected === undefined || expected.written) return;
    insertTaint(store, expected.findings, expected.context);
    transaction.onCommit(() => {
      expected.written = true;
    });
  });
}

function insertTaint(store: Store, findings: readonly TaintFinding[], context: TaintContext): void {
  const insert = store.db.prepare("INSERT INTO policy_taint (value, kind, argument, tool, source, session_id, run_id, stored_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  const at = (context.at ?? new Date()).toISOString();
  for (const finding of findings) {
    insert.run(finding.value, finding.kind, finding.argument, context.tool, finding.origin.source, context.sessionId ?? null, context.runId ?? null, at);
  }
}

/** Keys of a record that say which record it is: a call names it by one of these. */
const IDENTIFYING_KEY = /^(id|name|full_?name|first_?name|last_?name|display_?name|nickname|title|email|handle|username|label)$/i;

function normalise(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

function digits(text: string): string {
  return text.replace(/\D/g, "");
}

/** Whether `text` holds the stored value (numbers by their digits, the rest as a phrase). */
function holds(text: string, taint: StoredTaint): boolean {
  if (taint.kind === "number" || taint.kind === "amount") {
    const wanted = digits(taint.value);
    return wanted.length >= 7 && digits(text).includes(wanted);
  }
  const wanted = normalise(taint.value);
  return wanted.length >= 3 && normalise(text).includes(wanted);
}

function stringLeaves(value: unknown, key = "", found: { key: string; text: string }[] = []): { key: string; text: string }[] {
  if (typeof value === "string") found.push({ key, text: value });
  else if (Array.isArray(value)) for (const item of value) stringLeaves(item, key, found);
  else if (value !== null && typeof value === "object") for (const [childKey, child] of Object.entries(value)) stringLeaves(child, childKey, found);
  return found;
}

/** Whether a record is the one `name` refers to: its id, name, first name, title or address, whole. */
function names(record: unknown, name: string): boolean {
  const wanted = normalise(name);
  if (wanted.length < 2) return false;
  return stringLeaves(record).some(({ key, text }) => {
    if (!IDENTIFYING_KEY.test(key)) return false;
    const value = normalise(text);
    return value === wanted || value.split(" ")[0] === wanted;
  });
}

/**
 * Values copied from untrusted content keep their taint when a write stores
 * them: the gate records each such value with its source after the write ran,
 * and a later side effect is escalated when an argument IS a tainted value or
 * NAMES a record that still holds one ("send to Maria" whose number a
 * calendar invitation wrote). A value the user wrote over since is no longer
 * in the record, so the record is clean again.
 */
export class TaintStore {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
    store.migrate("policy-taint", TAINT_MIGRATIONS);
    installCommitHook(store);
  }

  /** Remember the tainted values a write stored. */
  record(findings: readonly TaintFinding[], context: TaintContext): void {
    // One write transaction with the lock taken up front: another process on the profile waits instead of failing.
    this.store.immediate(() => insertTaint(this.store, findings, context));
  }

  /**
   * The tainted values an allowed write is about to store: written inside the
   * write's own action transaction when it commits (a crash keeps the value
   * and its taint, or neither). `settle` is told how the call ended.
   */
  expect(findings: readonly TaintFinding[], context: TaintContext & { runId: string; callId: string }): void {
    const pending = pendingOf(this.store);
    // A session runs one run at a time: what an earlier run of it expected and never settled (a call allowed but
    // never run: the run paused, was abandoned or aborted) is dropped; a later run of that call records its taint
    // after it ran. Past MAX_PENDING_TAINTS the oldest entry goes the same way.
    for (const [key, entry] of pending) {
      if (context.sessionId !== undefined && entry.context.sessionId === context.sessionId && entry.context.runId !== context.runId) pending.delete(key);
    }
    while (pending.size >= MAX_PENDING_TAINTS) pending.delete(pending.keys().next().value as string);
    pending.set(callKeyOf(context.runId, context.callId), { findings, context, written: false });
  }

  /** Calls whose taint is expected and not yet settled (for tests and diagnostics). */
  pendingCount(): number {
    return pendingOf(this.store).size;
  }

  /**
   * After a call ended: false when no taint was expected for it. Else its
   * taint is settled: written with its action, or, for a call that
   * succeeded without committing an action (a tool whose state lives
   * outside the database), recorded now; a failed call stored nothing.
   */
  settle(runId: string, callId: string, succeeded: boolean): boolean {
    const pending = pendingOf(this.store);
    const key = callKeyOf(runId, callId);
    const expected = pending.get(key);
    if (expected === undefined) return false;
    pending.delete(key);
    if (!expected.written && succeeded) this.record(expected.findings, expected.context);
    return true;
  }

  all(): StoredTaint[] {
    return this.store.db.prepare("SELECT value, kind, argument, tool, source FROM policy_taint ORDER BY id").all() as StoredTaint[];
  }

  /**
   * The arguments of a call that are, or name a record that holds, a value
   * stored from untrusted content. `userText` vouches: what the user wrote is
   * theirs, wherever else it is.
   */
  findStored(args: Record<string, unknown>, userText: string): TaintFinding[] {
    const taints = this.all();
    if (taints.length === 0) return [];
    const spoken = normalise(userText);
    const findings: TaintFinding[] = [];
    let records: { collection: string; data: unknown }[] | undefined;
    for (const candidate of extractCandidates(args)) {
      const value = candidate.value;
      const direct = taints.find((taint) => holds(value, taint) && !holds(userText, taint));
      if (direct) {
        findings.push(this.finding(candidate, direct, `the ${candidate.kind} "${shorten(value)}" was stored by ${direct.tool} from ${direct.source}`));
        continue;
      }
      if (spoken.includes(normalise(value)) && /\d|@/.test(value)) continue;
      records ??= this.recordsHolding(taints);
      for (const record of records) {
        if (!names(record.data, value)) continue;
        const held = taints.find((taint) => stringLeaves(record.data).some(({ text }) => holds(text, taint)) && !holds(userText, taint));
        if (!held) continue;
        findings.push(
          this.finding(
            candidate,
            held,
            `"${shorten(value)}" names a ${singular(record.collection)} whose ${held.argument} "${shorten(held.value)}" ${held.tool} stored from ${held.source}`,
          ),
        );
        break;
      }
    }
    return findings;
  }

  /** The stored records that hold any tainted value. */
  private recordsHolding(taints: readonly StoredTaint[]): { collection: string; data: unknown }[] {
    const rows = this.store.db.prepare("SELECT collection, data FROM records").all() as { collection: string; data: string }[];
    const found: { collection: string; data: unknown }[] = [];
    for (const row of rows) {
      if (!taints.some((taint) => holds(row.data, taint) || (taint.kind === "number" && digits(row.data).includes(digits(taint.value))))) continue;
      let data: unknown;
      try {
        data = JSON.parse(row.data) as unknown;
      } catch {
        continue;
      }
      if (taints.some((taint) => stringLeaves(data).some(({ text }) => holds(text, taint)))) found.push({ collection: row.collection, data });
    }
    return found;
  }

  private finding(candidate: { argument: string; value: string; kind: string }, taint: StoredTaint, reason: string): TaintFinding {
    return { ...candidate, origin: { kind: "untrusted", tool: taint.tool, source: taint.source }, reason };
  }
}

function singular(collection: string): string {
  return collection.endsWith("s") ? collection.slice(0, -1) : collection;
}

function shorten(value: string, length = 60): string {
  return value.length <= length ? value : `${value.slice(0, length - 1)}…`;
}
