import { Hono, type Context } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import type { Agent } from "../agent/agent.js";
import type { AgentOutcome, AgentRun, ApprovalDecision, ApprovalScope } from "../agent/types.js";
import type { Profile } from "../apps/profile.js";
import type { ChatModel } from "../model/types.js";
import { AuditLog } from "../policy/audit.js";
import type { SafetyLayer } from "../policy/safety.js";
import { assembleRuntime, type Runtime } from "../runtime.js";
import { ApiError } from "./api-error.js";
import { readJsonBody, type RequestLimits } from "./request-body.js";
import { RunJournal } from "./run-journal.js";

/**
 * What the agent routes act through: the runtime (one profile, its agent
 * behind the safety layer), assembled as every command assembles it.
 */
export interface AgentService {
  readonly runtime: Runtime;
  readonly profile: Profile;
  readonly agent: Agent;
  readonly safety: SafetyLayer;
}

export interface AgentServiceOptions {
  /** Model turns per request. Default: the agent's (10). */
  maxSteps?: number;
}

export function createAgentService(profile: Profile, model: ChatModel, options: AgentServiceOptions = {}): AgentService {
  const runtime = assembleRuntime({ profile, model, agent: options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {} });
  // The default assembly always has its safety layer (only `approveAll` leaves it out).
  return { runtime, profile, agent: runtime.agent, safety: runtime.safety! };
}

const startRunSchema = z.object({
  request: z.string().min(1).max(8192),
  session: z.string().min(1).max(128).nullish(),
  max_steps: z.int().min(1).max(50).nullish(),
  stream: z.boolean().nullish(),
});

const decisionSchema = z.enum(["once", "session", "always", "deny"]);

const approvalSchema = z.union([
  z.object({ decision: decisionSchema, stream: z.boolean().nullish() }),
  z.object({ decisions: z.array(z.object({ request_id: z.string().min(1).max(256), decision: decisionSchema })).min(1).max(64), stream: z.boolean().nullish() }),
]);

const undoSchema = z.object({ count: z.int().min(1).max(100).nullish(), session: z.string().min(1).max(128).nullish() });

function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const param = issue.path.map(String).join(".");
  throw new ApiError(400, "invalid_request", `${param === "" ? "The request" : param}: ${issue.message}.`, { param: param === "" ? null : param });
}

function toDecision(requestId: string, decision: z.infer<typeof decisionSchema>): ApprovalDecision {
  if (decision === "deny") return { requestId, approved: false };
  return { requestId, approved: true, scope: decision satisfies ApprovalScope };
}

/**
 * Runs one at a time: the safety layer follows the run in progress (to write
 * its audit entries and fences), and the model serves one turn at a time anyway.
 */
