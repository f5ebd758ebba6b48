/**
 * The chart view (docs/design.md §11.11): the chart add_chart or update_chart made, drawn from its
 * spec as the tool answered it (type, title, domain and series ranges, legend, axis titles,
 * stacking) and the cells of those ranges, read with read_ranges through the host. Its data comes
 * only from the host, never from Sheetgate or Google directly: the view holds no credential and
 * may reach no origin.
 *
 * Drawn by Chartist (chartist 1.5.0, MIT): about 11 KB gzipped for its bar, line and pie charts
 * (uPlot is twice that and draws no pie; Chart.js tree-shaken to these charts, five times), kept
 * up, with no dependency, and drawing SVG, so each bar, point and slice is an element carrying its
 * value (`ct:value`) that a test reads, and whose colours and text follow the host's theme by CSS.
 */
import { App } from '@modelcontextprotocol/ext-apps';
import {
  AutoScaleAxis,
  BarChart,
  type BarChartOptions,
  type Label,
  LineChart,
  type LineChartOptions,
  PieChart,
  type PieChartOptions,
} from 'chartist';
import { hostTheme, quietZod } from '../shared/host-theme.ts';
import { sheetUrl } from '../shared/sheet-link.ts';
import {
  type Cell,
  type ChartArgs,
  type ChartResult,
  columnOf,
  DRAWN_TYPES,
  type DrawnType,
  hasHeaderRow,
  type Plot,
  plotOf,
  sourcesOf,
  stackedTops,
  summaryOf,
} from './plot-data.ts';

quietZod();
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const title = $('title');
const status = $('status');
const frame = $('frame');
const chartBox = $('chart');
const legend = $('legend');
const xTitle = $('x-title');
const yTitle = $('y-title');
const open = $<HTMLAnchorElement>('open');
const toggle = $<HTMLButtonElement>('toggle');
const tableBox = $('table');
const table = $<HTMLTableElement>('data');

/** Google Sheets' own series colours, in its order. */
const COLOURS = ['#4285f4', '#ea4335', '#fbbc04', '#34a853', '#ff6d01', '#46bdc6', '#7baaf7', '#f07b72'];
const colour = (index: number) => COLOURS[index % COLOURS.length]!;
/** read_ranges reads at most this many rows of each range (its limitPerRange) and 50 ranges a call. */
const ROWS = 2_000;
const RANGES_PER_CALL = 50;
const HEIGHT = 280;
const PADDING = { top: 12, right: 12, bottom: 0, left: 4 };

const app = new App({ name: 'Sheetgate chart', version: '1.0.0' });
let args: Partial<ChartArgs> = {};
/** Bumped per result shown: data arriving for an older one is dropped. */
let generation = 0;

app.ontoolinput = (params) => {
  args = (params.arguments ?? {}) as Partial<ChartArgs>;
};
app.ontoolresult = (result) => void show(result);
app.onhostcontextchanged = hostTheme;

async function show(result: { isError?: boolean; structuredContent?: unknown; content?: unknown }) {
  const mine = ++generation;
  const chart = result.structuredContent as ChartResult | undefined;
  if (result.isError || !chart?.type) {
    const text = (result.content as Array<{ text?: string }> | undefined)?.[0]?.text;
    status.textContent = text ?? 'The chart could not be made.';
    return;
  }
  title.textContent = chart.title || `Untitled ${chart.type} chart`;
  if (args.spreadsheetId) {
    open.href = sheetUrl(args.spreadsheetId, chart.sheetId);
    open.hidden = false;
  }
  if (!chart.domain || chart.series.length === 0) {
    status.textContent = `A ${chart.type} chart whose data Sheetgate cannot read.`;
    return;
  }
  status.textContent = 'Reading the chart’s data…';
  let plot: Plot;
  let more: boolean;
  try {
    ({ plot, more } = await read(chart));
  } catch (error) {
    if (mine === generation)
      status.textContent = `The chart’s data could not be read: ${(error as Error).message}`;
    return;
  }
  if (mine !== generation) return;
  const drawn = (DRAWN_TYPES as readonly string[]).includes(chart.type);
  status.textContent = [
    chart.dryRun ? 'Dry run: the chart as it would be; nothing was changed.' : '',
    summaryOf(chart, plot),
    more ? `Its first ${ROWS} rows are drawn.` : '',
    drawn ? '' : 'Sheetgate draws column, bar, line, area, pie and scatter charts; its data is in the table.',
  ]
    .filter(Boolean)
    .join(' ');
  fillTable(plot);
  toggle.hidden = false;
  showTable(!drawn);
  frame.hidden = !drawn;
  if (drawn) draw(chart, chart.type as DrawnType, plot);
}

/**
 * The domain's and series' cells, each range read twice in one read_ranges call per render:
 * unformatted (the numbers plotted) and formatted (labels and the table, as Sheets shows them).
 */
