import { cpSync, existsSync, mkdirSync, linkSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { filesApp } from "../../src/apps/device/files.js";
import { FILES_DIRECTORY_META, resolveSandboxPath, sandboxRoot, writeSandboxFile } from "../../src/apps/device/sandbox.js";
import { Profile } from "../../src/apps/profile.js";
import { StoreError } from "../../src/store/store.js";
import { ToolError, type Tool } from "../../src/tools/tool.js";
import { makeTempDir } from "../support/temp-dir.js";

function tool(name: string): Tool {
  const found = filesApp.tools.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

function openProfile(databasePath: string): Profile {
  return Profile.open({ databasePath, seed: "demo", clock: "2026-12-01T09:00:00Z", timeZone: "Europe/Lisbon", apps: [filesApp] });
}

async function failureCode(promise: Promise<unknown>): Promise<string> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).code;
}

describe("the files sandbox", () => {
  it("of a profile with no home is a temporary folder that goes when the profile closes", () => {
    const profile = Profile.open({ databasePath: ":memory:", apps: [filesApp], seed: "empty" });
    const root = profile.store.getMeta(FILES_DIRECTORY_META)!;
    writeFileSync(join(root, "note.txt"), "kept while open");
    expect(existsSync(root)).toBe(true);
    profile.close();
    expect(existsSync(root)).toBe(false);
  });

  it("refuses a hard link planted in it to a file outside, for reading, writing, copying and searching", async () => {
    const folder = makeTempDir("botpsy-hardlink-");
    const profile = openProfile(join(folder, "profile.db"));
    try {
      const outside = join(makeTempDir("botpsy-outside-"), "secret.txt");
      writeFileSync(outside, "the secret code is 4411");
      const root = profile.store.getMeta(FILES_DIRECTORY_META)!;
      linkSync(outside, join(root, "notes", "innocent.txt"));

      expect(await failureCode(profile.runTool(tool("read_file"), { path: "notes/innocent.txt" }))).toBe("hard_link_in_sandbox");
      expect(await failureCode(profile.runTool(tool("write_file"), { path: "notes/innocent.txt", content: "x", mode: "append" }))).toBe("hard_link_in_sandbox");
      expect(await failureCode(profile.runTool(tool("copy_file"), { from: "notes/innocent.txt", to: "notes/copy.txt" }))).toBe("hard_link_in_sandbox");
      const search = (await profile.runTool(tool("search_files"), { query: "secret" })).value as { results: unknown[] };
      expect(search.results).toEqual([]);
      expect(readFileSync(outside, "utf8")).toBe("the secret code is 4411");
      // Ordinary files still work.
      expect(((await profile.runTool(tool("read_file"), { path: "notes/ideas.md" })).value as { path: string }).path).toBe("notes/ideas.md");
    } finally {
      profile.close();
    }
  });

  it("rolls back, on the next open, a file write whose action never committed (a killed process)", async () => {
    const folder = makeTempDir("botpsy-intents-");
    const databasePath = join(folder, "profile.db");
    const profile = openProfile(databasePath);
    const root = profile.store.getMeta(FILES_DIRECTORY_META)!;
    const intents = join(dirname(root), `.${basename(root)}.intents`);
    const saved = join(folder, "saved-intents");
    // Let the action write its file and intents, keep a copy of them as a kill would leave them, then fail it.
    await profile.store
      .action({ tool: "write_file", args: {} }, (store) => {
        const context = { store, dryRun: false };
        writeSandboxFile(context, resolveSandboxPath(sandboxRoot(store), "drafts/half.txt"), Buffer.from("half written"));
        writeSandboxFile(context, resolveSandboxPath(sandboxRoot(store), "notes/ideas.md"), Buffer.from("overwritten"));
        cpSync(intents, saved, { recursive: true });
        throw new Error("killed");
      })
      .catch(() => undefined);
    expect(existsSync(join(root, "drafts"))).toBe(false);
    expect(readdirSync(intents)).toEqual([]);
    profile.close();

    // The disk as the killed process left it: the files written, the intents there, nothing committed.
    cpSync(saved, intents, { recursive: true });
    writeFileSync(join(root, "notes", "ideas.md"), "overwritten");
    mkdirSync(join(root, "drafts"));
    writeFileSync(join(root, "drafts", "half.txt"), "half written");

    const reopened = openProfile(databasePath);
    try {
      expect(existsSync(join(root, "drafts"))).toBe(false);
      expect(readFileSync(join(root, "notes", "ideas.md"), "utf8")).toContain("# Ideas");
      expect(readdirSync(intents)).toEqual([]);
      expect(reopened.store.history()).toEqual([]);
    } finally {
      reopened.close();
    }
  });

  it("keeps a committed write whose intents were not yet removed", async () => {
    const folder = makeTempDir("botpsy-intents-");
    const databasePath = join(folder, "profile.db");
    const profile = openProfile(databasePath);
    const root = profile.store.getMeta(FILES_DIRECTORY_META)!;
    const intents = join(dirname(root), `.${basename(root)}.intents`);
    const saved = join(folder, "saved-intents");
    await profile.store.action({ tool: "write_file", args: {} }, (store) => {
      writeSandboxFile({ store, dryRun: false }, resolveSandboxPath(sandboxRoot(store), "notes/new.txt"), Buffer.from("kept"));
      cpSync(intents, saved, { recursive: true });
    });
    profile.close();
    cpSync(saved, intents, { recursive: true });
    const reopened = openProfile(databasePath);
    try {
      expect(readFileSync(join(root, "notes", "new.txt"), "utf8")).toBe("kept");
      expect(readdirSync(intents)).toEqual([]);
      expect(reopened.store.history()).toHaveLength(1);
    } finally {
      reopened.close();
    }
  });

  it("refuses a zero-byte profile file with what to do, and never replaces it with a new profile", () => {
    const folder = makeTempDir("botpsy-empty-");
    const databasePath = join(folder, "profile.db");
    writeFileSync(databasePath, "");
    let error: unknown;
    try {
      openProfile(databasePath).close();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: "store_unreadable" });
    expect((error as Error).message).toMatch(/empty \(0 bytes\).*move it aside/);
    expect(readFileSync(databasePath).length).toBe(0);
    // A file that is not a database at all is refused the same way.
    writeFileSync(databasePath, "not a database, just text that is long enough to have a header");
    expect(() => openProfile(databasePath)).toThrow(StoreError);
  });
});
