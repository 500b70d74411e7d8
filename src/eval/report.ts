import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { APP_GROUP_TITLES } from "../apps/app.js";
import { BotpsyError } from "../errors.js";
import { botpsyVersion } from "../version.js";
import { BFCL_SUITE, PUBLISHED_BFCL, type BfclScores, type PublishedFigure } from "./bfcl-scores.js";
import { computeMetrics, formatRate, type Metrics } from "./metrics.js";
import { caseResults, readResults, runRecords, type CaseResult, type EvalSettings, type RunRecord } from "./results.js";
import { SCENARIO_GROUPS } from "./scenario.js";
import { escapeXml, groupedBarChart, histogramChart, type GroupedBarChart, type HistogramChart } from "./svg.js";

/**
 * One series of a report: the results of one set of settings (a model with
 * its options on a suite), gathered from one or more results files.
 */
export interface ReportSeries {
  label: string;
  settingsKey: string;
  settings: EvalSettings | undefined;
  files: string[];
  /** The runs (starts and resumes) that made these results. */
  runs: RunRecord[];
  /** The last result of each case. */
  results: CaseResult[];
  metrics: Metrics;
}

export class ReportError extends BotpsyError {
  constructor(message: string) {
    super("report_failed", message);
  }
}

function describeThinking(thinking: EvalSettings["options"]["thinking"]): string {
  return typeof thinking === "number" ? `thinking ≤${thinking}` : `thinking ${thinking}`;
}

/** Gather the results of several files into series, one per settings key. */
export function loadSeries(paths: readonly string[]): ReportSeries[] {
  if (paths.length === 0) throw new ReportError("Give at least one results file (.jsonl written by botpsy eval run).");
  interface Gathered {
    files: Set<string>;
    runs: RunRecord[];
    results: Map<string, CaseResult>;
  }
  const byKey = new Map<string, Gathered>();
  const emptyGathered = (): Gathered => ({ files: new Set<string>(), runs: [], results: new Map<string, CaseResult>() });
  for (const path of paths) {
    const lines = readResults(path);
    for (const run of runRecords(lines)) {
      const entry = byKey.get(run.settingsKey) ?? emptyGathered();
      entry.files.add(path);
      entry.runs.push(run);
      byKey.set(run.settingsKey, entry);
    }
    for (const result of caseResults(lines)) {
      const entry = byKey.get(result.settingsKey) ?? emptyGathered();
      entry.files.add(path);
      entry.results.set(`${result.suite}\u0000${result.caseId}`, result);
      byKey.set(result.settingsKey, entry);
    }
  }
  const series: ReportSeries[] = [];
  for (const [key, entry] of byKey) {
    const results = [...entry.results.values()];
    if (results.length === 0) continue;
    const settings = entry.runs[0]?.settings;
    const suites = [...new Set(results.map((result) => result.suite))].join("+");
    const model = settings?.model.id ?? results[0]!.modelId;
    const label = settings ? `${model} · ${suites} · ${describeThinking(settings.options.thinking)}${describeExtras(settings).replaceAll(", ", " · ")}` : `${model} · ${suites}`;
    series.push({ label, settingsKey: key, settings, files: [...entry.files], runs: entry.runs, results, metrics: computeMetrics(results) });
  }
  if (series.length === 0) throw new ReportError(`No case results in ${paths.join(", ")}. Run botpsy eval run first.`);
  // Labels must tell series apart in charts.
  const seen = new Map<string, number>();
  for (const item of series) {
    const count = (seen.get(item.label) ?? 0) + 1;
    seen.set(item.label, count);
    if (count > 1) item.label = `${item.label} #${item.settingsKey.slice(0, 6)}`;
  }
  return series;
}

function groupTitle(group: string): string {
  return group in APP_GROUP_TITLES ? APP_GROUP_TITLES[group as keyof typeof APP_GROUP_TITLES] : group === "other" ? "Other / multi-app" : group;
}

function number(value: number | undefined, digits = 1): string {
  return value === undefined ? "–" : value.toFixed(digits);
}

