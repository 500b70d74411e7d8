import { execFile } from "node:child_process";
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Alarm } from "../../src/apps/device/alarms.js";
import { Profile } from "../../src/apps/profile.js";
import { SMOLLM2_ID } from "../../src/model/catalog.js";

/**
 * The README's main command, as a new user meets it: `botpsy run "Set an alarm
 * for 7" --yes` on the default model named by its catalog id, so the shipped
 * adapter and its call bias apply (a test that loads the GGUF by path would
 * run the untuned model). What the model writes depends on the prompt, and
 * the prompt carries the profile's clock: the command once set the alarm in
 * the evening and failed later the same night, and on a Friday afternoon the
 * model wrote midnight (`2026-12-05 00:00:00`), which ran and was reported as
 * done until date grounding sent an hour the request contradicts back to the
 * model. So it runs at five times of day, each in a profile of its own, and
 * must end "finished" with exit code 0 and a 7 o'clock alarm there.
 */
const modelPath = process.env.BOTPSY_TEST_MODEL ?? resolve(".botpsy-test/models/SmolLM2-135M-Instruct.Q4_1.gguf");
const CLOCKS = ["2026-12-01T07:10:00Z", "2026-12-01T12:30:00Z", "2026-12-04T15:07:00Z", "2026-12-01T18:45:00Z", "2026-12-01T22:45:00Z"];
let home: string;

beforeAll(() => {
  if (!existsSync(modelPath)) throw new Error(`The test model is missing at ${modelPath}; fetch it with: botpsy models pull ${SMOLLM2_ID}`);
  home = mkdtempSync(join(tmpdir(), "botpsy-main-command-"));
  // The catalog looks for the model in BOTPSY_HOME/models: the test's copy, by link, with its verification record.
  mkdirSync(join(home, "models"));
  const target = join(home, "models", basename(modelPath));
  try {
    linkSync(modelPath, target);
  } catch {
    symlinkSync(modelPath, target);
  }
  if (existsSync(`${modelPath}.verified`)) copyFileSync(`${modelPath}.verified`, `${target}.verified`);
});

afterAll(() => rmSync(home, { recursive: true, force: true }));

function botpsyRun(request: string, profile: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--import", "tsx", resolve("src/cli/main.ts"), "run", request, "--yes", "--threads", "1"],
      { cwd: resolve("."), env: { ...process.env, BOTPSY_HOME: home, BOTPSY_PROFILE: profile }, timeout: 280_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => done({ code: error && typeof error.code === "number" ? error.code : error ? -1 : 0, stdout, stderr }),
    );
  });
}

describe("the README's main command on the shipped default model", () => {
  CLOCKS.forEach((clock, index) => {
    it(`sets the alarm when the profile's clock reads ${clock}`, async () => {
      const name = `clock-${index}`;
      const opened = Profile.open({ home, name, clock, timeZone: "UTC" });
      const before = opened.store.read((tx) => tx.collection<Alarm>("alarms", "alarms").all().length);
      opened.close();

      const run = await botpsyRun("Set an alarm for 7", name);
      const shown = `exit ${run.code}\n${run.stdout}\n${run.stderr}`;
      expect(run.stdout, shown).toMatch(/\[finished\] Done: set_alarm succeeded/);
      expect(run.code, shown).toBe(0);

      const after = Profile.open({ home, name });
      try {
        const alarms = after.store.read((tx) => tx.collection<Alarm>("alarms", "alarms").all());
        expect(alarms.length, shown).toBe(before + 1);
        // "7" with no am or pm: either reading is a 7 o'clock alarm.
        expect(["07:00", "19:00"], shown).toContain(alarms.at(-1)!.time);
      } finally {
        after.close();
      }
    }, 300_000);
  });
});
