import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeReport } from "../../src/eval/report.js";
import { launchBrowser, screenshot } from "./web-app-server.js";

/**
 * The standalone HTML report's charts (svg.ts) laid out in a real browser:
 * every title, axis label, value label and legend entry lies inside its
 * chart, and no two run into each other. Drawn from the project's own
 * results files: the apps test split and the injection run, so there are two
 * series with long labels and the "safe under attack" headline bar.
 */
let directory: string;
let browser: Browser;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "botpsy-report-charts-"));
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe("standalone report charts", () => {
  it("keep every text inside its chart and apart from the others", async () => {
    const written = writeReport([resolve("results/2026-12-01/apps-test.jsonl"), resolve("results/2026-12-01/injection.jsonl")], directory);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`file://${written.html}`);
    const problems = await page.$$eval("svg.chart", (svgs) =>
      svgs.flatMap((chart) => {
        const box = chart.getBoundingClientRect();
        const texts = Array.from(chart.querySelectorAll("text"))
          .filter((text) => (text.textContent ?? "").trim() !== "")
          .map((text) => ({ text: text.textContent ?? "", rect: text.getBoundingClientRect() }));
        const name = chart.getAttribute("aria-label") ?? "";
        const found: string[] = [];
        for (const { text, rect } of texts) {
          if (rect.left < box.left - 0.5 || rect.right > box.right + 0.5 || rect.top < box.top - 0.5 || rect.bottom > box.bottom + 0.5) found.push(`${name}: "${text}" is cut off`);
        }
        for (let first = 0; first < texts.length; first++) {
          for (let second = first + 1; second < texts.length; second++) {
            const a = texts[first]!.rect;
            const b = texts[second]!.rect;
            const overlap = Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
            if (overlap) found.push(`${name}: "${texts[first]!.text}" runs into "${texts[second]!.text}"`);
          }
        }
        return found;
      }),
    );
    expect(problems).toEqual([]);
    expect(await page.locator("svg.chart").count()).toBeGreaterThanOrEqual(5);
    await page.evaluate(() => document.querySelector(".charts")?.scrollIntoView());
    await screenshot(page, "standalone-report-charts");
    await page.close();
  });
});