function seconds(milliseconds: number | undefined): string {
  return milliseconds === undefined ? "–" : `${(milliseconds / 1000).toFixed(2)} s`;
}

interface HeadlineRow {
  name: string;
  value: (metrics: Metrics) => string;
}

const HEADLINE: HeadlineRow[] = [
  { name: "Cases", value: (m) => String(m.cases) },
  { name: "Success (all cases)", value: (m) => `${formatRate(m.overall.rate)} (${m.overall.passed}/${m.overall.total})` },
  { name: "Single-step average over groups", value: (m) => formatRate(m.singleStepAverage) },
  { name: "Multi-step average over the seven groups", value: (m) => formatRate(m.multiStepAverage) },
  { name: "Irrelevance (correct abstentions)", value: (m) => `${formatRate(m.irrelevance.rate)} (${m.irrelevance.passed}/${m.irrelevance.total})` },
  { name: "Invalid or invented calls", value: (m) => `${formatRate(m.calls.invalidOrInventedRate)} (${m.calls.invalid} invalid, ${m.calls.invented} invented of ${m.calls.total})` },
  { name: "Reasoning tokens per correct answer", value: (m) => number(m.reasoningTokensPerCorrect) },
  { name: "Model turns to completion (mean)", value: (m) => number(m.turnsToCompletion.mean, 2) },
  { name: "Time per case (median / p90)", value: (m) => `${seconds(m.timePerCase.median)} / ${seconds(m.timePerCase.p90)}` },
  { name: "Unsafe rate (injected cases)", value: (m) => (m.unsafe ? `${formatRate(m.unsafe.rate)} (${m.unsafe.passed}/${m.unsafe.total})` : "–") },
  { name: "Harness errors", value: (m) => String(m.harnessErrors) },
];

/** App groups of the scenario results; BFCL categories have a section of their own. */
function groupsIn(series: readonly ReportSeries[]): string[] {
  const used = new Set(series.flatMap((item) => item.results.filter((result) => result.suite !== BFCL_SUITE).map((result) => result.group)));
  return [...SCENARIO_GROUPS.filter((group) => used.has(group)), ...[...used].filter((group) => !(SCENARIO_GROUPS as readonly string[]).includes(group)).sort()];
}

interface BfclRow {
  name: string;
  /** The cell of one series; undefined when that series has no such figure. */
  cell: (bfcl: BfclScores) => string;
  rate: (bfcl: BfclScores) => number | undefined;
  /** The published figure of other models this row compares with. */
  published?: PublishedFigure;
}

/** BFCL rows in leaderboard order: each category run by any series, then the aggregates. */
function bfclRows(series: readonly ReportSeries[]): BfclRow[] {
  const scores = series.map((item) => item.metrics.bfcl).filter((bfcl): bfcl is BfclScores => bfcl !== undefined);
  if (scores.length === 0) return [];
  const categories: { category: string; title: string }[] = [];
  for (const bfcl of scores) {
    for (const row of bfcl.categories) if (!categories.some((known) => known.category === row.category)) categories.push(row);
  }
  const rows: BfclRow[] = categories.map(({ category, title }) => ({
    name: title,
    ...(category === "irrelevance" ? { published: "irrelevance" as const } : {}),
    rate: (bfcl) => bfcl.categories.find((row) => row.category === category)?.rate,
    cell: (bfcl) => {
      const row = bfcl.categories.find((candidate) => candidate.category === category);
      return row === undefined ? "–" : `${formatRate(row.rate)} (${row.passed}/${row.total})`;
    },
  }));
  const first = scores[0]!;
  rows.push({ name: `Non-live (mean of ${first.nonLiveParts.join(", ")})`, rate: (bfcl) => bfcl.nonLive, cell: (bfcl) => formatRate(bfcl.nonLive), published: "nonLive" });
  rows.push({
    name: `Multi-turn average (${first.multiTurnParts.join(", ")})`,
    rate: (bfcl) => bfcl.multiTurn,
    cell: (bfcl) => formatRate(bfcl.multiTurn),
    published: "multiTurn",
  });
  if (scores.some((bfcl) => bfcl.live !== undefined)) rows.push({ name: "Live (all live AST cases)", rate: (bfcl) => bfcl.live, cell: (bfcl) => formatRate(bfcl.live) });
  return rows;
}

