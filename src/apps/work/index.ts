import type { App } from "../app.js";
import { calendarApp } from "./calendar.js";
import { docsApp } from "./docs.js";
import { emailApp } from "./email.js";
import { tasksApp } from "./tasks.js";

/** The apps of the "work" group. */
export const workApps: App[] = [calendarApp, tasksApp, emailApp, docsApp];
