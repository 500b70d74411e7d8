import type { App, AppGroup } from "./app.js";
import { deviceApps } from "./device/index.js";
import { errandsApps } from "./errands/index.js";
import { findingApps } from "./finding/index.js";
import { lifeApps } from "./life/index.js";
import { messagesApps } from "./messages/index.js";
import { workApps } from "./work/index.js";

/** Every built-in app, in the order of the six groups. */
export function builtInApps(): App[] {
  return [...deviceApps, ...workApps, ...messagesApps, ...findingApps, ...lifeApps, ...errandsApps];
}

export function appsOfGroup(group: AppGroup): App[] {
  return builtInApps().filter((app) => app.group === group);
}
