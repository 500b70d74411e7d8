import { z } from "zod";
import type { ChatMessage, GenerateOptions, GenerateRequest, GenerateResult, StopReason, ToolCall, ToolSpec } from "../model/types.js";
import { PeerProtocolError } from "./errors.js";

/**
 * The wire protocol between a device and the computer that lends it a model.
 * Each frame is a 5-byte header (payload length, big-endian u32; kind, u8)
 * and a JSON payload. The kind comes before the payload, so a frame a
 * connection may not send (a model turn from a device that is only pairing)
 * is refused without reading a byte of it.
 *
 * A model turn carries only what generating it needs: the messages, the tool
 * contracts (names, descriptions, JSON schemas: the lender builds its grammar
 * from them), and the sampling options. Never the profile, its database, its
 * files, keys or the policy.
 *
 * When the lender lends its internet (`peer serve --lend-internet`), a device
 * may also ask it for one HTTP(S) GET of a web tool (`webFetch`): the URL and
 * the Accept header cross, the page's status, type and text come back
 * (`webPage`), at most MAX_LENT_PAGE_BYTES of it.
 */
export const FRAME_KIND = {
  pair: 1,
  paired: 2,
  infoRequest: 3,
  info: 4,
  generate: 5,
  result: 6,
  error: 7,
  cancel: 8,
  webFetch: 9,
  webPage: 10,
} as const;
export type FrameKind = (typeof FRAME_KIND)[keyof typeof FRAME_KIND];

export const HEADER_BYTES = 5;
/** The largest frame of a paired device: a long document fits; a runaway sender does not. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** The largest frame of a device that is only pairing. */
export const MAX_PAIRING_FRAME_BYTES = 1024;
/** The largest web fetch frame a device may send: a URL and an Accept header. */
export const MAX_WEB_FETCH_FRAME_BYTES = 8 * 1024;
/** The longest URL a device may ask the lender to fetch. */
export const MAX_WEB_URL_LENGTH = 4096;
/** The most bytes of one page the lender fetches and sends back. */
export const MAX_LENT_PAGE_BYTES = 2 * 1024 * 1024;

export interface PairMessage {
  /** The invite's secret, base64url. */
  secret: string;
}

export interface PairedMessage {
  /** The name the lender gave this device. */
  name: string;
  model: LenderModelInfo;
}

/** What the device needs to know of the lender's model to decide where a turn goes. */
export interface LenderModelInfo {
  id: string;
  /** Tokens of one conversation's context. */
  contextSize: number;
  /** Bytes of the model's weights (a stand-in for how much larger it is). */
  sizeBytes: number;
}

/** Sampling options a model turn may carry (no signal: cancelling is a `cancel` frame). */
export type WireOptions = Omit<GenerateOptions, "signal" | "conversationId">;

export interface GenerateMessage {
  id: number;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  options: WireOptions;
  /** An opaque key (a hash, not the session id) so the lender may reuse the evaluated context of the conversation's earlier turns. */
  conversation?: string;
}

export interface ResultMessage {
  id: number;
  result: GenerateResult;
}

export interface ErrorMessage {
  id?: number;
  code: string;
  message: string;
}

export interface CancelMessage {
  id: number;
}

const webFetchSchema = z
  .object({
    id: z.number().int().positive(),
    url: z.string().min(1).max(MAX_WEB_URL_LENGTH),
    accept: z.string().max(256).regex(/^[\x20-\x7e]*$/).optional(),
  })
  .strict();

/** A device asks the lender for one GET: nothing else (no method, headers, body or cookies) can be said. */
export type WebFetchMessage = z.infer<typeof webFetchSchema>;

const webPageSchema = z
  .object({
    id: z.number().int().positive(),
    /** The final HTTP status (after the lender followed redirects). */
    status: z.number().int().min(100).max(599),
    contentType: z.string().max(256),
    /** The body as UTF-8 text; at most MAX_LENT_PAGE_BYTES bytes of it. */
    body: z.string().max(MAX_LENT_PAGE_BYTES),
    bytes: z.number().int().min(0).max(MAX_LENT_PAGE_BYTES),
    /** The URL the body came from, when redirects moved it. */
    finalUrl: z.string().max(MAX_WEB_URL_LENGTH).optional(),
  })
  .strict();

/** The lender's answer to a `webFetch`. */
export type WebPageMessage = z.infer<typeof webPageSchema>;

/** Checks a received web fetch before the lender acts on it (an unknown key, such as a method, is refused). */
export function checkWebFetchMessage(value: unknown): WebFetchMessage {
  const parsed = webFetchSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") ?? "";
    throw new PeerProtocolError(
      "peer_protocol_error",
      `A web fetch is {id, url, accept?} and nothing else (the lender only does GET)${where !== "" ? `; "${where}": ${issue?.message}` : issue !== undefined ? `; ${issue.message}` : ""}.`,
    );
  }
  return parsed.data;
}

/** Checks the lender's answer to a web fetch before a tool reads it. */
export function checkWebPage(value: unknown): WebPageMessage {
  const parsed = webPageSchema.safeParse(value);
  if (!parsed.success) throw new PeerProtocolError("peer_protocol_error", "The peer's reply is not a fetched page (status, content type and at most 2 MiB of text).");
  return parsed.data;
}

const OPTION_KEYS = ["temperature", "seed", "topP", "topK", "maxTokens", "thinking", "toolChoice", "routedChoice", "parallelToolCalls"] as const satisfies readonly (keyof WireOptions)[];

