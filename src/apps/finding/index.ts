import type { App } from "../app.js";
import { newsApp } from "./news.js";
import { weatherApp } from "./weather.js";
import { webApp } from "./web.js";

/** The apps of the "finding" group. */
export const findingApps: App[] = [webApp, weatherApp, newsApp];
