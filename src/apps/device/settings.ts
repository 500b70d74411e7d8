import { z } from "zod";
import { defineTool, ToolError } from "../../tools/tool.js";
import type { StoreTransaction } from "../../store/store.js";
import type { App } from "../app.js";
import { DEFAULT_SETTINGS, isOnline, readSettings, SETTINGS_APP, writeSettings, type DeviceSettings } from "./connectivity.js";

/** Battery saver dims the screen: brightness cannot go above this while it is on. */
export const BATTERY_SAVER_BRIGHTNESS_CAP = 50;

const onSwitch = z.boolean().describe("true to turn it on, false to turn it off. Example: true");
const level = z.number().int().min(0).max(100);

/** What a person (or the model) wants to know about the device at a glance. */
export function deviceStatus(settings: DeviceSettings): Record<string, unknown> {
  return {
    wifi: settings.wifi,
    bluetooth: settings.bluetooth,
    mobileData: settings.mobileData,
    airplaneMode: settings.airplaneMode,
    online: isOnline(settings),
    doNotDisturb: settings.doNotDisturb,
    volume: settings.volume,
    brightness: settings.brightness,
    batterySaver: settings.batterySaver,
    batteryLevel: settings.batteryLevel,
  };
}

function change(tx: StoreTransaction, update: (settings: DeviceSettings) => void): DeviceSettings {
  const settings = structuredClone(readSettings(tx));
  update(settings);
  writeSettings(tx, settings);
  return settings;
}

const getDeviceStatus = defineTool({
  name: "get_device_status",
  description: "Show the phone's settings: Wi-Fi, Bluetooth, mobile data, airplane mode, do-not-disturb, volume, brightness, battery.",
  input: z.object({}),
  risk: "read",
  run: (_args, context) => deviceStatus(readSettings(context.store)),
});

const setWifi = defineTool({
  name: "set_wifi",
  description: "Turn Wi-Fi on or off.",
  input: z.object({ on: onSwitch }),
  risk: "settings",
  run: ({ on }, context) => {
    const settings = change(context.store, (current) => {
      current.wifi = on;
    });
    return {
      wifi: settings.wifi,
      online: isOnline(settings),
      ...(on && settings.airplaneMode ? { note: "Wi-Fi is on while airplane mode stays on." } : {}),
    };
  },
});

const setBluetooth = defineTool({
  name: "set_bluetooth",
  description: "Turn Bluetooth on or off.",
  input: z.object({ on: onSwitch }),
  risk: "settings",
  run: ({ on }, context) => {
    const settings = change(context.store, (current) => {
      current.bluetooth = on;
    });
    return { bluetooth: settings.bluetooth };
  },
});

const setMobileData = defineTool({
  name: "set_mobile_data",
  description: "Turn mobile (cellular) data on or off.",
  input: z.object({ on: onSwitch }),
  risk: "settings",
  run: ({ on }, context) => {
    if (on && readSettings(context.store).airplaneMode) {
      throw new ToolError(
        "airplane_mode",
        "Mobile data cannot turn on in airplane mode. Turn airplane mode off with set_airplane_mode(on=false), or use Wi-Fi with set_wifi(on=true).",
      );
    }
    const settings = change(context.store, (current) => {
      current.mobileData = on;
    });
    return { mobileData: settings.mobileData, online: isOnline(settings) };
  },
});

const setAirplaneMode = defineTool({
  name: "set_airplane_mode",
  description: "Turn airplane mode on (all radios off) or off (radios come back as they were).",
  input: z.object({ on: onSwitch }),
  risk: "settings",
  run: ({ on }, context) => {
    const settings = change(context.store, (current) => {
      if (on === current.airplaneMode) return;
      if (on) {
        current.radiosBeforeAirplaneMode = { wifi: current.wifi, bluetooth: current.bluetooth, mobileData: current.mobileData };
        current.wifi = false;
        current.bluetooth = false;
        current.mobileData = false;
        current.airplaneMode = true;
      } else {
        const before = current.radiosBeforeAirplaneMode ?? { wifi: true, bluetooth: true, mobileData: true };
        current.wifi = before.wifi;
        current.bluetooth = before.bluetooth;
        current.mobileData = before.mobileData;
        current.airplaneMode = false;
        delete current.radiosBeforeAirplaneMode;
      }
    });
    return { airplaneMode: settings.airplaneMode, wifi: settings.wifi, bluetooth: settings.bluetooth, mobileData: settings.mobileData, online: isOnline(settings) };
  },
});

