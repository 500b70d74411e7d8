import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_VARIABLE, chromiumExecutable, ChromiumMissingError, locateChromium } from "./chromium.js";
import { createRunTempRoot, leftBehind, RUN_TEMP_ROOT_VARIABLE, SYSTEM_TEMP_VARIABLE, TempLeftBehindError, watchedTempEntries } from "./run-temp-root.js";
import { makeTempDir } from "./temp-dir.js";

/**
 * The test run keeps its temporary files to itself (the global setup's temp
 * root, removed at the end; the global teardown fails the run if anything new
 * is left in the system temp directory), and finds its browser.
 */

describe("the run's temp root", () => {
  const runRoot = process.env[RUN_TEMP_ROOT_VARIABLE];
  const systemTemp = process.env[SYSTEM_TEMP_VARIABLE];

  it("is what os.tmpdir() gives a test worker, under .botpsy-test, not the system temp directory", () => {
    expect(runRoot, "set by test/global-setup.ts").toBeTruthy();
    expect(tmpdir()).toBe(runRoot);
    expect(runRoot).toMatch(/[/\\]\.botpsy-test[/\\]tmp[/\\]run-\d+-\d+$/);
    expect(runRoot).not.toBe(systemTemp);
    expect(existsSync(runRoot!)).toBe(true);
  });

  it("is what a child process started with the test's environment uses (as the CLI end-to-end tests start botpsy)", () => {
    const childTemp = execFileSync(process.execPath, ["-e", "process.stdout.write(require('node:os').tmpdir())"], { env: { ...process.env }, encoding: "utf8" });
    expect(childTemp).toBe(runRoot);
  });
});

describe("makeTempDir", () => {
  let madeInTest = "";
  let madeInHook = "";
  beforeAll(() => {
    madeInHook = makeTempDir("botpsy-hook-");
  });

  it("makes a fresh directory under the run's temp root", () => {
    madeInTest = makeTempDir("botpsy-helper-");
    expect(existsSync(madeInTest)).toBe(true);
    expect(madeInTest.startsWith(join(tmpdir(), "botpsy-helper-"))).toBe(true);
    expect(makeTempDir("botpsy-helper-")).not.toBe(madeInTest);
  });

  it("removes a directory made inside a test when that test finishes, and keeps one made in beforeAll for the whole file", () => {
    expect(madeInTest).not.toBe("");
    expect(existsSync(madeInTest)).toBe(false);
    expect(existsSync(madeInHook)).toBe(true);
  });

  it("refuses a prefix that is a path", () => {
    expect(() => makeTempDir("../escape-")).toThrow(/plain name/);
  });
});

describe("the leftover check", () => {
  it("names only watched entries that are new since the run started", () => {
    const before = new Map([["botpsy-old", 100]]);
    const after = new Map([
      ["botpsy-old", 5_000],
      ["botpsy-new", 2_000],
      ["playwright_chromiumdev_profile-x", 2_500],
      ["botpsy-from-before-the-run", 500],
    ]);
    expect(leftBehind(before, after, 1_000)).toEqual(["botpsy-new", "playwright_chromiumdev_profile-x"]);
  });

  it("watches botpsy's and the browser's temp names, not the rest of the directory", () => {
    const directory = makeTempDir("botpsy-watch-");
    for (const name of ["botpsy-eval-1", "playwright-artifacts-2", "unrelated", "systemd-private-x"]) mkdirSync(join(directory, name));
    expect([...watchedTempEntries(directory).keys()].sort()).toEqual(["botpsy-eval-1", "playwright-artifacts-2"]);
  });

  it("explains what to change", () => {
    const error = new TempLeftBehindError("/system-temp", ["botpsy-eval-abc"]);
    expect(error.code).toBe("temp_left_behind");
    expect(error.message).toMatch(/left 1 entry in the system temp directory \/system-temp: botpsy-eval-abc/);
    expect(error.message).toMatch(/makeTempDir/);
  });

  it("removes the temp roots of earlier runs whose process is gone, and keeps those of live ones", () => {
    const parent = makeTempDir("botpsy-roots-");
    // A pid far above any kernel's pid_max belongs to no process.
    mkdirSync(join(parent, "run-999999999-1"));
    mkdirSync(join(parent, `run-${process.pid}-2`));
    mkdirSync(join(parent, "not-a-run"));
    const root = createRunTempRoot(parent, 3);
    expect(root).toBe(join(parent, `run-${process.pid}-3`));
    expect(existsSync(join(parent, "run-999999999-1"))).toBe(false);
    expect(existsSync(join(parent, `run-${process.pid}-2`))).toBe(true);
    expect(existsSync(join(parent, "not-a-run"))).toBe(true);
  });
});

describe("finding Chromium", () => {
  it("finds the browser for this run (installed by the global setup where it was missing)", () => {
    const path = chromiumExecutable();
    expect(existsSync(path)).toBe(true);
    expect(execFileSync(path, ["--version"], { encoding: "utf8" })).toMatch(/Chromium|Chrome/);
  });

  it(`takes ${CHROMIUM_VARIABLE} first, then PATH, then the usual install paths`, () => {
    const directory = makeTempDir("botpsy-chromium-");
    const fake = join(directory, "chromium");
    writeFileSync(fake, "#!/bin/sh\n");
    chmodSync(fake, 0o755);
    const notExecutable = join(directory, "plain-file");
    writeFileSync(notExecutable, "");
    const empty = { commands: ["chromium"], paths: [] };
    expect(locateChromium({ environment: { [CHROMIUM_VARIABLE]: fake, PATH: "" }, ...empty })).toBe(fake);
    expect(locateChromium({ environment: { PATH: `/nonexistent:${directory}` }, ...empty })).toBe(fake);
    expect(locateChromium({ environment: { PATH: "" }, commands: ["chromium"], paths: [notExecutable, fake] })).toBe(fake);
    expect(locateChromium({ environment: { PATH: "" }, ...empty })).toBeUndefined();
  });

  it(`says what to do when ${CHROMIUM_VARIABLE} names nothing runnable`, () => {
    const attempt = (): string | undefined => locateChromium({ environment: { [CHROMIUM_VARIABLE]: "/nonexistent/chromium" } });
    expect(attempt).toThrow(ChromiumMissingError);
    expect(attempt).toThrow(/apt-get install chromium/);
  });
});
