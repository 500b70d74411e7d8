import { execFile } from "node:child_process";
import { existsSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Profile } from "../../src/apps/profile.js";
import { AuditError, AuditLog, auditHeadPath, auditKeyPath, entryHash, GENESIS_HASH } from "../../src/policy/audit.js";
import { Store } from "../../src/store/store.js";
import { makeTempDir } from "../support/temp-dir.js";

function filledLog(entries = 5): { store: Store; audit: AuditLog; path: string } {
  const path = join(makeTempDir("botpsy-audit-"), "profile.db");
  const store = Store.open(path);
  const audit = new AuditLog(store);
  for (let index = 1; index <= entries; index++) {
    audit.append({ kind: "decision", sessionId: "s1", callId: `c${index}`, tool: "send_message", data: { decision: "allow", index } });
  }
  return { store, audit, path };
}

/** What someone with the database but not the key can do: recompute every plain hash from `fromSeq` on. */
function rehashWithoutKey(store: Store, fromSeq: number): void {
  const rows = store.db.prepare("SELECT * FROM policy_audit ORDER BY seq").all() as Record<string, string | number | null>[];
  let previousHash = GENESIS_HASH;
  for (const row of rows) {
    const seq = row.seq as number;
    if (seq >= fromSeq) {
      const hash = entryHash(previousHash, {
        seq,
        at: row.at as string,
        kind: row.kind as "decision",
        sessionId: (row.session_id as string | null) ?? undefined,
        runId: (row.run_id as string | null) ?? undefined,
        callId: (row.call_id as string | null) ?? undefined,
        tool: (row.tool as string | null) ?? undefined,
        data: JSON.parse(row.data as string) as unknown,
      });
      store.db.prepare("UPDATE policy_audit SET previous_hash = ?, hash = ? WHERE seq = ?").run(previousHash, hash, seq);
      previousHash = hash;
    } else {
      previousHash = row.hash as string;
    }
  }
}

