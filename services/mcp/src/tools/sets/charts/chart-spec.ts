/**
 * Charts as the chart tools speak of them (a type, a title, a domain column and series columns, a
 * legend, axis titles, stacking) and as the Sheets API stores them (a ChartSpec: BasicChartSpec
 * for column, bar, line, area and scatter, PieChartSpec for pie), each way.
 *
 * A basic chart's sources include the header row (`headerCount: 1`), so its series are named by
 * the header; a pie chart has no header count, so its sources start below the header — a header in
 * them would be drawn as a slice.
 */
import type { sheets_v4 } from 'googleapis';
import { ToolError } from '../../../errors/tool-error.ts';
import { a1Of, type Tab } from '../../kit/rule-grid.ts';

export const CHART_TYPES = ['column', 'bar', 'line', 'area', 'pie', 'scatter'] as const;
export type ChartType = (typeof CHART_TYPES)[number];
export const LEGEND_POSITIONS = ['bottom', 'top', 'left', 'right', 'none'] as const;
export type LegendPosition = (typeof LEGEND_POSITIONS)[number];
/** The types whose series may be stacked on one another. */
export const STACKABLE: readonly ChartType[] = ['column', 'bar', 'area'];

const BASIC_TYPES: Record<Exclude<ChartType, 'pie'>, string> = {
  column: 'COLUMN',
  bar: 'BAR',
  line: 'LINE',
  area: 'AREA',
  scatter: 'SCATTER',
};
const LEGENDS: Record<LegendPosition, string> = {
  bottom: 'BOTTOM_LEGEND',
  top: 'TOP_LEGEND',
  left: 'LEFT_LEGEND',
  right: 'RIGHT_LEGEND',
  none: 'NO_LEGEND',
};

/** A chart the tools can make and change. */
export interface ChartShape {
  type: ChartType;
  title: string | null;
  /** One column: the labels, or a scatter chart's x values. */
  domain: sheets_v4.Schema$GridRange;
  /** One column each, as tall as the domain. */
  series: sheets_v4.Schema$GridRange[];
  /** Whether each source's first row is its header (it names the series). */
  headerRow: boolean;
  legendPosition: LegendPosition;
  /** The horizontal (BOTTOM_AXIS) and vertical (LEFT_AXIS) axes' titles; basic charts only. */
  xAxisTitle: string | null;
  yAxisTitle: string | null;
  stacked: boolean;
}

const source = (range: sheets_v4.Schema$GridRange) => ({ sourceRange: { sources: [range] } });

/** The rows below the header, for a pie chart's sources. */
function withoutHeader(range: sheets_v4.Schema$GridRange, headerRow: boolean): sheets_v4.Schema$GridRange {
  return headerRow ? { ...range, startRowIndex: (range.startRowIndex ?? 0) + 1 } : range;
}

/** The ChartSpec of a shape; refuses what its type does not take. */
export function specOf(shape: ChartShape): sheets_v4.Schema$ChartSpec {
  const title = shape.title ? { title: shape.title } : {};
  if (shape.stacked && !STACKABLE.includes(shape.type))
    throw new ToolError(`a ${shape.type} chart cannot be stacked; only ${STACKABLE.join(', ')} charts can`);
  if (shape.type === 'pie') {
    if (shape.series.length !== 1)
      throw new ToolError(
        `a pie chart shows one series: a range of two columns, the labels and the values (this one has ${shape.series.length + 1})`,
      );
    if (shape.xAxisTitle || shape.yAxisTitle) throw new ToolError('a pie chart has no axes to title');
    return {
      ...title,
      pieChart: {
        legendPosition: LEGENDS[shape.legendPosition],
        domain: source(withoutHeader(shape.domain, shape.headerRow)),
        series: source(withoutHeader(shape.series[0]!, shape.headerRow)),
      },
    };
  }
  // A bar chart's values run along the horizontal axis; every other type's up the vertical one.
  const valueAxis = shape.type === 'bar' ? 'BOTTOM_AXIS' : 'LEFT_AXIS';
  const axis = [
    ...(shape.xAxisTitle ? [{ position: 'BOTTOM_AXIS', title: shape.xAxisTitle }] : []),
    ...(shape.yAxisTitle ? [{ position: 'LEFT_AXIS', title: shape.yAxisTitle }] : []),
  ];
  return {
    ...title,
    basicChart: {
      chartType: BASIC_TYPES[shape.type],
      legendPosition: LEGENDS[shape.legendPosition],
      headerCount: shape.headerRow ? 1 : 0,
      ...(axis.length > 0 ? { axis } : {}),
      ...(shape.stacked ? { stackedType: 'STACKED' } : {}),
      domains: [{ domain: source(shape.domain) }],
      series: shape.series.map((range) => ({ series: source(range), targetAxis: valueAxis })),
    },
  };
}

/** What a chart is, in the tools' words: one of CHART_TYPES, or the kind Google names (combo, histogram, …). */
export function chartTypeOf(spec: sheets_v4.Schema$ChartSpec | undefined): string {
  const basic = spec?.basicChart?.chartType;
  if (basic) {
    const known = Object.entries(BASIC_TYPES).find(([, value]) => value === basic);
    return known ? known[0] : basic.toLowerCase();
  }
  if (spec?.pieChart) return 'pie';
  const kind = Object.keys(spec ?? {}).find((key) => key.endsWith('Chart'));
  return kind ? kind.replace(/Chart$/, '').toLowerCase() : 'unknown';
}

const firstSource = (data: sheets_v4.Schema$ChartData | undefined) => data?.sourceRange?.sources?.[0];

