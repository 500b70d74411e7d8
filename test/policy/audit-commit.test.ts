import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { alarmsApp } from "../../src/apps/device/alarms.js";
import { Profile } from "../../src/apps/profile.js";
import { Policy } from "../../src/policy/policy.js";
import { createSafetyLayer } from "../../src/policy/safety.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";

function openProfile(): Profile {
  return Profile.open({ databasePath: ":memory:", seed: "demo", clock: "2026-12-01T09:00:00Z", timeZone: "Europe/Lisbon", apps: [alarmsApp] });
}

async function runOnce(profile: Profile, safety: ReturnType<typeof createSafetyLayer>, time: string): Promise<string> {
  const model = new ScriptedModel([{ toolCalls: [{ id: `call-${time}`, name: "set_alarm", arguments: { time } }] }, "Set."]);
  const run = new Agent({ model, profile, ...safety.agentOptions }).run(`Set an alarm at ${time}`);
  for await (const _event of run) {
    // Drain.
  }
  return (await run.outcome).stopReason;
}

describe("an action and its audit result are one commit", () => {
  it("writes the result of a call that changed state once, with its action's id, however many safety layers share the profile", async () => {
    const profile = openProfile();
    try {
      const policy = Policy.fromJson({ rules: [{ decision: "allow", risk: "write" }] });
      const first = createSafetyLayer(profile, { policy });
      const second = createSafetyLayer(profile, { policy });
      expect(await runOnce(profile, first, "06:15")).toBe("answered");
      expect(await runOnce(profile, second, "06:45")).toBe("answered");
      const actions = profile.store.history();
      expect(actions.map((action) => action.tool)).toEqual(["set_alarm", "set_alarm"]);
      const results = first.audit.entries().filter((entry) => entry.kind === "result");
      expect(results.map((entry) => (entry.data as { actionId: number }).actionId).sort()).toEqual(actions.map((action) => action.id).sort());
      expect(results.map((entry) => entry.callId)).toEqual(["call-06:15", "call-06:45"]);
      expect(first.audit.verify().ok).toBe(true);
    } finally {
      profile.close();
    }
  });

  it("keeps no action whose audit entry could not be written", async () => {
    const profile = openProfile();
    try {
      const safety = createSafetyLayer(profile, { policy: Policy.fromJson({ rules: [{ decision: "allow", risk: "write" }] }) });
      const tool = profile.tools().find((candidate) => candidate.name === "set_alarm")!;
      // The audit table cannot take the entry: the action goes with it.
      profile.store.db.exec("CREATE TRIGGER refuse_results BEFORE INSERT ON policy_audit WHEN NEW.kind = 'result' BEGIN SELECT RAISE(ABORT, 'audit full'); END");
      await expect(profile.runTool(tool, { time: "05:05" })).rejects.toThrow(/audit full/);
      expect(profile.store.history()).toEqual([]);
      const alarms = profile.store.read((tx) => tx.collection<{ time: string }>("alarms", "alarms").all());
      expect(alarms.some((alarm) => alarm.time === "05:05")).toBe(false);
      expect(safety.audit.verify().ok).toBe(true);
    } finally {
      profile.close();
    }
  });
});