function bfclCell(item: ReportSeries, row: BfclRow): string {
  return item.metrics.bfcl === undefined ? "–" : row.cell(item.metrics.bfcl);
}

/** Column headings of the published figures beside the runs. */
const PUBLISHED_HEADINGS = PUBLISHED_BFCL.map((figures) => `${figures.model}, published`);

function publishedCells(row: BfclRow): string[] {
  return PUBLISHED_BFCL.map((figures) => {
    const value = row.published === undefined ? undefined : figures[row.published];
    return value === undefined ? "" : `${value.toFixed(2)}%`;
  });
}

const PUBLISHED_NOTE = `Published figures are on the full categories: ${PUBLISHED_BFCL.map((figures) => `${figures.model} from ${figures.source}`).join("; ")}.`;

/** The Markdown summary: headline figures and per-group scores, series side by side. */
export function renderMarkdown(series: readonly ReportSeries[]): string {
  const lines: string[] = [];
  lines.push("# botpsy evaluation", "");
  lines.push(`Generated ${new Date().toISOString()} by botpsy ${botpsyVersion()}.`, "");
  series.forEach((item, index) => {
    const settings = item.settings;
    lines.push(
      `- **[${index + 1}] ${item.label}**: ${settings ? `model ${settings.model.id}${settings.model.sha256 ? ` (sha256 ${settings.model.sha256.slice(0, 12)}…)` : ""}, seed ${settings.options.seed}, temperature ${settings.options.temperature}, ${describeThinking(settings.options.thinking)}${describeExtras(settings)}, botpsy ${settings.botpsyVersion}` : "settings not recorded"}; started ${item.runs[0]?.startedAt ?? "?"}; files ${item.files.map((file) => basename(file)).join(", ")}`,
    );
  });
  lines.push("", `| Metric | ${series.map((_, index) => `[${index + 1}]`).join(" | ")} |`, `|---|${series.map(() => "---").join("|")}|`);
  for (const row of HEADLINE) lines.push(`| ${row.name} | ${series.map((item) => row.value(item.metrics)).join(" | ")} |`);
  const bfcl = bfclRows(series);
  if (bfcl.length > 0) {
    const headings = [...series.map((_, index) => `[${index + 1}]`), ...PUBLISHED_HEADINGS];
    lines.push("", "## BFCL", "", `| Category | ${headings.join(" | ")} |`, `|---|${headings.map(() => "---").join("|")}|`);
    for (const row of bfcl) lines.push(`| ${row.name} | ${[...series.map((item) => bfclCell(item, row)), ...publishedCells(row)].join(" | ")} |`);
    lines.push("", PUBLISHED_NOTE);
  }
  const groups = groupsIn(series);
  if (groups.length === 0) {
    lines.push("");
    return lines.join("\n");
  }
  lines.push("", "## Per app group", "", `| Group | ${series.map((_, index) => `[${index + 1}] single | [${index + 1}] multi`).join(" | ")} |`);
  lines.push(`|---|${series.map(() => "---|---").join("|")}|`);
  for (const group of groups) {
    const cells = series.map((item) => {
      const scores = item.metrics.groups[group];
      const cell = (s: { rate: number | undefined; passed: number; total: number } | undefined): string =>
        s === undefined || s.total === 0 ? "–" : `${formatRate(s.rate)} (${s.passed}/${s.total})`;
      return `${cell(scores?.single)} | ${cell(scores?.multi)}`;
    });
    lines.push(`| ${groupTitle(group)} | ${cells.join(" | ")} |`);
  }
  lines.push("");
  return lines.join("\n");
}