/**
 * The shape of a chart the tools can change, or a refusal naming what it is: a combo chart,
 * a histogram, several domains or sources made in Sheets are left to Sheets.
 */
export function shapeOf(spec: sheets_v4.Schema$ChartSpec | undefined, chartId: number): ChartShape {
  const type = chartTypeOf(spec);
  const cannot = (why: string) =>
    new ToolError(
      `chart ${chartId} is ${why}, which update_chart does not rewrite; it can still be moved (anchorCell, width, height, newSheet) or deleted`,
    );
  if (!(CHART_TYPES as readonly string[]).includes(type)) throw cannot(`a ${type} chart`);
  const legend = (value: string | null | undefined) =>
    (Object.entries(LEGENDS).find(([, each]) => each === value)?.[0] as LegendPosition | undefined) ??
    'bottom';
  if (spec?.pieChart) {
    const domain = firstSource(spec.pieChart.domain);
    const series = firstSource(spec.pieChart.series);
    if (!domain || !series) throw cannot('a pie chart without its data');
    return {
      type: 'pie',
      title: spec.title ?? null,
      domain,
      series: [series],
      headerRow: false,
      legendPosition: legend(spec.pieChart.legendPosition),
      xAxisTitle: null,
      yAxisTitle: null,
      stacked: false,
    };
  }
  const basic = spec?.basicChart ?? {};
  const domains = basic.domains ?? [];
  const series = basic.series ?? [];
  if (
    domains.length !== 1 ||
    series.length === 0 ||
    [domains[0]!.domain, ...series.map((each) => each.series)].some(
      (data) => (data?.sourceRange?.sources ?? []).length !== 1,
    )
  )
    throw cannot('a chart whose data is not one domain column and series columns');
  const axisTitle = (position: string) =>
    basic.axis?.find((axis) => axis.position === position)?.title ?? null;
  return {
    type: type as ChartType,
    title: spec?.title ?? null,
    domain: firstSource(domains[0]!.domain)!,
    series: series.map((each) => firstSource(each.series)!),
    headerRow: (basic.headerCount ?? 0) > 0,
    legendPosition: legend(basic.legendPosition),
    xAxisTitle: axisTitle('BOTTOM_AXIS'),
    yAxisTitle: axisTitle('LEFT_AXIS'),
    stacked: basic.stackedType === 'STACKED' || basic.stackedType === 'PERCENT_STACKED',
  };
}

/** Where a chart is and what it shows, as list_charts and the change tools answer it. */
export type ChartView = {
  chartId: number | null;
  type: string;
  title: string | null;
  /** The tab the chart is on (its own sheet's, for a chart alone on one); null before one is made. */
  sheetId: number | null;
  tab: string | null;
  ownSheet: boolean;
  anchorCell: string | null;
  width: number | null;
  height: number | null;
  domain: string | null;
  series: string[];
  legendPosition: string | null;
  xAxisTitle: string | null;
  yAxisTitle: string | null;
  stacked: boolean;
};

export function chartView(
  chart: sheets_v4.Schema$EmbeddedChart,
  onSheet: { sheetId: number; title: string } | null,
  tabs: readonly Tab[],
): ChartView {
  const spec = chart.spec;
  const overlay = chart.position?.overlayPosition;
  const anchor = overlay?.anchorCell;
  const a1 = (range: sheets_v4.Schema$GridRange | undefined) => (range ? a1Of(range, tabs) : null);
  const pie = spec?.pieChart;
  const basic = spec?.basicChart;
  // A domain or series of several sources (made in Sheets) is shown as its ranges, comma-separated.
  const ranges = (data: sheets_v4.Schema$ChartData | undefined) => {
    const sources = data?.sourceRange?.sources ?? [];
    return sources.length === 0 ? null : sources.map((range) => a1Of(range, tabs)).join(',');
  };
  const seriesRanges = pie ? [ranges(pie.series)] : (basic?.series ?? []).map((each) => ranges(each.series));
  const legend = pie?.legendPosition ?? basic?.legendPosition;
  return {
    chartId: chart.chartId ?? null,
    type: chartTypeOf(spec),
    title: spec?.title || null,
    sheetId: onSheet?.sheetId ?? null,
    tab: onSheet?.title ?? null,
    ownSheet: !overlay,
    anchorCell: anchor
      ? a1({
          sheetId: anchor.sheetId ?? 0,
          startRowIndex: anchor.rowIndex ?? 0,
          endRowIndex: (anchor.rowIndex ?? 0) + 1,
          startColumnIndex: anchor.columnIndex ?? 0,
          endColumnIndex: (anchor.columnIndex ?? 0) + 1,
        })
      : null,
    width: overlay ? (overlay.widthPixels ?? null) : null,
    height: overlay ? (overlay.heightPixels ?? null) : null,
    domain: ranges(pie ? pie.domain : basic?.domains?.[0]?.domain),
    series: seriesRanges.filter((range) => range !== null),
    legendPosition: legend
      ? (Object.entries(LEGENDS).find(([, each]) => each === legend)?.[0] ??
        legend.replace(/_LEGEND$/, '').toLowerCase())
      : null,
    xAxisTitle: basic?.axis?.find((axis) => axis.position === 'BOTTOM_AXIS')?.title ?? null,
    yAxisTitle: basic?.axis?.find((axis) => axis.position === 'LEFT_AXIS')?.title ?? null,
    stacked: basic?.stackedType === 'STACKED' || basic?.stackedType === 'PERCENT_STACKED',
  };
}