/** The model turn as it goes over the wire: messages, tool contracts and sampling options, nothing else. */
export function toGenerateMessage(id: number, request: GenerateRequest, conversation?: string): GenerateMessage {
  const options: WireOptions = {};
  for (const key of OPTION_KEYS) {
    if (request[key] !== undefined) (options as Record<string, unknown>)[key] = request[key];
  }
  return {
    id,
    messages: request.messages.map(wireMessage),
    ...(request.tools !== undefined ? { tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })) } : {}),
    options,
    ...(conversation !== undefined ? { conversation } : {}),
  };
}

function wireMessage(message: ChatMessage): ChatMessage {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        ...(message.thoughts !== undefined ? { thoughts: message.thoughts } : {}),
        ...(message.toolCalls !== undefined ? { toolCalls: message.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })) } : {}),
      };
    case "tool":
      return { role: "tool", toolCallId: message.toolCallId, name: message.name, content: message.content };
  }
}

/** Checks a received model turn's shape before it reaches a model. */
export function checkGenerateMessage(value: unknown): GenerateMessage {
  const message = value as Partial<GenerateMessage> | null;
  if (message === null || typeof message !== "object" || typeof message.id !== "number" || !Array.isArray(message.messages)) {
    throw new PeerProtocolError("peer_protocol_error", "A model turn must have a numeric id and a list of messages.");
  }
  for (const entry of message.messages as unknown[]) {
    const role = (entry as { role?: unknown } | null)?.role;
    if (!["system", "user", "assistant", "tool"].includes(String(role)) || typeof (entry as { content?: unknown }).content !== "string") {
      throw new PeerProtocolError("peer_protocol_error", "Each message needs a role (system, user, assistant or tool) and text content.");
    }
  }
  if (message.tools !== undefined && (!Array.isArray(message.tools) || message.tools.some((tool) => typeof tool?.name !== "string" || typeof tool.parameters !== "object"))) {
    throw new PeerProtocolError("peer_protocol_error", "Tools must be a list of {name, description, parameters}.");
  }
  const options = (typeof message.options === "object" && message.options !== null ? message.options : {}) as Record<string, unknown>;
  const unknownOption = Object.keys(options).find((key) => !(OPTION_KEYS as readonly string[]).includes(key));
  if (unknownOption !== undefined) throw new PeerProtocolError("peer_protocol_error", `"${unknownOption}" is not a sampling option a peer accepts.`);
  return message as GenerateMessage;
}

/** Checks a received result's shape before the agent acts on it. */
export function checkResult(value: unknown): GenerateResult {
  const result = value as Partial<GenerateResult> | null;
  const stopReasons: readonly StopReason[] = ["stop", "tool-calls", "max-tokens", "aborted"];
  if (
    result === null ||
    typeof result !== "object" ||
    typeof result.text !== "string" ||
    !Array.isArray(result.toolCalls) ||
    !stopReasons.includes(result.stopReason as StopReason) ||
    typeof result.usage !== "object" ||
    typeof result.timings !== "object"
  ) {
    throw new PeerProtocolError("peer_protocol_error", "The peer's reply is not a model turn's result.");
  }
  for (const call of result.toolCalls as ToolCall[]) {
    if (typeof call?.id !== "string" || typeof call.name !== "string" || typeof call.arguments !== "object" || call.arguments === null || Array.isArray(call.arguments)) {
      throw new PeerProtocolError("peer_protocol_error", "The peer's reply has a tool call without an id, a name and an arguments object.");
    }
  }
  return { ...(result as GenerateResult), thoughts: typeof result.thoughts === "string" ? result.thoughts : "" };
}

export function encodeFrame(kind: FrameKind, payload: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(payload), "utf8");
  if (body.length > MAX_FRAME_BYTES) throw new PeerProtocolError("peer_frame_too_large", `A frame of ${body.length} bytes is over the ${MAX_FRAME_BYTES}-byte limit; shorten the conversation.`);
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32BE(body.length, 0);
  header.writeUInt8(kind, 4);
  return Buffer.concat([header, body]);
}

/**
 * Splits a byte stream into frames. `admit` sees each header before its
 * payload is read and may refuse it (the reader then stops for good).
 */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);
  private stopped = false;

  constructor(
    private readonly admit: (kind: number, length: number) => string | undefined,
    private readonly onFrame: (kind: number, payload: unknown) => void,
    private readonly onRefused: (reason: string) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.stopped) return;
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (!this.stopped && this.buffered.length >= HEADER_BYTES) {
      const length = this.buffered.readUInt32BE(0);
      const kind = this.buffered.readUInt8(4);
      const refusal = this.admit(kind, length);
      if (refusal !== undefined) {
        this.stopped = true;
        this.buffered = Buffer.alloc(0);
        this.onRefused(refusal);
        return;
      }
      if (this.buffered.length < HEADER_BYTES + length) return;
      const body = this.buffered.subarray(HEADER_BYTES, HEADER_BYTES + length);
      this.buffered = this.buffered.subarray(HEADER_BYTES + length);
      let payload: unknown;
      try {
        payload = JSON.parse(body.toString("utf8"));
      } catch {
        this.stopped = true;
        this.onRefused("a frame that is not JSON");
        return;
      }
      this.onFrame(kind, payload);
    }
  }
}
