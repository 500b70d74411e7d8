import type { App } from "../app.js";

/** The apps of the "work" group. */
export const workApps: App[] = [];
