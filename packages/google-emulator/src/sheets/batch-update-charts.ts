/**
 * spreadsheets.batchUpdate request kinds for charts: addChart, updateChartSpec,
 * updateEmbeddedObjectPosition and deleteEmbeddedObject. A chart lives on the sheet it is shown
 * on (`sheets[].charts`): over a grid at an anchor cell, or alone on a sheet of type OBJECT, which
 * addChart with `position.newSheet` creates, as Google does. Each throws Google's 400 text, which
 * `applyBatchUpdate` prefixes with `Invalid requests[i].kind: `.
 *
 * The chart kinds checked are the ones a spreadsheet is usually given (basicChart — bar, line,
 * area, column, scatter, combo, stepped area — and pieChart); any other spec kind is refused as
 * not supported by the emulator, so a test never believes Google accepted what it was not shown.
 */
import { randomInt } from 'node:crypto';
import type { sheets_v4 } from 'googleapis';
import { googleErrors } from '../google-error.ts';
import { formatRange } from './a1-notation.ts';
import { applyMaskedUpdate } from './field-mask.ts';
import type { SheetModel, SpreadsheetModel } from './model.ts';
import { newSheet } from './spreadsheet-store.ts';

type Response = sheets_v4.Schema$Response;
type EmbeddedChart = sheets_v4.Schema$EmbeddedChart;
type ChartSpec = sheets_v4.Schema$ChartSpec;
type GridRange = sheets_v4.Schema$GridRange;
type Position = sheets_v4.Schema$EmbeddedObjectPosition;

const problem = (message: string) => googleErrors.badRequest(message);

/** Google's size of an overlaid chart when none is given. */
export const DEFAULT_CHART_SIZE = { widthPixels: 600, heightPixels: 371 } as const;

const BASIC_CHART_TYPES = ['BAR', 'LINE', 'AREA', 'COLUMN', 'SCATTER', 'COMBO', 'STEPPED_AREA'];
const LEGEND_POSITIONS = ['BOTTOM_LEGEND', 'LEFT_LEGEND', 'RIGHT_LEGEND', 'TOP_LEGEND', 'NO_LEGEND'];
const PIE_LEGEND_POSITIONS = [...LEGEND_POSITIONS, 'LABELED_LEGEND'];
const STACKED_TYPES = ['NOT_STACKED', 'STACKED', 'PERCENT_STACKED'];
const AXIS_POSITIONS = ['BOTTOM_AXIS', 'LEFT_AXIS', 'RIGHT_AXIS'];
const SERIES_TYPES = ['BAR', 'LINE', 'AREA', 'COLUMN', 'SCATTER', 'STEPPED_AREA'];
/** The chart kinds of ChartSpec's union: exactly one is set. */
const SPEC_KINDS = [
  'basicChart',
  'pieChart',
  'bubbleChart',
  'candlestickChart',
  'orgChart',
  'histogramChart',
  'waterfallChart',
  'treemapChart',
  'scorecardChart',
] as const;

function enumValue(value: string | null | undefined, allowed: readonly string[], field: string): void {
  if (value != null && !allowed.includes(value))
    throw problem(`Invalid value at '${field}' (TYPE_ENUM), "${value}"`);
}

/** Every chart of the spreadsheet with the sheet it is on. */
function allCharts(spreadsheet: SpreadsheetModel): Array<{ sheet: SheetModel; chart: EmbeddedChart }> {
  return spreadsheet.sheets.flatMap((sheet) => (sheet.charts ?? []).map((chart) => ({ sheet, chart })));
}

function gridSheet(spreadsheet: SpreadsheetModel, sheetId: number | null | undefined): SheetModel {
  const id = sheetId ?? 0;
  const sheet = spreadsheet.sheets.find((candidate) => candidate.properties.sheetId === id);
  if (sheet?.properties.sheetType !== 'GRID') throw problem(`No grid with id: ${id}`);
  return sheet;
}

/** A chart's data source: on a grid sheet, inside it, one row or one column. */
function checkSource(spreadsheet: SpreadsheetModel, range: GridRange, where: string): void {
  const sheet = gridSheet(spreadsheet, range.sheetId);
  const grid = sheet.properties.gridProperties;
  const bounds = {
    startRow: range.startRowIndex ?? 0,
    endRow: range.endRowIndex ?? grid.rowCount,
    startColumn: range.startColumnIndex ?? 0,
    endColumn: range.endColumnIndex ?? grid.columnCount,
  };
  if (
    bounds.startRow < 0 ||
    bounds.startColumn < 0 ||
    bounds.endRow <= bounds.startRow ||
    bounds.endColumn <= bounds.startColumn
  )
    throw problem(`${where}: invalid range: start index must be at least 0 and before the end index.`);
  if (bounds.endRow > grid.rowCount || bounds.endColumn > grid.columnCount) {
    throw problem(
      `Range (${formatRange(sheet.properties.title, bounds)}) exceeds grid limits. Max rows: ${grid.rowCount}, max columns: ${grid.columnCount}`,
    );
  }
}

