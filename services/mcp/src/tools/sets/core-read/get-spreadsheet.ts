import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { amount } from '../../guards/loss-phrases.ts';
import { columnLetters } from '../../kit/a1.ts';
import { READ } from '../../kit/annotations.ts';
import { perTabListInput } from '../../kit/common-schemas.ts';
import { a1Of, hexOf, tabsOf } from '../../kit/rule-grid.ts';
import { timeIn } from '../../kit/spreadsheet-time.ts';
import { listedTabs } from '../../kit/tab-ref.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { cellsOf } from './read-formats.ts';

/** Each list of a tab (merges, rules, sizes, …) gives its count and at most this many items. */
const LIST_CAP = 5;
/** Tabs past this many are listed with their size only; `sheetId` asks for one in full. */
const TABS_IN_FULL = 30;
/** A new tab's column width and row height in Google Sheets, in pixels. */
const DEFAULT_COLUMN_PIXELS = 100;
const DEFAULT_ROW_PIXELS = 21;

/**
 * The tab properties a write tool can set and the objects on each tab, with their ranges; the
 * rows' and columns' sizes come from the grid data's dimension metadata, which a field mask
 * returns without any cell. Nothing is asked of rowData: any cell field (a pivot table's) makes
 * Google answer an object for every cell of every tab; read_cell_details finds pivot tables.
 */
const FIELDS = [
  'spreadsheetId,spreadsheetUrl,properties(title,timeZone,locale),namedRanges(name,range)',
  'sheets(properties(sheetId,title,index,hidden,rightToLeft,tabColor,tabColorStyle,gridProperties),merges',
  'conditionalFormats.ranges,protectedRanges(range,namedRangeId,warningOnly),basicFilter.range',
  'filterViews(title,range),tables(name,range),charts(chartId,spec.title,position)',
  'data(columnMetadata(pixelSize,hiddenByUser),rowMetadata(pixelSize,hiddenByUser)))',
].join(',');

const listed = z.object({ count: z.number(), first: z.array(z.string()) }).optional();
const sizes = z
  .object({ count: z.number(), first: z.array(z.object({ range: z.string(), pixels: z.number() })) })
  .optional();
const tabOutput = z.object({
  sheetId: z.number(),
  title: z.string(),
  index: z.number(),
  rowCount: z.number(),
  columnCount: z.number(),
  frozenRows: z.number().optional(),
  frozenColumns: z.number().optional(),
  hidden: z.literal(true).optional(),
  rightToLeft: z.literal(true).optional(),
  hideGridlines: z.literal(true).optional(),
  tabColor: z.string().optional(),
  columnWidths: sizes,
  rowHeights: sizes,
  hiddenColumns: listed,
  hiddenRows: listed,
  merges: listed,
  protectedRanges: listed,
  conditionalFormats: listed,
  basicFilter: z.string().optional(),
  filterViews: listed,
  tables: listed,
  charts: listed,
});
type TabOutput = z.infer<typeof tabOutput>;
type Listed = NonNullable<TabOutput['merges']>;

/** get_spreadsheet: a spreadsheet's title, its tabs and what is set on each (docs/design.md §11). */
export function getSpreadsheetTools({ sheets, callGoogle }: ToolDeps) {
  return [
    defineTool({
      name: 'get_spreadsheet',
      toolset: 'core-read',
      title: 'Describe a spreadsheet',
      description: `A spreadsheet's title, URL, time zone, locale, time now, named ranges and tabs: each tab's sheetId, size, settings, merges, protections, rules, filters, tables and charts (the first ${LIST_CAP} of each).`,
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: perTabListInput('properties'),
      outputSchema: z.object({
        spreadsheetId: z.string(),
        title: z.string(),
        url: z.string().nullable(),
        timeZone: z.string().optional(),
        locale: z.string().optional(),
        /** `2026-12-07 18:05 (Europe/Berlin, UTC+01:00)`: the date and time there now. */
        now: z.string().optional(),
        namedRanges: listed,
        sheets: z.array(tabOutput),
      }),
      async run(input, { auth, signal }) {
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          sheets.spreadsheets.get({ spreadsheetId: input.spreadsheetId, fields: FIELDS }, request),
        );
        const tabs = tabsOf(data);
        const namedRanges = data.namedRanges ?? [];
        const listed = listedTabs(tabs, input.sheetId);
        const chosen = (data.sheets ?? []).filter((sheet) => listed(sheet.properties?.sheetId ?? 0));
        const described = chosen.map((sheet, index) =>
          index < TABS_IN_FULL ? describeTab(sheet, namedRanges) : sizeOf(sheet),
        );
        const named = listOf(namedRanges.map((each) => `${each.name}: ${a1Of(each.range ?? {}, tabs)}`));
        const time = timeOf(data.properties ?? {});
        const structured = {
          spreadsheetId: data.spreadsheetId ?? input.spreadsheetId,
          title: data.properties?.title ?? '',
          url: data.spreadsheetUrl ?? null,
          ...time,
          ...(named ? { namedRanges: named } : {}),
          sheets: described,
        };
        const lines = [
          `${structured.title} (spreadsheetId ${structured.spreadsheetId})`,
          ...timeLines(time),
          ...described.map(renderTab),
        ];
        if (described.length > TABS_IN_FULL)
          lines.push(`Tabs past the first ${TABS_IN_FULL}: size only; pass a sheetId for one in full.`);
        if (named) lines.push(`Named ranges: ${render(named)}`);
        return { structuredContent: structured, text: lines.join('\n') };
      },
    }),
  ];
}

