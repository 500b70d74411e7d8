import type { App } from "../app.js";

/** The apps of the "errands" group. */
export const errandsApps: App[] = [];