function checkChartData(
  spreadsheet: SpreadsheetModel,
  data: sheets_v4.Schema$ChartData | null | undefined,
  where: string,
): void {
  const sources = data?.sourceRange?.sources ?? [];
  if (sources.length === 0) throw problem(`${where} must have a sourceRange with at least one source.`);
  for (const source of sources) checkSource(spreadsheet, source, where);
  // Google's own words for a source that is neither one row nor one column, or several unlike ones.
  const lengths = sources.map((source) => ({
    rows: (source.endRowIndex ?? 0) - (source.startRowIndex ?? 0),
    columns: (source.endColumnIndex ?? 0) - (source.startColumnIndex ?? 0),
  }));
  const allOneColumn = lengths.every((each) => each.columns === 1);
  const allOneRow = lengths.every((each) => each.rows === 1);
  if (!allOneColumn && !allOneRow)
    throw problem('ChartSourceRange ranges require all rows or all columns to have length of 1');
}

/**
 * A domain and series may each be several ranges, but as many as one another: "The domain (if it
 * exists) & all series must have the same number of source ranges" (ChartSourceRange.sources,
 * https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/charts#ChartSourceRange).
 * A series from any column or sheet, one source each, is valid: Google's own example is "domain
 * sources: A1:A5, series1 sources: B1:B5, series2 sources: D6:D10".
 */
function checkSourceCounts(data: Array<sheets_v4.Schema$ChartData | null | undefined>): void {
  const counts = new Set(data.map((each) => each?.sourceRange?.sources?.length ?? 0));
  if (counts.size > 1) throw problem('The domain and all series must have the same number of source ranges.');
}

/** A ChartSpec as Google checks it for the kinds the emulator knows. */
function checkSpec(spreadsheet: SpreadsheetModel, spec: ChartSpec | null | undefined): void {
  if (!spec) throw problem('spec is required.');
  const kinds = SPEC_KINDS.filter((kind) => spec[kind] != null);
  if (kinds.length !== 1) throw problem('A chart spec must set exactly one kind of chart.');
  const [kind] = kinds;
  if (kind === 'basicChart') {
    const basic = spec.basicChart as sheets_v4.Schema$BasicChartSpec;
    if (!basic.chartType) throw problem('basicChart.chartType is required.');
    enumValue(basic.chartType, BASIC_CHART_TYPES, 'spec.basic_chart.chart_type');
    enumValue(basic.legendPosition, LEGEND_POSITIONS, 'spec.basic_chart.legend_position');
    enumValue(basic.stackedType, STACKED_TYPES, 'spec.basic_chart.stacked_type');
    if (
      basic.stackedType &&
      basic.stackedType !== 'NOT_STACKED' &&
      !['BAR', 'COLUMN', 'AREA', 'STEPPED_AREA', 'COMBO'].includes(basic.chartType)
    )
      throw problem(`Stacking is not supported for ${basic.chartType} charts.`);
    if ((basic.headerCount ?? 0) < 0) throw problem('headerCount must not be negative.');
    for (const axis of basic.axis ?? [])
      enumValue(axis.position, AXIS_POSITIONS, 'spec.basic_chart.axis.position');
    if ((basic.domains?.length ?? 0) > 1) throw problem('A basic chart may have at most one domain.');
    for (const domain of basic.domains ?? [])
      checkChartData(spreadsheet, domain.domain, 'basicChart.domains');
    if ((basic.series ?? []).length === 0) throw problem('A basic chart must have at least one series.');
    for (const series of basic.series ?? []) {
      checkChartData(spreadsheet, series.series, 'basicChart.series');
      enumValue(series.targetAxis, AXIS_POSITIONS, 'spec.basic_chart.series.target_axis');
      enumValue(series.type, SERIES_TYPES, 'spec.basic_chart.series.type');
    }
    checkSourceCounts([
      ...(basic.domains ?? []).map((domain) => domain.domain),
      ...(basic.series ?? []).map((series) => series.series),
    ]);
    return;
  }
  if (kind === 'pieChart') {
    const pie = spec.pieChart as sheets_v4.Schema$PieChartSpec;
    enumValue(pie.legendPosition, PIE_LEGEND_POSITIONS, 'spec.pie_chart.legend_position');
    if (pie.pieHole != null && (pie.pieHole < 0 || pie.pieHole > 1))
      throw problem('pieHole must be between 0 and 1.');
    checkChartData(spreadsheet, pie.domain, 'pieChart.domain');
    checkChartData(spreadsheet, pie.series, 'pieChart.series');
    checkSourceCounts([pie.domain, pie.series]);
    return;
  }
  throw problem(`${kind} is not supported by the Sheetgate Google emulator.`);
}

