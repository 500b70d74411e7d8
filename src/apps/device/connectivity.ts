import type { StoreTransaction } from "../../store/store.js";
import { ToolError } from "../../tools/tool.js";

/** The device settings record, shared by every app whose actions need the network or a radio. */
export interface DeviceSettings {
  wifi: boolean;
  bluetooth: boolean;
  mobileData: boolean;
  airplaneMode: boolean;
  doNotDisturb: boolean;
  /** 0..100 */
  volume: number;
  /** 0..100 */
  brightness: number;
  batterySaver: boolean;
  /** 0..100 */
  batteryLevel: number;
  /** The radios as they were when airplane mode went on, restored when it goes off. */
  radiosBeforeAirplaneMode?: { wifi: boolean; bluetooth: boolean; mobileData: boolean };
}

export const SETTINGS_APP = "settings";
export const SETTINGS_COLLECTION = "device";
export const SETTINGS_ID = "device";

export const DEFAULT_SETTINGS: DeviceSettings = {
  wifi: true,
  bluetooth: true,
  mobileData: true,
  airplaneMode: false,
  doNotDisturb: false,
  volume: 60,
  brightness: 70,
  batterySaver: false,
  batteryLevel: 82,
};

export function readSettings(tx: StoreTransaction): DeviceSettings {
  return { ...DEFAULT_SETTINGS, ...tx.collection<DeviceSettings>(SETTINGS_APP, SETTINGS_COLLECTION).get(SETTINGS_ID) };
}

export function writeSettings(tx: StoreTransaction, settings: DeviceSettings): void {
  tx.collection<DeviceSettings>(SETTINGS_APP, SETTINGS_COLLECTION).put(SETTINGS_ID, settings);
}

/**
 * Like a real phone: airplane mode cuts mobile data, but Wi-Fi switched back on
 * by hand in airplane mode (on a plane's network) still connects.
 */
export function isOnline(settings: DeviceSettings): boolean {
  return settings.wifi || (settings.mobileData && !settings.airplaneMode);
}

/**
 * Throws the error a model can recover from when the device has no network:
 * it names the setting to change.
 */
export function requireConnectivity(tx: StoreTransaction, action: string): void {
  const settings = readSettings(tx);
  if (isOnline(settings)) return;
  if (settings.airplaneMode) {
    throw new ToolError(
      "airplane_mode",
      `Cannot ${action}: airplane mode is on. Turn it off with set_airplane_mode(on=false), then retry.`,
    );
  }
  throw new ToolError("wifi_off", `Cannot ${action}: Wi-Fi is off and there is no mobile data. Turn Wi-Fi on with set_wifi(on=true), then retry.`);
}
