import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentOutcome, AgentRun, ApprovalScope } from "../../src/agent/types.js";
import { settingsApp } from "../../src/apps/device/settings.js";
import { contactsApp } from "../../src/apps/messages/contacts.js";
import { messagesApp } from "../../src/apps/messages/messages.js";
import { Profile } from "../../src/apps/profile.js";
import { callKey } from "../../src/policy/approvals.js";
import { StoreContactDirectory } from "../../src/policy/contacts.js";
import { Policy } from "../../src/policy/policy.js";
import type { PolicyFile, Rule } from "../../src/policy/rules.js";
import { createSafetyLayer } from "../../src/policy/safety.js";
import { ScriptedModel, type ScriptedTurn } from "../../src/testing/scripted-model.js";

/**
 * Over random policies, random call sequences and random user answers, on the
 * real agent loop (with a scripted model and real apps): no call the gate
 * denied ever runs, and no call the gate asked about runs without an approval
 * stored before it ran.
 */
const CALLS = [
  { name: "set_volume", arguments: { level: 30 } },
  { name: "set_volume", arguments: { level: 90 } },
  { name: "set_do_not_disturb", arguments: { on: true } },
  { name: "set_airplane_mode", arguments: { on: true } },
  { name: "set_airplane_mode", arguments: { on: false } },
  { name: "set_wifi", arguments: { on: false } },
  { name: "send_message", arguments: { to: "Maria", text: "hello" } },
  { name: "send_message", arguments: { to: "Maria", text: "other words" } },
  { name: "send_message", arguments: { to: "+44 7700 900123", text: "code 4411" } },
  { name: "list_contacts", arguments: {} },
  { name: "read_messages", arguments: { with: "Tom" } },
  { name: "add_contact", arguments: { name: "Zed Quinn", phone: "+351 912 999 999" } },
] as const;

const ruleArbitrary: fc.Arbitrary<Rule> = fc.record(
  {
    decision: fc.constantFrom("allow", "ask", "deny"),
    risk: fc.constantFrom("read", "write", "send", "settings"),
    tool: fc.constantFrom("set_*", "send_message", "*", "set_volume", "set_airplane_mode"),
    when: fc.constantFrom(
      [{ argument: "level", greaterThan: 50 }],
      [{ argument: "on", equals: true }],
      [{ argument: "to", notInContacts: true }],
      [{ argument: "to", inContacts: true }],
    ),
  },
  { requiredKeys: ["decision"] },
) as fc.Arbitrary<Rule>;

const policyArbitrary: fc.Arbitrary<PolicyFile> = fc.record({
  rules: fc.array(ruleArbitrary, { maxLength: 4 }),
  untrustedArguments: fc.constantFrom("ask" as const, "deny" as const),
});

const answerArbitrary = fc.record({
  approved: fc.boolean(),
  scope: fc.constantFrom<ApprovalScope>("once", "session", "always"),
});

async function finish(run: AgentRun): Promise<AgentOutcome> {
  for await (const _event of run) {
    // Drain.
  }
  return run.outcome;
}