function runCli(home: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      ["--import", "tsx", resolve("src/cli/main.ts"), ...args],
      { cwd: resolve("."), env: { ...process.env, BOTPSY_HOME: home }, timeout: 60_000 },
      (error, stdout, stderr) => resolvePromise({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("keyed audit chain", () => {
  it("keeps its key in a file of mode 0600 beside the database and anchors its head there too", () => {
    const { store, audit, path } = filledLog(3);
    expect(statSync(auditKeyPath(path)).mode & 0o777).toBe(0o600);
    const head = JSON.parse(readFileSync(auditHeadPath(path), "utf8")) as { seq: number; hash: string };
    expect(head).toMatchObject({ seq: 3, hash: audit.head().hash });
    expect(audit.verify()).toEqual({ ok: true, checked: 3 });
    store.close();
    // Reopened by another log over the same file: same key, still intact.
    const reopened = Store.open(path);
    expect(new AuditLog(reopened).verify()).toEqual({ ok: true, checked: 3 });
    reopened.close();
  });

  it("detects entries cut off the end", () => {
    const { store, audit } = filledLog(5);
    store.db.prepare("DELETE FROM policy_audit WHERE seq > 3").run();
    expect(audit.verify()).toMatchObject({ ok: false, brokenAt: 4, problem: expect.stringContaining("entries 4 to 5 were removed") });
  });

  it("detects an edited entry whose hashes were recomputed from there on, without the key", () => {
    const { store, audit } = filledLog(5);
    store.db.prepare("UPDATE policy_audit SET data = ? WHERE seq = 2").run(JSON.stringify({ decision: "allow", index: 99 }));
    rehashWithoutKey(store, 2);
    expect(audit.verify()).toMatchObject({ ok: false, brokenAt: 2, problem: expect.stringContaining("without the audit key") });
  });

  it("detects a forged entry appended with a correct plain hash", () => {
    const { store, audit } = filledLog(3);
    const last = audit.head();
    const forged = { seq: 4, at: new Date().toISOString(), kind: "approval" as const, sessionId: undefined, runId: undefined, callId: undefined, tool: "send_money", data: { approved: true, scope: "always" } };
    store.db
      .prepare("INSERT INTO policy_audit (seq, at, kind, tool, data, previous_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(4, forged.at, forged.kind, forged.tool, JSON.stringify(forged.data), last.hash, entryHash(last.hash, forged));
    expect(audit.verify()).toMatchObject({ ok: false, brokenAt: 4, problem: expect.stringContaining("forged") });
  });

  it("detects the tail replaced, and a head record deleted or altered", () => {
    const { store, audit, path } = filledLog(4);
    const headText = readFileSync(auditHeadPath(path), "utf8");
    writeFileSync(auditHeadPath(path), headText.replace(/"seq":4/, '"seq":2'));
    expect(audit.verify()).toMatchObject({ ok: false, problem: expect.stringContaining("altered") });
    unlinkSync(auditHeadPath(path));
    expect(audit.verify()).toMatchObject({ ok: false, problem: expect.stringContaining("head record") });
    // A new log over the same store does not quietly make a new head for a log it cannot vouch for.
    expect(new AuditLog(store).verify().ok).toBe(false);
    expect(existsSync(auditHeadPath(path))).toBe(false);
  });

  it("re-keys an older unkeyed chain that verifies, and says so", () => {
    const path = join(makeTempDir("botpsy-audit-"), "old.db");
    const store = Store.open(path);
    new AuditLog(store);
    // The profile as an older botpsy left it: a plain sha256 chain, no key, no head.
    store.db.prepare("DELETE FROM policy_audit").run();
    unlinkSync(auditKeyPath(path));
    unlinkSync(auditHeadPath(path));
    let previousHash = GENESIS_HASH;
    for (let seq = 1; seq <= 3; seq++) {
      const entry = { seq, at: `2026-01-0${seq}T00:00:00.000Z`, kind: "decision" as const, sessionId: undefined, runId: undefined, callId: undefined, tool: "x", data: { seq } };
      const hash = entryHash(previousHash, entry);
      store.db.prepare("INSERT INTO policy_audit (seq, at, kind, tool, data, previous_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)").run(seq, entry.at, entry.kind, entry.tool, JSON.stringify(entry.data), previousHash, hash);
      previousHash = hash;
    }
    const audit = new AuditLog(store);
    expect(audit.notice).toMatch(/3 entries verified intact and were re-keyed/);
    expect(audit.entries().at(-1)).toMatchObject({ kind: "chain", data: { event: "rekeyed", entries: 3 } });
    expect(audit.verify()).toEqual({ ok: true, checked: 4 });
    // Once keyed, the plain hashes no longer pass.
    rehashWithoutKey(store, 1);
    expect(audit.verify()).toMatchObject({ ok: false, brokenAt: 1 });
    store.close();
  });

  it("keeps an older unkeyed chain that does not verify as it is, and reports it broken", () => {
    const path = join(makeTempDir("botpsy-audit-"), "old.db");
    const store = Store.open(path);
    new AuditLog(store);
    store.db.prepare("DELETE FROM policy_audit").run();
    unlinkSync(auditKeyPath(path));
    unlinkSync(auditHeadPath(path));
    store.db.prepare("INSERT INTO policy_audit (seq, at, kind, data, previous_hash, hash) VALUES (1, '2026-01-01T00:00:00.000Z', 'decision', '{}', ?, ?)").run(GENESIS_HASH, "a".repeat(64));
    const audit = new AuditLog(store);
    expect(audit.notice).toMatch(/does not verify/);
    expect(audit.verify()).toMatchObject({ ok: false, brokenAt: 1, problem: expect.stringContaining("older unkeyed chain") });
    audit.append({ kind: "decision", data: {} });
    expect(audit.verify()).toMatchObject({ ok: false, brokenAt: 1 });
    store.close();
  });

  it("refuses to start a new key when the log's key is gone but its head is there", () => {
    const { store, path } = filledLog(2);
    unlinkSync(auditKeyPath(path));
    expect(() => new AuditLog(store)).toThrow(expect.objectContaining({ code: "audit_key_missing" }));
    expect(existsSync(auditKeyPath(path))).toBe(false);
  });

  it("says clearly that the audit table is missing", () => {
    const { store } = filledLog(1);
    store.db.exec("DROP TABLE policy_audit");
    expect(() => new AuditLog(store)).toThrow(AuditError);
    expect(() => new AuditLog(store)).toThrow(/audit log's table is missing/);
  });

  it("botpsy audit --verify: exit 0 when intact, 1 with the problem when cut off, a clear error when the table is gone", async () => {
    const home = makeTempDir("botpsy-audit-home-");
    const profile = Profile.open({ home, name: "default" });
    const audit = new AuditLog(profile.store);
    for (let index = 0; index < 4; index++) audit.append({ kind: "decision", data: { index } });
    const databasePath = profile.store.path;
    profile.close();

    const intact = await runCli(home, ["audit", "--verify"]);
    expect(intact).toMatchObject({ code: 0 });
    expect(intact.stdout).toContain("The audit log is intact: 4 entries");

    const store = Store.open(databasePath);
    store.db.prepare("DELETE FROM policy_audit WHERE seq = 4").run();
    store.close();
    const cut = await runCli(home, ["audit", "--verify"]);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toContain("The audit log was tampered with: the log ends at entry 3 but its head record says entry 4 was written");

    const dropped = Store.open(databasePath);
    dropped.db.exec("DROP TABLE policy_audit");
    dropped.close();
    const missing = await runCli(home, ["audit", "--verify"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("audit log's table is missing");
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  }, 90_000);
});
