import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { settingsApp } from "../../src/apps/device/settings.js";
import { Profile } from "../../src/apps/profile.js";
import { Policy } from "../../src/policy/policy.js";
import { createSafetyLayer } from "../../src/policy/safety.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { argumentBoundsProblem, MAX_ARGUMENT_DEPTH } from "../../src/model/argument-bounds.js";

function nested(depth: number): unknown {
  let value: unknown = "on";
  for (let level = 0; level < depth; level++) value = { inner: value };
  return value;
}

describe("bounds on a call's arguments", () => {
  it("measures depth and size without recursion", () => {
    expect(argumentBoundsProblem({ to: ["Maria", "Frank"], text: "hi" })).toBeUndefined();
    expect(argumentBoundsProblem(nested(MAX_ARGUMENT_DEPTH - 1))).toBeUndefined();
    expect(argumentBoundsProblem(nested(MAX_ARGUMENT_DEPTH + 1))).toMatch(/nested more than 32 levels/);
    expect(argumentBoundsProblem(nested(200_000))).toMatch(/nested more than 32 levels/);
    expect(argumentBoundsProblem({ text: "x".repeat(300_000) })).toMatch(/larger than/);
    expect(argumentBoundsProblem({ items: Array.from({ length: 100_000 }, () => [1, 2, 3]) })).toMatch(/larger than/);
  });

  // 4000 levels: as deep as the scripted double itself can measure (it stringifies its calls); unbounded, the repeated-call guard overflowed.
  it("sends arguments nested thousands deep back to the model as a failed call, audited, before the gate sees them", async () => {
    const profile = Profile.open({ databasePath: ":memory:", seed: "demo", clock: "2026-12-01T09:00:00Z", timeZone: "Europe/Lisbon", apps: [settingsApp] });
    try {
      const safety = createSafetyLayer(profile, { policy: Policy.fromJson({ rules: [{ decision: "allow", risk: "settings" }] }) });
      const model = new ScriptedModel([
        { toolCalls: [{ id: "deep", name: "set_do_not_disturb", arguments: { enabled: nested(4_000) } }] },
        "I could not change it.",
      ]);
      const agent = new Agent({ model, profile, ...safety.agentOptions });
      const run = agent.run("Turn on do not disturb");
      for await (const _event of run) {
        // Drain.
      }
      const outcome = await run.outcome;
      expect(outcome.stopReason, JSON.stringify(outcome.error)).not.toBe("error");
      expect(outcome.answer).toBe("I could not change it.");
      const toolMessage = model.requests[1]!.messages.find((message) => message.role === "tool")!;
      expect(toolMessage.content).toContain("nested more than 32 levels");
      const entries = safety.audit.entries();
      expect(entries.filter((entry) => entry.kind === "decision")).toEqual([]);
      const failed = entries.find((entry) => entry.kind === "error" && entry.callId === "deep");
      expect(failed?.data).toMatchObject({ status: "error", error: { code: "invalid_arguments" } });
      expect(safety.audit.verify().ok).toBe(true);
    } finally {
      profile.close();
    }
  });
});
