/**
 * The web app's side of the HTTP API: JSON calls and the agent's event
 * streams (SSE over fetch, since runs start with a POST). The access token,
 * where the server asks for one, is kept in this browser's local storage.
 */

const TOKEN_KEY = "botpsy.token";

export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiCallError";
  }
}

export function savedToken(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

export function saveToken(token: string): void {
  localStorage.setItem(TOKEN_KEY, token);
}

function headers(json: boolean): Record<string, string> {
  const result: Record<string, string> = {};
  if (json) result["Content-Type"] = "application/json";
  const token = savedToken();
  if (token) result.Authorization = `Bearer ${token}`;
  return result;
}

async function failure(response: Response): Promise<ApiCallError> {
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    return new ApiCallError(response.status, body.error?.code ?? "http_error", body.error?.message ?? `The server answered ${response.status}.`);
  } catch {
    return new ApiCallError(response.status, "http_error", `The server answered ${response.status}.`);
  }
}

export async function getJson<Result>(path: string): Promise<Result> {
  const response = await fetch(path, { headers: headers(false) });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as Result;
}

export async function postJson<Result>(path: string, body: unknown): Promise<Result> {
  const response = await fetch(path, { method: "POST", headers: headers(true), body: JSON.stringify(body) });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as Result;
}

export interface StreamEvent {
  id: number | undefined;
  event: string;
  data: unknown;
}

/** Reads an SSE response, calling `onEvent` for each event until the stream ends. */
async function readEvents(response: Response, onEvent: (event: StreamEvent) => void): Promise<void> {
  if (!response.ok) throw await failure(response);
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id: number | undefined;
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("id:")) id = Number(line.slice(3).trim());
        else if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length > 0) onEvent({ id, event, data: JSON.parse(data.join("\n")) as unknown });
    }
  }
}

export async function postEvents(path: string, body: unknown, onEvent: (event: StreamEvent) => void): Promise<void> {
  const response = await fetch(path, { method: "POST", headers: headers(true), body: JSON.stringify(body) });
  await readEvents(response, onEvent);
}

/** Reattaches to a run's events after the last id seen. */
export async function followEvents(runId: string, afterId: number, onEvent: (event: StreamEvent) => void): Promise<void> {
  const response = await fetch(`/v1/agent/runs/${encodeURIComponent(runId)}/events?after=${afterId}`, { headers: headers(false) });
  await readEvents(response, onEvent);
}

/* Shapes of the API's answers the app reads. */

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ApprovalRequest {
  id: string;
  call: ToolCall;
  risk: string;
  preview: string;
  reason: string;
}

export interface AgentOutcome {
  runId: string;
  sessionId: string;
  stopReason: string;
  answer: string;
  pendingApprovals: ApprovalRequest[];
  error?: { code: string; message: string };
}

export interface AppView {
  name: string;
  title: string;
  text: string;
  data: unknown;
}

export interface AuditEntry {
  seq: number;
  at: string;
  kind: string;
  sessionId?: string;
  runId?: string;
  tool?: string;
  data: unknown;
}

export interface AuditVerification {
  ok: boolean;
  checked: number;
  brokenAt?: number;
  problem?: string;
}

export interface AppNotification {
  app: string;
  kind: string;
  at: string;
  message: string;
}
