import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CatalogEntry } from "../../src/model/catalog.js";
import { partialPathFor, pullModel, type PullProgress } from "../../src/model/download.js";
import { ChecksumMismatchError, NoSourceReachableError } from "../../src/model/errors.js";
import { extractZipMember, listZipMembers, ZipArchiveError } from "../../src/model/zip.js";
import { makeTempDir } from "../support/temp-dir.js";
import { testCatalogEntry } from "../support/catalog-entry.js";
import { buildZip } from "../support/zip.js";

const payload = Buffer.from(Array.from({ length: 300_000 }, (_, index) => (index * 7919) % 251));
const payloadSha256 = createHash("sha256").update(payload).digest("hex");

/** A real HTTP file server on 127.0.0.1 that honours Range requests and records what it was asked. */
class RangeFileServer {
  readonly requests: Array<{ path: string; range: string | undefined }> = [];
  /** When set, the next full response is cut off after this many bytes (a dropped connection). */
  cutAfterBytes: number | undefined;
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const range = request.headers.range;
      this.requests.push({ path: request.url ?? "", range });
      if (request.url !== "/model.gguf") {
        response.writeHead(404).end("not found");
        return;
      }
      const match = range !== undefined ? /^bytes=(\d+)-$/.exec(range) : null;
      const start = match !== null ? Number(match[1]) : 0;
      if (start >= payload.length) {
        response.writeHead(416).end();
        return;
      }
      const body = payload.subarray(start);
      response.writeHead(match !== null ? 206 : 200, {
        "content-length": String(body.length),
        ...(match !== null ? { "content-range": `bytes ${start}-${payload.length - 1}/${payload.length}` } : {}),
      });
      if (this.cutAfterBytes !== undefined) {
        const cut = this.cutAfterBytes;
        this.cutAfterBytes = undefined;
        response.write(body.subarray(0, cut), () => setTimeout(() => response.destroy(), 50));
        return;
      }
      response.end(body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

function entryWith(sources: CatalogEntry["sources"], overrides: Partial<CatalogEntry> = {}): CatalogEntry {
  return testCatalogEntry({ id: "test-model", title: "test", sources, sizeBytes: payload.length, sha256: payloadSha256 }, overrides);
}

describe("pullModel", () => {
  const server = new RangeFileServer();
  let baseUrl = "";
  let directory = "";

  beforeAll(async () => {
    baseUrl = await server.start();
  });
  afterAll(async () => {
    await server.stop();
  });
  afterEach(() => {
    server.requests.length = 0;
  });
  const freshDirectory = (): string => {
    directory = makeTempDir("botpsy-pull-");
    return directory;
  };

  it("downloads over HTTP, reports progress, verifies sha256 and renames the partial file only at the end", async () => {
    const target = freshDirectory();
    const progress: PullProgress[] = [];
    const result = await pullModel(entryWith([{ kind: "url", url: `${baseUrl}/model.gguf` }]), {
      directory: target,
      onProgress: (event) => progress.push(event),
    });
    expect(result.downloaded).toBe(true);
    expect(result.sha256).toBe(payloadSha256);
    expect(readFileSync(join(target, "model.gguf")).equals(payload)).toBe(true);
    expect(existsSync(partialPathFor(join(target, "model.gguf")))).toBe(false);
    expect(progress.some((event) => event.phase === "download" && event.bytes === payload.length)).toBe(true);
    expect(progress.some((event) => event.phase === "verify")).toBe(true);
  });

  it("keeps the partial file when the connection drops, and resumes it with a Range request", async () => {
    const target = freshDirectory();
    const entry = entryWith([{ kind: "url", url: `${baseUrl}/model.gguf` }]);
    const partial = partialPathFor(join(target, "model.gguf"));
    server.cutAfterBytes = 100_000;
    await expect(pullModel(entry, { directory: target })).rejects.toBeInstanceOf(NoSourceReachableError);
    expect(existsSync(join(target, "model.gguf"))).toBe(false);
    expect(existsSync(partial) ? statSync(partial).size : 0).toBeLessThan(payload.length);

    // Whatever the drop left, a known partial prefix is continued, not restarted.
    writeFileSync(partial, payload.subarray(0, 123_456));
    const result = await pullModel(entry, { directory: target });
    expect(result.sha256).toBe(payloadSha256);
    expect(server.requests.at(-1)?.range).toBe("bytes=123456-");
    expect(readFileSync(join(target, "model.gguf")).equals(payload)).toBe(true);
  });

  it("tries sources in order: an unreachable one, then a missing one, then one that works", async () => {
    const target = freshDirectory();
    const result = await pullModel(
      entryWith([
        { kind: "url", url: "http://127.0.0.1:9/model.gguf" },
        { kind: "url", url: `${baseUrl}/missing.gguf` },
        { kind: "url", url: `${baseUrl}/model.gguf` },
      ]),
      { directory: target },
    );
    expect(result.source).toEqual({ kind: "url", url: `${baseUrl}/model.gguf` });
  });

  it("refuses a file whose sha256 differs, deletes the partial file and keeps no final file", async () => {
    const target = freshDirectory();
    const wrong = "0".repeat(64);
    const attempt = pullModel(entryWith([{ kind: "url", url: `${baseUrl}/model.gguf` }], { sha256: wrong }), { directory: target });
    await expect(attempt).rejects.toBeInstanceOf(ChecksumMismatchError);
    await expect(attempt).rejects.toMatchObject({ code: "checksum_mismatch" });
    expect(existsSync(join(target, "model.gguf"))).toBe(false);
    expect(existsSync(partialPathFor(join(target, "model.gguf")))).toBe(false);
  });

  it("says which sources it tried when none can be reached", async () => {
    const target = freshDirectory();
    const attempt = pullModel(
      entryWith([
        { kind: "url", url: "http://127.0.0.1:9/model.gguf" },
        { kind: "file", path: join(target, "nowhere.gguf") },
      ]),
      { directory: target },
    );
    await expect(attempt).rejects.toBeInstanceOf(NoSourceReachableError);
    await expect(attempt).rejects.toThrow(/127\.0\.0\.1:9[\s\S]*nowhere\.gguf/);
  });

  it("copies from a local file source, resuming a partial copy, and verifies an already present file", async () => {
    const target = freshDirectory();
    const sourcePath = join(target, "source.bin");
    writeFileSync(sourcePath, payload);
    writeFileSync(partialPathFor(join(target, "model.gguf")), payload.subarray(0, 1234));
    const entry = entryWith([{ kind: "file", path: sourcePath }]);
    const first = await pullModel(entry, { directory: target });
    expect(first.downloaded).toBe(true);
    expect(readFileSync(first.path).equals(payload)).toBe(true);
    const second = await pullModel(entry, { directory: target });
    expect(second.downloaded).toBe(false);
  });
});

describe("zip extraction", () => {
  it("lists members and extracts stored and deflated ones byte for byte", async () => {
    const directory = makeTempDir("botpsy-zip-");
    const archive = join(directory, "package-0.1.0-py3-none-any.whl");
    const text = Buffer.from("metadata\n".repeat(100));
    writeFileSync(
      archive,
      buildZip([
        { name: "package/METADATA", data: text, deflate: true },
        { name: "package/model.gguf", data: payload, deflate: false },
        { name: "package/packed.gguf", data: payload, deflate: true },
      ]),
    );
    const members = await listZipMembers(archive);
    expect(members.map((member) => member.name)).toEqual(["package/METADATA", "package/model.gguf", "package/packed.gguf"]);
    for (const name of ["package/model.gguf", "package/packed.gguf"]) {
      const out = join(directory, "out.gguf");
      let lastBytes = 0;
      await extractZipMember(archive, name, out, { onBytes: (bytes) => (lastBytes = bytes) });
      expect(readFileSync(out).equals(payload)).toBe(true);
      expect(lastBytes).toBe(payload.length);
    }
    await expect(extractZipMember(archive, "package/absent.gguf", join(directory, "x"))).rejects.toBeInstanceOf(ZipArchiveError);
    writeFileSync(join(directory, "broken.whl"), payload.subarray(0, 5000));
    await expect(listZipMembers(join(directory, "broken.whl"))).rejects.toThrow(/not a zip file/);
  });
});
