import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, onTestFinished, TestRunner } from "vitest";

/**
 * Temporary directories for tests, removed when they are no longer needed:
 * one made inside a test goes when that test finishes; one made in a hook or
 * while the file is collected goes when the file's tests are done. They live
 * under `os.tmpdir()`, which the global setup points at the run's own temp root
 * (removed at the end of the run), so even a killed worker leaves nothing in
 * the system temp directory.
 */

const madeForFile = new Set<string>();

function remove(directory: string): void {
  rmSync(directory, { recursive: true, force: true });
  madeForFile.delete(directory);
}

// Registered when a test file imports this module, so it belongs to that file's root suite.
afterAll(() => {
  for (const directory of [...madeForFile]) remove(directory);
});

/** A fresh directory named `<prefix><random>` under the run's temp root, removed after use. */
export function makeTempDir(prefix: string): string {
  if (!/^[\w.-]+$/.test(prefix)) throw new Error(`A temp-dir prefix is a plain name (letters, digits, . _ -), not "${prefix}".`);
  const directory = mkdtempSync(join(tmpdir(), prefix));
  madeForFile.add(directory);
  // Outside a test (a beforeAll hook, the file's top level) the afterAll above removes it.
  if (TestRunner.getCurrentTest() !== undefined) onTestFinished(() => remove(directory));
  return directory;
}
