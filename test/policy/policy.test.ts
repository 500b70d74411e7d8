import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Policy } from "../../src/policy/policy.js";
import { PolicyError, parsePolicyFile, selectValues, type ContactDirectory } from "../../src/policy/rules.js";
import type { Risk } from "../../src/tools/tool.js";
import { makeTempDir } from "../support/temp-dir.js";

const contacts: ContactDirectory = {
  isKnown: (value) => ["maria lopez", "maria", "maria.lopez@example.com"].includes(value.toLowerCase()),
};

function facts(tool: string, risk: Risk, args: Record<string, unknown> = {}, app?: string) {
  return { tool, risk, arguments: args, app };
}

describe("policy defaults", () => {
  const policy = Policy.defaultPolicy();
  it.each([
    ["read", "allow"],
    ["write", "allow"],
    ["send", "ask"],
    ["spend", "ask"],
    ["destructive", "ask"],
    ["settings", "allow"],
  ] as const)("%s calls default to %s", (risk, decision) => {
    expect(policy.evaluate(facts("some_tool", risk)).decision).toBe(decision);
  });

  it("asks before settings that cut the device off, not before others", () => {
    expect(policy.evaluate(facts("set_airplane_mode", "settings", { on: true })).decision).toBe("ask");
    expect(policy.evaluate(facts("set_airplane_mode", "settings", { on: false })).decision).toBe("allow");
    expect(policy.evaluate(facts("set_wifi", "settings", { enabled: false })).decision).toBe("ask");
    expect(policy.evaluate(facts("set_wifi", "settings", { enabled: true })).decision).toBe("allow");
    expect(policy.evaluate(facts("set_volume", "settings", { level: 0 })).decision).toBe("allow");
    const verdict = policy.evaluate(facts("set_airplane_mode", "settings", { on: true }));
    expect(verdict.layer).toBe("built-in");
    expect(verdict.reason).toMatch(/airplane/);
  });
});

describe("rule matching and precedence", () => {
  const policy = Policy.fromJson({
    rules: [
      { name: "big-spend", decision: "deny", risk: "spend", when: [{ argument: "amount", greaterThan: 100 }] },
      { name: "small-spend", decision: "allow", risk: "spend", when: [{ argument: "amount", lessThan: 20 }] },
      { name: "strangers", decision: "ask", risk: "send", when: [{ argument: "to", notInContacts: true }] },
      { name: "friends", decision: "allow", risk: "send", when: [{ argument: "to", inContacts: true }] },
      { name: "music", decision: "allow", app: "music", tool: "play_*" },
      { name: "no-music-deletes", decision: "deny", app: "music", tool: ["delete_*", "remove_*"] },
      { name: "secret", decision: "deny", tool: "write_file", when: [{ argument: "path", matches: "/secret|\\.ssh/i" }] },
      { name: "everything-music-asks", decision: "ask", app: "music" },
    ],
  });

  it("deny beats ask beats allow among matching rules", () => {
    expect(policy.evaluate(facts("delete_playlist", "destructive", {}, "music"))).toMatchObject({ decision: "deny", rule: "no-music-deletes" });
    expect(policy.evaluate(facts("play_song", "read", {}, "music"))).toMatchObject({ decision: "ask", rule: "everything-music-asks" });
  });

  it("compares amounts given as numbers or numeric strings", () => {
    expect(policy.evaluate(facts("checkout", "spend", { amount: 150 })).decision).toBe("deny");
    expect(policy.evaluate(facts("checkout", "spend", { amount: "100.50" })).decision).toBe("deny");
    expect(policy.evaluate(facts("checkout", "spend", { amount: 100 })).decision).toBe("ask");
    expect(policy.evaluate(facts("checkout", "spend", { amount: 5 })).decision).toBe("allow");
    expect(policy.evaluate(facts("checkout", "spend", {})).decision).toBe("ask");
  });

  it("checks recipients against the contacts, also inside lists", () => {
    const context = { contacts };
    expect(policy.evaluate(facts("send_email", "send", { to: "maria.lopez@example.com" }), context).decision).toBe("allow");
    expect(policy.evaluate(facts("send_email", "send", { to: "attacker@evil.example" }), context).decision).toBe("ask");
    expect(policy.evaluate(facts("send_email", "send", { to: ["maria", "attacker@evil.example"] }), context).decision).toBe("ask");
  });

  it("matches regexes and globs over argument values", () => {
    expect(policy.evaluate(facts("write_file", "write", { path: "notes/SECRET.txt" })).decision).toBe("deny");
    expect(policy.evaluate(facts("write_file", "write", { path: "notes/todo.txt" })).decision).toBe("allow");
  });

  it("selects values by dotted paths with globs", () => {
    const args = { payment: { amount: 12, card: { last4: "4411" } }, recipients: [{ email: "a@b.c" }, { email: "d@e.f" }] };
    expect(selectValues(args, "payment.amount")).toEqual([12]);
    expect(selectValues(args, "recipients.email")).toEqual(["a@b.c", "d@e.f"]);
    expect(selectValues(args, "pay*.card.last4")).toEqual(["4411"]);
    expect(selectValues(args, "missing")).toEqual([]);
  });

  it("user rules override the built-in and default layers", () => {
    const custom = Policy.fromJson({ rules: [{ decision: "allow", tool: "set_airplane_mode" }], defaults: { send: "deny" } });
    expect(custom.evaluate(facts("set_airplane_mode", "settings", { on: true })).decision).toBe("allow");
    expect(custom.evaluate(facts("send_message", "send", { to: "x" })).decision).toBe("deny");
  });

  it("supports equals and exists", () => {
    const custom = Policy.fromJson({
      rules: [
        { decision: "deny", tool: "transfer", when: [{ argument: "currency", equals: "usd" }] },
        { decision: "deny", tool: "transfer", when: [{ argument: "memo", exists: false }] },
      ],
    });
    expect(custom.evaluate(facts("transfer", "spend", { currency: "USD", memo: "rent" })).decision).toBe("deny");
    expect(custom.evaluate(facts("transfer", "spend", { currency: "EUR" })).decision).toBe("deny");
    expect(custom.evaluate(facts("transfer", "spend", { currency: "EUR", memo: "rent" })).decision).toBe("ask");
  });
});