class RunLane {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;
  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  enqueue<Result>(task: () => Promise<Result>): Promise<Result> {
    if (this.waiting >= this.capacity) {
      throw new ApiError(503, "server_busy", `${this.waiting} agent runs are already waiting; retry when one has finished.`);
    }
    this.waiting++;
    const next = this.tail.then(task, task).finally(() => {
      this.waiting--;
    });
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** Agent runs (and undos) that may wait for the lane at once. */
const MAX_WAITING_RUNS = 16;

/**
 * The agent API: start a run and stream its events, answer its approvals
 * (also after a restart: paused runs live in the profile's store), cancel
 * it, and read app state, undo and the audit log.
 */
export function agentRoutes(service: AgentService, limits: RequestLimits): Hono {
  const routes = new Hono();
  const lane = new RunLane(MAX_WAITING_RUNS);
  const active = new Map<string, AbortController>();
  const journal = new RunJournal();

  /** Streams a run's events over SSE (or answers its outcome as JSON), keeping it cancellable while it runs. */
  const respond = async (c: Context, start: (signal: AbortSignal) => AgentRun, stream: boolean): Promise<Response> => {
    const controller = new AbortController();
    let announce!: (run: AgentRun) => void;
    let startId = 0;
    const started = new Promise<AgentRun>((resolve) => {
      announce = resolve;
    });
    const finished = lane.enqueue(async (): Promise<{ run: AgentRun; outcome: AgentOutcome }> => {
      const run = start(controller.signal);
      active.set(run.runId, controller);
      startId = journal.open(run.runId);
      announce(run);
      // The same bound as any request; the agent stops before its next side effect and reports "aborted".
      const timer = setTimeout(() => controller.abort(new Error(`the run took longer than ${limits.requestTimeoutMs} ms`)), limits.requestTimeoutMs);
      try {
        // The journal reads the run, not the client: a client that leaves does not stop it (cancel does), and may reattach.
        for await (const event of run) journal.record(run.runId, event);
        return { run, outcome: await run.outcome };
      } finally {
        clearTimeout(timer);
        active.delete(run.runId);
        journal.finish(run.runId);
      }
    });
    // Whoever answers first reports a failure; the other must not leave it unhandled.
    finished.catch(() => undefined);
    if (!stream) return c.json((await finished).outcome);
    // Waiting for the run to start (the lane may be busy) before the headers go out lets a refused start be a plain HTTP error.
    const run = await Promise.race([started, finished.then((result) => result.run)]);
    // A resumed run's stream starts at its resumption; the journal keeps the earlier part for reattaching clients.
    return streamJournal(c, run.runId, startId - 1);
  };

  /** The run's journal from after `afterId` as SSE, each event with its id. */
  const streamJournal = (c: Context, runId: string, afterId: number): Response =>
    streamSSE(c, async (sse) => {
      const leave = new AbortController();
      sse.onAbort(() => leave.abort());
      for await (const event of journal.follow(runId, afterId, leave.signal)) {
        if (sse.aborted) return;
        await sse.writeSSE({ id: String(event.id), event: event.type, data: event.data });
      }
    });

  routes.post("/v1/agent/runs", async (c) => {
    const body = parseBody(startRunSchema, await readJsonBody(c, limits));
    const stream = body.stream !== false;
    return respond(
      c,
      (signal) =>
        service.runtime.run(body.request, {
          signal,
          ...(body.session ? { sessionId: body.session } : {}),
          ...(body.max_steps ? { maxSteps: body.max_steps } : {}),
        }),
      stream,
    );
  });

  routes.get("/v1/agent/runs", (c) => c.json({ runs: [...active.keys()].map((runId) => ({ runId, status: "running" })) }));

  routes.get("/v1/agent/runs/:id", (c) => {
    const runId = c.req.param("id");
    if (active.has(runId)) return c.json({ runId, status: "running" });
    const state = service.agent.sessions.loadPausedRun(runId);
    const pendingApprovals = (state.pending?.plans ?? []).flatMap((plan) => (plan.kind === "ask" ? [plan.request] : []));
    return c.json({ runId, sessionId: state.sessionId, status: "awaiting_approval", request: state.request, pendingApprovals });
  });

  // Reattach: the events after the last one the client saw (Last-Event-ID, as EventSource sends it, or ?after=).
  routes.get("/v1/agent/runs/:id/events", (c) => {
    const runId = c.req.param("id");
    const after = c.req.header("last-event-id") ?? c.req.query("after") ?? "-1";
    const afterId = Number(after);
    if (!Number.isInteger(afterId) || afterId < -1) {
      throw new ApiError(400, "invalid_request", `The last event id must be a whole number from -1 up, not "${after}".`, { param: "after" });
    }
    if (!journal.has(runId)) {
      // Throws unknown_run (404) when the store does not know the run either.
      service.agent.sessions.loadPausedRun(runId);
      throw new ApiError(404, "run_events_gone", `The server restarted since run ${runId} paused, so its events are gone; GET /v1/agent/runs/${runId} gives its pending approvals.`);
    }
    return streamJournal(c, runId, afterId);
  });

  routes.post("/v1/agent/runs/:id/approval", async (c) => {
    const runId = c.req.param("id");
    const body = parseBody(approvalSchema, await readJsonBody(c, limits));
    const state = service.agent.sessions.loadPausedRun(runId);
    const requestIds = (state.pending?.plans ?? []).flatMap((plan) => (plan.kind === "ask" ? [plan.request.id] : []));
    const decisions = "decision" in body ? requestIds.map((id) => toDecision(id, body.decision)) : body.decisions.map((item) => toDecision(item.request_id, item.decision));
    const missing = requestIds.filter((id) => !decisions.some((decision) => decision.requestId === id));
    if (missing.length > 0) {
      throw new ApiError(400, "approval_missing", `Decide every request of the run; missing: ${missing.join(", ")}.`, { param: "decisions" });
    }
    return respond(c, () => service.runtime.resume(runId, decisions), body.stream !== false);
  });

  routes.post("/v1/agent/runs/:id/cancel", (c) => {
    const runId = c.req.param("id");
    const controller = active.get(runId);
    if (controller) {
      controller.abort(new Error("cancelled through the API"));
      return c.json({ runId, cancelled: true, was: "running" });
    }
    // Throws unknown_run / run_not_paused when there is nothing to cancel.
    service.agent.sessions.loadPausedRun(runId);
    service.agent.sessions.abandonPausedRun(runId);
    return c.json({ runId, cancelled: true, was: "awaiting_approval" });
  });

  routes.get("/v1/apps", (c) =>
    c.json({ apps: service.profile.apps.map((app) => ({ name: app.name, group: app.group, title: app.title, description: app.description, tools: app.tools.map((tool) => tool.name) })) }),
  );

  routes.get("/v1/apps/:app", (c) => {
    const app = service.profile.app(c.req.param("app"));
    const view = service.profile.store.read((tx) => app.view(tx, service.profile.environment));
    return c.json({ name: app.name, title: app.title, text: view.text, data: view.data });
  });

  // What came due (alarms, reminders) in (since, now] on the profile's clock; a client polls with the last `now` it got.
  routes.get("/v1/notifications", (c) => {
    const now = service.profile.environment.now();
    const since = c.req.query("since");
    const sinceDate = since === undefined ? new Date(now.getTime() - 60_000) : new Date(since);
    if (Number.isNaN(sinceDate.getTime())) {
      throw new ApiError(400, "invalid_request", `since "${since}" is not an instant; send back the "now" of the last answer.`, { param: "since" });
    }
    // A client away for long hears of the last day only, not of every alarm since.
    const from = new Date(Math.max(sinceDate.getTime(), now.getTime() - 86_400_000));
    const notifications =
      from.getTime() >= now.getTime()
        ? []
        : service.profile.store
            .read((tx) => service.profile.apps.flatMap((app) => app.due?.(tx, service.profile.environment, from, now) ?? []))
            .sort((a, b) => a.at.localeCompare(b.at));
    return c.json({ now: now.toISOString(), notifications });
  });

  routes.post("/v1/undo", async (c) => {
    const body = parseBody(undoSchema, await readJsonBody(c, limits));
    const undone = await lane.enqueue(async () => {
      const actions = await service.profile.store.undo(body.count ?? 1, body.session ? { sessionId: body.session } : {});
      service.safety.recordUndo(actions, body.session ?? undefined);
      return actions;
    });
    return c.json({ undone });
  });

  routes.get("/v1/audit", (c) => {
    const since = c.req.query("since");
    const limit = c.req.query("limit");
    const session = c.req.query("session");
    const sinceDate = since === undefined ? undefined : new Date(since);
    if (sinceDate !== undefined && Number.isNaN(sinceDate.getTime())) {
      throw new ApiError(400, "invalid_request", `since "${since}" is not a date; write it as 2026-12-01 or 2026-12-01T09:00:00Z.`, { param: "since" });
    }
    const limitNumber = limit === undefined ? undefined : Number(limit);
    if (limitNumber !== undefined && (!Number.isInteger(limitNumber) || limitNumber < 1 || limitNumber > 10_000)) {
      throw new ApiError(400, "invalid_request", `limit must be a whole number from 1 to 10000, not "${limit}".`, { param: "limit" });
    }
    const entries = new AuditLog(service.profile.store).entries({ since: sinceDate, sessionId: session, limit: limitNumber });
    return c.json({ entries });
  });

  routes.get("/v1/audit/verify", (c) => c.json(new AuditLog(service.profile.store).verify()));

  return routes;
}