async function read(chart: ChartResult): Promise<{ plot: Plot; more: boolean }> {
  const columns = [chart.domain!, ...chart.series].map(sourcesOf);
  const ranges = columns.flat();
  const [raw, formatted] = await Promise.all([
    readAll(ranges, 'UNFORMATTED_VALUE'),
    readAll(ranges, 'FORMATTED_VALUE'),
  ]);
  // Each column's pages: as many as it has sources, in the order asked.
  const cellsOf = (pages: Cell[][][]) => {
    let at = 0;
    return columns.map((sources) => {
      at += sources.length;
      return columnOf(pages.slice(at - sources.length, at));
    });
  };
  const rawColumns = cellsOf(raw.pages);
  const formattedColumns = cellsOf(formatted.pages);
  const [domainRaw = [], ...seriesRaw] = rawColumns;
  const [domainFormatted = [], ...seriesFormatted] = formattedColumns;
  const series = seriesRaw.map((cells, index) => ({ raw: cells, formatted: seriesFormatted[index] ?? [] }));
  const headerRow = hasHeaderRow(
    chart,
    args,
    series.map((each) => each.raw[0]),
  );
  return {
    plot: plotOf(chart, { raw: domainRaw, formatted: domainFormatted }, series, headerRow),
    more: raw.more || formatted.more,
  };
}

async function readAll(ranges: string[], render: 'UNFORMATTED_VALUE' | 'FORMATTED_VALUE') {
  const pages: Cell[][][] = [];
  let more = false;
  for (let start = 0; start < ranges.length; start += RANGES_PER_CALL) {
    const result = await app.callServerTool({
      name: 'read_ranges',
      arguments: {
        spreadsheetId: args.spreadsheetId,
        ranges: ranges.slice(start, start + RANGES_PER_CALL),
        valueRenderOption: render,
        limitPerRange: ROWS,
      },
    });
    const found = result.structuredContent as
      | { valueRanges: Array<{ values: Cell[][]; nextOffset: number | null }> }
      | undefined;
    if (result.isError || !found) {
      const text = (result.content as Array<{ text?: string }> | undefined)?.[0]?.text;
      throw new Error(text ?? 'read_ranges answered nothing');
    }
    for (const each of found.valueRanges) {
      pages.push(each.values);
      more ||= each.nextOffset !== null;
    }
  }
  return { pages, more };
}

function draw(chart: ChartResult, type: DrawnType, plot: Plot) {
  frame.dataset.legend = chart.legendPosition ?? 'bottom';
  axisTitle(xTitle, type === 'pie' ? null : chart.xAxisTitle);
  axisTitle(yTitle, type === 'pie' ? null : chart.yAxisTitle);
  const names = type === 'pie' ? plot.labels : plot.series.map((each) => each.name);
  legend.replaceChildren(
    ...names.map((name, index) => {
      const item = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = colour(index);
      item.append(swatch, name);
      return item;
    }),
  );
  chartBox.removeAttribute('data-drawn');
  const values = plot.series.map((each) => each.values);
  let drawing: BarChart | LineChart | PieChart;
  if (type === 'pie') {
    const options: PieChartOptions = {
      height: HEIGHT,
      labelPosition: 'outside',
      labelOffset: 16,
      labelDirection: 'explode',
      chartPadding: 28,
      ignoreEmptyValues: true,
    };
    drawing = new PieChart(chartBox, { labels: plot.labels, series: values[0]!.map((v) => v ?? 0) }, options);
  } else if (type === 'column' || type === 'bar') {
    // Bars as wide as the room each label has, shared by its series side by side (or stacked).
    const room = Math.max(40, chartBox.clientWidth - 60) / Math.max(1, plot.labels.length);
    const side = chart.stacked ? 1 : plot.series.length;
    const bar = Math.max(2, Math.min(48, (room * 0.7) / side));
    const options: BarChartOptions = {
      height: HEIGHT,
      stackBars: chart.stacked,
      horizontalBars: type === 'bar',
      seriesBarDistance: bar + 1,
      chartPadding: PADDING,
      // Grid lines across the values only, as Sheets draws them.
      axisX: { showGrid: type === 'bar', ...(type === 'bar' ? {} : thinned(plot, 64)) },
      axisY: {
        offset: type === 'bar' ? 80 : 40,
        showGrid: type !== 'bar',
        ...(type === 'bar' ? thinned(plot, 0) : {}),
      },
    };
    // Chartist draws a bar chart's rows bottom-up: reversed, its first label is at the top, as in Sheets.
    const order = <T>(cells: T[]) => (type === 'bar' ? [...cells].reverse() : cells);
    drawing = new BarChart(chartBox, { labels: order(plot.labels), series: values.map(order) }, options);
    drawing.on('draw', (event: { type: string; element: { getNode(): Element } }) => {
      if (event.type === 'bar') (event.element.getNode() as SVGElement).style.strokeWidth = `${bar}px`;
    });
  } else if (type === 'scatter') {
    const options: LineChartOptions = {
      height: HEIGHT,
      showLine: false,
      chartPadding: PADDING,
      axisX: { type: AutoScaleAxis, onlyInteger: false },
    };
    const points = plot.series.map((each) =>
      each.values.flatMap((y, row) => {
        const x = plot.xs[row];
        return x === null || x === undefined || y === null ? [] : [{ x, y }];
      }),
    );
    drawing = new LineChart(chartBox, { series: points }, options);
  } else {
    const options: LineChartOptions = {
      height: HEIGHT,
      showArea: type === 'area',
      showPoint: plot.labels.length <= 60,
      fullWidth: true,
      chartPadding: { ...PADDING, right: 24 },
      axisX: { showGrid: false, ...thinned(plot, 64) },
    };
    // Chartist draws areas from the axis: a stacked area's top is the sum of those below it.
    const tops = type === 'area' && chart.stacked ? stackedTops(plot.series) : plot.series;
    drawing = new LineChart(
      chartBox,
      { labels: plot.labels, series: tops.map((each) => each.values) },
      options,
    );
  }
  drawing.on('draw', (event: DrawnEvent) => colourAndName(event, type, plot));
  drawing.on('created', () => {
    // A drawing, not a document: the chart's words are its role and description.
    chartBox.querySelector('svg')?.setAttribute('aria-hidden', 'true');
    chartBox.dataset.drawn = type;
  });
}

