import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Profile } from "../../src/apps/profile.js";
import { contactsApp, type Contact } from "../../src/apps/messages/contacts.js";
import { toolSpec } from "../../src/tools/tool.js";
import { failure, risks, TestProfiles, toolFinder } from "./support.js";

const tool = toolFinder(contactsApp);

describe("contacts app", () => {
  const profiles = new TestProfiles({ apps: [contactsApp] }, "botpsy-contacts-");
  let databasePath: string;
  let profile: Profile;

  beforeEach(() => {
    databasePath = profiles.temporaryDatabase();
    profile = profiles.open({ databasePath });
  });

  afterEach(() => profiles.closeAll());

  it("declares risk classes and schemas a model can read", () => {
    expect(risks(contactsApp)).toEqual({
      list_contacts: "read",
      find_contact: "read",
      add_contact: "write",
      update_contact: "write",
    });
    for (const candidate of contactsApp.tools) expect(toolSpec(candidate).parameters.type).toBe("object");
  });

  it("lists the seeded persona's contacts, sorted, and filters by relation", async () => {
    const all = (await profile.runTool(tool("list_contacts"), {})).value as { count: number; contacts: Contact[] };
    expect(all.count).toBe(10);
    expect(all.contacts[0]!.name).toBe("Ana Rivera");
    const colleagues = (await profile.runTool(tool("list_contacts"), { filter: "colleague" })).value as { contacts: Contact[] };
    expect(colleagues.contacts.map((contact) => contact.name).sort()).toEqual(["Frank Miller", "Lena Vogel", "Tom Becker"]);
  });

  it("finds a contact by first name, email or phone, and says when nobody matches", async () => {
    const byFirst = (await profile.runTool(tool("find_contact"), { query: "frank" })).value as { contacts: Contact[] };
    expect(byFirst.contacts).toHaveLength(1);
    expect(byFirst.contacts[0]!.phone).toBe("+351 912 000 101");
    const byEmail = (await profile.runTool(tool("find_contact"), { query: "MARIA.LOPEZ@example.com" })).value as { contacts: Contact[] };
    expect(byEmail.contacts[0]!.name).toBe("Maria Lopez");
    const byPhone = (await profile.runTool(tool("find_contact"), { query: "+351912000103" })).value as { contacts: Contact[] };
    expect(byPhone.contacts[0]!.name).toBe("Priya Shah");
    const missing = await failure(profile.runTool(tool("find_contact"), { query: "Zelda" }));
    expect(missing.code).toBe("unknown_contact");
    expect(missing.message).toContain("list_contacts");
    await expect(profile.runTool(tool("find_contact"), { query: "  " })).rejects.toThrow();
  });

  it("adds a contact that persists across a reopened database, and undo removes it", async () => {
    const added = (await profile.runTool(tool("add_contact"), { name: "Rita Costa", phone: "+351 912 345 678", relation: "neighbour" }))
      .value as { contact: Contact };
    expect(added.contact.id).toMatch(/^contact-\d+$/);
    profile.close();
    profile = profiles.reopen(databasePath);
    const found = (await profile.runTool(tool("find_contact"), { query: "Rita" })).value as { contacts: Contact[] };
    expect(found.contacts[0]).toMatchObject({ name: "Rita Costa", phone: "+351 912 345 678", relation: "neighbour" });
    const undone = await profile.store.undo();
    expect(undone[0]!.tool).toBe("add_contact");
    expect((await failure(profile.runTool(tool("find_contact"), { query: "Rita" }))).code).toBe("unknown_contact");
  });

  it("refuses contacts without a way to reach them, bad addresses and duplicates", async () => {
    expect((await failure(profile.runTool(tool("add_contact"), { name: "No Way" }))).code).toBe("missing_field");
    const badEmail = await failure(profile.runTool(tool("add_contact"), { name: "X Y", email: "not-an-email" }));
    expect(badEmail.code).toBe("invalid_email");
    expect(badEmail.message).toContain("name@example.com");
    expect((await failure(profile.runTool(tool("add_contact"), { name: "X Y", phone: "call me" }))).code).toBe("invalid_phone");
    const duplicate = await failure(profile.runTool(tool("add_contact"), { name: "frank miller", phone: "+351 911 111 111" }));
    expect(duplicate.code).toBe("duplicate_contact");
    expect(duplicate.message).toContain("update_contact");
  });

  it("updates a contact, refuses empty, unknown, ambiguous and clashing updates, and undo restores it", async () => {
    const updated = (await profile.runTool(tool("update_contact"), { contact: "Maria", phone: "+351 933 000 000" })).value as {
      contact: Contact;
    };
    expect(updated.contact).toMatchObject({ name: "Maria Lopez", phone: "+351 933 000 000", email: "maria.lopez@example.com" });
    expect((await failure(profile.runTool(tool("update_contact"), { contact: "Maria" }))).code).toBe("nothing_to_change");
    expect((await failure(profile.runTool(tool("update_contact"), { contact: "Nobody", phone: "+351 933 000 001" }))).code).toBe(
      "unknown_contact",
    );
    expect((await failure(profile.runTool(tool("update_contact"), { contact: "Rivera", notes: "x" }))).code).toBe("ambiguous_contact");
    expect((await failure(profile.runTool(tool("update_contact"), { contact: "Tom", name: "Frank Miller" }))).code).toBe(
      "duplicate_contact",
    );
    await profile.store.undo();
    const found = (await profile.runTool(tool("find_contact"), { query: "Maria" })).value as { contacts: Contact[] };
    expect(found.contacts[0]!.phone).toBe("+351 912 000 102");
  });

  it("shows the contacts as readable text", () => {
    const view = profile.store.read((tx) => contactsApp.view(tx, profile.environment));
    expect(view.text).toContain("Contacts (10)");
    expect(view.text).toContain("Frank Miller (colleague)");
    expect((view.data as { contacts: Contact[] }).contacts).toHaveLength(10);
  });
});