/** The spreadsheet's time zone and locale as Google gives them, and the time there now. */
function timeOf(properties: sheets_v4.Schema$SpreadsheetProperties) {
  const { timeZone, locale } = properties;
  const now = timeZone ? timeIn(timeZone) : undefined;
  return { ...(timeZone ? { timeZone } : {}), ...(locale ? { locale } : {}), ...(now ? { now } : {}) };
}

/** `Locale de_DE; now 2026-12-07 18:05 (Europe/Berlin, UTC+01:00)`, or the zone alone without a time. */
function timeLines(time: ReturnType<typeof timeOf>): string[] {
  if (!time.locale && !time.timeZone) return [];
  const when = time.now ? `now ${time.now}` : `time zone ${time.timeZone}`;
  return [`Locale ${time.locale ?? 'unknown'}; ${when}`];
}

function sizeOf(sheet: sheets_v4.Schema$Sheet): TabOutput {
  const properties = sheet.properties ?? {};
  return {
    sheetId: properties.sheetId ?? 0,
    title: properties.title ?? '',
    index: properties.index ?? 0,
    rowCount: properties.gridProperties?.rowCount ?? 0,
    columnCount: properties.gridProperties?.columnCount ?? 0,
  };
}

function describeTab(
  sheet: sheets_v4.Schema$Sheet,
  namedRanges: readonly sheets_v4.Schema$NamedRange[],
): TabOutput {
  const properties = sheet.properties ?? {};
  const grid = properties.gridProperties ?? {};
  const tab: TabOutput = sizeOf(sheet);
  if (grid.frozenRowCount) tab.frozenRows = grid.frozenRowCount;
  if (grid.frozenColumnCount) tab.frozenColumns = grid.frozenColumnCount;
  if (properties.hidden) tab.hidden = true;
  if (properties.rightToLeft) tab.rightToLeft = true;
  if (grid.hideGridlines) tab.hideGridlines = true;
  const tabColor = properties.tabColorStyle?.themeColor
    ? `theme ${properties.tabColorStyle.themeColor}`
    : hexOf(properties.tabColorStyle?.rgbColor ?? properties.tabColor);
  if (tabColor) tab.tabColor = tabColor;
  const columns = sheet.data?.[0]?.columnMetadata ?? [];
  const rows = sheet.data?.[0]?.rowMetadata ?? [];
  const columnRange = (start: number, end: number) => `${columnLetters(start)}:${columnLetters(end - 1)}`;
  const rowRange = (start: number, end: number) => `${start + 1}:${end}`;
  const widths = runsOf(columns, (each) => sizeApart(each, DEFAULT_COLUMN_PIXELS));
  const heights = runsOf(rows, (each) => sizeApart(each, DEFAULT_ROW_PIXELS));
  const sized = (runs: Run[], range: (start: number, end: number) => string) =>
    runs.length === 0
      ? undefined
      : {
          count: runs.length,
          first: runs
            .slice(0, LIST_CAP)
            .map((run) => ({ range: range(run.start, run.end), pixels: run.value })),
        };
  const hiddenRuns = (metadata: sheets_v4.Schema$DimensionProperties[], range: typeof rowRange) =>
    listOf(
      runsOf(metadata, (each) => (each.hiddenByUser ? 1 : undefined)).map((run) => range(run.start, run.end)),
    );
  const protectedRangeOf = (each: sheets_v4.Schema$ProtectedRange) =>
    each.range ?? namedRanges.find((named) => named.namedRangeId === each.namedRangeId)?.range ?? {};
  Object.assign(
    tab,
    defined({
      columnWidths: sized(widths, columnRange),
      rowHeights: sized(heights, rowRange),
      hiddenColumns: hiddenRuns(columns, columnRange),
      hiddenRows: hiddenRuns(rows, rowRange),
      merges: listOf((sheet.merges ?? []).map(cellsOf)),
      protectedRanges: listOf(
        (sheet.protectedRanges ?? []).map(
          (each) => `${cellsOf(protectedRangeOf(each))}${each.warningOnly ? ' (warning only)' : ''}`,
        ),
      ),
      conditionalFormats: listOf(
        (sheet.conditionalFormats ?? []).map((rule) => (rule.ranges ?? []).map(cellsOf).join(',')),
      ),
      basicFilter: sheet.basicFilter ? cellsOf(sheet.basicFilter.range ?? {}) : undefined,
      filterViews: listOf(
        (sheet.filterViews ?? []).map(
          (view) => `${JSON.stringify(view.title ?? '')} ${cellsOf(view.range ?? {})}`,
        ),
      ),
      tables: listOf((sheet.tables ?? []).map((table) => `${table.name} ${cellsOf(table.range ?? {})}`)),
      charts: listOf((sheet.charts ?? []).map(chartPlace)),
    }),
  );
  return tab;
}

