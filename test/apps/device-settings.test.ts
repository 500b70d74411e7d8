import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { requireConnectivity } from "../../src/apps/device/connectivity.js";
import { settingsApp } from "../../src/apps/device/settings.js";
import { Profile } from "../../src/apps/profile.js";
import { ToolError } from "../../src/tools/tool.js";
import { risks, toolFinder } from "./support.js";

const CLOCK = "2026-12-01T09:00:00Z";
const ZONE = "Europe/Lisbon";
const folders: string[] = [];

function openProfile(databasePath = ":memory:"): Profile {
  return Profile.open({ databasePath, seed: "demo", clock: CLOCK, timeZone: ZONE, apps: [settingsApp] });
}

const tool = toolFinder(settingsApp);

async function status(profile: Profile): Promise<Record<string, unknown>> {
  return (await profile.runTool(tool("get_device_status"), {})).value as Record<string, unknown>;
}

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("settings app", () => {
  it("declares the risk class of every tool", () => {
    expect(risks(settingsApp)).toEqual({
      get_device_status: "read",
      set_wifi: "settings",
      set_bluetooth: "settings",
      set_mobile_data: "settings",
      set_airplane_mode: "settings",
      set_do_not_disturb: "settings",
      set_volume: "settings",
      set_brightness: "settings",
      set_battery_saver: "settings",
    });
  });

  it("reports the seeded device status", async () => {
    const profile = openProfile();
    expect(await status(profile)).toMatchObject({ wifi: true, bluetooth: true, mobileData: true, airplaneMode: false, online: true, volume: 60 });
    profile.close();
  });

  it("turns each switch on and off", async () => {
    const profile = openProfile();
    await profile.runTool(tool("set_wifi"), { on: false });
    await profile.runTool(tool("set_bluetooth"), { on: false });
    await profile.runTool(tool("set_mobile_data"), { on: false });
    await profile.runTool(tool("set_do_not_disturb"), { on: true });
    await profile.runTool(tool("set_volume"), { level: 25 });
    await profile.runTool(tool("set_brightness"), { level: 90 });
    expect(await status(profile)).toMatchObject({
      wifi: false,
      bluetooth: false,
      mobileData: false,
      online: false,
      doNotDisturb: true,
      volume: 25,
      brightness: 90,
    });
    profile.close();
  });

  it("refuses out-of-range levels and non-boolean switches with a clear error", async () => {
    const profile = openProfile();
    await expect(profile.runTool(tool("set_volume"), { level: 140 })).rejects.toThrow(/level|100/i);
    await expect(profile.runTool(tool("set_brightness"), { level: -1 })).rejects.toThrow(/level|0/i);
    await expect(profile.runTool(tool("set_wifi"), { on: "maybe" })).rejects.toThrow(/on|boolean/i);
    profile.close();
  });

  it("airplane mode turns every radio off and restores them after", async () => {
    const profile = openProfile();
    await profile.runTool(tool("set_bluetooth"), { on: false });
    const on = (await profile.runTool(tool("set_airplane_mode"), { on: true })).value;
    expect(on).toMatchObject({ airplaneMode: true, wifi: false, bluetooth: false, mobileData: false, online: false });
    const off = (await profile.runTool(tool("set_airplane_mode"), { on: false })).value;
    expect(off).toMatchObject({ airplaneMode: false, wifi: true, bluetooth: false, mobileData: true, online: true });
    profile.close();
  });

  it("refuses mobile data in airplane mode but lets Wi-Fi connect, like a phone", async () => {
    const profile = openProfile();
    await profile.runTool(tool("set_airplane_mode"), { on: true });
    const error = await profile.runTool(tool("set_mobile_data"), { on: true }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe("airplane_mode");
    expect((error as ToolError).message).toMatch(/set_airplane_mode\(on=false\)/);
    const wifi = (await profile.runTool(tool("set_wifi"), { on: true })).value;
    expect(wifi).toMatchObject({ wifi: true, online: true });
    profile.close();
  });

  it("requireConnectivity names the setting to change", async () => {
    const profile = openProfile();
    await profile.runTool(tool("set_airplane_mode"), { on: true });
    const airplane = await profile.store.action({ tool: "probe", args: {} }, (tx) => requireConnectivity(tx, "send")).catch((caught: unknown) => caught);
    expect((airplane as ToolError).code).toBe("airplane_mode");
    await profile.runTool(tool("set_airplane_mode"), { on: false });
    await profile.runTool(tool("set_wifi"), { on: false });
    await profile.runTool(tool("set_mobile_data"), { on: false });
    const offline = await profile.store.action({ tool: "probe", args: {} }, (tx) => requireConnectivity(tx, "send")).catch((caught: unknown) => caught);
    expect((offline as ToolError).code).toBe("wifi_off");
    expect((offline as ToolError).message).toMatch(/set_wifi\(on=true\)/);
    profile.close();
  });

  it("battery saver caps brightness at 50", async () => {
    const profile = openProfile();
    await profile.runTool(tool("set_brightness"), { level: 80 });
    expect((await profile.runTool(tool("set_battery_saver"), { on: true })).value).toEqual({ batterySaver: true, brightness: 50 });
    const capped = (await profile.runTool(tool("set_brightness"), { level: 95 })).value as Record<string, unknown>;
    expect(capped.brightness).toBe(50);
    expect(String(capped.note)).toMatch(/set_battery_saver\(on=false\)/);
    await profile.runTool(tool("set_battery_saver"), { on: false });
    expect(((await profile.runTool(tool("set_brightness"), { level: 95 })).value as Record<string, unknown>).brightness).toBe(95);
    profile.close();
  });

  it("undo restores the previous settings", async () => {
    const profile = openProfile();
    await profile.runTool(tool("set_airplane_mode"), { on: true });
    const undone = await profile.store.undo();
    expect(undone[0]?.tool).toBe("set_airplane_mode");
    expect(await status(profile)).toMatchObject({ airplaneMode: false, wifi: true, mobileData: true, online: true });
    profile.close();
  });

  it("keeps settings across a reopened database", async () => {
    const folder = mkdtempSync(join(tmpdir(), "botpsy-settings-"));
    folders.push(folder);
    const path = join(folder, "profile.db");
    const first = openProfile(path);
    await first.runTool(tool("set_wifi"), { on: false });
    await first.runTool(tool("set_volume"), { level: 10 });
    first.close();
    const second = openProfile(path);
    expect(await status(second)).toMatchObject({ wifi: false, volume: 10 });
    expect(settingsApp.view(second.store.read((tx) => tx), second.environment).text).toMatch(/Wi-Fi\s+off/);
    second.close();
  });
});
