import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentOutcome } from "../../src/agent/types.js";
import { Profile } from "../../src/apps/profile.js";
import type { Tool } from "../../src/tools/tool.js";

/**
 * `botpsy run` end to end: the real CLI, the real SmolLM2 model, the built-in
 * apps in a profile of the test's own. SmolLM2-135M rarely decides to call a
 * tool unprompted, so the runs use --require-tool (the first turn must call);
 * what is checked is that every run completes, every call names an existing
 * tool, a call whose arguments its schema refuses (the grammar types them but
 * cannot hold a number to its bounds) is answered with invalid_arguments and
 * never runs, and usage is counted. The profile's clock is fixed: the prompt
 * carries it, so a run on the wall clock wrote different calls each day.
 */
const CLOCK = "2026-12-01T09:30:00Z";
const PROFILE = "e2e";
const modelPath = process.env.BOTPSY_TEST_MODEL ?? resolve(".botpsy-test/models/SmolLM2-135M-Instruct.Q4_1.gguf");
let home: string;
let tools: Map<string, Tool>;

beforeAll(() => {
  if (!existsSync(modelPath)) throw new Error(`The test model is missing at ${modelPath}; fetch it with: botpsy models pull smollm2-135m-instruct-q4_1`);
  home = mkdtempSync(join(tmpdir(), "botpsy-run-e2e-"));
  const profile = Profile.open({ home, name: PROFILE, clock: CLOCK, timeZone: "UTC" });
  tools = new Map(profile.tools().map((tool) => [tool.name, tool]));
  profile.close();
});

afterAll(() => rmSync(home, { recursive: true, force: true }));

function botpsyRun(request: string): Promise<{ code: number; outcome: AgentOutcome; stderr: string }> {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      ["--import", "tsx", resolve("src/cli/main.ts"), "run", request, "--model", modelPath, "--json", "--yes", "--require-tool", "--threads", "1", "--max-steps", "3"],
      { cwd: resolve("."), env: { ...process.env, BOTPSY_HOME: home, BOTPSY_PROFILE: PROFILE }, timeout: 280_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error && typeof error.code === "number" ? error.code : error ? -1 : 0;
        try {
          done({ code, outcome: JSON.parse(stdout) as AgentOutcome, stderr });
        } catch {
          fail(new Error(`botpsy run printed no outcome (exit ${code}): ${stderr}\n${stdout}`));
        }
      },
    );
  });
}

describe("botpsy run with the real SmolLM2 model", () => {
  for (const request of ["List my alarms", "Turn on wifi", "What is on my calendar today?", "Show my shopping list"]) {
    it(`completes "${request}": calls name existing tools, and one its schema refuses never runs`, async () => {
      const { code, outcome, stderr } = await botpsyRun(request);
      expect(["answered", "abstained", "step_limit"], stderr).toContain(outcome.stopReason);
      // The exit code is the verdict's: 0 only when the request was served.
      const verdict = outcome as AgentOutcome & { outcome: string; exitCode: number };
      expect(code).toBe(verdict.exitCode);
      expect(verdict.exitCode === 0).toBe(verdict.outcome === "finished");
      expect(outcome.calls.length).toBeGreaterThan(0);
      for (const record of outcome.calls) {
        const tool = tools.get(record.call.name);
        expect(tool, `the model called ${record.call.name}`).toBeDefined();
        if (!tool!.input.safeParse(record.call.arguments).success) {
          expect(record.status, JSON.stringify(record)).toBe("error");
          expect(record.error?.code, JSON.stringify(record)).toBe("invalid_arguments");
        }
      }
      expect(outcome.usage.promptTokens).toBeGreaterThan(0);
      expect(outcome.usage.outputTokens).toBeGreaterThan(0);
      expect(outcome.steps).toBeGreaterThanOrEqual(1);
    }, 300_000);
  }
});
