/**
 * `botpsy/testing`: what a test of a program built on botpsy needs, without a
 * model or a user's data. `ScriptedModel` plays a script of model turns;
 * `openTestProfile` opens a throwaway profile with the demo persona at a
 * fixed clock, so every run sees the same world.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Profile, type ProfileOptions } from "../apps/profile.js";

export {
  ScriptedModel,
  ScriptExhaustedError,
  estimateTokens,
  type ScriptedModelOptions,
  type ScriptedReply,
  type ScriptedToolCall,
  type ScriptedTurn,
} from "./scripted-model.js";

/** The clock of test profiles: a Tuesday morning. */
export const TEST_CLOCK = "2026-12-01T09:00:00Z";

/**
 * An in-memory profile with the demo persona, a fixed clock (`TEST_CLOCK`)
 * and UTC, under a fresh temporary home unless one is given. Close it when done.
 */
export function openTestProfile(options: ProfileOptions = {}): Profile {
  return Profile.open({
    databasePath: ":memory:",
    home: options.home ?? mkdtempSync(join(tmpdir(), "botpsy-test-profile-")),
    clock: TEST_CLOCK,
    timeZone: "UTC",
    seed: "demo",
    ...options,
  });
}
