import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SMOLLM2_ID, findCatalogEntry } from "../src/model/catalog.js";
import { pullModel } from "../src/model/download.js";
import { canInstallWithApt, ChromiumMissingError, CHROMIUM_SETUP_PROBLEM_VARIABLE, CHROMIUM_VARIABLE, installChromiumWithApt, locateChromium } from "./support/chromium.js";
import {
  createRunTempRoot,
  leftBehind,
  RUN_TEMP_ROOT_VARIABLE,
  SETUP_PROCESS_VARIABLE,
  SYSTEM_TEMP_VARIABLE,
  TEMP_VARIABLES,
  TempLeftBehindError,
  watchedTempEntries,
} from "./support/run-temp-root.js";

/**
 * Before any test: the run gets a temp root of its own (TMPDIR and friends,
 * inherited by the workers and their child processes); the browser tests get
 * Chromium (found, or installed once where this process may); the model tests
 * get the real SmolLM2 file through BOTPSY_TEST_MODEL (a clean clone has none,
 * so it is pulled through the catalog, sha256 checked; when it is already
 * there it is only verified). Tests run against a home of their own, never
 * the user's ~/.botpsy.
 *
 * After the run: the temp root is removed, and any new botpsy or browser
 * entry in the system temp directory is reported. That report cannot tell
 * this run's leftovers from those of other processes on the machine, so the
 * failing check is test/support/system-temp.test.ts, which runs tests with a
 * system temp directory of their own and finds it empty afterwards.
 *
 * Vitest calls this once for the root project and once for each project in
 * the run; only the first call in this process prepares anything.
 */
export default async function setup(): Promise<() => void> {
  if (process.env[SETUP_PROCESS_VARIABLE] === String(process.pid)) return () => {};
  process.env[SETUP_PROCESS_VARIABLE] = String(process.pid);
  const home = resolve(".botpsy-test");
  const systemTemp = tmpdir();
  const startedAt = Date.now();
  const before = watchedTempEntries(systemTemp);
  const runTempRoot = createRunTempRoot(join(home, "tmp"), startedAt);
  const previous = Object.fromEntries(TEMP_VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of TEMP_VARIABLES) process.env[name] = runTempRoot;
  process.env[RUN_TEMP_ROOT_VARIABLE] = runTempRoot;
  process.env[SYSTEM_TEMP_VARIABLE] = systemTemp;

  const teardown = (): void => {
    rmSync(runTempRoot, { recursive: true, force: true });
    for (const name of TEMP_VARIABLES) {
      if (previous[name] === undefined) delete process.env[name];
      else process.env[name] = previous[name];
    }
    delete process.env[SETUP_PROCESS_VARIABLE];
    const left = leftBehind(before, watchedTempEntries(systemTemp), startedAt);
    if (left.length > 0) process.stderr.write(`warning: ${new TempLeftBehindError(systemTemp, left).message}\n`);
  };

  try {
    prepareChromium();
    await prepareTestModel(home);
  } catch (error) {
    teardown();
    throw error;
  }
  return teardown;
}

function prepareChromium(): void {
  let found: string | undefined;
  try {
    found = locateChromium();
  } catch (error) {
    // BOTPSY_CHROMIUM names nothing runnable: the browser tests fail saying so; the others still run.
    if (error instanceof ChromiumMissingError) return;
    throw error;
  }
  if (found === undefined && canInstallWithApt()) {
    const problem = installChromiumWithApt((line) => process.stderr.write(`${line}\n`));
    if (problem !== undefined) {
      // The browser tests fail with this reason; the others still run.
      process.stderr.write(`browser tests: could not install Chromium: ${problem}\n`);
      process.env[CHROMIUM_SETUP_PROBLEM_VARIABLE] = problem;
    }
    found = locateChromium();
  }
  if (found !== undefined) process.env[CHROMIUM_VARIABLE] = found;
}

async function prepareTestModel(home: string): Promise<void> {
  const models = join(home, "models");
  mkdirSync(models, { recursive: true });
  process.env.BOTPSY_TEST_HOME = home;
  const entry = findCatalogEntry(SMOLLM2_ID);
  if (entry === undefined) throw new Error(`The catalog lost its ${SMOLLM2_ID} entry; the model tests need it.`);
  let lastReport = 0;
  const pulled = await pullModel(entry, {
    directory: models,
    onProgress: (progress) => {
      if (progress.phase === "verify") return;
      const now = Date.now();
      if (now - lastReport < 2000) return;
      lastReport = now;
      const total = progress.total !== undefined ? ` of ${(progress.total / 1e6).toFixed(0)} MB` : "";
      process.stderr.write(`test model: ${progress.phase} ${(progress.bytes / 1e6).toFixed(0)} MB${total}\n`);
    },
  });
  if (pulled.downloaded) process.stderr.write(`test model: pulled ${pulled.path}\n`);
  process.env.BOTPSY_TEST_MODEL = pulled.path;
}
