import type { App } from "../app.js";
import { fitnessApp } from "./fitness.js";
import { musicApp } from "./music.js";
import { photosApp } from "./photos.js";
import { recipesApp } from "./recipes.js";
import { videoApp } from "./video.js";

/** The apps of the "life" group. */
export const lifeApps: App[] = [musicApp, videoApp, photosApp, recipesApp, fitnessApp];
