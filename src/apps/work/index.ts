import type { App } from "../app.js";
import { calendarApp } from "./calendar.js";

/** The apps of the "work" group. */
export const workApps: App[] = [calendarApp];
