import { useEffect, useRef, useState } from "preact/hooks";
import { ApiCallError, followEvents, getJson, postEvents, postJson, type ApprovalRequest, type StreamEvent } from "./api.js";
import { applyEvent, loadChatState, saveChatState, type ChatItem, type ChatState } from "./chat-state.js";

const DECISIONS = [
  { value: "once", label: "Approve once" },
  { value: "session", label: "For this session" },
  { value: "always", label: "Always" },
  { value: "deny", label: "Deny" },
] as const;

function ArgumentList({ args }: { args: Record<string, unknown> }) {
  const entries = Object.entries(args);
  if (entries.length === 0) return null;
  return (
    <dl class="arguments">
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{typeof value === "string" ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function ApprovalCard({ item, onDecide, busy }: { item: Extract<ChatItem, { kind: "approval" }>; onDecide: (request: ApprovalRequest, decision: string) => void; busy: boolean }) {
  const headingId = `approval-${item.request.id}`;
  return (
    <section class="approval" aria-labelledby={headingId} data-request={item.request.id}>
      <h3 id={headingId}>
        Approve <code>{item.request.call.name}</code>? <span class={`risk risk-${item.request.risk}`}>{item.request.risk}</span>
      </h3>
      <p class="preview">{item.request.preview}</p>
      <ArgumentList args={item.request.call.arguments} />
      <p class="reason">{item.request.reason}</p>
      {item.decision ? (
        <p class="decided" role="status">
          {item.decision === "deny" ? "Denied" : `Approved (${item.decision})`}
        </p>
      ) : (
        <div class="decisions" role="group" aria-label="Your decision">
          {DECISIONS.map((decision) => (
            <button key={decision.value} type="button" class={decision.value === "deny" ? "deny" : decision.value === "once" ? "primary" : ""} disabled={busy} onClick={() => onDecide(item.request, decision.value)}>
              {decision.label}
            </button>
          ))}
        </div>
      )}
    </section>
  );
}

function Item({ item, onDecide, busy }: { item: ChatItem; onDecide: (request: ApprovalRequest, decision: string) => void; busy: boolean }) {
  switch (item.kind) {
    case "user":
      return <li class="bubble user">{item.text}</li>;
    case "assistant":
      return <li class="bubble assistant">{item.text}</li>;
    case "notice":
      return <li class="notice">{item.text}</li>;
    case "call":
      return (
        <li class={`call call-${item.status}`} data-tool={item.call.name}>
          <span class="call-name">
            <span aria-hidden="true">⚙ </span>
            {item.call.name}
          </span>{" "}
          <span class="call-status">{item.status === "running" ? "running…" : item.status === "awaiting" ? "waiting for your approval" : item.status}</span>
          <ArgumentList args={item.call.arguments} />
          {item.detail ? <p class="call-detail">{item.detail}</p> : null}
        </li>
      );
    case "approval":
      return (
        <li>
          <ApprovalCard item={item} onDecide={onDecide} busy={busy} />
        </li>
      );
  }
}

/** The conversation: a request box, the answer as it streams, each tool call as it happens, approval cards. */
export function Chat({ onActed }: { onActed: () => void }) {
  const [state, setState] = useState<ChatState>(loadChatState);
  const [draft, setDraft] = useState("");
  const [busy, setBusy] = useState(false);
  const stateRef = useRef(state);
  const listRef = useRef<HTMLOListElement>(null);

  const update = (next: (previous: ChatState) => ChatState): void => {
    stateRef.current = next(stateRef.current);
    saveChatState(stateRef.current);
    setState(stateRef.current);
  };
  const onEvent = (event: StreamEvent): void => update((previous) => applyEvent(previous, event));
  const fail = (error: unknown): void => update((previous) => ({ ...previous, items: [...previous.items, { kind: "notice", text: error instanceof Error ? error.message : String(error) }] }));

  const stream = async (work: () => Promise<void>): Promise<void> => {
    setBusy(true);
    try {
      await work();
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
      onActed();
    }
  };

  // A reload continues the run the page was following: the events after the last one seen, or its pending approvals.
  useEffect(() => {
    const run = stateRef.current.run;
    if (!run) return;
    void stream(async () => {
      try {
        await followEvents(run.runId, run.lastEventId, onEvent);
      } catch (error) {
        if (!(error instanceof ApiCallError)) throw error;
        if (error.code !== "run_events_gone") {
          update((previous) => ({ ...previous, run: undefined }));
          return;
        }
        const paused = await getJson<{ pendingApprovals: ApprovalRequest[] }>(`/v1/agent/runs/${encodeURIComponent(run.runId)}`);
        for (const request of paused.pendingApprovals) onEvent({ id: undefined, event: "approval-request", data: { request } });
        update((previous) => ({ ...previous, run: { ...run, waiting: true } }));
      }
    });
  }, []);

  useEffect(() => {
    const list = listRef.current;
    if (list) list.scrollTop = list.scrollHeight;
  }, [state.items.length, state.items[state.items.length - 1]]);

  const send = (event: Event): void => {
    event.preventDefault();
    const request = draft.trim();
    if (request === "" || busy) return;
    setDraft("");
    update((previous) => ({ ...previous, items: [...previous.items, { kind: "user", text: request }] }));
    void stream(() => postEvents("/v1/agent/runs", { request, session: stateRef.current.sessionId }, onEvent));
  };

  const decide = (request: ApprovalRequest, decision: string): void => {
    const run = stateRef.current.run;
    if (!run) return;
    const items = stateRef.current.items.map((item) => (item.kind === "approval" && item.runId === run.runId && item.request.id === request.id ? { ...item, decision } : item));
    update((previous) => ({ ...previous, items }));
    const pending = items.filter((item): item is Extract<ChatItem, { kind: "approval" }> => item.kind === "approval" && item.runId === run.runId);
    // The run resumes once every call it asked about has a decision.
    if (pending.some((item) => item.decision === undefined)) return;
    const decisions = pending.map((item) => ({ request_id: item.request.id, decision: item.decision! }));
    void stream(() => postEvents(`/v1/agent/runs/${encodeURIComponent(run.runId)}/approval`, { decisions }, onEvent));
  };

  const cancel = (): void => {
    const run = stateRef.current.run;
    if (!run) return;
    // A running run's stream reports its end itself; a paused one has no stream, so the page says it.
    postJson(`/v1/agent/runs/${encodeURIComponent(run.runId)}/cancel`, {}).then(() => {
      if (run.waiting) update((previous) => ({ ...previous, run: undefined, items: [...previous.items, { kind: "notice", text: "The run was cancelled." }] }));
    }, fail);
  };

  const clear = (): void => update((previous) => ({ sessionId: previous.sessionId, items: [] }));

  return (
    <section class="chat" aria-label="Chat">
      <ol class="messages" ref={listRef} aria-live="polite" aria-relevant="additions text">
        {state.items.length === 0 ? <li class="empty">Ask for something: “Set an alarm for 6:45”, “Text Maria that I'm late”, “What's on my calendar tomorrow?”</li> : null}
        {state.items.map((item, index) => (
          <Item key={index} item={item} onDecide={decide} busy={busy && !state.run?.waiting} />
        ))}
      </ol>
      <form class="composer" onSubmit={send}>
        <label for="request" class="visually-hidden">
          Your request
        </label>
        <textarea
          id="request"
          rows={1}
          placeholder="Ask botpsy…"
          value={draft}
          onInput={(event) => setDraft((event.target as HTMLTextAreaElement).value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && !event.shiftKey) send(event);
          }}
        />
        <button type="submit" class="primary" disabled={busy || draft.trim() === ""}>
          Send
        </button>
        {state.run ? (
          <button type="button" onClick={cancel}>
            Cancel run
          </button>
        ) : (
          <button type="button" onClick={clear} disabled={busy || state.items.length === 0}>
            Clear
          </button>
        )}
      </form>
    </section>
  );
}
