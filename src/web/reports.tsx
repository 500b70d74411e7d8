import * as Plot from "@observablehq/plot";
import { useEffect, useRef, useState } from "preact/hooks";
import { getJson } from "./api.js";

interface BarsChart {
  kind: "bars";
  title: string;
  categories: string[];
  series: { label: string; values: (number | null)[] }[];
  percent: boolean;
}

interface HistogramChart {
  kind: "histogram";
  title: string;
  unit: string;
  series: { label: string; values: number[] }[];
}

interface EvalReport {
  files: string[];
  series: { number: number; label: string; cases: number }[];
  headline: string[][];
  charts: (BarsChart | HistogramChart)[];
}

/** One chart drawn by Observable Plot: horizontal bars (labels stay readable on a phone), or a histogram. */
function drawChart(chart: BarsChart | HistogramChart, width: number): Element {
  const base = { width, title: chart.title, style: { fontSize: "12px", overflow: "visible" }, color: { legend: true } } as const;
  if (chart.kind === "bars") {
    // One band per category (and per series when there are several, numbered as in the headline table): no facets, so every label sits on its bar.
    const several = chart.series.length > 1;
    const rows = chart.categories.flatMap((category, categoryIndex) =>
      chart.series.flatMap((series, seriesIndex) => {
        const value = series.values[categoryIndex];
        return value === null || value === undefined ? [] : [{ band: several ? `${category} [${seriesIndex + 1}]` : category, series: series.label, value }];
      }),
    );
    const bands = chart.categories.flatMap((category) => (several ? chart.series.map((_, index) => `${category} [${index + 1}]`) : [category]));
    const label = (value: number): string => (chart.percent ? `${Math.round(value * 100)}%` : String(Math.round(value * 100) / 100));
    const longest = Math.max(...bands.map((band) => band.length));
    return Plot.plot({
      ...base,
      marginLeft: Math.min(200, 7 * longest + 14),
      marginRight: 44,
      height: bands.length * 26 + 60,
      x: { domain: chart.percent ? [0, 100] : undefined, percent: chart.percent, label: chart.percent ? "success (%)" : null, grid: true },
      y: { label: null, domain: bands },
      marks: [
        Plot.barX(rows, { y: "band", x: "value", fill: "series", tip: true }),
        Plot.text(rows, { y: "band", x: "value", text: (row: { value: number }) => label(row.value), textAnchor: "start", dx: 4 }),
        Plot.ruleX([0]),
      ],
    });
  }
  const rows = chart.series.flatMap((series) => series.values.map((value) => ({ series: series.label, value })));
  return Plot.plot({
    ...base,
    height: 220,
    x: { label: `${chart.unit} per case` },
    y: { label: "cases", grid: true },
    marks: [Plot.rectY(rows, Plot.binX<Plot.RectYOptions>({ y: "count", thresholds: 12 }, { x: "value", fill: "series" })), Plot.ruleY([0])],
  });
}

function Chart({ chart }: { chart: BarsChart | HistogramChart }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    const figure = drawChart(chart, Math.max(280, Math.min(720, element.clientWidth)));
    element.replaceChildren(figure);
    return () => element.replaceChildren();
  }, [chart]);
  return <div class="chart" ref={holder} role="img" aria-label={chart.title} />;
}

/** The evaluation report of the results files the server was started with, drawn with Observable Plot. */
export function Reports() {
  const [report, setReport] = useState<EvalReport | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  useEffect(() => {
    getJson<EvalReport>("/v1/eval/report").then(setReport, (error: Error) => setProblem(error.message));
  }, []);
  if (problem) return <p class="problem">{problem}</p>;
  if (!report) return <p class="loading">Loading…</p>;
  if (report.files.length === 0) {
    return (
      <section class="panel">
        <h2>Evaluation</h2>
        <p>
          No results to show. Start the server with <code>botpsy serve --eval-results results.jsonl</code> (files written by <code>botpsy eval run</code>).
        </p>
      </section>
    );
  }
  return (
    <div class="reports">
      <section class="panel" aria-labelledby="headline-heading">
        <h2 id="headline-heading">Headline</h2>
        <ol class="series-list">
          {report.series.map((series) => (
            <li key={series.number}>
              [{series.number}] {series.label} ({series.cases} cases)
            </li>
          ))}
        </ol>
        <div class="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Metric</th>
                {report.series.map((series) => (
                  <th key={series.number} scope="col">
                    [{series.number}]
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {report.headline.map(([name, ...values]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  {values.map((value, index) => (
                    <td key={index}>{value}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      {report.charts.map((chart) => (
        <section class="panel" key={chart.title}>
          <Chart chart={chart} />
        </section>
      ))}
    </div>
  );
}
