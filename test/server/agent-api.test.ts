import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentOutcome } from "../../src/agent/types.js";
import { Profile } from "../../src/apps/profile.js";
import { createAgentService } from "../../src/server/agent-routes.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { ScriptedModel, type ScriptedTurn } from "../../src/testing/scripted-model.js";

/**
 * The agent API on a real HTTP server, a real profile (SQLite file, built-in
 * apps) and a scripted model: runs stream their events, pause for approval,
 * survive a server restart, and change app state that undo reverts and the
 * audit log records.
 */
let directory: string;
let profile: Profile | undefined;
let server: RunningServer | undefined;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "botpsy-agent-api-"));
});

afterEach(async () => {
  await stop();
  rmSync(directory, { recursive: true, force: true });
});

async function stop(): Promise<void> {
  await server?.close();
  server = undefined;
  profile?.close();
  profile = undefined;
}

async function serveAgent(turns: ScriptedTurn[]): Promise<string> {
  profile = Profile.open({ databasePath: join(directory, "profile.db"), home: directory, clock: "2026-12-01T09:00:00Z", timeZone: "UTC" });
  const model = new ScriptedModel(turns, { id: "scripted" });
  server = await startServer({ model, port: 0, agent: createAgentService(profile, model, { maxSteps: 4 }) });
  return server.url;
}

interface SseEvent {
  event: string;
  data: unknown;
}

async function postEvents(url: string, body: unknown): Promise<{ status: number; events: SseEvent[] }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) return { status: response.status, events: [{ event: "body", data: JSON.parse(text) }] };
  const events = text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((line) => line.startsWith("event: "))?.slice(7) ?? "message";
      const data = lines
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n");
      return { event, data: JSON.parse(data) as unknown };
    });
  return { status: response.status, events };
}

