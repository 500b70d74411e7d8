import { z } from "zod";
import { BotpsyError } from "../errors.js";
import type { ToolSpec } from "../model/types.js";
import type { StoreTransaction } from "../store/store.js";

/**
 * What a call may do to the world. It drives the permission gate and is shown
 * to the user beside every call.
 */
export const RISKS = ["read", "write", "send", "spend", "settings", "destructive"] as const;
export type Risk = (typeof RISKS)[number];

/** Where a value that reached the model came from (the safety layer tracks this). */
export type Trust = "trusted" | "untrusted";

export interface ToolContext {
  signal: AbortSignal;
  /** The conversation this call belongs to, when there is one. */
  sessionId?: string;
  /** The store transaction the call runs in: every change is undone together. */
  store: StoreTransaction;
  /** The profile's clock (apps never read the wall clock directly, so runs repeat). */
  now(): Date;
  /** The profile's IANA time zone. */
  timeZone: string;
  /** True while the call is dry-run for an approval preview; the transaction is rolled back after. */
  dryRun: boolean;
}

export interface ToolDefinition<Input extends z.ZodType = z.ZodType, Output = unknown> {
  name: string;
  description: string;
  input: Input;
  risk: Risk;
  /** The app this tool belongs to (`calendar`, `car`…). */
  app?: string;
  /**
   * Whether results of this tool carry content written by someone other than
   * the user (email bodies, web pages): they reach the model fenced and
   * marked, and values taken from them are tracked. Default "trusted".
   */
  resultTrust?: Trust;
  /**
   * Arguments that leave the device when the call runs online (the address a
   * page read fetches): the gate treats data in them like a send.
   */
  egressArguments?: readonly string[];
  /** Cut the call off after this many milliseconds. Default 10 000. */
  timeoutMs?: number;
  run(args: z.output<Input>, context: ToolContext): Promise<Output> | Output;
  /**
   * A sentence saying what the call will do, for an approval request. When
   * absent the gate dry-runs `run` in a rolled-back transaction and describes
   * the changes.
   */
  describe?(args: z.output<Input>, context: ToolContext): string;
}

export type Tool = ToolDefinition<z.ZodType, unknown>;

const TOOL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;

export function defineTool<Input extends z.ZodType, Output>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  if (!TOOL_NAME.test(definition.name)) {
    throw new BotpsyError(
      "invalid_tool",
      `Tool name "${definition.name}" is not usable: use letters, digits and underscores, starting with a letter, at most 64 characters.`,
    );
  }
  if (!(RISKS as readonly string[]).includes(definition.risk)) {
    throw new BotpsyError(
      "invalid_tool",
      `Tool "${definition.name}" has risk "${String(definition.risk)}"; use one of ${RISKS.join(", ")}.`,
    );
  }
  if (definition.description.trim() === "") {
    throw new BotpsyError("invalid_tool", `Tool "${definition.name}" needs a description: the model chooses tools by it.`);
  }
  return definition;
}

/**
 * A failure the model can recover from. The message is read by the model, so
 * it says what to do ("Wi-Fi is off. Turn it on with set_wifi(on=true), then retry.").
 */
export class ToolError extends BotpsyError {
  readonly data: Record<string, unknown> | undefined;

  constructor(code: string, message: string, data?: Record<string, unknown>) {
    super(code, message);
    this.data = data;
  }

  /** The argument values the tool says to call it again with (`data.retryWith`, strings only), when it names them. */
  get retryWith(): Record<string, string> | undefined {
    const fix = this.data?.retryWith;
    if (typeof fix !== "object" || fix === null || Array.isArray(fix)) return undefined;
    const entries = Object.entries(fix);
    return entries.length > 0 && entries.every(([, value]) => typeof value === "string") ? (fix as Record<string, string>) : undefined;
  }
}

/** The model-facing contract of a tool: its JSON schema, derived from the zod input. */
export function toolSpec(tool: Tool): ToolSpec {
  const schema = z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete schema.$schema;
  return { name: tool.name, description: tool.description, parameters: schema };
}
