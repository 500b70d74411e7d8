import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readGgufFileInfo } from "node-llama-cpp";
import { afterAll, describe, expect, it } from "vitest";
import { findCatalogEntry, MODEL_CATALOG, SMOLLM2_ID, type CatalogEntry } from "../../src/model/catalog.js";
import { adapterMetadataPath, adapterName, listAdapters, readAdapterMetadata, recordedCallBias, recordedForcedCallFloor, sha256OfFile } from "../../src/model/lora-adapter.js";
import { chooseAdapter, NO_ADAPTER, shippedAdapterPath, shippedAdaptersDirectory, tunedModelId } from "../../src/model/shipped-adapter.js";

const directory = mkdtempSync(join(tmpdir(), "botpsy-shipped-adapter-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const bytes = Buffer.from("a LoRA adapter's bytes");
writeFileSync(join(directory, "tuned.gguf"), bytes);
const sha256 = createHash("sha256").update(bytes).digest("hex");
const base = findCatalogEntry(SMOLLM2_ID)!;

function entryWith(shipped: CatalogEntry["shippedAdapter"]): CatalogEntry {
  const { shippedAdapter: _shipped, ...rest } = base;
  return { ...rest, id: `test-${Math.random()}`, ...(shipped !== undefined ? { shippedAdapter: shipped } : {}) };
}

describe("the adapter a model loads with", () => {
  it("is the shipped one by default, the one asked for when named, and none for --lora none", async () => {
    const entry = entryWith({ fileName: "tuned.gguf", sizeBytes: bytes.length, sha256 });
    await expect(chooseAdapter(undefined, entry, directory)).resolves.toBe(join(directory, "tuned.gguf"));
    await expect(chooseAdapter("/elsewhere/mine.gguf", entry, directory)).resolves.toBe("/elsewhere/mine.gguf");
    await expect(chooseAdapter(NO_ADAPTER, entry, directory)).resolves.toBeUndefined();
    await expect(chooseAdapter(" None ", entry, directory)).resolves.toBeUndefined();
    // A model given by path, or a catalog model without a shipped adapter, loads as it is.
    await expect(chooseAdapter(undefined, undefined, directory)).resolves.toBeUndefined();
    await expect(chooseAdapter(undefined, entryWith(undefined), directory)).resolves.toBeUndefined();
  });

  it("refuses a shipped adapter that is missing, cut short or altered, and says how to go on", async () => {
    const missing = entryWith({ fileName: "absent.gguf", sizeBytes: bytes.length, sha256 });
    await expect(shippedAdapterPath(missing, directory)).rejects.toMatchObject({ code: "shipped_adapter_corrupt", message: expect.stringMatching(/is missing.*Reinstall botpsy.*--lora none/) });
    const short = entryWith({ fileName: "tuned.gguf", sizeBytes: bytes.length + 1, sha256 });
    await expect(shippedAdapterPath(short, directory)).rejects.toMatchObject({ code: "shipped_adapter_corrupt", message: expect.stringContaining(`has ${bytes.length} bytes`) });
    const altered = entryWith({ fileName: "tuned.gguf", sizeBytes: bytes.length, sha256: "0".repeat(64) });
    await expect(shippedAdapterPath(altered, directory)).rejects.toMatchObject({ code: "shipped_adapter_corrupt", message: expect.stringContaining(`has sha256 ${sha256}`) });
  });

  it("names the adapter in the model's id, so results of a tuned model are never taken for the base's", () => {
    expect(tunedModelId("smollm2-135m-instruct-q4_1", undefined)).toBe("smollm2-135m-instruct-q4_1");
    expect(tunedModelId("smollm2-135m-instruct-q4_1", "/x/smollm2-botpsy-v1.gguf")).toBe("smollm2-135m-instruct-q4_1+lora:smollm2-botpsy-v1");
  });
});

describe("the adapters botpsy ships", () => {
  it("are in data/adapters, each with a record naming its catalog base by the base's hash; a catalog entry's adapter matches its recorded size and sha256", async () => {
    const shipped = listAdapters(shippedAdaptersDirectory());
    expect(shipped.map((adapter) => adapterName(adapter.path))).toEqual(expect.arrayContaining(["smollm2-135m-instruct-q4_1-botpsy-v1", "smollm2-135m-instruct-q4_1-botpsy-v2", "smollm2-135m-instruct-q4_1-botpsy-v3", "smollm2-135m-instruct-q4_1-botpsy-v4x2", "gemma3-270m-q4_k_m-botpsy-v3", "gemma3-270m-q4_k_m-botpsy-v4x3"]));
    for (const adapter of shipped) {
      const record = readAdapterMetadata(adapter.path);
      expect(record.kind).toBe("botpsy-lora-adapter");
      expect(MODEL_CATALOG.find((entry) => entry.id === record.base.name)?.sha256).toBe(record.base.sha256);
    }
    for (const entry of MODEL_CATALOG.filter((candidate) => candidate.shippedAdapter !== undefined)) {
      const path = await shippedAdapterPath(entry);
      expect(await sha256OfFile(path!)).toBe(entry.shippedAdapter!.sha256);
      expect(adapterMetadataPath(path!)).toBe(`${path}.json`);
    }
  });

  it("name themselves and their base by catalog name inside the GGUF, with no path of the machine that trained them", async () => {
    const shipped = listAdapters(shippedAdaptersDirectory());
    for (const adapter of shipped) {
      const { metadata } = await readGgufFileInfo(adapter.path, { readTensorInfo: false });
      const general = metadata.general as unknown as Record<string, unknown>;
      expect(general.type, adapter.path).toBe("adapter");
      expect(general.name, adapter.path).toBe(adapterName(adapter.path));
      expect(general.base_model, adapter.path).toEqual({ count: 1, 0: { name: readAdapterMetadata(adapter.path).base.name } });
      expect(general.tags, adapter.path).toEqual(["lora", "botpsy"]);
      expect(JSON.stringify(metadata), adapter.path).not.toMatch(/\/(root|home|work|tmp|Users)\/|huggingface\.co|\.botpsy/);
    }
  });

  /** The record of the adapter a catalog entry ships. */
  const shippedRecord = (id: string) => {
    const entry = MODEL_CATALOG.find((candidate) => candidate.id === id)!;
    expect(entry.shippedAdapter, id).toBeDefined();
    return readAdapterMetadata(join(shippedAdaptersDirectory(), entry.shippedAdapter!.fileName));
  };

  it("apply by default on both verified bases, each with the call bias its dev-split sweep chose", () => {
    expect(recordedCallBias(shippedRecord("smollm2-135m-instruct-q4_1"))).toBe(-5);
    expect(recordedCallBias(shippedRecord("gemma3-270m-q4_k_m"))).toBe(-4);
  });

  it("carry the forced-call floor the dev splits chose: Gemma's 1.5, none for SmolLM2 (its weighed floor failed its confirmation run)", () => {
    expect(recordedForcedCallFloor(shippedRecord("smollm2-135m-instruct-q4_1"))).toBeUndefined();
    expect(recordedForcedCallFloor(shippedRecord("gemma3-270m-q4_k_m"))).toBe(1.5);
  });
});
