import { expect } from "vitest";
import { ToolError } from "../../src/tools/tool.js";

/** Await a tool call that must fail, and hand back its ToolError (code and message) for checking. */
export async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}
