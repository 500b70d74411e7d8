import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatModel } from "../../src/model/types.js";
import { createChatModel } from "../../src/model/resolve.js";
import { buildWebAppInto, launchBrowser, PHONE, screenshot, scrollsSideways, serveProfile, type ServedProfile } from "./web-app-server.js";

/**
 * One smoke run of the web app on the real SmolLM2 test model (one thread):
 * a request typed in the page reaches the model through the agent and the
 * run ends with something shown for it. What a 135M model answers is not
 * judged; that the whole path works in a real browser is.
 */
const modelPath = process.env.BOTPSY_TEST_MODEL ?? resolve(".botpsy-test/models/SmolLM2-135M-Instruct.Q4_1.gguf");
let directory: string;
let browser: Browser;
let model: ChatModel;
let served: ServedProfile;

beforeAll(async () => {
  if (!existsSync(modelPath)) throw new Error(`The test model is missing at ${modelPath}; fetch it with: botpsy models pull smollm2-135m-instruct-q4_1`);
  directory = mkdtempSync(join(tmpdir(), "botpsy-web-real-"));
  const webRoot = await buildWebAppInto(directory);
  model = await createChatModel({ model: modelPath, threads: 1 });
  served = await serveProfile({ directory, webRoot, model });
  browser = await launchBrowser();
}, 280_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  await model?.dispose();
  rmSync(directory, { recursive: true, force: true });
});

describe("web app on the real model", () => {
  it("a request typed in the page runs through the agent and the run ends with something to show", async () => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const errors: Error[] = [];
    page.on("pageerror", (error) => errors.push(error));
    await page.goto(served.server.url);
    await page.getByLabel("Your request").fill("What time is my first alarm?");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".bubble.user").waitFor();
    // The run is over when the page offers Clear again (no run followed), or it waits on an approval card.
    await page.locator(".approval, .composer button:has-text('Clear'):not([disabled])").first().waitFor({ timeout: 110_000 });
    const shown = await page.locator(".messages > li:not(.bubble.user):not(.empty)").count();
    expect(shown).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, "phone-chat-real-model");
    await context.close();
  }, 120_000);
});
