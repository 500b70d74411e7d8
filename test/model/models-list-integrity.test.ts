import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { resolve, join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { findCatalogEntry, SMOLLM2_ID } from "../../src/model/catalog.js";
import { makeTempDir } from "../support/temp-dir.js";

const run = promisify(execFile);

describe("botpsy models list", () => {
  it("reports a cut-short default model as corrupt, not present, and says the next run fetches it again", { timeout: 60_000 }, async () => {
    const home = makeTempDir("botpsy-models-list-");
    const entry = findCatalogEntry(SMOLLM2_ID)!;
    mkdirSync(join(home, "models"), { recursive: true });
    // The first kilobyte of a 98 MB file, as an interrupted copy leaves it.
    writeFileSync(join(home, "models", entry.fileName), Buffer.alloc(1024, 1));
    const env = { ...process.env, BOTPSY_HOME: home };
    const cli = ["--import", "tsx", resolve("src/cli/main.ts"), "models", "list"];

    const listed = JSON.parse((await run(process.execPath, [...cli, "--json"], { env })).stdout) as {
      default: string | null;
      defaultCorrupt?: boolean;
      models: { entry: { id: string }; integrity?: { state: string } }[];
    };
    expect(listed.default).toBe(SMOLLM2_ID);
    expect(listed.defaultCorrupt).toBe(true);
    expect(listed.models.find((model) => model.entry.id === SMOLLM2_ID)?.integrity?.state).toBe("wrong_size");

    const table = (await run(process.execPath, cli, { env })).stdout;
    expect(table).toContain("corrupt");
    expect(table).not.toMatch(new RegExp(`${SMOLLM2_ID} \\*\\s+present`));
    expect(table).toContain(`fetches ${SMOLLM2_ID} again`);
  });
});
