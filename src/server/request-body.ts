import type { Context } from "hono";
import { ApiError } from "./api-error.js";
import { jsonDepth } from "./chat-request.js";

export interface RequestLimits {
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  bodyBytes: number;
  /** Deepest JSON nesting accepted in a body. Default 64. */
  bodyDepth: number;
  /** Longest a request may take, from arrival to its last byte of answer. Default 300 s. */
  requestTimeoutMs: number;
}

export const DEFAULT_REQUEST_LIMITS: RequestLimits = { bodyBytes: 1024 * 1024, bodyDepth: 64, requestTimeoutMs: 300_000 };

/**
 * Reads a JSON body within the limits: a JSON content type (so a web page
 * cannot send one as a "simple" cross-origin request), at most `bodyBytes`
 * (counted as it arrives, whatever Content-Length claims), valid JSON, at
 * most `bodyDepth` deep.
 */
export async function readJsonBody(c: Context, limits: RequestLimits): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ApiError(415, "unsupported_media_type", 'Send the body as JSON with the header "Content-Type: application/json".');
  }
  const declared = Number(c.req.header("content-length"));
  const body = c.req.raw.body;
  if (Number.isFinite(declared) && declared > limits.bodyBytes) {
    // A body that will be over the limit but is small enough to read away is read away first (see discardRest).
    if (body !== null && declared <= lingerBytes(limits)) await discardRest(body.getReader(), lingerBytes(limits));
    throw tooLarge(limits);
  }
  if (body === null) throw new ApiError(400, "invalid_json", "The request has no body; send a JSON object.");
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limits.bodyBytes) {
      await discardRest(reader, lingerBytes(limits));
      throw tooLarge(limits);
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, "invalid_json", `The body is not valid JSON (${error instanceof Error ? error.message : String(error)}).`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ApiError(400, "invalid_json", "The body must be a JSON object.");
  }
  if (jsonDepth(value) > limits.bodyDepth) {
    throw new ApiError(400, "body_too_deep", `The body nests deeper than ${limits.bodyDepth} levels; flatten it.`);
  }
  return value;
}

/** How much more of a refused body the server reads away before it answers: four times the limit, at least 1 MiB. */
function lingerBytes(limits: RequestLimits): number {
  return Math.max(4 * limits.bodyBytes, 1024 * 1024);
}

const LINGER_MS = 2_000;

/**
 * Reads and drops the rest of a refused body (up to `budget` bytes and
 * LINGER_MS) before the answer goes out. A server that closes a connection
 * while the client's bytes are still arriving makes the kernel reset it, and
 * a reset can destroy the answer before the client reads it: the client would
 * see a dropped connection instead of "413, send less". A body larger than
 * the budget, or slower than the time, is cut off as before.
 */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, budget: number): Promise<void> {
  let read = 0;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<"expired">((resolve) => {
    timer = setTimeout(() => resolve("expired"), LINGER_MS);
    timer.unref();
  });
  try {
    while (read <= budget) {
      const next = await Promise.race([reader.read(), expired]);
      if (next === "expired" || next.done) break;
      read += next.value.byteLength;
    }
  } catch {
    // The client went away: nothing left to read.
  } finally {
    clearTimeout(timer);
  }
  await reader.cancel().catch(() => undefined);
}

function tooLarge(limits: RequestLimits): ApiError {
  return new ApiError(413, "body_too_large", `The body is larger than ${limits.bodyBytes} bytes; send less (or start the server with a larger --max-body).`);
}
