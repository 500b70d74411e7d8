import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { settingsApp } from "../../src/apps/device/settings.js";
import { Profile } from "../../src/apps/profile.js";
import { docsApp } from "../../src/apps/work/docs.js";
import { failure, risks, toolFinder, toolRunner } from "./support.js";

const CLOCK = "2026-12-01T09:00:00Z";
const ZONE = "Europe/Lisbon";
const folders: string[] = [];
const apps = [settingsApp, docsApp];

function openProfile(databasePath = ":memory:"): Profile {
  return Profile.open({ databasePath, seed: "demo", clock: CLOCK, timeZone: ZONE, apps });
}

const tool = toolFinder(...apps);

const run = toolRunner(tool);

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("docs app", () => {
  it("declares the risk class of every tool", () => {
    expect(risks(docsApp)).toEqual({
      create_document: "write",
      list_documents: "read",
      read_document: "read",
      edit_document: "write",
      add_comment: "write",
      resolve_comment: "write",
      share_document: "send",
      unshare_document: "write",
      delete_document: "destructive",
    });
    expect(tool("read_document").resultTrust).toBe("untrusted");
  });

  it("creates, lists and reads documents and notes", async () => {
    const profile = openProfile();
    const created = await run(profile, "create_document", { title: "Trip plan", content: "Day 1: Porto", kind: "note" });
    expect(created).toMatchObject({ id: "doc-6", kind: "note", owner: "me", myRole: "owner" });
    expect((await failure(run(profile, "create_document", { title: "trip plan" }))).code).toBe("document_exists");
    expect((await run(profile, "list_documents", {})).count).toBe(6);
    expect(((await run(profile, "list_documents", { query: "sintra" })).documents as { title: string }[]).map((doc) => doc.title)).toEqual(["Offsite agenda"]);
    const read = await run(profile, "read_document", { document: "Q4 report" });
    expect(read).toMatchObject({ owner: "me", openComments: 1, sharedWith: ["Priya Shah (commenter)", "Frank Miller (editor)"] });
    expect(read.comments).toEqual([{ id: "comment-1", author: "Priya Shah", text: "Please add the hiring plan before Friday.", resolved: false }]);
    expect((await failure(run(profile, "read_document", { document: "nothing like it" }))).code).toBe("document_not_found");
    profile.close();
  });

  it("edits by role: owner and editor may, a viewer may not", async () => {
    const profile = openProfile();
    const appended = await run(profile, "edit_document", { document: "Q4 report", content: "Hire two engineers in Q1." });
    expect(appended).toMatchObject({ mode: "append" });
    expect(String((await run(profile, "read_document", { document: "doc-1" })).content)).toMatch(/\(to write\)\nHire two engineers in Q1\.$/);
    expect(await run(profile, "edit_document", { document: "roadmap", content: "Roadmap v2", mode: "replace" })).toMatchObject({ myRole: "editor", length: 10 });
    const viewer = await failure(run(profile, "edit_document", { document: "Offsite agenda", content: "x" }));
    expect(viewer.code).toBe("read_only");
    expect(viewer.message).toMatch(/Tom Becker/);
    profile.close();
  });

  it("comments and resolves comments", async () => {
    const profile = openProfile();
    expect(await run(profile, "add_comment", { document: "Q4 report", text: "Done, see the new section." })).toMatchObject({ comment: "comment-2", openComments: 2 });
    expect(await run(profile, "resolve_comment", { document: "Q4 report", comment_id: "comment-1" })).toEqual({ document: "doc-1", resolved: "comment-1" });
    expect((await failure(run(profile, "resolve_comment", { document: "Q4 report", comment_id: "comment-1" }))).code).toBe("already_resolved");
    expect((await failure(run(profile, "resolve_comment", { document: "Q4 report", comment_id: "comment-9" }))).code).toBe("comment_not_found");
    expect((await failure(run(profile, "add_comment", { document: "Offsite agenda", text: "Nice" }))).code).toBe("read_only");
    profile.close();
  });

  it("shares with contacts, changes roles, unshares; only the owner may, and it needs the network", async () => {
    const profile = openProfile();
    const shared = await run(profile, "share_document", { document: "Books to read", with: "Jules", role: "comment" });
    expect(shared).toMatchObject({ with: "Jules Martin <jules.martin@example.com>", role: "commenter" });
    expect((await failure(run(profile, "share_document", { document: "Books to read", with: "Jules", role: "commenter" }))).code).toBe("already_shared");
    expect(await run(profile, "share_document", { document: "Books to read", with: "jules.martin@example.com", role: "editor" })).toMatchObject({ previousRole: "commenter" });
    expect((await failure(run(profile, "share_document", { document: "Books to read", with: "Jules", role: "owner" }))).code).toBe("invalid_role");
    expect((await failure(run(profile, "share_document", { document: "roadmap", with: "Maria" }))).code).toBe("not_owner");
    expect((await failure(run(profile, "share_document", { document: "Books to read", with: "Gandalf" }))).code).toBe("unknown_contact");
    await run(profile, "set_airplane_mode", { on: true });
    expect((await failure(run(profile, "share_document", { document: "Books to read", with: "Maria" }))).code).toBe("airplane_mode");
    expect(await run(profile, "unshare_document", { document: "Books to read", with: "Jules" })).toEqual({ unshared: "doc-5", with: "Jules Martin" });
    expect((await failure(run(profile, "unshare_document", { document: "Books to read", with: "Jules" }))).code).toBe("not_shared");
    profile.close();
  });

  it("deletes only your own documents, and undo restores them", async () => {
    const profile = openProfile();
    const before = await run(profile, "read_document", { document: "Gift ideas" });
    expect(await run(profile, "delete_document", { document: "Gift ideas" })).toMatchObject({ deleted: "doc-4", wasSharedWith: ["Ana Rivera"] });
    expect((await failure(run(profile, "delete_document", { document: "Offsite agenda" }))).code).toBe("not_owner");
    await profile.store.undo();
    expect(await run(profile, "read_document", { document: "Gift ideas" })).toEqual(before);
    profile.close();
  });

  it("keeps documents across a reopened database", async () => {
    const folder = mkdtempSync(join(tmpdir(), "botpsy-docs-"));
    folders.push(folder);
    const path = join(folder, "profile.db");
    const first = openProfile(path);
    await run(first, "create_document", { title: "Kept", content: "persisted text" });
    await run(first, "share_document", { document: "Kept", with: "Frank", role: "editor" });
    first.close();
    const second = openProfile(path);
    expect(await run(second, "read_document", { document: "Kept" })).toMatchObject({ content: "persisted text", sharedWith: ["Frank Miller (editor)"] });
    expect(docsApp.view(second.store.read((tx) => tx), second.environment).text).toMatch(/Kept/);
    second.close();
  });
});
