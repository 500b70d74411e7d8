import { BotpsyError } from "../errors.js";

/** The `type` field of an OpenAI-shaped error body. */
export type ApiErrorType = "invalid_request_error" | "authentication_error" | "permission_error" | "not_found_error" | "rate_limit_error" | "server_error";

/**
 * An error an HTTP route answers with: a status, and a body in OpenAI's error
 * shape (`{ error: { message, type, param, code } }`), which every OpenAI
 * client already knows how to read.
 */
export class ApiError extends BotpsyError {
  readonly status: number;
  readonly type: ApiErrorType;
  readonly param: string | null;

  constructor(status: number, code: string, message: string, options: { type?: ApiErrorType; param?: string | null; cause?: unknown } = {}) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.status = status;
    this.type = options.type ?? defaultType(status);
    this.param = options.param ?? null;
  }

  body(): ApiErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export interface ApiErrorBody {
  error: { message: string; type: ApiErrorType; param: string | null; code: string };
}

/** Codes of botpsy's errors whose status is not a plain 400 or 500. */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  unknown_run: 404,
  unknown_app: 404,
  run_not_paused: 409,
  approval_pending: 409,
  approval_missing: 400,
  context_overflow: 400,
  script_exhausted: 500,
};

function defaultType(status: number): ApiErrorType {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429 || status === 503) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/**
 * Any error as the API reports it: botpsy's own input errors are the
 * caller's to fix (400), anything else is the server's (500, without its
 * stack: the message is enough, and a stack tells a remote caller too much).
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof BotpsyError) {
    const status = STATUS_BY_CODE[error.code];
    if (status !== undefined) return new ApiError(status, error.code, error.message, { cause: error });
    if (error.name === "InvalidInputError" || error.name === "InvalidToolSchemaError" || /^(invalid_|unknown_|empty_)/.test(error.code)) {
      return new ApiError(400, error.code, error.message, { cause: error });
    }
    return new ApiError(500, error.code, error.message, { cause: error });
  }
  return new ApiError(500, "internal_error", "The server failed on this request; see its log, and retry.", { cause: error });
}
