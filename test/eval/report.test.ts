import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { computeMetrics } from "../../src/eval/metrics.js";
import { compareResults, formatComparison, writeReport } from "../../src/eval/report.js";
import { settingsKey, type CaseResult, type EvalSettings, type ResultLine } from "../../src/eval/results.js";
import { chromiumExecutable } from "../support/chromium.js";
import { makeTempDir } from "../support/temp-dir.js";

function settingsFor(model: string): EvalSettings {
  return { suite: "apps", model: { id: model, sha256: "ab".repeat(32) }, options: { thinking: "off", seed: 1, temperature: 0, maxSteps: 10, maxTokens: 512 }, botpsyVersion: "test" };
}

function resultsFile(directory: string, model: string, passes: (index: number) => boolean): string {
  const settings = settingsFor(model);
  const key = settingsKey(settings);
  const groups = ["device", "work", "messages", "finding", "life", "errands", "other"];
  const lines: ResultLine[] = [{ type: "run", settingsKey: key, settings, startedAt: "2026-12-01T09:00:00.000Z", cases: 28, alreadyDone: 0, concurrency: 1 }];
  for (let index = 0; index < 28; index++) {
    const success = passes(index);
    const result: CaseResult = {
      type: "case",
      suite: "apps",
      caseId: `case-${index}`,
      settingsKey: key,
      modelId: model,
      group: groups[index % 7]!,
      steps: index % 2 === 0 ? "single" : "multi",
      source: "handwritten",
      labels: [],
      abstainCase: index % 9 === 0,
      injected: index % 10 === 0,
      success,
      ...(index % 10 === 0 ? { unsafe: index === 20 } : {}),
      checks: [{ kind: "calls", passed: success, detail: success ? "ok" : "expected set_alarm not made" }],
      calls: [{ name: "set_alarm", arguments: { time: "7" }, status: "ok", invalid: false, invented: index % 13 === 0 }],
      answer: "done",
      stopReason: "answered",
      usage: { promptTokens: 300, cachedPromptTokens: 0, outputTokens: 20 + index * 3, reasoningTokens: index % 3 === 0 ? 10 : 0 },
      modelTurns: 1 + (index % 3),
      durationMs: 400 + index * 90,
      finishedAt: "2026-12-01T09:01:00.000Z",
    };
    lines.push(result);
  }
  const path = join(directory, `${model}.jsonl`);
  writeFileSync(path, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
  return path;
}

describe("the evaluation report", () => {
  const directory = makeTempDir("botpsy-report-");
  const a = resultsFile(directory, "model-a", (index) => index % 2 === 0);
  const b = resultsFile(directory, "model-b", (index) => index % 3 !== 0);

  it("computes the figures per group, the multi-step average over seven groups, and the unsafe rate", () => {
    const metrics = computeMetrics(
      readFileSync(a, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as ResultLine)
        .filter((line): line is CaseResult => line.type === "case"),
    );
    expect(metrics.cases).toBe(28);
    expect(metrics.unsafe).toEqual({ total: 3, passed: 1, rate: 1 / 3 });
    expect(metrics.multiStepAverage).toBe(0);
    expect(metrics.irrelevance.total).toBe(4);
    expect(metrics.calls.invented).toBe(3);
  });

  it("writes HTML whose charts draw in headless Chromium, and a Markdown summary", { timeout: 120_000 }, async () => {
    const written = writeReport([a, b], join(directory, "report"));
    const markdown = readFileSync(written.markdown, "utf8");
    expect(markdown).toContain("| Multi-step average over the seven groups |");
    expect(markdown).toContain("model-a");
    expect(markdown).toContain("model-b");
    const html = readFileSync(written.html, "utf8");
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);

    const browser = await chromium.launch({
      executablePath: chromiumExecutable(),
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`file://${written.html}`);
      const charts = await page.$$eval("svg.chart", (svgs) =>
        svgs.map((svg) => {
          const box = svg.getBoundingClientRect();
          const bars = Array.from(svg.querySelectorAll("rect.bar")).map((bar) => bar.getBoundingClientRect());
          return {
            label: svg.getAttribute("aria-label"),
            width: box.width,
            height: box.height,
            bars: bars.length,
            drawnBars: bars.filter((bar) => bar.width > 0 && bar.height > 0).length,
            series: [...new Set(Array.from(svg.querySelectorAll("rect.bar")).map((bar) => bar.getAttribute("data-series")))].length,
          };
        }),
      );
      expect(charts.map((chart) => chart.label)).toEqual(
        expect.arrayContaining(["Single-request success per app group", "Multi-step success per app group", "Model against model", "Time per case", "Output tokens per case"]),
      );
      for (const chart of charts) {
        expect(chart.width, chart.label ?? "").toBeGreaterThan(100);
        expect(chart.height, chart.label ?? "").toBeGreaterThan(100);
        expect(chart.bars, chart.label ?? "").toBeGreaterThan(0);
        expect(chart.drawnBars, chart.label ?? "").toBe(chart.bars);
        expect(chart.series, chart.label ?? "").toBe(2);
      }
      const headline = await page.$$eval("table", (tables) => tables.length);
      expect(headline).toBeGreaterThanOrEqual(3);
    } finally {
      await browser.close();
    }
  });

  it("compares two runs case by case", () => {
    const comparison = compareResults(a, b);
    const text = formatComparison(comparison);
    // case-1 fails in A (odd) and passes in B (not a multiple of 3).
    expect(comparison.differences.map((difference) => difference.caseId)).toContain("case-1");
    expect(text).toContain("case-1: A FAIL, B pass");
    expect(comparison.same + comparison.differences.length).toBe(28);
  });

  it("refuses a file that is not a results file, saying what it expected", () => {
    const bad = join(directory, "bad.jsonl");
    writeFileSync(bad, '{"hello":1}\n{"type":"case"}\n');
    expect(() => writeReport([bad], join(directory, "bad-report"))).toThrow(/not a botpsy results line/);
  });
});
