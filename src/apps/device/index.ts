import type { App } from "../app.js";

/** The apps of the "device" group. */
export const deviceApps: App[] = [];