/** An embedded object's id: positive, 31-bit, unused by any chart or sheet of the spreadsheet. */
function unusedObjectId(spreadsheet: SpreadsheetModel): number {
  for (;;) {
    const id = randomInt(1, 2 ** 31 - 1);
    if (!isTaken(spreadsheet, id)) return id;
  }
}

function isTaken(spreadsheet: SpreadsheetModel, id: number): boolean {
  return (
    spreadsheet.sheets.some((sheet) => sheet.properties.sheetId === id) ||
    allCharts(spreadsheet).some(({ chart }) => chart.chartId === id)
  );
}

function chartSheetTitle(spreadsheet: SpreadsheetModel): string {
  for (let n = 1; ; n++) {
    const title = `Chart${n}`;
    if (!spreadsheet.sheets.some((sheet) => sheet.properties.title.toLowerCase() === title.toLowerCase()))
      return title;
  }
}

/** A new sheet of type OBJECT, placed last, that holds only `chart`. */
function addObjectSheet(spreadsheet: SpreadsheetModel, sheetId?: number): SheetModel {
  const sheet = newSheet(spreadsheet, {
    ...(sheetId === undefined ? {} : { sheetId }),
    title: chartSheetTitle(spreadsheet),
    index: spreadsheet.sheets.length,
    rowCount: 0,
    columnCount: 0,
  });
  sheet.properties.sheetType = 'OBJECT';
  spreadsheet.sheets.push(sheet);
  return sheet;
}

/**
 * Where a chart goes and the position stored for it: `newSheet` makes a sheet of type OBJECT (the
 * stored position names it by sheetId, as Google returns it); `sheetId` names an OBJECT sheet; an
 * overlay is anchored on a cell inside a grid, with Google's default size when none is given.
 */
function place(
  spreadsheet: SpreadsheetModel,
  position: Position | null | undefined,
  except?: EmbeddedChart,
): { sheet: SheetModel; position: Position } {
  if (!position) throw problem('position is required.');
  const set = [position.newSheet === true, position.sheetId != null, position.overlayPosition != null].filter(
    Boolean,
  ).length;
  if (set !== 1) throw problem('Exactly one of newSheet, sheetId or overlayPosition must be set.');
  if (position.newSheet) {
    const sheet = addObjectSheet(spreadsheet);
    return { sheet, position: { sheetId: sheet.properties.sheetId } };
  }
  if (position.sheetId != null) {
    const sheet = spreadsheet.sheets.find((each) => each.properties.sheetId === position.sheetId);
    if (!sheet) throw problem(`No sheet with id: ${position.sheetId}`);
    if (sheet.properties.sheetType !== 'OBJECT')
      throw problem(
        `Sheet ${position.sheetId} is a grid: a chart is placed on a grid with overlayPosition; sheetId names a sheet of its own.`,
      );
    if ((sheet.charts ?? []).some((chart) => chart !== except))
      throw problem(`Sheet ${position.sheetId} already holds a chart.`);
    return { sheet, position: { sheetId: sheet.properties.sheetId } };
  }
  const overlay = position.overlayPosition as sheets_v4.Schema$OverlayPosition;
  const anchor = overlay.anchorCell;
  if (!anchor) throw problem('overlayPosition.anchorCell is required.');
  const sheet = gridSheet(spreadsheet, anchor.sheetId);
  const grid = sheet.properties.gridProperties;
  const row = anchor.rowIndex ?? 0;
  const column = anchor.columnIndex ?? 0;
  if (row < 0 || column < 0 || row >= grid.rowCount || column >= grid.columnCount) {
    throw problem(
      `The anchor cell (row ${row}, column ${column}) is outside the grid of sheet ${sheet.properties.sheetId}. Max rows: ${grid.rowCount}, max columns: ${grid.columnCount}`,
    );
  }
  for (const name of ['offsetXPixels', 'offsetYPixels', 'widthPixels', 'heightPixels'] as const) {
    const value = overlay[name];
    if (value != null && (!Number.isInteger(value) || value < 0))
      throw problem(`overlayPosition.${name} must be a non-negative whole number.`);
  }
  // Google leaves zero and default values out of its JSON.
  const stored: sheets_v4.Schema$OverlayPosition = {
    anchorCell: {
      sheetId: sheet.properties.sheetId,
      ...(row ? { rowIndex: row } : {}),
      ...(column ? { columnIndex: column } : {}),
    },
    ...(overlay.offsetXPixels ? { offsetXPixels: overlay.offsetXPixels } : {}),
    ...(overlay.offsetYPixels ? { offsetYPixels: overlay.offsetYPixels } : {}),
    widthPixels: overlay.widthPixels || DEFAULT_CHART_SIZE.widthPixels,
    heightPixels: overlay.heightPixels || DEFAULT_CHART_SIZE.heightPixels,
  };
  return { sheet, position: { overlayPosition: stored } };
}

