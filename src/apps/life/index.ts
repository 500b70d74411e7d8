import type { App } from "../app.js";

/** The apps of the "life" group. */
export const lifeApps: App[] = [];
