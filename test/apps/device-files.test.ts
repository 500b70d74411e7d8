import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { filesApp } from "../../src/apps/device/files.js";
import { FILES_DIRECTORY_META, resolveSandboxPath, writeSandboxFile } from "../../src/apps/device/sandbox.js";
import { Profile } from "../../src/apps/profile.js";
import { failure, risks, toolFinder } from "./support.js";

const CLOCK = "2026-12-01T09:00:00Z";
const ZONE = "Europe/Lisbon";
const folders: string[] = [];

function temporaryFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "botpsy-files-test-"));
  folders.push(folder);
  return folder;
}

function openProfile(databasePath = join(temporaryFolder(), "profile.db")): Profile {
  return Profile.open({ databasePath, seed: "demo", clock: CLOCK, timeZone: ZONE, apps: [filesApp] });
}

const tool = toolFinder(filesApp);

function root(profile: Profile): string {
  const folder = profile.store.getMeta(FILES_DIRECTORY_META);
  if (!folder) throw new Error("no sandbox");
  return folder;
}

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("files app", () => {
  it("declares the risk class of every tool", () => {
    expect(risks(filesApp)).toEqual({
      list_files: "read",
      read_file: "read",
      write_file: "write",
      create_folder: "write",
      move_file: "write",
      copy_file: "write",
      delete_file: "destructive",
      search_files: "read",
    });
    expect(tool("read_file").resultTrust).toBe("untrusted");
  });

  it("keeps the sandbox beside the database and seeds real files", async () => {
    const folder = temporaryFolder();
    const profile = openProfile(join(folder, "sam.db"));
    expect(root(profile)).toBe(join(folder, "sam", "files"));
    const listing = (await profile.runTool(tool("list_files"), {})).value as { entries: { name: string; type: string }[] };
    expect(listing.entries.map((entry) => entry.name)).toEqual(["documents", "notes", "work"]);
    const notes = (await profile.runTool(tool("list_files"), { folder: "notes" })).value as { entries: { path: string }[] };
    expect(notes.entries.map((entry) => entry.path)).toContain("notes/ideas.md");
    profile.close();
  });

  it("a :memory: profile gets a temporary sandbox", async () => {
    const profile = openProfile(":memory:");
    expect(existsSync(join(root(profile), "notes", "ideas.md"))).toBe(true);
    profile.close();
  });

  it("reads, writes, appends and refuses to clobber", async () => {
    const profile = openProfile();
    const read = (await profile.runTool(tool("read_file"), { path: "notes/ideas.md" })).value as { content: string };
    expect(read.content).toMatch(/Sintra/);
    await profile.runTool(tool("write_file"), { path: "notes/todo.txt", content: "Buy milk\n" });
    expect(readFileSync(join(root(profile), "notes", "todo.txt"), "utf8")).toBe("Buy milk\n");
    const clobber = await failure(profile.runTool(tool("write_file"), { path: "notes/todo.txt", content: "x" }));
    expect(clobber.code).toBe("file_exists");
    expect(clobber.message).toMatch(/mode="overwrite"/);
    await profile.runTool(tool("write_file"), { path: "notes/todo.txt", content: "Call mom\n", mode: "append" });
    expect(readFileSync(join(root(profile), "notes", "todo.txt"), "utf8")).toBe("Buy milk\nCall mom\n");
    await profile.runTool(tool("write_file"), { path: "new/deep/file.txt", content: "made folders" });
    expect(readFileSync(join(root(profile), "new", "deep", "file.txt"), "utf8")).toBe("made folders");
    expect((await failure(profile.runTool(tool("read_file"), { path: "nope.txt" }))).code).toBe("file_not_found");
    expect((await failure(profile.runTool(tool("read_file"), { path: "notes" }))).code).toBe("is_a_folder");
    writeFileSync(join(root(profile), "image.bin"), Buffer.from([0, 1, 2, 255]));
    expect((await failure(profile.runTool(tool("read_file"), { path: "image.bin" }))).code).toBe("not_text");
    profile.close();
  });

  it("refuses paths that leave the sandbox: .., absolute paths outside, symlinks out", async () => {
    const profile = openProfile();
    const outside = temporaryFolder();
    writeFileSync(join(outside, "secret.txt"), "secret");
    expect((await failure(profile.runTool(tool("read_file"), { path: "../profile.db" }))).code).toBe("path_outside_sandbox");
    expect((await failure(profile.runTool(tool("read_file"), { path: "notes/../../x" }))).message).toMatch(/\.\./);
    expect((await failure(profile.runTool(tool("read_file"), { path: join(outside, "secret.txt") }))).code).toBe("path_outside_sandbox");
    symlinkSync(outside, join(root(profile), "escape"));
    expect((await failure(profile.runTool(tool("read_file"), { path: "escape/secret.txt" }))).code).toBe("symlink_outside_sandbox");
    expect((await failure(profile.runTool(tool("write_file"), { path: "escape/new.txt", content: "x" }))).code).toBe(
      "symlink_outside_sandbox",
    );
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
    symlinkSync(join(outside, "secret.txt"), join(root(profile), "link.txt"));
    expect((await failure(profile.runTool(tool("read_file"), { path: "link.txt" }))).code).toBe("symlink_outside_sandbox");
    // An absolute path inside the sandbox is fine.
    const inside = (await profile.runTool(tool("read_file"), { path: join(root(profile), "notes", "ideas.md") })).value as { path: string };
    expect(inside.path).toBe("notes/ideas.md");
    profile.close();
  });

  it("moves, copies and deletes, each undoable", async () => {
    const profile = openProfile();
    const base = root(profile);
    await profile.runTool(tool("move_file"), { from: "notes/packing-list.txt", to: "documents/packing.txt" });
    expect(existsSync(join(base, "notes", "packing-list.txt"))).toBe(false);
    expect(readFileSync(join(base, "documents", "packing.txt"), "utf8")).toMatch(/passport/);
    await profile.runTool(tool("copy_file"), { from: "documents/packing.txt", to: "notes" });
    expect(existsSync(join(base, "notes", "packing.txt"))).toBe(true);
    expect((await failure(profile.runTool(tool("copy_file"), { from: "documents/packing.txt", to: "notes/packing.txt" }))).code).toBe(
      "file_exists",
    );
    await profile.runTool(tool("delete_file"), { path: "notes/packing.txt" });
    expect(existsSync(join(base, "notes", "packing.txt"))).toBe(false);
    expect((await failure(profile.runTool(tool("delete_file"), { path: "notes" }))).code).toBe("folder_not_empty");
    expect((await failure(profile.runTool(tool("delete_file"), { path: "ghost.txt" }))).code).toBe("file_not_found");

    const undone = await profile.store.undo(3);
    expect(undone.map((action) => action.tool)).toEqual(["delete_file", "copy_file", "move_file"]);
    expect(existsSync(join(base, "notes", "packing.txt"))).toBe(false);
    expect(existsSync(join(base, "documents", "packing.txt"))).toBe(false);
    expect(readFileSync(join(base, "notes", "packing-list.txt"), "utf8")).toMatch(/passport/);
    profile.close();
  });

  it("undo of a write restores the old content and removes folders it made", async () => {
    const profile = openProfile();
    const base = root(profile);
    await profile.runTool(tool("write_file"), { path: "notes/ideas.md", content: "replaced", mode: "overwrite" });
    await profile.runTool(tool("write_file"), { path: "fresh/one.txt", content: "1" });
    await profile.runTool(tool("create_folder"), { path: "empty/inner" });
    await profile.store.undo(3);
    expect(readFileSync(join(base, "notes", "ideas.md"), "utf8")).toMatch(/Sintra/);
    expect(existsSync(join(base, "fresh"))).toBe(false);
    expect(existsSync(join(base, "empty"))).toBe(false);
    profile.close();
  });

  it("undo refuses when the file changed again outside the action", async () => {
    const profile = openProfile();
    await profile.runTool(tool("write_file"), { path: "a.txt", content: "one" });
    writeFileSync(join(root(profile), "a.txt"), "edited by hand");
    await expect(profile.store.undo()).rejects.toMatchObject({ code: "undo_conflict" });
    expect(readFileSync(join(root(profile), "a.txt"), "utf8")).toBe("edited by hand");
    profile.close();
  });

  it("undo of a move whose source was re-created since loses nothing", async () => {
    const profile = openProfile();
    const base = root(profile);
    await profile.runTool(tool("move_file"), { from: "notes/ideas.md", to: "ideas.md" });
    writeFileSync(join(base, "notes", "ideas.md"), "a new file in the old place");
    await expect(profile.store.undo()).rejects.toMatchObject({ code: "undo_conflict" });
    expect(readFileSync(join(base, "ideas.md"), "utf8")).toMatch(/Sintra/);
    expect(readFileSync(join(base, "notes", "ideas.md"), "utf8")).toBe("a new file in the old place");
    profile.close();
  });

  it("a dry run touches nothing on disk", async () => {
    const profile = openProfile();
    await profile.runTool(tool("write_file"), { path: "dry.txt", content: "x" }, { dryRun: true });
    await profile.runTool(tool("delete_file"), { path: "notes/ideas.md" }, { dryRun: true });
    expect(existsSync(join(root(profile), "dry.txt"))).toBe(false);
    expect(existsSync(join(root(profile), "notes", "ideas.md"))).toBe(true);
    expect(profile.store.history()).toHaveLength(0);
    profile.close();
  });

  it("searches by name and by content", async () => {
    const profile = openProfile();
    const byName = (await profile.runTool(tool("search_files"), { query: "budget" })).value as { results: { path: string; match: string }[] };
    expect(byName.results).toContainEqual({ path: "documents/budget-2026.csv", match: "name" });
    const byContent = (await profile.runTool(tool("search_files"), { query: "roadmap" })).value as {
      results: { path: string; match: string; snippet?: string }[];
    };
    expect(byContent.results[0]).toMatchObject({ path: "notes/meeting-notes.md", match: "content" });
    expect(byContent.results[0]?.snippet).toMatch(/roadmap/);
    const scoped = (await profile.runTool(tool("search_files"), { query: "roadmap", folder: "work" })).value as { results: unknown[] };
    expect(scoped.results).toHaveLength(0);
    expect((await failure(profile.runTool(tool("search_files"), { query: "x", folder: "nowhere" }))).code).toBe("folder_not_found");
    profile.close();
  });

  it("files and their journal survive a reopened database", async () => {
    const path = join(temporaryFolder(), "profile.db");
    const first = openProfile(path);
    await first.runTool(tool("write_file"), { path: "kept.txt", content: "still here" });
    first.close();
    const second = openProfile(path);
    const read = (await second.runTool(tool("read_file"), { path: "kept.txt" })).value as { content: string };
    expect(read.content).toBe("still here");
    await second.store.undo();
    expect(existsSync(join(root(second), "kept.txt"))).toBe(false);
    expect(filesApp.view(second.store.read((tx) => tx), second.environment).text).toMatch(/notes\/ideas\.md/);
    second.close();
  });

  it("lists an empty folder and refuses listing a file or a missing folder", async () => {
    const profile = openProfile();
    mkdirSync(join(root(profile), "empty"));
    expect(((await profile.runTool(tool("list_files"), { folder: "empty" })).value as { entries: unknown[] }).entries).toEqual([]);
    expect((await failure(profile.runTool(tool("list_files"), { folder: "notes/ideas.md" }))).code).toBe("not_a_folder");
    expect((await failure(profile.runTool(tool("list_files"), { folder: "missing" }))).code).toBe("folder_not_found");
    profile.close();
  });

  it("an action that fails after writing files puts the files back: nothing of it stays on disk", async () => {
    const profile = openProfile();
    const folder = root(profile);
    const ideas = join(folder, "notes", "ideas.md");
    const before = readFileSync(ideas, "utf8");
    await expect(
      profile.store.action({ tool: "test", args: {} }, (tx) => {
        const context = { store: tx, dryRun: false };
        writeSandboxFile(context, resolveSandboxPath(folder, "notes/ideas.md"), Buffer.from("overwritten"));
        writeSandboxFile(context, resolveSandboxPath(folder, "drafts/new/plan.txt"), Buffer.from("new file in new folders"));
        throw new Error("a later step failed");
      }),
    ).rejects.toThrow("a later step failed");
    expect(readFileSync(ideas, "utf8")).toBe(before);
    expect(existsSync(join(folder, "drafts"))).toBe(false);
    expect(profile.store.history()).toEqual([]);
    profile.close();
  });
});