/**
 * Every label while they fit, else every so many (a label is `width` pixels wide, or a line high
 * along a bar chart's height): a few hundred labels would overlap, and each is an element to make.
 */
function thinned(plot: Plot, width: number) {
  const room = width ? Math.max(1, Math.floor((chartBox.clientWidth - 60) / width)) : Math.floor(HEIGHT / 16);
  const step = Math.ceil(plot.labels.length / room);
  return { labelInterpolationFnc: (label: Label, index: number) => (index % step ? null : label) };
}

interface DrawnEvent {
  type: string;
  element: { getNode(): Element };
  index: number;
  seriesIndex?: number;
}

/** Each bar, line, point, area and slice in its series' colour; a bar, point or slice says its value on hover. */
function colourAndName(event: DrawnEvent, type: DrawnType, plot: Plot) {
  const node = event.element.getNode() as SVGElement;
  const series = type === 'pie' ? event.index : (event.seriesIndex ?? 0);
  if (event.type === 'slice' || event.type === 'area') node.style.fill = colour(series);
  else if (['bar', 'line', 'point'].includes(event.type)) node.style.stroke = colour(series);
  else return;
  if (event.type === 'line' || event.type === 'area') return;
  // A bar chart's rows were given bottom-up.
  const row = type === 'bar' ? plot.labels.length - 1 - event.index : event.index;
  const label = type === 'scatter' ? pointLabel(plot, series, event.index) : plot.labels[row];
  const value = type === 'pie' ? plot.rows[row]?.[1] : plot.rows[row]?.[series + 1];
  const words = document.createElementNS('http://www.w3.org/2000/svg', 'title');
  words.textContent =
    type === 'scatter'
      ? `${plot.series[series]?.name}: ${label}`
      : `${type === 'pie' ? '' : `${plot.series[series]?.name}, `}${label}: ${value}`;
  node.append(words);
}

/** A scatter point's x and y as the table shows them (its index counts only rows with both numbers). */
function pointLabel(plot: Plot, series: number, index: number): string {
  let seen = -1;
  for (let row = 0; row < plot.rows.length; row++) {
    if (plot.xs[row] === null || plot.series[series]?.values[row] === null) continue;
    if (++seen === index) return `(${plot.rows[row]![0]}, ${plot.rows[row]![series + 1]})`;
  }
  return '';
}

function axisTitle(element: HTMLElement, text: string | null) {
  element.textContent = text ?? '';
  element.hidden = !text;
}

function fillTable(plot: Plot) {
  for (const section of [...(table.tHead ? [table.tHead] : []), ...table.tBodies]) section.remove();
  const head = table.createTHead().insertRow();
  for (const name of plot.head) {
    const th = document.createElement('th');
    th.scope = 'col';
    // Text only: a cell holding HTML shows it as written, never as markup.
    th.textContent = name;
    head.append(th);
  }
  const body = table.createTBody();
  plot.rows.forEach((cells, row) => {
    const tr = body.insertRow();
    cells.forEach((text, column) => {
      const cell = document.createElement(column === 0 ? 'th' : 'td');
      if (column === 0) (cell as HTMLTableCellElement).scope = 'row';
      else if (plot.series[column - 1]?.values[row] !== null) cell.className = 'n';
      cell.textContent = text;
      tr.append(cell);
    });
  });
}

function showTable(shown: boolean) {
  tableBox.hidden = !shown;
  toggle.setAttribute('aria-expanded', String(shown));
}

toggle.onclick = () => showTable(tableBox.hidden);
open.onclick = (event) => {
  event.preventDefault();
  void app.openLink({ url: open.href });
};

void app.connect().then(() => {
  const context = app.getHostContext();
  if (context) hostTheme(context);
});
