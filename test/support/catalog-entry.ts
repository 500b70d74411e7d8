import type { CatalogEntry } from "../../src/model/catalog.js";

/** A catalog entry for download tests: a small unverified model with the given sources and content, overrides last. */
export function testCatalogEntry(fields: Pick<CatalogEntry, "id" | "title" | "sources" | "sizeBytes" | "sha256">, overrides: Partial<CatalogEntry> = {}): CatalogEntry {
  return {
    fileName: "model.gguf",
    chatFormat: "prompted",
    license: "Apache-2.0",
    parameters: "0",
    quantization: "none",
    verified: false,
    rank: 50,
    ...fields,
    ...overrides,
  };
}
