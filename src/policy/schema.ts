import type { Migration, Store } from "../store/store.js";

/** The tables of the safety layer in the profile's store: approvals and the audit chain. */
export const POLICY_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE policy_approvals (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     request_id TEXT,
     session_id TEXT,
     tool TEXT NOT NULL,
     arguments TEXT NOT NULL,
     call_key TEXT NOT NULL,
     scope TEXT NOT NULL CHECK (scope IN ('once', 'session', 'always')),
     approved INTEGER NOT NULL,
     pattern TEXT,
     reason TEXT,
     decided_at TEXT NOT NULL,
     used_at TEXT,
     revoked INTEGER NOT NULL DEFAULT 0
   );
   CREATE INDEX policy_approvals_by_tool ON policy_approvals (tool, approved, revoked);
   CREATE TABLE policy_audit (
     seq INTEGER PRIMARY KEY,
     at TEXT NOT NULL,
     kind TEXT NOT NULL,
     session_id TEXT,
     run_id TEXT,
     call_id TEXT,
     tool TEXT,
     data TEXT NOT NULL,
     previous_hash TEXT NOT NULL,
     hash TEXT NOT NULL
   );
   CREATE INDEX policy_audit_by_time ON policy_audit (at);`,
];

export function migratePolicyTables(store: Store): void {
  store.migrate("policy", POLICY_MIGRATIONS);
}

/** JSON with object keys sorted, so equal values always serialise (and hash) the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
    return sorted;
  }
  return value;
}