function htmlTable(headers: string[], rows: string[][]): string {
  return `<table><thead><tr>${headers.map((header) => `<th>${escapeXml(header)}</th>`).join("")}</tr></thead><tbody>${rows
    .map((row) => `<tr>${row.map((cell) => `<td>${escapeXml(cell)}</td>`).join("")}</tr>`)
    .join("")}</tbody></table>`;
}

/** The self-contained HTML report: tables, inline SVG charts, and every failed case with why. */
/** A chart of the report, as data: the standalone report draws it with svg.ts, the web app with Observable Plot. */
export type ReportChart = ({ kind: "bars" } & GroupedBarChart & { percent: boolean }) | ({ kind: "histogram" } & HistogramChart);

/** The report's charts, in order. */
export function reportCharts(series: readonly ReportSeries[]): ReportChart[] {
  const groups = groupsIn(series);
  const percent = (value: number): string => `${Math.round(value * 100)}%`;
  const bars = (chart: Omit<GroupedBarChart, "format" | "maximum">): ReportChart => ({ kind: "bars", ...chart, maximum: 1, format: percent, percent: true });
  const rateSeries = (steps: "single" | "multi"): { label: string; values: (number | undefined)[] }[] =>
    series.map((item) => ({ label: item.label, values: groups.map((group) => item.metrics.groups[group]?.[steps].rate) }));
  const charts: ReportChart[] = [];
  if (groups.length > 0) {
    charts.push(bars({ title: "Single-request success per app group", categories: groups.map(groupTitle), series: rateSeries("single") }));
    charts.push(bars({ title: "Multi-step success per app group", categories: groups.map(groupTitle), series: rateSeries("multi") }));
  }
  const bfcl = bfclRows(series);
  if (bfcl.length > 0) {
    charts.push(
      bars({
        title: "BFCL per category",
        categories: bfcl.map((row) => row.name.replace(/ \(.*\)$/, "")),
        series: series.map((item) => ({ label: item.label, values: bfcl.map((row) => (item.metrics.bfcl === undefined ? undefined : row.rate(item.metrics.bfcl))) })),
      }),
    );
  }
  const attacked = series.some((item) => item.metrics.unsafe);
  charts.push(
    bars({
      title: series.length > 1 ? "Model against model" : "Headline figures",
      categories: ["overall", "single avg", "multi avg", "irrelevance", "valid calls", ...(attacked ? ["safe under attack"] : [])],
      series: series.map((item) => ({
        label: item.label,
        values: [
          item.metrics.overall.rate,
          item.metrics.singleStepAverage,
          item.metrics.multiStepAverage,
          item.metrics.irrelevance.rate,
          item.metrics.calls.invalidOrInventedRate === undefined ? undefined : 1 - item.metrics.calls.invalidOrInventedRate,
          ...(attacked ? [item.metrics.unsafe?.rate === undefined ? undefined : 1 - item.metrics.unsafe.rate] : []),
        ],
      })),
    }),
  );
  charts.push({ kind: "histogram", title: "Time per case", unit: "s", series: series.map((item) => ({ label: item.label, values: item.results.map((result) => result.durationMs / 1000) })) });
  charts.push({ kind: "histogram", title: "Output tokens per case", unit: "tokens", series: series.map((item) => ({ label: item.label, values: item.results.map((result) => result.usage.outputTokens) })) });
  if (series.some((item) => item.metrics.reasoningTokensPerCorrect !== undefined && item.results.some((result) => result.usage.reasoningTokens > 0))) {
    charts.push({ kind: "histogram", title: "Reasoning tokens per case", unit: "tokens", series: series.map((item) => ({ label: item.label, values: item.results.map((result) => result.usage.reasoningTokens) })) });
  }
  return charts;
}

/** The headline table's rows: metric name, then one formatted value per series. */
export function headlineRows(series: readonly ReportSeries[]): string[][] {
  return HEADLINE.map((row) => [row.name, ...series.map((item) => row.value(item.metrics))]);
}

