import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ScriptedModel, type ScriptedTurn } from "../../src/testing/scripted-model.js";
import { appText, buildWebAppInto, DESKTOP, launchBrowser, PHONE, screenshot, scrollsSideways, serveProfile, type ServedProfile } from "./web-app-server.js";

/**
 * The web app in a real Chromium against a real server (HTTP, SQLite profile,
 * the agent behind its safety layer) with a scripted model, so each flow is
 * the same every run: approve in the page and the app state changes; deny and
 * nothing changes; a run waiting for approval survives a server restart and a
 * page reload; the phone viewport never scrolls sideways. Screenshots of the
 * main screens are written to .botpsy-test/results/browser.
 */
let buildDirectory: string;
let webRoot: string;
let browser: Browser;
let directory: string;
let served: ServedProfile | undefined;

const SEND_TO_FRANK: ScriptedTurn = { toolCalls: [{ name: "send_message", arguments: { to: "Frank", text: "Running 10 minutes late" } }] };

beforeAll(async () => {
  buildDirectory = mkdtempSync(join(tmpdir(), "botpsy-web-build-"));
  webRoot = await buildWebAppInto(buildDirectory);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  rmSync(buildDirectory, { recursive: true, force: true });
});

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "botpsy-web-app-"));
});

afterEach(async () => {
  await served?.stop();
  served = undefined;
  rmSync(directory, { recursive: true, force: true });
});

async function serve(turns: ScriptedTurn[], port?: number): Promise<string> {
  served = await serveProfile({
    directory,
    webRoot,
    model: new ScriptedModel(turns, { id: "scripted" }),
    ...(port !== undefined ? { port } : {}),
    evalResults: [resolve("results/2026-12-01/apps-test.jsonl")],
  });
  return served.server.url;
}

async function openPage(url: string, viewport: { width: number; height: number } = PHONE): Promise<Page> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.on("pageerror", (error) => {
    throw error;
  });
  await page.goto(url);
  return page;
}

async function ask(page: Page, request: string): Promise<void> {
  await page.getByLabel("Your request").fill(request);
  await page.getByLabel("Your request").press("Enter");
}

