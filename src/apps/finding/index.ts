import type { App } from "../app.js";

/** The apps of the "finding" group. */
export const findingApps: App[] = [];
