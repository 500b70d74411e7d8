import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findCatalogEntry, MODEL_CATALOG, SMOLLM2_ID, type CatalogEntry } from "../../src/model/catalog.js";
import { adapterMetadataPath, readAdapterMetadata, sha256OfFile } from "../../src/model/lora-adapter.js";
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
  it("are in data/adapters with the recorded size and sha256, and a record naming the catalog base by its hash", async () => {
    const shipping = MODEL_CATALOG.filter((entry) => entry.shippedAdapter !== undefined);
    // The offline default ships tuned.
    expect(shipping.map((entry) => entry.id)).toContain(SMOLLM2_ID);
    for (const entry of shipping) {
      const path = await shippedAdapterPath(entry);
      expect(path).toBe(join(shippedAdaptersDirectory(), entry.shippedAdapter!.fileName));
      expect(await sha256OfFile(path!)).toBe(entry.shippedAdapter!.sha256);
      const record = readAdapterMetadata(path!);
      expect(record.kind).toBe("botpsy-lora-adapter");
      expect(record.base.sha256).toBe(entry.sha256);
      expect(adapterMetadataPath(path!)).toBe(`${path}.json`);
    }
  });
});
