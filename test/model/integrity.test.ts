import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CatalogEntry } from "../../src/model/catalog.js";
import { pullModel } from "../../src/model/download.js";
import { readModelInfo } from "../../src/model/info.js";
import { checkModelFile, describeModelFileState, quarantineModelFile, verifiedStampPath } from "../../src/model/integrity.js";

const testModel = join(process.cwd(), ".botpsy-test", "models", "SmolLM2-135M-Instruct.Q4_1.gguf");

function entryFor(content: Buffer, sourcePath: string): CatalogEntry {
  return {
    id: "test-model",
    title: "test",
    fileName: "model.gguf",
    sources: [{ kind: "file", path: sourcePath }],
    sizeBytes: content.length,
    sha256: createHash("sha256").update(content).digest("hex"),
    chatFormat: "prompted",
    license: "test",
    parameters: "0",
    quantization: "none",
    verified: true,
    rank: 99,
  };
}

describe("model file integrity", () => {
  it("checks size and sha256 against the catalog, and remembers a verified file", async () => {
    const directory = mkdtempSync(join(tmpdir(), "botpsy-integrity-"));
    const content = Buffer.from("the whole model file, byte for byte");
    const path = join(directory, "model.gguf");
    const entry = entryFor(content, path);
    writeFileSync(path, content);
    expect(await checkModelFile(path, entry)).toMatchObject({ state: "ok", sha256: entry.sha256 });
    expect(existsSync(verifiedStampPath(path))).toBe(true);

    writeFileSync(path, content.subarray(0, 10));
    const cut = await checkModelFile(path, entry);
    expect(cut).toEqual({ state: "wrong_size", sizeBytes: 10, expectedBytes: content.length });
    expect(describeModelFileState(cut)).toContain("corrupt: 10 bytes");

    writeFileSync(path, Buffer.from(content.toString().toUpperCase()));
    expect((await checkModelFile(path, entry)).state).toBe("checksum_mismatch");
    expect(await checkModelFile(join(directory, "absent.gguf"), entry)).toEqual({ state: "missing" });
  });

  it("on pull, moves a corrupt file aside and fetches it again", async () => {
    const directory = mkdtempSync(join(tmpdir(), "botpsy-integrity-"));
    const content = Buffer.from("a complete model from the mirror");
    const source = join(directory, "mirror.gguf");
    writeFileSync(source, content);
    const models = join(directory, "models");
    const entry = entryFor(content, source);
    const first = await pullModel(entry, { directory: models });
    expect(first.downloaded).toBe(true);
    // Cut short, as an interrupted copy leaves it.
    writeFileSync(first.path, content.subarray(0, 5));
    const reports: string[] = [];
    const again = await pullModel(entry, { directory: models, onCorruptFile: (report) => reports.push(report.movedTo) });
    expect(again.downloaded).toBe(true);
    expect(readFileSync(again.path)).toEqual(content);
    expect(reports).toHaveLength(1);
    expect(readFileSync(reports[0]!).length).toBe(5);
    expect(readdirSync(models).some((name) => name.startsWith("model.gguf.corrupt-"))).toBe(true);
    const aside = await quarantineModelFile(again.path, new Date("2026-12-01T09:00:00Z"));
    expect(aside).toBe(`${again.path}.corrupt-2026-12-01T09-00-00-000Z`);
  });

  it("finds a GGUF file whose weights were cut short, though its header reads", async () => {
    const whole = await readModelInfo(testModel);
    expect(whole.architecture).toBe("llama");
    const directory = mkdtempSync(join(tmpdir(), "botpsy-integrity-"));
    const truncated = join(directory, "truncated.gguf");
    const keep = Buffer.alloc(40_000_000);
    const descriptor = openSync(testModel, "r");
    readSync(descriptor, keep, 0, keep.length, 0);
    closeSync(descriptor);
    writeFileSync(truncated, keep);
    await expect(readModelInfo(truncated)).rejects.toMatchObject({ code: "model_file_truncated" });
  });
});
