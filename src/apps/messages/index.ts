import type { App } from "../app.js";

/** The apps of the "messages" group. */
export const messagesApps: App[] = [];