describe("web app", () => {
  it("a request that needs approval is approved in the page, and the app state changes", async () => {
    const url = await serve([SEND_TO_FRANK, "I sent Frank your message."]);
    const page = await openPage(url);
    await ask(page, "Text Frank that I'm running 10 minutes late");
    const card = page.locator(".approval");
    await card.waitFor();
    await expect(card.locator(".preview").textContent()).resolves.toContain("Running 10 minutes late");
    await expect(card.textContent()).resolves.toContain("Frank");
    // The call shows in the chat as it happens, before anything ran.
    await expect(page.locator('.call[data-tool="send_message"] .call-status').textContent()).resolves.toBe("waiting for your approval");
    expect(await appText(url, "messages")).not.toContain("Running 10 minutes late");
    await screenshot(page, "phone-chat-approval");

    await card.getByRole("button", { name: "Approve once" }).click();
    await page.locator(".bubble.assistant", { hasText: "I sent Frank your message." }).waitFor();
    await expect(page.locator('.call[data-tool="send_message"] .call-status').textContent()).resolves.toBe("ok");
    await expect(card.locator(".decided").textContent()).resolves.toBe("Approved (once)");
    expect(await appText(url, "messages")).toContain("Running 10 minutes late");
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, "phone-chat-answered");

    // The audit log shows the approval and verifies; undo takes the message back.
    await page.getByRole("tab", { name: "Activity" }).click();
    await page.getByRole("button", { name: "Verify the log" }).click();
    await expect(page.locator(".verified").textContent()).resolves.toMatch(/^Intact: \d+ entries chain\.$/);
    await expect(page.locator(".audit").textContent()).resolves.toContain("approved (once)");
    await screenshot(page, "phone-activity-audit");
    await page.getByRole("button", { name: "Undo last action" }).click();
    await page.locator(".activity .status", { hasText: "Undone: send_message." }).waitFor();
    expect(await appText(url, "messages")).not.toContain("Running 10 minutes late");
    await page.context().close();
  });

  it("a denied request changes nothing", async () => {
    const url = await serve([SEND_TO_FRANK, "All right, I did not send it."]);
    const before = await appText(url, "messages");
    const page = await openPage(url);
    await ask(page, "Text Frank that I'm running 10 minutes late");
    const card = page.locator(".approval");
    await card.getByRole("button", { name: "Deny" }).click();
    await page.locator(".bubble.assistant", { hasText: "All right, I did not send it." }).waitFor();
    await expect(card.locator(".decided").textContent()).resolves.toBe("Denied");
    await expect(page.locator('.call[data-tool="send_message"] .call-status').textContent()).resolves.toMatch(/^(declined|skipped)$/);
    expect(await appText(url, "messages")).toBe(before);
    await screenshot(page, "phone-chat-denied");
    await page.context().close();
  });

  it("a run waiting for approval is cancelled from the page, and nothing is sent", async () => {
    const url = await serve([SEND_TO_FRANK]);
    const page = await openPage(url);
    await ask(page, "Text Frank that I'm running 10 minutes late");
    await page.locator(".approval").waitFor();
    const runId = await page.evaluate(() => (JSON.parse(localStorage.getItem("botpsy.chat") ?? "{}") as { run?: { runId: string } }).run?.runId);
    expect(runId).toMatch(/^run-/);
    await page.getByRole("button", { name: "Cancel run" }).click();
    await page.locator(".notice", { hasText: "The run was cancelled." }).waitFor();
    await page.getByRole("button", { name: "Clear" }).waitFor();
    expect((await fetch(`${url}/v1/agent/runs/${runId}`)).status).toBe(409);
    expect(await appText(url, "messages")).not.toContain("Running 10 minutes late");
    await page.context().close();
  });

  it("a run waiting for approval survives a server restart and a page reload", async () => {
    const url = await serve([SEND_TO_FRANK]);
    const port = served!.server.port;
    const page = await openPage(url);
    await ask(page, "Text Frank that I'm running 10 minutes late");
    await page.locator(".approval").waitFor();

    await served!.stop();
    served = undefined;
    await serve(["Done: Frank has your message."], port);
    await page.reload();
    const card = page.locator(".approval");
    await card.waitFor();
    expect(await card.count()).toBe(1);
    await card.getByRole("button", { name: "Approve once" }).click();
    await page.locator(".bubble.assistant", { hasText: "Done: Frank has your message." }).waitFor();
    expect(await appText(url, "messages")).toContain("Running 10 minutes late");
    await page.context().close();
  });

  it("reattaches to a run still going after a reload, and shows what it missed", async () => {
    const url = await serve([{ toolCalls: [{ name: "set_alarm", arguments: { time: "7:15", label: "Swim" } }], delayMs: 1_500 }, "Your Swim alarm is set for 7:15."]);
    const page = await openPage(url);
    await ask(page, "Set an alarm for 7:15 called Swim");
    await page.locator(".bubble.user").waitFor();
    // Reloaded while the model is still thinking: the page follows the run from its last event.
    await page.waitForTimeout(300);
    await page.reload();
    await page.locator(".bubble.assistant", { hasText: "Your Swim alarm is set for 7:15." }).waitFor();
    await expect(page.locator('.call[data-tool="set_alarm"] .call-status').textContent()).resolves.toBe("ok");
    expect(await page.locator(".bubble.assistant").count()).toBe(1);
    expect(await appText(url, "alarms")).toContain("Swim");
    await page.context().close();
  });

  it("every screen fits the phone without sideways scroll, works by keyboard, and shows due alarms", async () => {
    const url = await serve(["Hello."]);
    const page = await openPage(url);
    // The weekday 06:45 alarm rang half a minute before the profile's clock.
    await page.locator(".notification", { hasText: "Wake up" }).waitFor();
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, "phone-chat-empty-notification");

    // Tabs move with the arrow keys.
    await page.getByRole("tab", { name: "Chat" }).focus();
    await page.keyboard.press("ArrowRight");
    await expect(page.getByRole("tab", { name: "Today" }).getAttribute("aria-selected")).resolves.toBe("true");
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe("Today");
    for (const heading of ["Calendar", "Alarms", "Timers", "Inbox", "Messages", "Balances", "Car"]) {
      await page.getByRole("heading", { name: heading, exact: true }).waitFor();
    }
    await page.locator('.panel[data-app="finance"] pre').waitFor();
    await page.locator('.panel[data-app="car"] pre').waitFor();
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, "phone-today");

    await page.getByRole("tab", { name: "Activity" }).click();
    expect(await scrollsSideways(page)).toBe(false);

    await page.getByRole("tab", { name: "Reports" }).click();
    await page.locator(".chart svg").first().waitFor();
    expect(await page.locator(".chart").count()).toBeGreaterThanOrEqual(4);
    expect(await scrollsSideways(page)).toBe(false);
    await screenshot(page, "phone-reports");
    await page.context().close();

    const desktop = await openPage(`${url}/#today`, DESKTOP);
    await desktop.locator('.panel[data-app="calendar"] pre').waitFor();
    await screenshot(desktop, "desktop-today");
    await desktop.getByRole("tab", { name: "Reports" }).click();
    await desktop.locator(".chart svg").first().waitFor();
    await screenshot(desktop, "desktop-reports");
    await desktop.context().close();
  });
});
