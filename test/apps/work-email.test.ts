import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { filesApp } from "../../src/apps/device/files.js";
import { FILES_DIRECTORY_META } from "../../src/apps/device/sandbox.js";
import { settingsApp } from "../../src/apps/device/settings.js";
import { Profile } from "../../src/apps/profile.js";
import { emailApp, emailCollection, readMailAccount } from "../../src/apps/work/email.js";
import { failure, risks, toolFinder, toolRunner } from "./support.js";

const CLOCK = "2026-12-01T09:00:00Z";
const ZONE = "Europe/Lisbon";
const folders: string[] = [];
const apps = [settingsApp, filesApp, emailApp];

function temporaryFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "botpsy-email-"));
  folders.push(folder);
  return folder;
}

function openProfile(databasePath = join(temporaryFolder(), "profile.db")): Profile {
  return Profile.open({ databasePath, seed: "demo", clock: CLOCK, timeZone: ZONE, apps });
}

const tool = toolFinder(...apps);

const run = toolRunner(tool);

function storedCount(profile: Profile): number {
  return profile.store.read((tx) => emailCollection(tx).find((email) => email.folder !== "trash").length);
}

/** Fill the mailbox to its capacity with plain inbox mail (set-up, not a tool call). */
async function fillMailbox(profile: Profile): Promise<void> {
  await profile.store.action({ tool: "test-fill", args: {} }, (tx) => {
    const { capacity } = readMailAccount(tx);
    const collection = emailCollection(tx);
    let count = collection.find((email) => email.folder !== "trash").length;
    while (count < capacity) {
      const id = collection.nextId("email");
      collection.put(id, {
        id,
        folder: "inbox",
        from: { name: "Newsletter", email: "news@example.org" },
        to: [{ name: "Sam Rivera", email: "sam.rivera@example.com" }],
        cc: [],
        subject: `Issue ${count}`,
        body: "Weekly news.",
        date: "2026-11-01T10:00:00.000Z",
        read: true,
        attachments: [],
      });
      count++;
    }
  });
}

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("email app", () => {
  it("declares the risk class and trust of every tool", () => {
    expect(risks(emailApp)).toEqual({
      list_emails: "read",
      read_email: "read",
      search_email: "read",
      send_email: "send",
      reply_email: "send",
      forward_email: "send",
      save_draft: "write",
      send_draft: "send",
      delete_email: "write",
      move_email: "write",
      empty_trash: "destructive",
      check_email: "read",
      save_attachment: "write",
    });
    for (const name of ["list_emails", "read_email", "search_email", "check_email"]) expect(tool(name).resultTrust).toBe("untrusted");
  });

  it("lists, reads and searches folders", async () => {
    const profile = openProfile();
    const inbox = await run(profile, "list_emails", { limit: 3 });
    expect(inbox).toMatchObject({ folder: "inbox", count: 14, unread: 4, more: 11, mailbox: "20/50 messages" });
    expect((inbox.emails as { subject: string }[])[0]?.subject).toBe("Agenda for tomorrow's meeting");
    const email = await run(profile, "read_email", { email_id: "email-1" });
    expect(email).toMatchObject({ from: "Frank Miller <frank.miller@example.com>", attachments: [{ name: "agenda.txt", size: 62 }] });
    expect(String(email.body)).toMatch(/Q4 numbers/);
    expect((await run(profile, "list_emails", { folder: "Sent Items" })).count).toBe(3);
    expect((await run(profile, "list_emails", { unread_only: true })).count).toBe(4);
    expect((await run(profile, "search_email", { query: "pilot" })).count).toBe(3);
    expect((await run(profile, "search_email", { query: "50% off" })).count).toBe(0);
    expect((await run(profile, "search_email", { query: "50% off", folder: "trash" })).count).toBe(1);
    expect((await failure(run(profile, "list_emails", { folder: "spam" }))).code).toBe("invalid_folder");
    expect((await failure(run(profile, "read_email", { email_id: "email-999" }))).code).toBe("email_not_found");
    profile.close();
  });

  it("sends to contacts by name, with files attached", async () => {
    const profile = openProfile();
    const sent = await run(profile, "send_email", { to: "Frank", cc: ["priya.shah@example.com"], subject: "Budget", body: "Here it is.", attachments: ["documents/budget-2026.csv"] });
    expect(sent).toMatchObject({ to: ["Frank Miller <frank.miller@example.com>"], cc: ["Priya Shah <priya.shah@example.com>"], attachments: ["budget-2026.csv"] });
    expect((await run(profile, "list_emails", { folder: "sent" })).count).toBe(4);
    expect((await failure(run(profile, "send_email", { to: "Nobody Known", subject: "x", body: "y" }))).code).toBe("unknown_contact");
    expect((await failure(run(profile, "send_email", { to: [], subject: "x", body: "y" }))).code).toBe("no_recipients");
    expect((await failure(run(profile, "send_email", { to: "Frank", subject: "x", body: "y", attachments: ["nope.pdf"] }))).code).toBe("file_not_found");
    expect((await failure(run(profile, "send_email", { to: "Frank", subject: "x", body: "y", attachments: ["../../etc/passwd"] }))).code).toBe(
      "path_outside_sandbox",
    );
    profile.close();
  });

  it("replies (to sender or all) and forwards with attachments", async () => {
    const profile = openProfile();
    const reply = await run(profile, "reply_email", { email_id: "email-1", body: "I'll bring them." });
    expect(reply).toMatchObject({ to: ["Frank Miller <frank.miller@example.com>"], subject: "Re: Agenda for tomorrow's meeting" });
    const sentReply = await run(profile, "read_email", { email_id: String(reply.sent) });
    expect(String(sentReply.body)).toMatch(/> Hi Sam,/);
    const forward = await run(profile, "forward_email", { email_id: "email-1", to: "Tom", note: "FYI" });
    expect(forward).toMatchObject({ subject: "Fwd: Agenda for tomorrow's meeting", attachments: ["agenda.txt"] });
    expect((await failure(run(profile, "reply_email", { email_id: "email-18", body: "x" }))).code).toBe("is_draft");
    profile.close();
  });

  it("saves, updates and sends drafts", async () => {
    const profile = openProfile();
    const draft = await run(profile, "save_draft", { subject: "Ideas", body: "First thoughts" });
    expect(draft).toMatchObject({ updated: false, to: [] });
    expect((await failure(run(profile, "send_draft", { draft_id: String(draft.draft) }))).code).toBe("no_recipients");
    expect(await run(profile, "save_draft", { draft_id: String(draft.draft), to: "Maria", body: "Final thoughts" })).toMatchObject({ updated: true });
    const sent = await run(profile, "send_draft", { draft_id: String(draft.draft) });
    expect(sent).toMatchObject({ sent: draft.draft, to: ["Maria Lopez <maria.lopez@example.com>"] });
    expect((await run(profile, "list_emails", { folder: "drafts" })).count).toBe(1);
    expect((await failure(run(profile, "send_draft", { draft_id: "email-1" }))).code).toBe("not_a_draft");
    profile.close();
  });

  it("deletes to trash, moves between folders, empties the trash", async () => {
    const profile = openProfile();
    expect(await run(profile, "delete_email", { email_id: "email-11" })).toMatchObject({ movedTo: "trash", mailbox: "19/50 messages" });
    expect((await failure(run(profile, "delete_email", { email_id: "email-11" }))).code).toBe("already_in_trash");
    expect(await run(profile, "move_email", { email_id: "email-12", folder: "archive" })).toMatchObject({ from: "inbox", to: "archive" });
    expect((await failure(run(profile, "move_email", { email_id: "email-12", folder: "archive" }))).code).toBe("already_there");
    expect((await failure(run(profile, "move_email", { email_id: "email-12", folder: "sent" }))).code).toBe("invalid_folder");
    expect(await run(profile, "move_email", { email_id: "email-11", folder: "inbox" })).toMatchObject({ from: "trash", to: "inbox" });
    expect(await run(profile, "empty_trash", {})).toEqual({ deleted: 1 });
    expect((await failure(run(profile, "empty_trash", {}))).code).toBe("trash_empty");
    profile.close();
  });

  it("fetches new mail, and a full mailbox refuses new mail with an error that says so", async () => {
    const profile = openProfile();
    await fillMailbox(profile);
    const full = await failure(run(profile, "check_email", {}));
    expect(full.code).toBe("mailbox_full");
    expect(full.message).toMatch(/full \(50\/50 messages\).*delete_email/);
    await run(profile, "delete_email", { email_id: "email-13" });
    const partial = await run(profile, "check_email", {});
    expect(partial).toMatchObject({ newEmails: 1 });
    expect(String(partial.warning)).toMatch(/1 email\(s\) still wait/);
    await run(profile, "delete_email", { email_id: "email-14" });
    expect(await run(profile, "check_email", {})).toMatchObject({ newEmails: 1 });
    expect(await run(profile, "check_email", {})).toEqual({ newEmails: 0, emails: [] });
    profile.close();
  });

  it('"send Frank a reminder about tomorrow\'s meeting": Wi-Fi off, then a full mailbox, then it sends', async () => {
    const profile = openProfile();
    await run(profile, "set_wifi", { on: false });
    await run(profile, "set_mobile_data", { on: false });
    await fillMailbox(profile);
    const message = { to: "Frank", subject: "Reminder: tomorrow's meeting", body: "See you at the planning meeting tomorrow." };
    const offline = await failure(run(profile, "send_email", message));
    expect(offline.code).toBe("wifi_off");
    await run(profile, "set_wifi", { on: true });
    const full = await failure(run(profile, "send_email", message));
    expect(full.code).toBe("mailbox_full");
    await run(profile, "delete_email", { email_id: "email-11" });
    const sent = await run(profile, "send_email", message);
    expect(sent).toMatchObject({ to: ["Frank Miller <frank.miller@example.com>"], subject: "Reminder: tomorrow's meeting" });
    expect(storedCount(profile)).toBe(50);
    profile.close();
  });

  it("airplane mode stops sending and checking", async () => {
    const profile = openProfile();
    await run(profile, "set_airplane_mode", { on: true });
    expect((await failure(run(profile, "send_email", { to: "Frank", subject: "x", body: "y" }))).code).toBe("airplane_mode");
    expect((await failure(run(profile, "check_email", {}))).code).toBe("airplane_mode");
    profile.close();
  });

  it("saves attachments into the files folder, undoably", async () => {
    const profile = openProfile();
    const saved = await run(profile, "save_attachment", { email_id: "email-1", attachment: "Agenda.txt" });
    expect(saved).toEqual({ saved: "Downloads/agenda.txt", size: 62 });
    const path = join(profile.store.getMeta(FILES_DIRECTORY_META) ?? "", "Downloads", "agenda.txt");
    expect(readFileSync(path, "utf8")).toMatch(/Q4 numbers/);
    expect((await failure(run(profile, "save_attachment", { email_id: "email-1", attachment: "agenda.txt" }))).code).toBe("file_exists");
    expect((await failure(run(profile, "save_attachment", { email_id: "email-2", attachment: "x.pdf" }))).code).toBe("attachment_not_found");
    await profile.store.undo();
    expect(existsSync(path)).toBe(false);
    profile.close();
  });

  it("undo takes a sent email back out of Sent; the mailbox survives a reopen", async () => {
    const path = join(temporaryFolder(), "profile.db");
    const first = openProfile(path);
    await run(first, "send_email", { to: "Maria", subject: "Kept", body: "Still here after reopening." });
    await run(first, "send_email", { to: "Maria", subject: "Undone", body: "Gone after undo." });
    await first.store.undo();
    first.close();
    const second = openProfile(path);
    const sent = (await run(second, "list_emails", { folder: "sent" })).emails as { subject: string }[];
    expect(sent.map((email) => email.subject)).toContain("Kept");
    expect(sent.map((email) => email.subject)).not.toContain("Undone");
    expect(emailApp.view(second.store.read((tx) => tx), second.environment).text).toMatch(/Inbox \(4 unread; mailbox 21\/50\)/);
    second.close();
  });
});

describe("an email named instead of its id", () => {
  it("says which ids match the words written instead of an id, and never the emails' text", async () => {
    const profile = openProfile();
    try {
      const one = await failure(run(profile, "forward_email", { email_id: "the bank statement email", to: "Ana" }));
      expect(one.code).toBe("email_not_found");
      expect(one.message).toContain('The one that matches is email-6: call again with email_id="email-6".');
      expect(one.message).not.toContain("November");
      const several = await failure(run(profile, "read_email", { email_id: "pilot" }));
      expect(several.message).toMatch(/Those that match: email-5, email-10/);
      const none = await failure(run(profile, "read_email", { email_id: "email-999" }));
      expect(none.message).toBe('There is no email "email-999". Find its id with list_emails or search_email.');
    } finally {
      profile.close();
    }
  });
});
