/**
 * The base of every error botpsy throws on purpose. `code` is stable (tests and
 * callers switch on it); the message says what happened and what to do next.
 */
export class BotpsyError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }

  toJSON(): { name: string; code: string; message: string } {
    return { name: this.name, code: this.code, message: this.message };
  }
}

/** Raised for input a user or caller gave that cannot be used as it is. */
export class InvalidInputError extends BotpsyError {
  constructor(message: string, options: { cause?: unknown; code?: string } = {}) {
    super(options.code ?? "invalid_input", message, options);
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
