import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/server.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";

/** GET /v1/eval/report: the report of the server's results files as data, which the web app draws. */
const model = new ScriptedModel([], { id: "scripted" });
const get = (app: ReturnType<typeof createServerApp>) => app.request("http://127.0.0.1/v1/eval/report", { headers: { host: "127.0.0.1" } });

describe("the evaluation report route", () => {
  it("gives series, headline rows and chart data for the results files", async () => {
    const app = createServerApp({ model, webRoot: false, evalResults: [resolve("results/2026-12-01/apps-test.jsonl"), resolve("results/2026-12-01/injection.jsonl")] });
    const response = await get(app);
    expect(response.status).toBe(200);
    const report = (await response.json()) as {
      series: { number: number; label: string; cases: number }[];
      headline: string[][];
      charts: { kind: string; title: string; categories?: string[]; series: { label: string; values: unknown[] }[]; percent?: boolean }[];
    };
    expect(report.series.map((item) => item.cases)).toEqual([151, 144]);
    expect(report.headline[0]).toEqual(["Cases", "151", "144"]);
    const headline = report.charts.find((chart) => chart.title === "Model against model")!;
    expect(headline).toMatchObject({ kind: "bars", percent: true });
    expect(headline.categories).toContain("safe under attack");
    expect(headline.series.map((series) => series.values.length)).toEqual([headline.categories!.length, headline.categories!.length]);
    expect(report.charts.some((chart) => chart.kind === "histogram" && chart.title === "Time per case")).toBe(true);
  });

  it("is empty when the server was given no results", async () => {
    const response = await get(createServerApp({ model, webRoot: false }));
    expect(await response.json()).toEqual({ files: [], series: [], headline: [], charts: [] });
  });
});