function chartById(spreadsheet: SpreadsheetModel, id: number | null | undefined, noun = 'chart') {
  const found = allCharts(spreadsheet).find(({ chart }) => chart.chartId === id);
  if (!found) throw problem(`No ${noun} with id: ${id ?? ''}`);
  return found;
}

/** Takes a chart off its sheet; a sheet of type OBJECT goes with its only chart, as in Google. */
function detach(spreadsheet: SpreadsheetModel, sheet: SheetModel, chart: EmbeddedChart): void {
  sheet.charts = (sheet.charts ?? []).filter((each) => each !== chart);
  if (sheet.charts.length === 0) delete sheet.charts;
  if (sheet.properties.sheetType === 'OBJECT' && !sheet.charts) {
    spreadsheet.sheets.splice(spreadsheet.sheets.indexOf(sheet), 1);
    for (const [index, each] of spreadsheet.sheets.entries()) each.properties.index = index;
  }
}

export function addChart(spreadsheet: SpreadsheetModel, request: sheets_v4.Schema$AddChartRequest): Response {
  const requested = request.chart;
  if (!requested) throw problem('chart is required.');
  checkSpec(spreadsheet, requested.spec);
  if (requested.chartId != null) {
    if (!Number.isInteger(requested.chartId) || requested.chartId < 0)
      throw problem('chartId must be a non-negative whole number.');
    if (isTaken(spreadsheet, requested.chartId))
      throw problem(`An object with id ${requested.chartId} already exists.`);
  }
  const { sheet, position } = place(spreadsheet, requested.position);
  const chart: EmbeddedChart = {
    chartId: requested.chartId ?? unusedObjectId(spreadsheet),
    spec: structuredClone(requested.spec as ChartSpec),
    position,
    ...(requested.border ? { border: structuredClone(requested.border) } : {}),
  };
  sheet.charts ??= [];
  sheet.charts.push(chart);
  return { addChart: { chart: structuredClone(chart) } };
}

/** Replaces a chart's whole spec (Google's updateChartSpec takes no field mask). */
export function updateChartSpec(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$UpdateChartSpecRequest,
): Response {
  const { chart } = chartById(spreadsheet, request.chartId);
  checkSpec(spreadsheet, request.spec);
  chart.spec = structuredClone(request.spec as ChartSpec);
  return {};
}

/**
 * Moves or resizes a chart: the masked fields of `newPosition` (`newSheet`, `sheetId`,
 * `overlayPosition`, `overlayPosition.anchorCell`, … or `*`) replace its position's. A chart
 * moved off its own sheet leaves no empty OBJECT sheet behind.
 */
