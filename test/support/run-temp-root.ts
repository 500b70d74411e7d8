import { lstatSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * The test run's own temp root. The global setup creates it before the test
 * workers start and points TMPDIR, TEMP and TMP at it, so every worker and
 * every child process they start (the CLI end-to-end tests, Chromium's
 * profile) makes its temporary files there; the global teardown removes it
 * and reports anything new in the system temp directory.
 */

export const TEMP_VARIABLES = ["TMPDIR", "TEMP", "TMP"] as const;
/** Set for the workers: the run's temp root, and the system temp directory it replaced. */
export const RUN_TEMP_ROOT_VARIABLE = "BOTPSY_TEST_TEMP_ROOT";
export const SYSTEM_TEMP_VARIABLE = "BOTPSY_TEST_SYSTEM_TEMP";
/** The process whose global setup prepared the run (a nested test run prepares its own). */
export const SETUP_PROCESS_VARIABLE = "BOTPSY_TEST_SETUP_PROCESS";

/** Names of the temporary entries botpsy's code and tests make (and Chromium's, for the browser tests). */
export const WATCHED_TEMP_NAMES = /^(botpsy-|playwright[_-])/;

const RUN_NAME = /^run-(\d+)-\d+$/;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Creates `<parent>/run-<pid>-<time>`, first removing the roots of earlier runs whose process is gone (killed runs never reach their teardown). */
export function createRunTempRoot(parent: string, now: number = Date.now()): string {
  mkdirSync(parent, { recursive: true });
  for (const name of readdirSync(parent)) {
    const pid = RUN_NAME.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) rmSync(join(parent, name), { recursive: true, force: true });
  }
  const root = join(parent, `run-${process.pid}-${now}`);
  mkdirSync(root);
  return root;
}

/** The watched entries of `directory`, each with the time it last changed (ms). */
export function watchedTempEntries(directory: string): Map<string, number> {
  const entries = new Map<string, number>();
  for (const name of readdirSync(directory)) {
    if (!WATCHED_TEMP_NAMES.test(name)) continue;
    try {
      entries.set(name, lstatSync(join(directory, name)).ctimeMs);
    } catch {
      // Removed between the listing and the stat: not there any more.
    }
  }
  return entries;
}

/** Watched entries in `after` that were not in `before` and appeared since `since` (ms): what a run left behind. */
export function leftBehind(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>, since: number): string[] {
  return [...after].filter(([name, changed]) => !before.has(name) && changed >= since).map(([name]) => name).sort();
}

export class TempLeftBehindError extends Error {
  readonly code = "temp_left_behind";
  constructor(directory: string, names: readonly string[]) {
    const shown = names.slice(0, 10).join(", ") + (names.length > 10 ? `, and ${names.length - 10} more` : "");
    super(
      `The test run left ${names.length} entr${names.length === 1 ? "y" : "ies"} in the system temp directory ${directory}: ${shown}. ` +
        `Something wrote there instead of os.tmpdir() (a hard-coded /tmp, or a child process started without the run's environment); ` +
        `make it use makeTempDir from test/support/temp-dir.ts or pass { ...process.env } to the child ` +
        `(other processes on this machine, such as another botpsy test run, can also put entries there).`,
    );
    this.name = "TempLeftBehindError";
  }
}
