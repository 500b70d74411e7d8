import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { createRunState, parseRunState } from "../../src/agent/run-state.js";
import type { Profile } from "../../src/apps/profile.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { makeTempDir } from "../support/temp-dir.js";
import { openNotesProfile, outboxOf } from "./fixtures/notes-app.js";

let directory: string;
let profile: Profile;

beforeEach(() => {
  directory = makeTempDir("botpsy-run-state-");
  profile = openNotesProfile(join(directory, "profile.db"), directory);
});

afterEach(() => {
  profile.close();
});

const sendCall = { name: "send_note", arguments: { to: "frank@example.com", text: "See you at 3" } };

function storedState(runId: string): Record<string, unknown> {
  const row = profile.store.db.prepare("SELECT state FROM agent_runs WHERE id = ?").get(runId) as { state: string };
  return JSON.parse(row.state) as Record<string, unknown>;
}

function overwriteState(runId: string, state: unknown): void {
  profile.store.db.prepare("UPDATE agent_runs SET state = ? WHERE id = ?").run(typeof state === "string" ? state : JSON.stringify(state), runId);
}

describe("a stored run state is checked before a resume", () => {
  it("accepts what the agent saves, and names what is wrong in a damaged state", async () => {
    expect(parseRunState(createRunState({ runId: "run-1", sessionId: "s-1", request: "hi", maxSteps: 3 }))).toMatchObject({ ok: true });
    const agent = new Agent({ model: new ScriptedModel([{ toolCalls: [sendCall] }, "Sent."]), profile });
    const paused = await agent.run("send Frank: see you at 3").outcome;
    expect(parseRunState(storedState(paused.runId))).toMatchObject({ ok: true });

    // A planted "run" plan in place of the approval request would run a send nobody approved.
    const state = storedState(paused.runId);
    const pending = state.pending as { plans: Record<string, unknown>[] };
    pending.plans[0] = { kind: "run", call: "send everything" };
    overwriteState(paused.runId, state);
    expect(() => agent.resume(paused.runId, [])).toThrow(/The saved state of run "run-[^"]+" is damaged \(pending\.plans\.0\.call: .*\), so it cannot be resumed; abandon it/);
    try {
      agent.resume(paused.runId, []);
    } catch (error) {
      expect((error as { code?: string }).code).toBe("run_state_invalid");
    }
    expect(outboxOf(profile)).toEqual([]);
    // Not JSON at all: the same kind of error. The damaged run can still be abandoned, and the session goes on.
    overwriteState(paused.runId, "{not json");
    expect(() => agent.resume(paused.runId, [])).toThrow(/is not JSON, so it cannot be resumed/);
    agent.abandon(paused.runId);
    expect(() => agent.resume(paused.runId, [])).toThrow(/is not waiting for approval \(it is abandoned\)/);
  });

  it("keeps a standing scope in the gate's approvals, per call pattern, not as a per-tool grant", async () => {
    const agent = new Agent({ model: new ScriptedModel([{ toolCalls: [sendCall] }, "Sent."]), profile });
    const paused = await agent.run("send Frank: see you at 3").outcome;
    const resumed = await agent.resume(paused.runId, [{ requestId: paused.pendingApprovals[0]!.id, approved: true, scope: "session" }]).outcome;
    expect(resumed.stopReason).toBe("answered");
    expect(outboxOf(profile)).toHaveLength(1);
    // The standing scope is a per-pattern approval in the gate's record; the agent keeps no per-tool grant.
    const approvals = profile.store.db.prepare("SELECT tool, scope, approved FROM policy_approvals").all();
    expect(approvals).toEqual([{ tool: "send_note", scope: "session", approved: 1 }]);
    expect(profile.store.db.prepare("SELECT COUNT(*) AS n FROM agent_grants").get()).toEqual({ n: 0 });
  });
});
