import type { ApprovalScope } from "./types.js";
import { InvalidInputError } from "../errors.js";
import type { ToolCall } from "../model/types.js";
import type { Store } from "../store/store.js";
import type { JsonValue, Rule } from "./rules.js";
import { canonicalJson, migratePolicyTables } from "./schema.js";

/**
 * Argument names that carry free text (a message body, a subject). An approval
 * "for this session" or "always" covers a call whatever these say, but every
 * other argument (the recipient, the amount, the path) must be the same.
 */
const FREE_TEXT_KEY = /^(text|body|message|content|subject|note|notes|title|caption|comment|description|reason)$/i;

/** The argument pattern a standing approval covers: these arguments fixed, the free-text ones free. */
export interface ApprovalPattern {
  tool: string;
  fixed: Record<string, unknown>;
  free: string[];
}

export interface StoredApproval {
  id: number;
  requestId: string | undefined;
  sessionId: string | undefined;
  tool: string;
  arguments: Record<string, unknown>;
  scope: ApprovalScope;
  approved: boolean;
  pattern: ApprovalPattern | undefined;
  reason: string | undefined;
  decidedAt: string;
  usedAt: string | undefined;
  revoked: boolean;
}

export interface RecordApprovalInput {
  call: ToolCall;
  sessionId: string | undefined;
  scope: ApprovalScope;
  approved: boolean;
  requestId?: string;
  /** Why approval was asked (kept with the decision). */
  reason?: string;
  /** When the decision was made; default now. */
  at?: Date;
}

interface ApprovalRow {
  id: number;
  request_id: string | null;
  session_id: string | null;
  tool: string;
  arguments: string;
  call_key: string;
  scope: ApprovalScope;
  approved: number;
  pattern: string | null;
  reason: string | null;
  decided_at: string;
  used_at: string | null;
  revoked: number;
}

export function callKey(call: Pick<ToolCall, "name" | "arguments">): string {
  return `${call.name}:${canonicalJson(call.arguments)}`;
}

export function patternOf(call: Pick<ToolCall, "name" | "arguments">): ApprovalPattern {
  const fixed: Record<string, unknown> = {};
  const free: string[] = [];
  for (const [key, value] of Object.entries(call.arguments)) {
    if (FREE_TEXT_KEY.test(key)) free.push(key);
    else fixed[key] = value;
  }
  return { tool: call.name, fixed, free };
}

/** Whether `call` is covered by `pattern`: same tool, same fixed arguments, no argument the pattern does not know. */
export function patternCovers(pattern: ApprovalPattern, call: Pick<ToolCall, "name" | "arguments">): boolean {
  if (pattern.tool !== call.name) return false;
  const keys = new Set([...Object.keys(pattern.fixed), ...Object.keys(call.arguments)]);
  for (const key of keys) {
    if (pattern.free.includes(key) && FREE_TEXT_KEY.test(key)) continue;
    if (canonicalJson(pattern.fixed[key] ?? null) !== canonicalJson(call.arguments[key] ?? null)) return false;
  }
  return true;
}

/** A standing approval as a rule of the policy language (for `policy show`). */
export function patternToRule(pattern: ApprovalPattern, name: string): Rule {
  return {
    name,
    decision: "allow",
    tool: pattern.tool,
    when: Object.entries(pattern.fixed).map(([argument, value]) => ({ argument, equals: value as JsonValue })),
  };
}

/**
 * The user's answers to approval requests, kept in the profile's store so they
 * outlive the process. "once" covers exactly one run of exactly that call;
 * "session" covers that call pattern for the rest of the session; "always"
 * becomes a standing allow rule for the pattern.
 */