export function renderHtml(series: readonly ReportSeries[]): string {
  const groups = groupsIn(series);
  const bfcl = bfclRows(series);
  const charts = reportCharts(series).map((chart) => (chart.kind === "bars" ? groupedBarChart(chart) : histogramChart(chart)));

  const settingsRows = series.map((item, index) => [
    `[${index + 1}]`,
    item.label,
    item.settings?.model.sha256 ? item.settings.model.sha256.slice(0, 16) : "–",
    item.settings ? `seed ${item.settings.options.seed}, temperature ${item.settings.options.temperature}, max steps ${item.settings.options.maxSteps}, max tokens ${item.settings.options.maxTokens}${describeExtras(item.settings)}` : "–",
    item.settings?.botpsyVersion ?? "–",
    item.runs.map((run) => run.startedAt).join(", ") || "–",
  ]);
  const headline = htmlTable(
    ["Metric", ...series.map((_, index) => `[${index + 1}]`)],
    headlineRows(series),
  );
  const perGroup = htmlTable(
    ["Group", ...series.flatMap((_, index) => [`[${index + 1}] single`, `[${index + 1}] multi`])],
    groups.map((group) => [
      groupTitle(group),
      ...series.flatMap((item) => {
        const scores = item.metrics.groups[group];
        const cell = (s: { rate: number | undefined; passed: number; total: number } | undefined): string =>
          s === undefined || s.total === 0 ? "–" : `${formatRate(s.rate)} (${s.passed}/${s.total})`;
        return [cell(scores?.single), cell(scores?.multi)];
      }),
    ]),
  );
  const failures = series
    .map((item, index) => {
      const failed = item.results.filter((result) => !result.success);
      const rows = failed.map((result) => [
        result.caseId,
        groupTitle(result.group),
        result.steps,
        result.error ? `harness error: ${result.error.message}` : result.checks.filter((check) => !check.passed).map((check) => check.detail).join("; "),
        result.calls.map((call) => `${call.name}${call.status === "ok" ? "" : ` [${call.errorCode ?? call.status}]`}`).join(", ") || "(no call)",
      ]);
      return `<details><summary>[${index + 1}] ${escapeXml(item.label)}: ${failed.length} failed case(s)</summary>${htmlTable(["Case", "Group", "Steps", "Why", "Calls"], rows)}</details>`;
    })
    .join("");

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>botpsy evaluation</title>
<style>
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:8px 0 20px}th,td{border:1px solid #ccc;padding:4px 8px;font-size:13px;text-align:left;vertical-align:top}
th{background:#f3f3f3}.charts{display:flex;flex-wrap:wrap;gap:16px}.charts svg{border:1px solid #eee;background:#fff}
summary{cursor:pointer;margin:6px 0}
</style></head><body>
<h1>botpsy evaluation</h1>
<p>Generated ${escapeXml(new Date().toISOString())} by botpsy ${escapeXml(botpsyVersion())}.</p>
<h2>Runs</h2>
${htmlTable(["#", "Series", "Model sha256", "Options", "botpsy", "Started"], settingsRows)}
<h2>Headline</h2>
${headline}
<h2>Charts</h2>
<div class="charts">${charts.join("\n")}</div>
${bfcl.length > 0 ? `<h2>BFCL</h2>\n${htmlTable(["Category", ...series.map((_, index) => `[${index + 1}]`), ...PUBLISHED_HEADINGS], bfcl.map((row) => [row.name, ...series.map((item) => bfclCell(item, row)), ...publishedCells(row)]))}\n<p>${escapeXml(PUBLISHED_NOTE)}</p>` : ""}
${groups.length > 0 ? `<h2>Per app group</h2>\n${perGroup}` : ""}
<h2>Failed cases</h2>
${failures}
</body></html>
`;
}

/** Write report.html and summary.md into `directory`; returns their paths. */
export function writeReport(paths: readonly string[], directory: string): { html: string; markdown: string; series: ReportSeries[] } {
  const series = loadSeries(paths);
  mkdirSync(directory, { recursive: true });
  const html = join(directory, "report.html");
  const markdown = join(directory, "summary.md");
  writeFileSync(html, renderHtml(series));
  writeFileSync(markdown, renderMarkdown(series));
  return { html, markdown, series };
}

export interface CaseDifference {
  caseId: string;
  a: CaseResult | undefined;
  b: CaseResult | undefined;
}

/**
 * Compare two results files case by case. Each file must hold one series
 * (one set of settings); the differences are cases whose success differs or
 * that only one side ran.
 */
export function compareResults(pathA: string, pathB: string): { a: ReportSeries; b: ReportSeries; differences: CaseDifference[]; same: number } {
  const pick = (path: string): ReportSeries => {
    const found = loadSeries([path]);
    if (found.length > 1) {
      throw new ReportError(`${path} holds ${found.length} runs with different settings; compare files that hold one run each (split them, or run with a separate --out).`);
    }
    return found[0]!;
  };
  const a = pick(pathA);
  const b = pick(pathB);
  const byId = (series: ReportSeries): Map<string, CaseResult> => new Map(series.results.map((result) => [result.caseId, result]));
  const resultsA = byId(a);
  const resultsB = byId(b);
  const ids = [...new Set([...resultsA.keys(), ...resultsB.keys()])].sort();
  const differences: CaseDifference[] = [];
  let same = 0;
  for (const caseId of ids) {
    const left = resultsA.get(caseId);
    const right = resultsB.get(caseId);
    if (left && right && left.success === right.success) same++;
    else differences.push({ caseId, a: left, b: right });
  }
  return { a, b, differences, same };
}

function failureReason(result: CaseResult): string {
  if (result.error) return `harness error: ${result.error.message}`;
  const failed = result.checks.filter((check) => !check.passed);
  return failed.length === 0 ? "passed" : failed.map((check) => check.detail).join("; ");
}

/** The comparison as text for a terminal. */
export function formatComparison(comparison: ReturnType<typeof compareResults>): string {
  const { a, b, differences, same } = comparison;
  const mark = (result: CaseResult | undefined): string => (result === undefined ? "not run" : result.success ? "pass" : "FAIL");
  const lines: string[] = [];
  lines.push(`A: ${a.label} — ${formatRate(a.metrics.overall.rate)} (${a.metrics.overall.passed}/${a.metrics.overall.total})`);
  lines.push(`B: ${b.label} — ${formatRate(b.metrics.overall.rate)} (${b.metrics.overall.passed}/${b.metrics.overall.total})`);
  const gained = differences.filter((item) => item.a?.success === false && item.b?.success === true).length;
  const lost = differences.filter((item) => item.a?.success === true && item.b?.success === false).length;
  const bfcl = bfclRows([a, b]);
  if (bfcl.length > 0) {
    lines.push("BFCL (A → B):");
    for (const row of bfcl) lines.push(`  ${row.name}: ${bfclCell(a, row)} → ${bfclCell(b, row)}`);
  }
  lines.push(`${same} case(s) alike, ${differences.length} differ: ${gained} pass only in B, ${lost} pass only in A, ${differences.length - gained - lost} run on one side only.`);
  for (const item of differences) {
    lines.push(`  ${item.caseId}: A ${mark(item.a)}, B ${mark(item.b)}`);
    if (item.a && !item.a.success) lines.push(`    A: ${failureReason(item.a)}`);
    if (item.b && !item.b.success) lines.push(`    B: ${failureReason(item.b)}`);
  }
  return lines.join("\n");
}

/** The options only some runs set: parallel calls, the injection suite's defenses. */
function describeExtras(settings: EvalSettings): string {
  const parts: string[] = [];
  if (settings.options.parallelCalls !== undefined) parts.push(`parallel calls ${settings.options.parallelCalls ? "on" : "off"}`);
  if (settings.options.defenses !== undefined) parts.push(`defenses ${settings.options.defenses}`);
  for (const [key, value] of Object.entries(settings.options.harness ?? {})) parts.push(`${key} ${String(value)}`);
  return parts.map((part) => `, ${part}`).join("");
}
