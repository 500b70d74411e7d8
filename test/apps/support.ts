import { expect } from "vitest";
import type { App } from "../../src/apps/app.js";
import type { Profile } from "../../src/apps/profile.js";
import { ToolError, type Tool } from "../../src/tools/tool.js";

/** Await a tool call that must fail, and hand back its ToolError (code and message) for checking. */
export async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

/** Looks up a tool by name among the tools of `apps`; an unknown name fails the test at once. */
export function toolFinder(...apps: readonly App[]): (name: string) => Tool {
  return (name) => {
    const found = apps.flatMap((app) => app.tools).find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no tool ${name}`);
    return found;
  };
}

/** Runs a tool found by `tool` on a profile and hands back its result value. */
export function toolRunner(tool: (name: string) => Tool): (profile: Profile, name: string, args: unknown) => Promise<Record<string, unknown>> {
  return async (profile, name, args) => (await profile.runTool(tool(name), args)).value as Record<string, unknown>;
}
