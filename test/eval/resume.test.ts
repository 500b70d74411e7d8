import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { caseResults, readResults } from "../../src/eval/results.js";
import { loadScenarios } from "../../src/eval/scenario.js";
import { suiteDirectory } from "../../src/eval/suites.js";
import { makeTempDir } from "../support/temp-dir.js";

const runner = resolve("test/eval/fixtures/run-slow-suite.ts");
const scenarioFile = join(suiteDirectory("apps"), "device.json");

function caseLines(path: string): number {
  if (!existsSync(path)) return 0;
  return readFileSync(path, "utf8").split("\n").filter((line) => line.includes('"type":"case"')).length;
}

function start(out: string, delayMs: number) {
  return spawn(process.execPath, ["--import", "tsx", runner, scenarioFile, out, String(delayMs)], { stdio: ["ignore", "pipe", "pipe"] });
}

describe("an evaluation run killed in the middle", () => {
  it("resumes where it stopped: every case once, none lost", { timeout: 240_000 }, async () => {
    const out = join(makeTempDir("botpsy-resume-"), "results.jsonl");
    const total = loadScenarios(scenarioFile).length;

    const first = start(out, 60);
    const exited = new Promise<NodeJS.Signals | null>((done) => first.on("exit", (_code, signal) => done(signal)));
    // Wait until some cases are written, then kill without warning.
    const deadline = Date.now() + 120_000;
    while (caseLines(out) < 5 && Date.now() < deadline) await new Promise((wake) => setTimeout(wake, 50));
    first.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const doneBefore = caseResults(readResults(out)).length;
    expect(doneBefore).toBeGreaterThanOrEqual(5);
    expect(doneBefore).toBeLessThan(total);

    const second = start(out, 0);
    let stdout = "";
    second.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    let stderr = "";
    second.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => second.on("exit", (value) => done(value)));
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("finished");

    const lines = readResults(out);
    const cases = caseResults(lines);
    const ids = cases.map((result) => result.caseId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(total);
    const runs = lines.filter((line) => line.type === "run");
    expect(runs).toHaveLength(2);
    expect(runs[1]).toMatchObject({ alreadyDone: doneBefore, cases: total });
    expect(cases.every((result) => result.success)).toBe(true);
  });
});