describe("policy file validation", () => {
  it("names the field that is wrong", () => {
    expect(() => parsePolicyFile({ rules: [{ decision: "allow" }, { decision: "deny", when: [{ argument: "amount", greaterThan: "100" }] }] })).toThrow(
      /rules\[1\]\.when\[0\]\.greaterThan/,
    );
    expect(() => parsePolicyFile({ rules: [{ decision: "maybe" }] })).toThrow(/rules\[0\]\.decision/);
    expect(() => parsePolicyFile({ rules: [{ decision: "allow", risk: "spending" }] })).toThrow(/rules\[0\]\.risk/);
    expect(() => parsePolicyFile({ rules: [{ decision: "allow", colour: "red" }] })).toThrow(/colour/);
    expect(() => parsePolicyFile({ rules: [{ decision: "allow", when: [{ argument: "to" }] }] })).toThrow(/needs a test/);
    expect(() => parsePolicyFile({ rules: [{ decision: "allow", when: [{ argument: "to", matches: "/(/" }] }] })).toThrow(/matches/);
  });

  it("loads BOTPSY_HOME/policy.json, and treats a missing file as the defaults", () => {
    const home = makeTempDir("botpsy-policy-");
    const path = join(home, "policy.json");
    expect(Policy.load(path).rules).toHaveLength(0);
    writeFileSync(path, JSON.stringify({ rules: [{ decision: "deny", risk: "spend" }] }));
    expect(Policy.load(path).evaluate(facts("pay", "spend")).decision).toBe("deny");
    writeFileSync(path, "{ not json");
    expect(() => Policy.load(path)).toThrow(PolicyError);
    expect(() => Policy.load(path)).toThrow(/not valid JSON/);
    writeFileSync(path, JSON.stringify({ rules: [{ decision: "deny", tool: 7 }] }));
    try {
      Policy.load(path);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PolicyError);
      expect((error as PolicyError).code).toBe("policy_invalid");
      expect((error as PolicyError).message).toContain("rules[0].tool");
    }
  });
});