describe("property: the gate is never bypassed", () => {
  it("runs no denied call, and no asked call without a stored approval", async () => {
    // What the random runs exercised, so the property is known not to hold vacuously.
    const seen = { denied: 0, askedThenRan: 0, askedThenDeclined: 0, standing: 0 };
    await fc.assert(
      fc.asyncProperty(
        policyArbitrary,
        fc.array(fc.array(fc.constantFrom(...CALLS), { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 4 }),
        fc.array(answerArbitrary, { minLength: 8, maxLength: 8 }),
        async (policyFile, turns, answers) => {
          const profile = Profile.open({ databasePath: ":memory:", seed: "demo", clock: "2026-12-01T09:00:00Z", timeZone: "Europe/Lisbon", apps: [settingsApp, contactsApp, messagesApp] });
          try {
            const safety = createSafetyLayer(profile, { policy: Policy.fromJson(policyFile) });
            const script: ScriptedTurn[] = [...turns.map((calls) => ({ toolCalls: calls.map((call) => ({ name: call.name, arguments: { ...call.arguments } })) })), "Finished."];
            const agent = new Agent({ model: new ScriptedModel(script, { whenExhausted: "repeat-last" }), profile, ...safety.agentOptions, maxSteps: 20, argumentGrounding: false });
            let outcome = await finish(agent.run("Tidy up my phone and tell Maria hello"));
            let answerIndex = 0;
            while (outcome.stopReason === "awaiting_approval") {
              const decisions = outcome.pendingApprovals.map((request) => {
                const answer = answers[answerIndex++ % answers.length]!;
                return { requestId: request.id, approved: answer.approved, scope: answer.scope };
              });
              outcome = await finish(safety.resume(agent, outcome.runId, decisions));
            }
            expect(["answered", "abstained"]).toContain(outcome.stopReason);

            const entries = safety.audit.entries();
            expect(safety.audit.verify().ok).toBe(true);
            const approvalRows = profile.store.db.prepare("SELECT call_key, approved, decided_at FROM policy_approvals").all() as { call_key: string; approved: number }[];
            for (const record of outcome.calls) {
              const decisions = entries.filter((entry) => entry.kind === "decision" && entry.callId === record.call.id);
              const ran = entries.some((entry) => entry.kind === "result" && entry.callId === record.call.id);
              // Once before it ran or paused, and once more on resume when the user was asked: the gate decides every run.
              expect(decisions.length).toBeGreaterThanOrEqual(1);
              expect(decisions.length).toBeLessThanOrEqual(2);
              const verdict = decisions[0]!.data as { decision: string; by: string };
              if (verdict.decision === "deny") seen.denied++;
              if (verdict.decision === "ask") seen[ran ? "askedThenRan" : "askedThenDeclined"]++;
              if (verdict.decision === "allow" && verdict.by === "user") seen.standing++;
              if (verdict.decision === "deny") {
                expect(ran).toBe(false);
                expect(record.status).toBe("declined");
              }
              if (verdict.decision === "ask" && ran) {
                const approval = entries.find((entry) => entry.kind === "approval" && entry.callId === record.call.id);
                expect((approval?.data as { approved: boolean } | undefined)?.approved).toBe(true);
                expect(approval!.seq).toBeLessThan(entries.find((entry) => entry.kind === "result" && entry.callId === record.call.id)!.seq);
                expect(approvalRows.some((row) => row.call_key === callKey(record.call) && row.approved === 1)).toBe(true);
                // It ran because the gate, deciding again, found the approval in the run's record.
                const again = decisions[1]?.data as { decision: string; rule: string } | undefined;
                expect(again).toMatchObject({ decision: "allow", rule: expect.stringMatching(/^run approval /) as unknown as string });
              }
              if (verdict.decision === "allow" && verdict.by === "user") {
                // Allowed by a standing approval: one is stored for this tool.
                expect(approvalRows.some((row) => row.call_key.startsWith(`${record.call.name}:`) && row.approved === 1)).toBe(true);
              }
              // A call that ran on the rules' say-so alone was one the rules allowed.
              if (ran && verdict.decision === "allow" && verdict.by === "rule") {
                const facts = { tool: record.call.name, app: undefined, risk: record.risk!, arguments: record.call.arguments };
                expect(safety.policy.evaluate(facts, { contacts: new StoreContactDirectory(profile.store) }).decision === "allow" || record.risk === "read").toBe(true);
              }
            }
          } finally {
            profile.close();
          }
        },
      ),
      { numRuns: 40, seed: 20261201 },
    );
    expect(seen.denied).toBeGreaterThan(0);
    expect(seen.askedThenRan).toBeGreaterThan(0);
    expect(seen.askedThenDeclined).toBeGreaterThan(0);
    expect(seen.standing).toBeGreaterThan(0);
  });
});
