/**
 * What the chart view plots, from add_chart's or update_chart's result and the cells of its ranges
 * as read_ranges reads them through the host: the labels (or a scatter chart's x values), each
 * series' name and numbers, and the same as rows of a table.
 */

/** The chart as the chart tools answer it (services/mcp/src/tools/sets/charts/chart-spec.ts). */
export interface ChartResult {
  chartId: number | null;
  type: string;
  title: string | null;
  tab: string | null;
  sheetId: number | null;
  domain: string | null;
  series: string[];
  legendPosition: string | null;
  xAxisTitle: string | null;
  yAxisTitle: string | null;
  stacked: boolean;
  dryRun?: boolean;
  /** update_chart's: the chart before the change. */
  previous?: ChartResult;
}

/** The tool's arguments as the host passes them on (ui/notifications/tool-input). */
export interface ChartArgs {
  spreadsheetId: string;
  headerRow?: boolean;
  range?: string;
  domain?: string;
  series?: string[];
  [argument: string]: unknown;
}

export type Cell = string | number | boolean | null | undefined;

/** The types the view draws; any other (a combo chart made in Sheets) is shown as its table only. */
export const DRAWN_TYPES = ['column', 'bar', 'line', 'area', 'pie', 'scatter'] as const;
export type DrawnType = (typeof DRAWN_TYPES)[number];

export interface Plot {
  /** The labels as Sheets shows them (a scatter chart's x values, formatted). */
  labels: string[];
  /** A scatter chart's x values; null where the cell holds no number. */
  xs: Array<number | null>;
  series: Array<{ name: string; values: Array<number | null> }>;
  /** The table alternative: its head and its rows, each cell as Sheets shows it. */
  head: string[];
  rows: string[][];
}

/**
 * A domain or series as its ranges: one, or several comma-separated (a chart made in Sheets
 * with several sources). Commas inside a quoted tab name are the name's.
 */
export function sourcesOf(ranges: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let index = 0; index < ranges.length; index++) {
    if (ranges[index] === "'") quoted = !quoted;
    else if (ranges[index] === ',' && !quoted) {
      parts.push(ranges.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(ranges.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/** One column's cells, top to bottom, from read_ranges' rows (a blank row is `[]`). */
export function columnOf(pages: ReadonlyArray<ReadonlyArray<ReadonlyArray<Cell>>>): Cell[] {
  return pages.flatMap((rows) => rows.map((row) => row[0]));
}

/**
 * Whether the ranges' first row is a header naming the series. A pie chart's ranges start below
 * it (the tools leave the header out of them). Otherwise as the call said: add_chart's headerRow
 * (true unless given), update_chart's when given or when it gave new data as a block or as domain
 * and series (which count a header unless told not to). An update that kept the chart's data does
 * not say whether it counts one: then a first row holding text in every series is taken as one.
 */
export function hasHeaderRow(chart: ChartResult, args: Partial<ChartArgs>, seriesFirst: Cell[]): boolean {
  if (chart.type === 'pie') return false;
  if (typeof args.headerRow === 'boolean') return args.headerRow;
  if (!chart.previous) return true;
  if (args.range !== undefined || (args.domain !== undefined && args.series !== undefined)) return true;
  return seriesFirst.length > 0 && seriesFirst.every((cell) => typeof cell === 'string' && cell !== '');
}

const shown = (cell: Cell) => (cell === null || cell === undefined ? '' : String(cell));
const numberOf = (cell: Cell) => (typeof cell === 'number' && Number.isFinite(cell) ? cell : null);

/**
 * The plot of a chart: its domain's and series' cells as read (`raw` unformatted, `formatted` as
 * Sheets shows them), the header row taken off when there is one.
 */
export function plotOf(
  chart: ChartResult,
  domain: { raw: Cell[]; formatted: Cell[] },
  series: Array<{ raw: Cell[]; formatted: Cell[] }>,
  headerRow: boolean,
): Plot {
  const skip = headerRow ? 1 : 0;
  // The domain and every series are as tall as one another; blank rows at the end are not read.
  const rows = Math.max(
    0,
    domain.raw.length - skip,
    domain.formatted.length - skip,
    ...series.map((each) => Math.max(each.raw.length, each.formatted.length) - skip),
  );
  const body = <T>(cells: T[]) => Array.from({ length: rows }, (_, index) => cells[index + skip]);
  const labels = body(domain.formatted).map(shown);
  const plotted = series.map((each, index) => ({
    name: (headerRow ? shown(each.formatted[0] ?? each.raw[0]) : '') || `Series ${index + 1}`,
    values: body(each.raw).map(numberOf),
  }));
  const formatted = series.map((each) => body(each.formatted).map(shown));
  const domainName = headerRow ? shown(domain.formatted[0] ?? domain.raw[0]) : '';
  return {
    labels,
    xs: body(domain.raw).map(numberOf),
    series: plotted,
    head: [domainName || (chart.type === 'scatter' ? 'x' : 'Label'), ...plotted.map((each) => each.name)],
    rows: labels.map((label, row) => [label, ...formatted.map((cells) => cells[row] ?? '')]),
  };
}

/** Each series' values added to those of the series before it: a stacked area chart's tops. */
export function stackedTops(series: Plot['series']): Plot['series'] {
  const sums: number[] = [];
  return series.map((each) => ({
    name: each.name,
    values: each.values.map((value, row) => {
      sums[row] = (sums[row] ?? 0) + (value ?? 0);
      return value === null ? null : sums[row]!;
    }),
  }));
}

/** What the chart is, in words: its accessible description and the status line's. */
export function summaryOf(chart: ChartResult, plot: Plot): string {
  const kind = (DRAWN_TYPES as readonly string[]).includes(chart.type)
    ? chart.type
    : `${chart.type} (not drawn)`;
  const stacked = chart.stacked ? 'stacked ' : '';
  const of = chart.domain ? ` of ${[chart.domain, ...chart.series].join(', ')}` : '';
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `A ${stacked}${kind} chart${of}: ${count(plot.rows.length, 'row')} in ${plot.series.length} series.`;
}
