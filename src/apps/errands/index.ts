import type { App } from "../app.js";
import { carApp } from "./car.js";
import { financeApp } from "./finance.js";
import { mapsApp } from "./maps.js";
import { shoppingApp } from "./shopping.js";
import { travelApp } from "./travel.js";

/** The apps of the "errands" group. Finance comes first: shopping and travel pay through its accounts. */
export const errandsApps: App[] = [financeApp, mapsApp, travelApp, shoppingApp, carApp];
