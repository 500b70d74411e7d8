import { describe, expect, it } from "vitest";
import { AuditLog, entryHash, GENESIS_HASH } from "../../src/policy/audit.js";
import { Store } from "../../src/store/store.js";

function filledLog(): { store: Store; audit: AuditLog } {
  const store = Store.open(":memory:");
  const audit = new AuditLog(store);
  audit.append({ kind: "decision", sessionId: "s1", callId: "c1", tool: "send_message", data: { decision: "ask", arguments: { to: "Maria" } } });
  audit.append({ kind: "approval", sessionId: "s1", callId: "c1", tool: "send_message", data: { approved: true, scope: "once" } });
  audit.append({ kind: "result", sessionId: "s1", callId: "c1", tool: "send_message", data: { status: "ok", result: { sent: true } } });
  audit.append({ kind: "undo", data: { actionId: 1 } });
  return { store, audit };
}

describe("audit log", () => {
  it("chains every entry to the one before", () => {
    const { audit } = filledLog();
    const entries = audit.entries();
    expect(entries.map((entry) => entry.kind)).toEqual(["decision", "approval", "result", "undo"]);
    expect(entries[0]!.previousHash).toBe(GENESIS_HASH);
    for (let index = 1; index < entries.length; index++) expect(entries[index]!.previousHash).toBe(entries[index - 1]!.hash);
    expect(audit.verify()).toEqual({ ok: true, checked: 4 });
    expect(entries.every((entry) => entry.hash !== entryHash(entry.previousHash, entry))).toBe(true);
    expect(audit.head()).toEqual({ seq: 4, hash: entries[3]!.hash });
  });

  it("detects an edited row", () => {
    const { store, audit } = filledLog();
    store.db.prepare("UPDATE policy_audit SET data = ? WHERE seq = 2").run(JSON.stringify({ approved: true, scope: "always" }));
    expect(audit.verify()).toMatchObject({ ok: false, brokenAt: 2, problem: expect.stringContaining("entry 2 was changed after it was written") });
  });

  it("detects an edit that also recomputed the row's own hash", () => {
    const { store, audit } = filledLog();
    store.db.prepare("UPDATE policy_audit SET hash = ? WHERE seq = 2").run("f".repeat(64));
    expect(audit.verify()).toMatchObject({ ok: false, brokenAt: 2 });
  });

  it("detects a removed row", () => {
    const { store, audit } = filledLog();
    store.db.prepare("DELETE FROM policy_audit WHERE seq = 3").run();
    expect(audit.verify()).toMatchObject({ ok: false, brokenAt: 4, problem: "entry 3 is missing (the next is 4)" });
  });

  it("filters by time and session, and refuses an unknown kind", () => {
    const store = Store.open(":memory:");
    const audit = new AuditLog(store);
    audit.append({ kind: "decision", sessionId: "a", data: {}, at: new Date("2026-01-01T00:00:00Z") });
    audit.append({ kind: "decision", sessionId: "b", data: {}, at: new Date("2026-03-01T00:00:00Z") });
    expect(audit.entries({ since: new Date("2026-02-01T00:00:00Z") })).toHaveLength(1);
    expect(audit.entries({ sessionId: "a" })).toHaveLength(1);
    expect(() => audit.append({ kind: "nonsense" as "decision", data: {} })).toThrow(/unknown/);
  });
});