export class ApprovalStore {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
    migratePolicyTables(store);
  }

  record(input: RecordApprovalInput): StoredApproval {
    if (!["once", "session", "always"].includes(input.scope)) {
      throw new InvalidInputError(`Approval scope "${String(input.scope)}" is unknown; use once, session or always.`, {
        code: "invalid_approval",
      });
    }
    if (input.scope === "session" && input.sessionId === undefined) {
      throw new InvalidInputError("An approval for this session needs the session id; approve once or always instead.", {
        code: "invalid_approval",
      });
    }
    const pattern = input.scope === "once" ? undefined : patternOf(input.call);
    const result = this.store.db
      .prepare(
        `INSERT INTO policy_approvals (request_id, session_id, tool, arguments, call_key, scope, approved, pattern, reason, decided_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        input.requestId ?? null,
        input.sessionId ?? null,
        input.call.name,
        canonicalJson(input.call.arguments),
        callKey(input.call),
        input.scope,
        input.approved ? 1 : 0,
        pattern ? JSON.stringify(pattern) : null,
        input.reason ?? null,
        (input.at ?? new Date()).toISOString(),
      );
    return this.get(Number(result.lastInsertRowid))!;
  }

  get(id: number): StoredApproval | undefined {
    const row = this.store.db.prepare("SELECT * FROM policy_approvals WHERE id = ?").get(id) as ApprovalRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  /**
   * The approval that covers `call` now, if any. `standing: false` accepts
   * only an unused "once" approval of exactly this call (used for calls whose
   * arguments came from untrusted content: a pattern approved earlier must not
   * cover a value an attacker planted).
   */
  find(call: Pick<ToolCall, "name" | "arguments">, sessionId: string | undefined, options: { standing?: boolean } = {}): StoredApproval | undefined {
    const rows = this.store.db
      .prepare(
        `SELECT * FROM policy_approvals
         WHERE tool = ? AND approved = 1 AND revoked = 0
         ORDER BY CASE scope WHEN 'once' THEN 0 WHEN 'session' THEN 1 ELSE 2 END, id`,
      )
      .all(call.name) as ApprovalRow[];
    const key = callKey(call);
    for (const row of rows) {
      if (row.scope === "once") {
        if (row.used_at === null && row.call_key === key && (row.session_id ?? undefined) === sessionId) return fromRow(row);
        continue;
      }
      if (options.standing === false || row.pattern === null) continue;
      if (row.scope === "session" && (sessionId === undefined || row.session_id !== sessionId)) continue;
      if (patternCovers(JSON.parse(row.pattern) as ApprovalPattern, call)) return fromRow(row);
    }
    return undefined;
  }

  /** Mark a "once" approval as spent: it never covers another call. */
  consume(id: number, at = new Date()): void {
    this.store.db.prepare("UPDATE policy_approvals SET used_at = ? WHERE id = ? AND scope = 'once' AND used_at IS NULL").run(at.toISOString(), id);
  }

  revoke(id: number): boolean {
    return this.store.db.prepare("UPDATE policy_approvals SET revoked = 1 WHERE id = ? AND revoked = 0").run(id).changes > 0;
  }

  /** Standing "always" approvals, as allow rules. */
  standingRules(): { id: number; rule: Rule }[] {
    const rows = this.store.db
      .prepare("SELECT * FROM policy_approvals WHERE scope = 'always' AND approved = 1 AND revoked = 0 ORDER BY id")
      .all() as ApprovalRow[];
    return rows.map((row) => ({ id: row.id, rule: patternToRule(JSON.parse(row.pattern ?? "null") as ApprovalPattern, `approved always #${row.id}`) }));
  }

  list(options: { sessionId?: string; limit?: number } = {}): StoredApproval[] {
    const rows = this.store.db
      .prepare("SELECT * FROM policy_approvals WHERE (? IS NULL OR session_id = ?) ORDER BY id DESC LIMIT ?")
      .all(options.sessionId ?? null, options.sessionId ?? null, options.limit ?? 100) as ApprovalRow[];
    return rows.map(fromRow);
  }
}

function fromRow(row: ApprovalRow): StoredApproval {
  return {
    id: row.id,
    requestId: row.request_id ?? undefined,
    sessionId: row.session_id ?? undefined,
    tool: row.tool,
    arguments: JSON.parse(row.arguments) as Record<string, unknown>,
    scope: row.scope,
    approved: row.approved === 1,
    pattern: row.pattern === null ? undefined : (JSON.parse(row.pattern) as ApprovalPattern),
    reason: row.reason ?? undefined,
    decidedAt: row.decided_at,
    usedAt: row.used_at ?? undefined,
    revoked: row.revoked === 1,
  };
}
