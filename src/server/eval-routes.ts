import { Hono } from "hono";
import { headlineRows, loadSeries, reportCharts } from "../eval/report.js";

/**
 * The evaluation report as data for the web app (which draws its charts):
 * the results files the server was started with, read on each request so a
 * run that is still appending shows its latest cases.
 */
export function evalRoutes(resultsFiles: readonly string[]): Hono {
  const routes = new Hono();
  routes.get("/v1/eval/report", (c) => {
    if (resultsFiles.length === 0) return c.json({ files: [], series: [], headline: [], charts: [] });
    const series = loadSeries(resultsFiles);
    return c.json({
      files: resultsFiles,
      series: series.map((item, index) => ({ number: index + 1, label: item.label, cases: item.results.length })),
      headline: headlineRows(series),
      charts: reportCharts(series),
    });
  });
  return routes;
}