const setDoNotDisturb = defineTool({
  name: "set_do_not_disturb",
  description: "Turn do-not-disturb (silence calls and notifications) on or off.",
  input: z.object({ on: onSwitch }),
  risk: "settings",
  run: ({ on }, context) => ({ doNotDisturb: change(context.store, (current) => void (current.doNotDisturb = on)).doNotDisturb }),
});

const setVolume = defineTool({
  name: "set_volume",
  description: "Set the phone's volume from 0 (mute) to 100.",
  input: z.object({ level: level.describe("Volume 0..100. Example: 40") }),
  risk: "settings",
  run: ({ level: wanted }, context) => ({ volume: change(context.store, (current) => void (current.volume = wanted)).volume }),
});

const setBrightness = defineTool({
  name: "set_brightness",
  description: "Set the screen brightness from 0 to 100.",
  input: z.object({ level: level.describe("Brightness 0..100. Example: 80") }),
  risk: "settings",
  run: ({ level: wanted }, context) => {
    const capped = readSettings(context.store).batterySaver && wanted > BATTERY_SAVER_BRIGHTNESS_CAP;
    const settings = change(context.store, (current) => {
      current.brightness = capped ? BATTERY_SAVER_BRIGHTNESS_CAP : wanted;
    });
    return {
      brightness: settings.brightness,
      ...(capped
        ? { note: `Battery saver caps brightness at ${BATTERY_SAVER_BRIGHTNESS_CAP}. Turn it off with set_battery_saver(on=false) for more.` }
        : {}),
    };
  },
});

const setBatterySaver = defineTool({
  name: "set_battery_saver",
  description: "Turn battery saver on or off. While on, brightness is capped at 50.",
  input: z.object({ on: onSwitch }),
  risk: "settings",
  run: ({ on }, context) => {
    const settings = change(context.store, (current) => {
      current.batterySaver = on;
      if (on) current.brightness = Math.min(current.brightness, BATTERY_SAVER_BRIGHTNESS_CAP);
    });
    return { batterySaver: settings.batterySaver, brightness: settings.brightness };
  },
});

function onOff(value: boolean): string {
  return value ? "on" : "off";
}

export const settingsApp: App = {
  name: SETTINGS_APP,
  group: "device",
  title: "Settings",
  description: "The phone's settings: radios, airplane mode, do-not-disturb, sound, screen and battery.",
  tools: [getDeviceStatus, setWifi, setBluetooth, setMobileData, setAirplaneMode, setDoNotDisturb, setVolume, setBrightness, setBatterySaver],
  seed(tx) {
    writeSettings(tx, { ...DEFAULT_SETTINGS });
  },
  view(tx) {
    const settings = readSettings(tx);
    const lines = [
      `Wi-Fi          ${onOff(settings.wifi)}`,
      `Bluetooth      ${onOff(settings.bluetooth)}`,
      `Mobile data    ${onOff(settings.mobileData)}`,
      `Airplane mode  ${onOff(settings.airplaneMode)}`,
      `Online         ${isOnline(settings) ? "yes" : "no"}`,
      `Do not disturb ${onOff(settings.doNotDisturb)}`,
      `Volume         ${settings.volume}`,
      `Brightness     ${settings.brightness}`,
      `Battery saver  ${onOff(settings.batterySaver)}`,
      `Battery        ${settings.batteryLevel}%`,
    ];
    return { text: lines.join("\n"), data: deviceStatus(settings) };
  },
};
