import type { App } from "../app.js";
import { filesApp } from "./files.js";
import { settingsApp } from "./settings.js";

/** The apps of the "device" group. */
export const deviceApps: App[] = [settingsApp, filesApp];