function outcomeOf(events: SseEvent[]): AgentOutcome {
  const done = events.find((event) => event.event === "done");
  if (!done) throw new Error(`the stream ended without a done event: ${JSON.stringify(events)}`);
  return (done.data as { outcome: AgentOutcome }).outcome;
}

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("agent API", () => {
  it("streams a run's events, changes app state, and undo reverts it with an audit entry", async () => {
    const url = await serveAgent([{ toolCalls: [{ name: "set_alarm", arguments: { time: "6:45", label: "Swim" } }] }, "Your Swim alarm is set for 6:45."]);
    const { status, events } = await postEvents(`${url}/v1/agent/runs`, { request: "Set an alarm for 6:45 called Swim", session: "phone-1" });
    expect(status).toBe(200);
    expect(events[0]!.event).toBe("run");
    expect(events.map((event) => event.event)).toEqual(expect.arrayContaining(["step", "tool-call", "tool-result", "text-delta", "done"]));
    const outcome = outcomeOf(events);
    expect(outcome).toMatchObject({ stopReason: "answered", sessionId: "phone-1", answer: "Your Swim alarm is set for 6:45." });
    expect(outcome.calls.map((record) => record.status)).toEqual(["ok"]);

    const alarms = await getJson(`${url}/v1/apps/alarms`);
    expect(alarms.status).toBe(200);
    expect(String(alarms.body.text)).toContain("Swim");

    const undo = await fetch(`${url}/v1/undo`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ count: 1 }) });
    expect(undo.status).toBe(200);
    expect(((await undo.json()) as { undone: { tool: string }[] }).undone.map((action) => action.tool)).toEqual(["set_alarm"]);
    expect(String((await getJson(`${url}/v1/apps/alarms`)).body.text)).not.toContain("Swim");

    const audit = await getJson(`${url}/v1/audit?session=phone-1`);
    const kinds = (audit.body.entries as { kind: string }[]).map((entry) => entry.kind);
    expect(kinds).toEqual(expect.arrayContaining(["decision", "result"]));
    const everything = (await getJson(`${url}/v1/audit`)).body.entries as { kind: string }[];
    expect(everything.map((entry) => entry.kind)).toContain("undo");
    expect((await getJson(`${url}/v1/audit/verify`)).body).toMatchObject({ ok: true });
  });

  it("pauses for approval, and the approval resumes the run after a server restart", async () => {
    let url = await serveAgent([{ toolCalls: [{ name: "send_message", arguments: { to: "Frank", text: "Running late" } }] }]);
    const paused = await postEvents(`${url}/v1/agent/runs`, { request: "Text Frank that I am running late", session: "phone-2" });
    const request = paused.events.find((event) => event.event === "approval-request");
    expect(request).toBeDefined();
    expect((request!.data as { request: { preview: string } }).request.preview).toContain("Running late");
    const outcome = outcomeOf(paused.events);
    expect(outcome.stopReason).toBe("awaiting_approval");
    const state = await getJson(`${url}/v1/agent/runs/${outcome.runId}`);
    expect(state.body).toMatchObject({ status: "awaiting_approval", sessionId: "phone-2" });

    await stop();
    url = await serveAgent(["I sent Frank your message."]);
    const resumed = await postEvents(`${url}/v1/agent/runs/${outcome.runId}/approval`, { decision: "once" });
    expect(resumed.status).toBe(200);
    const finished = outcomeOf(resumed.events);
    expect(finished).toMatchObject({ runId: outcome.runId, stopReason: "answered", answer: "I sent Frank your message." });
    expect(finished.calls.map((record) => record.status)).toEqual(["ok"]);
    expect(JSON.stringify((await getJson(`${url}/v1/apps/messages`)).body)).toContain("Running late");
    const audit = (await getJson(`${url}/v1/audit?session=phone-2`)).body.entries as { kind: string; data: { approved?: boolean; scope?: string } }[];
    expect(audit.find((entry) => entry.kind === "approval")?.data).toMatchObject({ approved: true, scope: "once" });

    const again = await fetch(`${url}/v1/agent/runs/${outcome.runId}/approval`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ decision: "once" }) });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: "run_not_paused" } });
  });

  it("a denied call changes nothing, and a paused run can be cancelled", async () => {
    const send = { toolCalls: [{ name: "send_message", arguments: { to: "Frank", text: "Secret plan" } }] };
    const url = await serveAgent([send, "All right, I did not send it.", send]);
    const paused = outcomeOf((await postEvents(`${url}/v1/agent/runs`, { request: "Text Frank the secret plan", session: "phone-3" })).events);
    const denied = outcomeOf((await postEvents(`${url}/v1/agent/runs/${paused.runId}/approval`, { decisions: [{ request_id: paused.pendingApprovals[0]!.id, decision: "deny" }] })).events);
    expect(denied.calls.map((record) => record.status)).toEqual(["declined"]);
    expect(JSON.stringify((await getJson(`${url}/v1/apps/messages`)).body)).not.toContain("Secret plan");

    const second = outcomeOf((await postEvents(`${url}/v1/agent/runs`, { request: "Text Frank the secret plan", session: "phone-3" })).events);
    expect(second.stopReason).toBe("awaiting_approval");
    const cancel = await fetch(`${url}/v1/agent/runs/${second.runId}/cancel`, { method: "POST" });
    expect(await cancel.json()).toMatchObject({ cancelled: true, was: "awaiting_approval" });
    expect((await getJson(`${url}/v1/agent/runs/${second.runId}`)).status).toBe(409);
  });

  it("answers JSON when asked not to stream, and refuses bad input with OpenAI-shaped errors", async () => {
    const url = await serveAgent(["Nothing to do."]);
    const plain = await postEvents(`${url}/v1/agent/runs`, { request: "Say hello", stream: false });
    expect(plain.events[0]!.data).toMatchObject({ stopReason: expect.any(String), answer: "Nothing to do." });
    const empty = await fetch(`${url}/v1/agent/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ request: "" }) });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ error: { param: "request", type: "invalid_request_error" } });
    expect((await getJson(`${url}/v1/agent/runs/run-nope`)).status).toBe(404);
    expect((await getJson(`${url}/v1/apps/nope`)).status).toBe(404);
    const badDecision = await fetch(`${url}/v1/agent/runs/run-nope/approval`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ decision: "maybe" }) });
    expect(badDecision.status).toBe(400);
    expect((await getJson(`${url}/v1/audit?since=yesterday`)).status).toBe(400);
  });
});

describe("agent API, runs in progress", () => {
  it("lists and cancels a running run, which ends as aborted", async () => {
    const url = await serveAgent([{ text: "thinking it over", delayMs: 5_000 }]);
    const response = await fetch(`${url}/v1/agent/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ request: "Plan my week" }) });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n\n")) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    const runId = (JSON.parse(/^event: run\ndata: (.*)$/m.exec(text)![1]!) as { runId: string }).runId;
    expect((await getJson(`${url}/v1/agent/runs`)).body).toEqual({ runs: [{ runId, status: "running" }] });
    const cancel = await fetch(`${url}/v1/agent/runs/${runId}/cancel`, { method: "POST" });
    expect(await cancel.json()).toMatchObject({ cancelled: true, was: "running" });
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    const done = /^event: done\ndata: (.*)$/m.exec(text);
    expect((JSON.parse(done![1]!) as { outcome: AgentOutcome }).outcome.stopReason).toBe("aborted");
  });
});

