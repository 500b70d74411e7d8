import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { adapterMetadataPath, sha256OfFile, verifyAdapterBase, type AdapterMetadata } from "../../src/model/lora-adapter.js";
import { loadLlamaModel } from "../../src/model/resolve.js";
import { readTrainingData } from "../../src/tune/train.js";

const modelPath = process.env.BOTPSY_TEST_MODEL!;
const directory = mkdtempSync(join(tmpdir(), "botpsy-adapter-"));

function metadataFor(sha256: string): AdapterMetadata {
  return {
    kind: "botpsy-lora-adapter",
    base: { name: "smollm2-135m-instruct-q4_1", fileName: "SmolLM2-135M-Instruct.Q4_1.gguf", sha256 },
    rank: 16,
    steps: 5,
    seed: 1,
    data: { path: "data.jsonl", examples: 4, sha256: "0".repeat(64) },
    createdAt: "2027-01-01T00:00:00.000Z",
    command: "botpsy tune train --base smollm2-135m-instruct-q4_1 --steps 5",
  };
}

function writeAdapter(name: string, metadata: AdapterMetadata | undefined): string {
  const path = join(directory, name);
  // Only the record is read before loading: the refusal must come before llama.cpp sees the file.
  writeFileSync(path, "GGUF adapter bytes");
  if (metadata !== undefined) writeFileSync(adapterMetadataPath(path), JSON.stringify(metadata));
  return path;
}

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("an adapter is refused on a base it was not trained on", () => {
  it("accepts the base whose sha256 the adapter records", async () => {
    const sha256 = await sha256OfFile(modelPath);
    const adapter = writeAdapter("fits.gguf", metadataFor(sha256));
    await expect(verifyAdapterBase(adapter, modelPath)).resolves.toMatchObject({ base: { sha256 } });
  });

  it("refuses another base, naming both hashes and what to do", async () => {
    const adapter = writeAdapter("other.gguf", metadataFor("a".repeat(64)));
    await expect(verifyAdapterBase(adapter, modelPath)).rejects.toMatchObject({
      code: "adapter_base_mismatch",
      message: expect.stringMatching(/trained on base model smollm2.*a{64}.*botpsy tune train --base/),
    });
  });

  it("refuses an adapter without its record, and a missing adapter", async () => {
    const adapter = writeAdapter("bare.gguf", undefined);
    await expect(verifyAdapterBase(adapter, modelPath)).rejects.toMatchObject({ code: "adapter_metadata_missing" });
    await expect(verifyAdapterBase(join(directory, "absent.gguf"), modelPath)).rejects.toMatchObject({ code: "adapter_file_missing" });
  });

  it("loading a model with --lora on the wrong base fails before the model loads", async () => {
    const adapter = writeAdapter("wrong-base.gguf", metadataFor("b".repeat(64)));
    await expect(loadLlamaModel({ model: modelPath, lora: adapter, threads: 1 })).rejects.toMatchObject({ code: "adapter_base_mismatch" });
  });

  it("training refuses data rendered for another base model", () => {
    const data = join(directory, "data.jsonl");
    writeFileSync(data, `${JSON.stringify({ id: "x", sequences: [], tokenizer: { fileName: "Other.gguf", sha256: "c".repeat(64) } })}\n`);
    expect(() => readTrainingData(data, "d".repeat(64))).toThrow(expect.objectContaining({ code: "tune_data", message: expect.stringContaining("rebuild it with `botpsy tune data --base") }));
    expect(() => readTrainingData(join(directory, "none.jsonl"), "d".repeat(64))).toThrow(expect.objectContaining({ code: "tune_data" }));
  });
});
