import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { App } from "../../src/apps/app.js";
import { Profile, type ProfileOptions } from "../../src/apps/profile.js";
import { ToolError, type Tool } from "../../src/tools/tool.js";

/** The app tests' fixed clock: Tuesday 1 December 2026, 09:00 UTC (09:00 in Lisbon). */
export const TEST_CLOCK = "2026-12-01T09:00:00Z";
export const TEST_ZONE = "Europe/Lisbon";

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

/** Each tool of `app` by name, with its risk class. */
export function risks(app: App): Record<string, string> {
  return Object.fromEntries(app.tools.map((candidate) => [candidate.name, candidate.risk]));
}

/** Runs a tool found by `tool` on a profile and hands back its result value. */
export function toolRunner(tool: (name: string) => Tool): (profile: Profile, name: string, args?: unknown) => Promise<Record<string, unknown>> {
  return async (profile, name, args = {}) => (await profile.runTool(tool(name), args)).value as Record<string, unknown>;
}

/** Runs a tool found by `tool` on a profile where it must fail, and hands back its ToolError. */
export function toolFailure(tool: (name: string) => Tool): (profile: Profile, name: string, args?: unknown) => Promise<ToolError> {
  return (profile, name, args = {}) => failure(profile.runTool(tool(name), args));
}

/**
 * The profiles a test file opens, on the test clock and zone with the same
 * apps (and other `defaults`), and the folders of their databases:
 * `closeAll` (after each test) closes the profiles and removes the folders.
 */
export class TestProfiles {
  private readonly opened: Profile[] = [];
  private readonly folders: string[] = [];

  constructor(
    private readonly defaults: ProfileOptions & { apps: App[] },
    private readonly folderPrefix = "botpsy-apps-",
  ) {}

  /** A demo profile in memory unless `defaults` or `options` say otherwise. */
  open(options: ProfileOptions = {}): Profile {
    const profile = Profile.open({ databasePath: ":memory:", seed: "demo", clock: TEST_CLOCK, timeZone: TEST_ZONE, ...this.defaults, ...options });
    this.opened.push(profile);
    return profile;
  }

  /** Open `databasePath` again as it was left: its stored clock and zone, nothing seeded from here. */
  reopen(databasePath: string): Profile {
    const profile = Profile.open({ databasePath, apps: this.defaults.apps });
    this.opened.push(profile);
    return profile;
  }

  /** A database path in a fresh folder, removed by `closeAll`. */
  temporaryDatabase(): string {
    const folder = mkdtempSync(join(tmpdir(), this.folderPrefix));
    this.folders.push(folder);
    return join(folder, "profile.sqlite");
  }

  closeAll(): void {
    for (const profile of this.opened.splice(0)) profile.close();
    for (const folder of this.folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  }
}