/** The SSE events of a text, with their ids. */
function parseSse(text: string): { id: number | undefined; event: string; data: unknown }[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split("\n");
      const id = lines.find((line) => line.startsWith("id: "))?.slice(4);
      const event = lines.find((line) => line.startsWith("event: "))?.slice(7) ?? "message";
      const data = lines
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n");
      return { id: id === undefined ? undefined : Number(id), event, data: JSON.parse(data) as unknown };
    });
}

describe("agent API, reattaching to a run's events", () => {
  it("a client that left reattaches after the last event id it saw and misses nothing", async () => {
    const url = await serveAgent([{ toolCalls: [{ name: "set_alarm", arguments: { time: "7:15", label: "Swim" } }], delayMs: 800 }, "Your Swim alarm is set for 7:15."]);
    const leaving = new AbortController();
    const response = await fetch(`${url}/v1/agent/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ request: "Set an alarm for 7:15 called Swim" }), signal: leaving.signal });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n\n")) text += (await reader.read()).value ?? "";
    const first = parseSse(text.slice(0, text.indexOf("\n\n") + 2))[0]!;
    expect(first).toMatchObject({ id: 0, event: "run" });
    const runId = (first.data as { runId: string }).runId;
    leaving.abort();

    // Reattach with Last-Event-ID, as EventSource does after a drop.
    const rest = parseSse(await (await fetch(`${url}/v1/agent/runs/${runId}/events`, { headers: { "last-event-id": "0" } })).text());
    expect(rest.map((event) => event.id)).toEqual(rest.map((_, index) => index + 1));
    expect(rest.map((event) => event.event)).toEqual(expect.arrayContaining(["tool-call", "tool-result", "done"]));
    expect((rest.at(-1)!.data as { outcome: AgentOutcome }).outcome).toMatchObject({ stopReason: "answered", answer: "Your Swim alarm is set for 7:15." });

    // A finished run's journal replays from any point: from the start, or after a given id.
    const all = parseSse(await (await fetch(`${url}/v1/agent/runs/${runId}/events`)).text());
    expect(all.map((event) => event.id)).toEqual([0, ...rest.map((event) => event.id)]);
    const tail = parseSse(await (await fetch(`${url}/v1/agent/runs/${runId}/events?after=${rest.at(-2)!.id}`)).text());
    expect(tail.map((event) => event.event)).toEqual(["done"]);
    expect((await fetch(`${url}/v1/agent/runs/${runId}/events?after=soon`)).status).toBe(400);
    expect((await getJson(`${url}/v1/agent/runs/run-nope/events`)).status).toBe(404);
  });

  it("a resumed run continues its numbering; after a restart its events are gone and its state says what waits", async () => {
    const send = { toolCalls: [{ name: "send_message", arguments: { to: "Frank", text: "On my way" } }] };
    let url = await serveAgent([send, "Not sent.", send]);
    const paused = await fetch(`${url}/v1/agent/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ request: "Text Frank I'm on my way" }) });
    const pausedEvents = parseSse(await paused.text());
    const runId = (pausedEvents[0]!.data as { runId: string }).runId;
    const resumed = parseSse(await (await fetch(`${url}/v1/agent/runs/${runId}/approval`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ decision: "deny" }) })).text());
    expect(resumed[0]!.id).toBe(pausedEvents.at(-1)!.id! + 1);
    const whole = parseSse(await (await fetch(`${url}/v1/agent/runs/${runId}/events`)).text());
    expect(whole.map((event) => event.id)).toEqual(whole.map((_, index) => index));
    expect(whole.filter((event) => event.event === "done")).toHaveLength(2);

    const second = parseSse(await (await fetch(`${url}/v1/agent/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ request: "Text Frank again: I'm on my way" }) })).text());
    const secondId = (second[0]!.data as { runId: string }).runId;
    await stop();
    url = await serveAgent([]);
    const gone = await fetch(`${url}/v1/agent/runs/${secondId}/events`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: { code: "run_events_gone" } });
    expect((await getJson(`${url}/v1/agent/runs/${secondId}`)).body).toMatchObject({ status: "awaiting_approval" });
  });
});

describe("agent API, notifications", () => {
  it("tells what came due since the last look, on the profile's clock", async () => {
    const url = await serveAgent([]);
    const morning = await getJson(`${url}/v1/notifications?since=2026-12-01T06:00:00Z`);
    expect(morning.body.now).toBe("2026-12-01T09:00:00.000Z");
    expect(morning.body.notifications).toEqual([expect.objectContaining({ app: "alarms", message: expect.stringContaining("Wake up") })]);
    expect((await getJson(`${url}/v1/notifications?since=${morning.body.now as string}`)).body.notifications).toEqual([]);
    expect((await getJson(`${url}/v1/notifications?since=breakfast`)).status).toBe(400);
  });
});
