/**
 * Small inline SVG charts for the HTML report: no scripts, no external
 * assets, so the report opens anywhere, offline.
 */

export const SERIES_COLOURS = ["#2f6fb3", "#d9822b", "#3a9a5b", "#b53d5e", "#7a5cb8", "#8a8a3a", "#3a8a8a", "#555555"];

export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

function colour(index: number): string {
  return SERIES_COLOURS[index % SERIES_COLOURS.length]!;
}

export interface GroupedBarChart {
  title: string;
  /** Categories along the x axis (groups). */
  categories: string[];
  /** One series per run; values[i] belongs to categories[i] (undefined: no data). */
  series: { label: string; values: (number | undefined)[] }[];
  /** Upper end of the y axis; default the largest value. */
  maximum?: number;
  /** How a value is written over its bar. */
  format?: (value: number) => string;
}

/**
 * A generous estimate of a text's width in pixels (no font metrics without a
 * browser): wide enough for the sans-serif fonts a report opens in, so the
 * layout leaves room and nothing is cut off or runs into its neighbour.
 */
export function textWidth(text: string, fontSize: number, bold = false): number {
  return Math.ceil([...text].length * fontSize * (bold ? 0.66 : 0.6));
}

const TITLE_SIZE = 13;
const LEGEND_SIZE = 11;
const LEGEND_ROW = 16;

/** The legend below a chart, one row per series (series labels are long). */
function legend(labels: string[], x: number, y: number): string {
  return labels
    .map(
      (label, index) =>
        `<g class="legend-item" transform="translate(${x},${y + index * LEGEND_ROW})"><rect width="10" height="10" fill="${colour(index)}"/><text x="14" y="9" font-size="${LEGEND_SIZE}">${escapeXml(label)}</text></g>`,
    )
    .join("");
}

function legendWidth(labels: string[]): number {
  return 14 + Math.max(0, ...labels.map((label) => textWidth(label, LEGEND_SIZE)));
}

function svg(title: string, width: number, height: number, parts: string[]): string {
  return `<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}">${parts.join("")}</svg>`;
}