interface Run {
  start: number;
  end: number;
  value: number;
}

/** Consecutive indexes with the same value, those without one (undefined) left out. */
function runsOf<T>(items: readonly T[], measure: (item: T) => number | undefined): Run[] {
  const runs: Run[] = [];
  for (const [index, item] of items.entries()) {
    const value = measure(item);
    const last = runs.at(-1);
    if (value === undefined) continue;
    if (last && last.end === index && last.value === value) last.end = index + 1;
    else runs.push({ start: index, end: index + 1, value });
  }
  return runs;
}

function sizeApart(metadata: sheets_v4.Schema$DimensionProperties, standard: number): number | undefined {
  const pixels = metadata.pixelSize ?? standard;
  return pixels === standard ? undefined : pixels;
}

function listOf(items: readonly string[]): Listed | undefined {
  return items.length === 0 ? undefined : { count: items.length, first: items.slice(0, LIST_CAP) };
}

function defined<T extends Record<string, unknown>>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** `#888 "Spending" at D1`, or on a sheet of its own. */
function chartPlace(chart: sheets_v4.Schema$EmbeddedChart): string {
  const anchor = chart.position?.overlayPosition?.anchorCell;
  const where = anchor
    ? `at ${columnLetters(anchor.columnIndex ?? 0)}${(anchor.rowIndex ?? 0) + 1}`
    : 'on a sheet of its own';
  return `#${chart.chartId} ${JSON.stringify(chart.spec?.title ?? '')} ${where}`;
}

/** `2: A7:B7, C1:D1`, with `…` when the list goes on past the items shown. */
function render(list: Listed): string {
  return `${list.count}: ${list.first.join(', ')}${list.count > list.first.length ? ', …' : ''}`;
}

function renderTab(tab: TabOutput): string {
  const parts: string[] = [];
  const frozen = [
    tab.frozenRows ? amount(tab.frozenRows, 'row') : '',
    tab.frozenColumns ? amount(tab.frozenColumns, 'column') : '',
  ].filter(Boolean);
  if (frozen.length > 0) parts.push(`frozen ${frozen.join(', ')}`);
  if (tab.hidden) parts.push('hidden');
  if (tab.rightToLeft) parts.push('right-to-left');
  if (tab.hideGridlines) parts.push('no gridlines');
  if (tab.tabColor) parts.push(`tab colour ${tab.tabColor}`);
  const sizes = (label: string, list: TabOutput['columnWidths']) => {
    if (!list) return;
    const shown = list.first.map((run) => `${run.range} ${run.pixels} px`).join(', ');
    parts.push(`${label} ${shown}${list.count > list.first.length ? `, … (${list.count} runs)` : ''}`);
  };
  sizes('widths', tab.columnWidths);
  sizes('heights', tab.rowHeights);
  const lists: Array<[string, Listed | undefined]> = [
    ['hidden columns', tab.hiddenColumns],
    ['hidden rows', tab.hiddenRows],
    ['merges', tab.merges],
    ['protected ranges', tab.protectedRanges],
    ['conditional formats', tab.conditionalFormats],
    ['basic filter', tab.basicFilter === undefined ? undefined : { count: 1, first: [tab.basicFilter] }],
    ['filter views', tab.filterViews],
    ['tables', tab.tables],
    ['charts', tab.charts],
  ];
  for (const [label, list] of lists) if (list) parts.push(`${label} ${render(list)}`);
  const head = `- ${tab.title} (sheetId ${tab.sheetId}, ${tab.rowCount}×${tab.columnCount})`;
  return parts.length === 0 ? head : `${head}: ${parts.join('; ')}`;
}
