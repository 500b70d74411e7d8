import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { buildWebApp } from "../../scripts/build-web.mjs";
import { Profile } from "../../src/apps/profile.js";
import type { ChatModel } from "../../src/model/types.js";
import { createAgentService } from "../../src/server/agent-routes.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { chromiumExecutable } from "../support/chromium.js";

/**
 * What the browser tests share: the web app built as `npm run build` builds
 * it, a real `botpsy serve` server (HTTP on a free loopback port, a real
 * SQLite profile) around a given model, and a Chromium page on it.
 */

/** Where the browser tests leave their screenshots (kept after the run, beside the test model). */
export const SCREENSHOT_DIRECTORY = resolve(".botpsy-test", "results", "browser");

/** The demo profile's clock: a Tuesday, a moment after the 06:45 weekday alarm rang. */
export const PROFILE_CLOCK = "2026-12-01T06:45:30Z";

export async function buildWebAppInto(directory: string): Promise<string> {
  return buildWebApp(join(directory, "web"), { minify: true, sourcemap: false });
}

export interface ServedProfile {
  server: RunningServer;
  profile: Profile;
  stop(): Promise<void>;
}

/** Serves the profile at `databasePath` with `model`; port 0 picks a free one, a number reuses it (a restart). */
export async function serveProfile(options: { directory: string; webRoot: string; model: ChatModel; port?: number; evalResults?: string[] }): Promise<ServedProfile> {
  const profile = Profile.open({ databasePath: join(options.directory, "profile.db"), home: options.directory, clock: PROFILE_CLOCK, timeZone: "UTC" });
  const server = await startServer({
    model: options.model,
    port: options.port ?? 0,
    agent: createAgentService(profile, options.model, { maxSteps: 4 }),
    webRoot: options.webRoot,
    evalResults: options.evalResults ?? [],
  });
  return {
    server,
    profile,
    stop: async () => {
      await server.close();
      profile.close();
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumExecutable(), args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
}

export const PHONE = { width: 390, height: 844 } as const;
export const DESKTOP = { width: 1280, height: 860 } as const;

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIRECTORY, { recursive: true });
  const path = join(SCREENSHOT_DIRECTORY, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/** Whether the page scrolls sideways (it must not, on a phone). */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth || document.body.scrollWidth > document.documentElement.clientWidth);
}

export async function appText(url: string, app: string): Promise<string> {
  const response = await fetch(`${url}/v1/apps/${app}`);
  return JSON.stringify(await response.json());
}
