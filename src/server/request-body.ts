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
  if (Number.isFinite(declared) && declared > limits.bodyBytes) throw tooLarge(limits);
  const body = c.req.raw.body;
  if (body === null) throw new ApiError(400, "invalid_json", "The request has no body; send a JSON object.");
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limits.bodyBytes) {
      await reader.cancel().catch(() => undefined);
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

function tooLarge(limits: RequestLimits): ApiError {
  return new ApiError(413, "body_too_large", `The body is larger than ${limits.bodyBytes} bytes; send less (or start the server with a larger --max-body).`);
}