export function updateEmbeddedObjectPosition(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$UpdateEmbeddedObjectPositionRequest,
): Response {
  const { sheet, chart } = chartById(spreadsheet, request.objectId, 'object');
  if (!request.fields) throw problem("At least one field must be updated, but 'fields' is empty.");
  const next = structuredClone(chart.position ?? {}) as Record<string, unknown>;
  const given = (request.newPosition ?? {}) as Record<string, unknown>;
  applyMaskedUpdate(next, given, request.fields);
  // One kind of position at a time: the one the request names replaces the others.
  const named = (key: string) =>
    request.fields === '*' || request.fields!.split(',').some((field) => field.trim().split('.')[0] === key);
  if (named('newSheet') && given.newSheet) {
    delete next.sheetId;
    delete next.overlayPosition;
  } else if (named('sheetId') && given.sheetId != null) {
    delete next.newSheet;
    delete next.overlayPosition;
  } else if (named('overlayPosition') && given.overlayPosition != null) {
    delete next.newSheet;
    delete next.sheetId;
  }
  if (next.newSheet === false) delete next.newSheet;
  if (next.newSheet && sheet.properties.sheetType === 'OBJECT') {
    // Already alone on its sheet: nothing moves.
    return { updateEmbeddedObjectPosition: { position: structuredClone(chart.position ?? {}) } };
  }
  const target = place(spreadsheet, next as Position, chart);
  if (target.sheet !== sheet) {
    detach(spreadsheet, sheet, chart);
    target.sheet.charts ??= [];
    target.sheet.charts.push(chart);
  }
  chart.position = target.position;
  return { updateEmbeddedObjectPosition: { position: structuredClone(target.position) } };
}

export function deleteEmbeddedObject(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$DeleteEmbeddedObjectRequest,
): Response {
  const { sheet, chart } = chartById(spreadsheet, request.objectId, 'object');
  detach(spreadsheet, sheet, chart);
  return {};
}

/** The GridRanges a chart reads, wherever its kind keeps them. */
function chartSources(spec: ChartSpec | undefined): GridRange[] {
  const sources: GridRange[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) {
      for (const each of value) visit(each);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      if (key === 'sourceRange')
        sources.push(...(((child as sheets_v4.Schema$ChartSourceRange).sources ?? []) as GridRange[]));
      else visit(child);
    }
  };
  visit(spec);
  return sources;
}

/**
 * Rows or columns inserted (`count` > 0 at `start`) or deleted (`count` < 0: [start, start −
 * count)) on `sheet` move the charts that read it and the anchors on it, as in Google: a source
 * below or right of the change moves, one across it grows or shrinks; an anchor in deleted rows
 * or columns moves to the first one after them.
 */
export function shiftChartsForDimension(
  spreadsheet: SpreadsheetModel,
  sheet: SheetModel,
  rows: boolean,
  start: number,
  count: number,
): void {
  const [low, high] = rows
    ? (['startRowIndex', 'endRowIndex'] as const)
    : (['startColumnIndex', 'endColumnIndex'] as const);
  const end = start - count;
  const moved = (index: number, isEnd: boolean): number => {
    if (count > 0) return index > start || (!isEnd && index === start) ? index + count : index;
    if (index >= end) return index + count;
    return Math.min(index, start);
  };
  const sheetId = sheet.properties.sheetId;
  for (const { chart } of allCharts(spreadsheet)) {
    for (const source of chartSources(chart.spec)) {
      if ((source.sheetId ?? 0) !== sheetId) continue;
      if (source[low] != null) source[low] = moved(source[low] as number, false);
      if (source[high] != null) source[high] = moved(source[high] as number, true);
    }
    const anchor = chart.position?.overlayPosition?.anchorCell;
    if (anchor && (anchor.sheetId ?? 0) === sheetId) {
      const key = rows ? 'rowIndex' : 'columnIndex';
      const at = anchor[key] ?? 0;
      const grid = sheet.properties.gridProperties;
      const last = (rows ? grid.rowCount : grid.columnCount) - 1;
      let shifted = at;
      if (count > 0 && at >= start) shifted = at + count;
      else if (count < 0 && at >= end) shifted = at + count;
      else if (count < 0 && at >= start) shifted = start;
      shifted = Math.max(0, Math.min(shifted, last));
      if (shifted) anchor[key] = shifted;
      else delete anchor[key];
    }
  }
}

/**
 * A duplicated sheet takes copies of the charts over it, with new ids, its own anchors, and its own
 * data where they read the sheet they were on.
 */
export function copyCharts(spreadsheet: SpreadsheetModel, source: SheetModel, copy: SheetModel): void {
  if (!source.charts?.length) return;
  copy.charts = source.charts.map((chart) => {
    const copied = structuredClone(chart);
    copied.chartId = unusedObjectId(spreadsheet);
    const anchor = copied.position?.overlayPosition?.anchorCell;
    if (anchor) anchor.sheetId = copy.properties.sheetId;
    if (copied.position?.sheetId != null) copied.position.sheetId = copy.properties.sheetId;
    // Data on the tab itself is the copy's data, as formulas on it are.
    for (const range of chartSources(copied.spec))
      if ((range.sheetId ?? 0) === source.properties.sheetId) range.sheetId = copy.properties.sheetId;
    return copied;
  });
}
