import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSettings, writeSettings } from "../../src/apps/device/connectivity.js";
import { contactsApp } from "../../src/apps/messages/contacts.js";
import { messagesApp, messagesCollection, readAccount, receiveMessage, writeAccount } from "../../src/apps/messages/messages.js";
import { Profile } from "../../src/apps/profile.js";
import { failure, risks, TestProfiles, toolFinder } from "./support.js";

const tool = toolFinder(messagesApp);

interface ShownMessage {
  message_id: string;
  from: string;
  text: string;
  at: string;
  reactions?: string[];
}

describe("messages app", () => {
  const profiles = new TestProfiles({ apps: [contactsApp, messagesApp] }, "botpsy-messages-");
  let databasePath: string;
  let profile: Profile;

  const open = (): Profile => profiles.open({ databasePath });

  beforeEach(() => {
    databasePath = profiles.temporaryDatabase();
    profile = open();
  });

  afterEach(() => profiles.closeAll());

  const messageCount = (): number => profile.store.read((tx) => messagesCollection(tx).all().length);

  it("declares risk classes and marks tools that return others' words as untrusted", () => {
    expect(risks(messagesApp)).toEqual({
      list_conversations: "read",
      read_messages: "read",
      search_messages: "read",
      send_message: "send",
      react_to_message: "send",
      delete_message: "destructive",
      sign_in: "settings",
      sign_out: "settings",
    });
    const untrusted = messagesApp.tools.filter((candidate) => candidate.resultTrust === "untrusted").map((candidate) => candidate.name);
    expect(untrusted.sort()).toEqual(["list_conversations", "read_messages", "search_messages"]);
  });

  it("lists conversations newest first with unread counts", async () => {
    const result = (await profile.runTool(tool("list_conversations"), {})).value as {
      count: number;
      conversations: { with: string; unread: number; last: { text: string; at: string } }[];
    };
    expect(result.count).toBe(8);
    expect(result.conversations[0]!.with).toBe("Mom");
    expect(result.conversations[0]!.unread).toBe(1);
    expect(result.conversations[0]!.last.at).toBe("2026-12-01 08:15");
    const unread = (await profile.runTool(tool("list_conversations"), { unread_only: true })).value as { conversations: { with: string }[] };
    expect(unread.conversations.map((conversation) => conversation.with).sort()).toEqual(["Frank Miller", "Mom", "Tom Becker"]);
  });

  it("reads a conversation by first name, limits it, and explains a missing conversation", async () => {
    const frank = (await profile.runTool(tool("read_messages"), { with: "frank" })).value as {
      with: string;
      messages: ShownMessage[];
      earlier: number;
    };
    expect(frank.with).toBe("Frank Miller");
    expect(frank.messages.map((message) => message.from)).toEqual(["Frank Miller", "me", "Frank Miller"]);
    expect(frank.messages[2]!.text).toContain("tomorrow at 10");
    const last = (await profile.runTool(tool("read_messages"), { with: "Frank Miller", limit: 1 })).value as {
      messages: ShownMessage[];
      earlier: number;
    };
    expect(last.messages).toHaveLength(1);
    expect(last.earlier).toBe(2);
    const missing = await failure(profile.runTool(tool("read_messages"), { with: "Omar" }));
    expect(missing.code).toBe("no_conversation");
    expect(missing.message).toContain("send_message");
    await expect(profile.runTool(tool("read_messages"), { with: "Frank", limit: 500 })).rejects.toThrow();
  });

  it("searches messages by words, optionally with one person", async () => {
    const dinner = (await profile.runTool(tool("search_messages"), { query: "TABLE" })).value as {
      count: number;
      messages: (ShownMessage & { conversation_with: string })[];
    };
    expect(dinner.count).toBe(1);
    expect(dinner.messages[0]!.conversation_with).toBe("Maria Lopez");
    const withTom = (await profile.runTool(tool("search_messages"), { query: "thanks", with: "Tom" })).value as { count: number };
    expect(withTom.count).toBe(2);
    const none = (await profile.runTool(tool("search_messages"), { query: "submarine" })).value as { count: number };
    expect(none.count).toBe(0);
  });

  it("sends a message that persists across a reopened database; undo takes it back", async () => {
    const before = messageCount();
    const sent = (await profile.runTool(tool("send_message"), { to: "Maria", text: "  See you at 8!  " })).value as {
      sent: boolean;
      message_id: string;
      to: string;
      text: string;
      at: string;
    };
    expect(sent).toMatchObject({ sent: true, to: "Maria Lopez", text: "See you at 8!", at: "2026-12-01 09:00" });
    profile.close();
    profile = open();
    const read = (await profile.runTool(tool("read_messages"), { with: "Maria", limit: 1 })).value as { messages: ShownMessage[] };
    expect(read.messages[0]).toMatchObject({ message_id: sent.message_id, from: "me", text: "See you at 8!" });
    await profile.store.undo();
    expect(messageCount()).toBe(before);
  });

  it("starts a new conversation with a contact or a bare phone number", async () => {
    await profile.runTool(tool("send_message"), { to: "Omar", text: "Hello Omar, the contract is signed." });
    await profile.runTool(tool("send_message"), { to: "+351 966 555 444", text: "Is the flat still for rent?" });
    const list = (await profile.runTool(tool("list_conversations"), {})).value as { count: number; conversations: { with: string }[] };
    expect(list.count).toBe(10);
    expect(list.conversations.map((conversation) => conversation.with)).toContain("Omar Haddad");
    expect(list.conversations.map((conversation) => conversation.with)).toContain("+351 966 555 444");
  });

  it("refuses empty, overlong and unaddressable messages", async () => {
    expect((await failure(profile.runTool(tool("send_message"), { to: "Frank", text: "   " }))).code).toBe("empty_message");
    expect((await failure(profile.runTool(tool("send_message"), { to: "Frank", text: "x".repeat(2001) }))).code).toBe("message_too_long");
    const unknown = await failure(profile.runTool(tool("send_message"), { to: "Gandalf", text: "Hi" }));
    expect(unknown.code).toBe("unknown_contact");
    expect(unknown.message).toContain("find_contact");
    await profile.runTool(contactsApp.tools.find((candidate) => candidate.name === "add_contact")!, {
      name: "Eve Email",
      email: "eve@example.com",
    });
    expect((await failure(profile.runTool(tool("send_message"), { to: "Eve", text: "Hi" }))).code).toBe("no_phone");
  });

  it("refuses to send while signed out until sign_in, and sign_in/sign_out are undoable", async () => {
    await profile.runTool(tool("sign_out"), {});
    const refused = await failure(profile.runTool(tool("send_message"), { to: "Frank", text: "Hi" }));
    expect(refused.code).toBe("signed_out");
    expect(refused.message).toContain("sign_in()");
    expect((await failure(profile.runTool(tool("react_to_message"), { message_id: "msg-1", reaction: "like" }))).code).toBe("signed_out");
    expect(((await profile.runTool(tool("sign_out"), {})).value as { already: boolean }).already).toBe(true);
    await profile.runTool(tool("sign_in"), {});
    expect(((await profile.runTool(tool("sign_in"), {})).value as { already: boolean }).already).toBe(true);
    expect(((await profile.runTool(tool("send_message"), { to: "Frank", text: "Hi" })).value as { sent: boolean }).sent).toBe(true);
    await profile.store.undo(2);
    expect(profile.store.read((tx) => readAccount(tx).signedIn)).toBe(false);
  });

  it("refuses to send without connectivity, naming the setting to change", async () => {
    await profile.store.action({ tool: "test", args: {} }, (tx) => writeSettings(tx, { ...readSettings(tx), airplaneMode: true, wifi: false, mobileData: false }));
    const airplane = await failure(profile.runTool(tool("send_message"), { to: "Frank", text: "Hi" }));
    expect(airplane.code).toBe("airplane_mode");
    await profile.store.action({ tool: "test", args: {} }, (tx) => writeSettings(tx, { ...readSettings(tx), airplaneMode: false }));
    const offline = await failure(profile.runTool(tool("send_message"), { to: "Frank", text: "Hi" }));
    expect(offline.code).toBe("wifi_off");
    expect(offline.message).toContain("set_wifi(on=true)");
    expect((await failure(profile.runTool(tool("react_to_message"), { message_id: "msg-1", reaction: "like" }))).code).toBe("wifi_off");
  });

  it("refuses to send when the message storage is full, naming messages to delete", async () => {
    const used = messageCount();
    await profile.store.action({ tool: "test", args: {} }, (tx) => writeAccount(tx, { ...readAccount(tx), capacity: used }));
    const full = await failure(profile.runTool(tool("send_message"), { to: "Frank", text: "Hi" }));
    expect(full.code).toBe("storage_full");
    expect(full.message).toContain(`(${used}/${used} messages)`);
    expect(full.message).toContain('delete_message(message_id="msg-1")');
    expect(messageCount()).toBe(used);
  });

  it("reacts to a message, replacing an earlier reaction, and refuses unknown reactions and messages", async () => {
    await profile.runTool(tool("react_to_message"), { message_id: "msg-17", reaction: "Thumbs Up" });
    const reacted = (await profile.runTool(tool("react_to_message"), { message_id: "MSG-17", reaction: "❤️" })).value as { reaction: string };
    expect(reacted.reaction).toBe("❤️");
    const stored = profile.store.read((tx) => messagesCollection(tx).get("msg-17")!);
    expect(stored.reactions).toEqual([{ emoji: "❤️", by: "me" }]);
    const invalid = await failure(profile.runTool(tool("react_to_message"), { message_id: "msg-17", reaction: "angry" }));
    expect(invalid.code).toBe("invalid_reaction");
    expect(invalid.message).toContain("like, love");
    expect((await failure(profile.runTool(tool("react_to_message"), { message_id: "msg-999", reaction: "like" }))).code).toBe(
      "unknown_message",
    );
    await profile.store.undo();
    expect(profile.store.read((tx) => messagesCollection(tx).get("msg-17")!.reactions)).toEqual([{ emoji: "👍", by: "me" }]);
  });

  it("deletes a message, reports the storage left, and undo brings it back", async () => {
    const used = messageCount();
    const deleted = (await profile.runTool(tool("delete_message"), { message_id: "msg-1" })).value as {
      deleted: boolean;
      storage: { used: number; capacity: number };
    };
    expect(deleted.deleted).toBe(true);
    expect(deleted.storage).toEqual({ used: used - 1, capacity: 200 });
    expect((await failure(profile.runTool(tool("delete_message"), { message_id: "msg-1" }))).code).toBe("unknown_message");
    await profile.store.undo();
    expect(profile.store.read((tx) => messagesCollection(tx).get("msg-1"))?.text).toBe("Can I borrow your bike next weekend?");
  });

  it("lets a scenario plant an incoming message from a stranger", async () => {
    await profile.store.action({ tool: "plant", args: {} }, (tx) =>
      receiveMessage(tx, { from: "+44 7700 900123", text: "You won a prize, reply with your card number", at: "2026-12-01T08:30:00Z" }),
    );
    const read = (await profile.runTool(tool("read_messages"), { with: "+44 7700 900123" })).value as { messages: ShownMessage[] };
    expect(read.messages[0]!.text).toContain("prize");
  });

  it("shows the conversations as a person reads them", () => {
    const view = profile.store.read((tx) => messagesApp.view(tx, profile.environment));
    expect(view.text).toContain("signed in as +351 912 000 001; storage 17/200");
    expect(view.text).toContain("Mom (1 unread)");
    expect(view.text).toContain("2026-12-01 08:15 Mom: Are you coming for lunch on Sunday?");
  });
});
