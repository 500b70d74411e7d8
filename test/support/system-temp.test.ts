import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { RUN_TEMP_ROOT_VARIABLE, SETUP_PROCESS_VARIABLE, SYSTEM_TEMP_VARIABLE, TEMP_VARIABLES } from "./run-temp-root.js";
import { makeTempDir } from "./temp-dir.js";

/**
 * Proof that a test run leaves the system temp directory as it found it. The
 * real system temp directory is shared with every other process on the
 * machine, so nothing there can be pinned on one run; instead this runs test
 * files in a nested test run whose "system" temp directory is a fresh, private
 * folder, and finds that folder empty afterwards. The files chosen are those
 * that make temporary files every way the suite does: profiles with a files
 * sandbox (the scenario runner), the CLI as a child process (undo and the
 * audit log), and Chromium (the report's charts).
 */
const FILES_THAT_MAKE_TEMPORARY_FILES = ["test/eval/runner.test.ts", "test/policy/undo-audit.test.ts", "test/eval/report.test.ts"];
const NESTED_RUN_TIMEOUT_MS = 480_000;

function runVitest(files: readonly string[], systemTemp: string): Promise<{ code: number | null; output: string }> {
  const environment: NodeJS.ProcessEnv = { ...process.env };
  // The nested run prepares its own temp root, as a fresh `npm test` would.
  for (const name of [RUN_TEMP_ROOT_VARIABLE, SYSTEM_TEMP_VARIABLE, SETUP_PROCESS_VARIABLE]) delete environment[name];
  for (const name of TEMP_VARIABLES) environment[name] = systemTemp;
  // Plain text, so the summary line can be read.
  delete environment.FORCE_COLOR;
  environment.NO_COLOR = "1";
  const child = spawn(process.execPath, [resolve("node_modules/vitest/vitest.mjs"), "run", ...files], { env: environment, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((done, fail) => {
    child.on("error", fail);
    child.on("close", (code) => done({ code, output }));
  });
}

function typeScriptFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * What the nested run cannot see: a temp directory made somewhere other than
 * os.tmpdir(), or a child process started without the parent's environment
 * (it would miss the run's TMPDIR and fall back to the system temp directory).
 */
export function tempProblems(file: string, source: string): string[] {
  const problems: string[] = [];
  for (const match of source.matchAll(/\bmkdtemp(?:Sync)?\(\s*/g)) {
    const made = source.slice(match.index + match[0].length);
    if (!made.startsWith("join(tmpdir(),")) problems.push(`${file}: mkdtemp outside os.tmpdir(): ${match[0]}${made.slice(0, 40)}`);
  }
  for (const match of source.matchAll(/\benv:\s*\{([^}]*)\}/g)) {
    if (!match[1]!.includes("...process.env")) problems.push(`${file}: a child environment without ...process.env: ${match[0]}`);
  }
  return problems;
}

describe("a test run and the system temp directory", () => {
  it("makes temp directories only under os.tmpdir(), and starts child processes with the parent's environment", () => {
    // This file's own examples of unsafe code are meant to be found.
    const files = ["src", "test", "bench"].flatMap(typeScriptFiles).filter((file) => file !== join("test", "support", "system-temp.test.ts"));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => tempProblems(file, readFileSync(file, "utf8")))).toEqual([]);
  });

  it("tells a safe temp directory and child environment from an unsafe one", () => {
    expect(tempProblems("ok.ts", 'mkdtempSync(join(tmpdir(), "botpsy-x-")); spawn(node, [], { env: { ...process.env, A: "1" } });')).toEqual([]);
    expect(tempProblems("bad.ts", 'mkdtempSync("/var/tmp/botpsy-x-");')).toHaveLength(1);
    expect(tempProblems("bad.ts", 'spawn(node, [], { env: { BOTPSY_HOME: home } });')).toHaveLength(1);
  });

  it("leaves it as it found it", { timeout: NESTED_RUN_TIMEOUT_MS }, async () => {
    const systemTemp = makeTempDir("botpsy-system-temp-");
    const run = await runVitest(FILES_THAT_MAKE_TEMPORARY_FILES, systemTemp);
    expect(run.code, run.output.slice(-4000)).toBe(0);
    expect(run.output).toMatch(new RegExp(`Test Files\\s+(\\S+\\s+)?${FILES_THAT_MAKE_TEMPORARY_FILES.length} passed`));
    expect(readdirSync(systemTemp), run.output.slice(-4000)).toEqual([]);
  });
});
