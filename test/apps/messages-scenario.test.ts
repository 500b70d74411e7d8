import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSettings, writeSettings } from "../../src/apps/device/connectivity.js";
import { settingsApp } from "../../src/apps/device/settings.js";
import { contactsApp } from "../../src/apps/messages/contacts.js";
import { messagesApp, messagesCollection, readAccount, writeAccount } from "../../src/apps/messages/messages.js";
import { Profile } from "../../src/apps/profile.js";
import { ToolError } from "../../src/tools/tool.js";
import { toolFinder } from "./support.js";

const CLOCK = "2026-12-01T09:00:00Z";
const ZONE = "Europe/Lisbon";

const tool = toolFinder(settingsApp, contactsApp, messagesApp);

/**
 * The product brief's scenario, as a scripted sequence of calls: "send Frank a
 * reminder about tomorrow's meeting" with Wi-Fi and mobile data off and a full
 * message store.
 */
describe("scenario: send Frank a reminder with Wi-Fi off and a full message store", () => {
  let directory: string;
  let profile: Profile;

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), "botpsy-messages-scenario-"));
    profile = Profile.open({
      databasePath: join(directory, "profile.db"),
      seed: "demo",
      clock: CLOCK,
      timeZone: ZONE,
      apps: [settingsApp, contactsApp, messagesApp],
    });
    await profile.store.action({ tool: "scenario_setup", args: {} }, (tx) => {
      writeSettings(tx, { ...readSettings(tx), wifi: false, mobileData: false });
      writeAccount(tx, { ...readAccount(tx), capacity: messagesCollection(tx).all().length });
    });
  });

  afterEach(() => {
    profile.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("fails on Wi-Fi, turns it on, fails on storage, deletes a message, then sends", async () => {
    const reminder = { to: "Frank", text: "Reminder: our meeting tomorrow at 10 in the small meeting room." };
    const capacity = profile.store.read((tx) => readAccount(tx).capacity);

    const first = await profile.runTool(tool("send_message"), reminder).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(ToolError);
    expect((first as ToolError).code).toBe("wifi_off");
    expect((first as ToolError).message).toContain("set_wifi(on=true)");

    const wifi = (await profile.runTool(tool("set_wifi"), { on: true })).value as { wifi: boolean; online: boolean };
    expect(wifi).toMatchObject({ wifi: true, online: true });

    const second = await profile.runTool(tool("send_message"), reminder).catch((error: unknown) => error);
    expect(second).toBeInstanceOf(ToolError);
    expect((second as ToolError).code).toBe("storage_full");
    expect((second as ToolError).message).toContain("delete_message");
    const oldest = ((second as ToolError).data as { oldest: string[] }).oldest;

    const deleted = (await profile.runTool(tool("delete_message"), { message_id: oldest[0] })).value as { storage: { used: number } };
    expect(deleted.storage.used).toBe(capacity - 1);

    const sent = (await profile.runTool(tool("send_message"), reminder)).value as { sent: boolean; to: string };
    expect(sent).toMatchObject({ sent: true, to: "Frank Miller" });

    const frank = (await profile.runTool(tool("read_messages"), { with: "Frank", limit: 1 })).value as {
      messages: { from: string; text: string }[];
    };
    expect(frank.messages[0]).toEqual(expect.objectContaining({ from: "me", text: reminder.text }));
    expect(profile.store.read((tx) => messagesCollection(tx).all().length)).toBe(capacity);

    // The three changing calls (set_wifi, delete_message, send_message) are undone in order; failed sends left nothing.
    const undone = await profile.store.undo(3);
    expect(undone.map((action) => action.tool)).toEqual(["send_message", "delete_message", "set_wifi"]);
    expect(profile.store.read((tx) => readSettings(tx).wifi)).toBe(false);
    expect(profile.store.read((tx) => messagesCollection(tx).get(oldest[0]!))).toBeDefined();
  });
});