/** Bars grouped by category, one colour per series. A missing value draws no bar but a dash. */
export function groupedBarChart(chart: GroupedBarChart): string {
  const format = chart.format ?? ((value: number) => String(Math.round(value * 100) / 100));
  const values = chart.series.flatMap((series) => series.values.filter((value): value is number => value !== undefined));
  const maximum = chart.maximum ?? Math.max(1e-9, ...values);
  const plotHeight = 180;
  // Room above the highest bar for its value label, below the title.
  const top = 40;
  const left = 8 + Math.max(...[0, 1, 2, 3, 4].map((tick) => textWidth(format((maximum * tick) / 4), 10))) + 6;
  const barWidth = Math.max(8, Math.min(28, Math.floor(120 / Math.max(1, chart.series.length))));
  const valueLabels = values.map((value) => textWidth(format(value), 9));
  // Value labels over bars only where each fits over its own bar.
  const labelBars = chart.series.length <= 3 && valueLabels.every((width) => width <= barWidth + 2);
  // Each group is as wide as its bars or its category label, whichever is wider, so labels never touch.
  const groupWidth = Math.max(barWidth * chart.series.length + 18, ...chart.categories.map((category) => textWidth(category, 11) + 12));
  const plotRight = left + groupWidth * chart.categories.length;
  const labels = chart.series.map((series) => series.label);
  const legendTop = top + plotHeight + 30;
  const width = Math.ceil(Math.max(plotRight + 12, left + textWidth(chart.title, TITLE_SIZE, true) + 12, left + legendWidth(labels) + 12));
  const height = legendTop + labels.length * LEGEND_ROW + 6;
  const parts: string[] = [];
  parts.push(`<text x="${left}" y="18" font-size="${TITLE_SIZE}" font-weight="bold">${escapeXml(chart.title)}</text>`);
  for (let tick = 0; tick <= 4; tick++) {
    const y = top + plotHeight - (plotHeight * tick) / 4;
    parts.push(`<line x1="${left}" x2="${plotRight}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    parts.push(`<text x="${left - 4}" y="${y + 4}" font-size="10" text-anchor="end">${escapeXml(format((maximum * tick) / 4))}</text>`);
  }
  chart.categories.forEach((category, categoryIndex) => {
    const groupLeft = left + categoryIndex * groupWidth;
    const barsLeft = groupLeft + (groupWidth - barWidth * chart.series.length) / 2;
    chart.series.forEach((series, seriesIndex) => {
      const value = series.values[categoryIndex];
      const x = barsLeft + seriesIndex * barWidth;
      if (value === undefined) {
        parts.push(`<text x="${x + barWidth / 2}" y="${top + plotHeight - 3}" font-size="10" text-anchor="middle">–</text>`);
        return;
      }
      // A zero still draws a hairline bar, so "measured: zero" differs from "no data".
      const barHeight = Math.max(1, (Math.min(value, maximum) / maximum) * plotHeight);
      const y = top + plotHeight - barHeight;
      parts.push(
        `<rect class="bar" data-series="${escapeXml(series.label)}" data-category="${escapeXml(category)}" data-value="${value}" x="${x}" y="${y}" width="${barWidth - 2}" height="${barHeight}" fill="${colour(seriesIndex)}"><title>${escapeXml(`${series.label} · ${category}: ${format(value)}`)}</title></rect>`,
      );
      if (labelBars) parts.push(`<text class="value" x="${x + (barWidth - 2) / 2}" y="${y - 3}" font-size="9" text-anchor="middle">${escapeXml(format(value))}</text>`);
    });
    parts.push(`<text class="category" x="${groupLeft + groupWidth / 2}" y="${top + plotHeight + 16}" font-size="11" text-anchor="middle">${escapeXml(category)}</text>`);
  });
  parts.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotHeight}" stroke="#333"/>`);
  parts.push(legend(labels, left, legendTop));
  return svg(chart.title, width, height, parts);
}

export interface HistogramChart {
  title: string;
  /** The unit written on the x axis ("s", "tokens"). */
  unit: string;
  series: { label: string; values: number[] }[];
  bins?: number;
}

/** Overlaid histograms (one per series) on shared bins. */
export function histogramChart(chart: HistogramChart): string {
  const binCount = chart.bins ?? 12;
  const all = chart.series.flatMap((series) => series.values);
  const low = all.length === 0 ? 0 : Math.min(...all);
  const high = all.length === 0 ? 1 : Math.max(...all);
  const span = high > low ? high - low : 1;
  const binWidthValue = span / binCount;
  const counts = chart.series.map((series) => {
    const bins = new Array<number>(binCount).fill(0);
    for (const value of series.values) bins[Math.min(binCount - 1, Math.floor((value - low) / binWidthValue))]!++;
    return bins;
  });
  const maximum = Math.max(1, ...counts.flat());
  const left = 8 + textWidth(String(maximum), 10) + 6;
  const top = 32;
  const plotHeight = 150;
  const binPixels = 36;
  const plotWidth = binPixels * binCount;
  const labels = chart.series.map((series) => series.label);
  const axisLabel = `${chart.unit} per case (number of cases)`;
  const highLabel = `${high.toFixed(1)} ${chart.unit}`;
  const legendTop = top + plotHeight + 44;
  const width = Math.ceil(Math.max(left + plotWidth + textWidth(highLabel, 10) / 2 + 12, left + textWidth(chart.title, TITLE_SIZE, true) + 12, left + legendWidth(labels) + 12, left + textWidth(axisLabel, 11) + 12));
  const height = legendTop + labels.length * LEGEND_ROW + 6;
  const parts: string[] = [`<text x="${left}" y="18" font-size="${TITLE_SIZE}" font-weight="bold">${escapeXml(chart.title)}</text>`];
  const barPixels = Math.max(3, Math.floor((binPixels - 4) / Math.max(1, chart.series.length)));
  counts.forEach((bins, seriesIndex) => {
    bins.forEach((count, bin) => {
      if (count === 0) return;
      const barHeight = (count / maximum) * plotHeight;
      const x = left + bin * binPixels + 2 + seriesIndex * barPixels;
      const from = low + bin * binWidthValue;
      parts.push(
        `<rect class="bar" data-series="${escapeXml(chart.series[seriesIndex]!.label)}" data-count="${count}" x="${x}" y="${top + plotHeight - barHeight}" width="${barPixels - 1}" height="${barHeight}" fill="${colour(seriesIndex)}"><title>${escapeXml(`${chart.series[seriesIndex]!.label}: ${count} case(s) in ${from.toFixed(1)}–${(from + binWidthValue).toFixed(1)} ${chart.unit}`)}</title></rect>`,
      );
    });
  });
  parts.push(`<line x1="${left}" x2="${left + plotWidth}" y1="${top + plotHeight}" y2="${top + plotHeight}" stroke="#333"/>`);
  parts.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotHeight}" stroke="#333"/>`);
  parts.push(`<text x="${left - 4}" y="${top + 4}" font-size="10" text-anchor="end">${maximum}</text>`);
  parts.push(`<text x="${left - 4}" y="${top + plotHeight}" font-size="10" text-anchor="end">0</text>`);
  parts.push(`<text x="${left}" y="${top + plotHeight + 14}" font-size="10">${escapeXml(low.toFixed(1))}</text>`);
  parts.push(`<text x="${left + plotWidth}" y="${top + plotHeight + 14}" font-size="10" text-anchor="middle">${escapeXml(highLabel)}</text>`);
  parts.push(`<text x="${left + plotWidth / 2}" y="${top + plotHeight + 32}" font-size="11" text-anchor="middle">${escapeXml(axisLabel)}</text>`);
  parts.push(legend(labels, left, legendTop));
  return svg(chart.title, width, height, parts);
}
