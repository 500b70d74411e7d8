import type { App } from "../app.js";
import { alarmsApp } from "./alarms.js";
import { filesApp } from "./files.js";
import { settingsApp } from "./settings.js";
import { timersApp } from "./timers.js";

/** The apps of the "device" group. */
export const deviceApps: App[] = [settingsApp, alarmsApp, timersApp, filesApp];
