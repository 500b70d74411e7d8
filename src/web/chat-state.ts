import type { AgentOutcome, ApprovalRequest, StreamEvent, ToolCall } from "./api.js";

/** One line of the conversation as the page shows it. */
export type ChatItem =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string }
  | { kind: "call"; call: ToolCall; status: "running" | "awaiting" | "ok" | "error" | "declined" | "skipped"; detail?: string }
  | { kind: "approval"; runId: string; request: ApprovalRequest; decision?: string }
  | { kind: "notice"; text: string };

export interface ChatState {
  sessionId: string;
  items: ChatItem[];
  /** The run the page follows, and the last event id it saw (to reattach after a reload). */
  run?: { runId: string; lastEventId: number; waiting: boolean };
}

const STATE_KEY = "botpsy.chat";

export function loadChatState(): ChatState {
  try {
    const saved = localStorage.getItem(STATE_KEY);
    if (saved) return JSON.parse(saved) as ChatState;
  } catch {
    // A damaged saved chat starts a new one.
  }
  const random = Math.random().toString(36).slice(2, 10);
  return { sessionId: `web-${random}`, items: [] };
}

export function saveChatState(state: ChatState): void {
  localStorage.setItem(STATE_KEY, JSON.stringify(state));
}

function summarise(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

/** The state after one event of a run (pure: the page re-renders from it). */
export function applyEvent(state: ChatState, event: StreamEvent): ChatState {
  const items = [...state.items];
  const data = event.data as Record<string, unknown>;
  const run = state.run ? { ...state.run } : undefined;
  if (run && event.id !== undefined) run.lastEventId = event.id;
  const updateCall = (call: ToolCall, change: Partial<Extract<ChatItem, { kind: "call" }>>): void => {
    for (let index = items.length - 1; index >= 0; index--) {
      const item = items[index]!;
      if (item.kind === "call" && item.call.id === call.id) {
        items[index] = { ...item, ...change };
        return;
      }
    }
    items.push({ kind: "call", call, status: "running", ...change });
  };
  switch (event.event) {
    case "run": {
      const runId = String(data.runId);
      return { ...state, items, run: { runId, lastEventId: event.id ?? 0, waiting: false } };
    }
    case "text-delta": {
      const last = items[items.length - 1];
      if (last?.kind === "assistant") items[items.length - 1] = { kind: "assistant", text: last.text + String(data.text) };
      else items.push({ kind: "assistant", text: String(data.text) });
      break;
    }
    case "tool-call":
      updateCall(data.call as ToolCall, { status: "running" });
      break;
    case "tool-result":
      updateCall(data.call as ToolCall, { status: "ok", detail: summarise(data.result) });
      break;
    case "tool-error": {
      const error = data.error as { code: string; message: string };
      updateCall(data.call as ToolCall, { status: error.code === "declined_by_user" || error.code === "blocked_by_policy" ? "declined" : "error", detail: error.message });
      break;
    }
    case "approval-request": {
      const request = data.request as ApprovalRequest;
      if (!items.some((item) => item.kind === "approval" && item.request.id === request.id && item.runId === run?.runId)) {
        items.push({ kind: "approval", runId: run?.runId ?? "", request });
      }
      updateCall(request.call, { status: "awaiting" });
      break;
    }
    case "done": {
      const outcome = data.outcome as AgentOutcome;
      const last = items[items.length - 1];
      for (const [index, item] of items.entries()) {
        // Calls the run ended without running (declined, skipped) say so.
        if (item.kind === "call" && (item.status === "running" || item.status === "awaiting") && outcome.stopReason !== "awaiting_approval") items[index] = { ...item, status: "skipped" };
      }
      if (outcome.stopReason !== "awaiting_approval" && outcome.answer && last?.kind !== "assistant") items.push({ kind: "assistant", text: outcome.answer });
      if (outcome.error) items.push({ kind: "notice", text: `The run stopped: ${outcome.error.message}` });
      else if (outcome.stopReason === "aborted") items.push({ kind: "notice", text: "The run was cancelled." });
      else if (outcome.stopReason !== "awaiting_approval" && !outcome.answer) items.push({ kind: "notice", text: `The run ended without an answer (${outcome.stopReason.replaceAll("_", " ")}).` });
      const waiting = outcome.stopReason === "awaiting_approval";
      return { ...state, items, ...(waiting && run ? { run: { ...run, waiting: true } } : { run: undefined }) };
    }
    default:
      break;
  }
  return { ...state, items, ...(run ? { run } : {}) };
}
