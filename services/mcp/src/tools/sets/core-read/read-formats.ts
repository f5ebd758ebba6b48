import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { columnLetters, gridBounds, rangeOnSheet, splitRange } from '../../kit/a1.ts';
import { READ } from '../../kit/annotations.ts';
import { a1Range, spreadsheetId } from '../../kit/common-schemas.ts';
import { isPastGridError, isUnknownRangeError } from '../../kit/page-window.ts';
import { rangeOnTabs } from '../../kit/range-on-tabs.ts';
import { hexOf } from '../../kit/rule-grid.ts';
import { readTabGrids, type TabGrid } from '../../kit/table-area.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/** read_formats reads at most this many cells per call; the answer names the rest of the range. */
export const FORMAT_MAX_CELLS = 50_000;
/** The width a range of whole rows is taken to have until the tab's own is known: a new tab's. */
const NEW_TAB_COLUMNS = 26;
const MAX_GROUPS = 40;
const MAX_RANGES_PER_GROUP = 20;
const MAX_MERGES = 20;
const MAX_TABS_NAMED = 20;

const border = z.object({ style: z.string(), color: z.string().optional() });
const formatSummary = z.object({
  fontFamily: z.string().optional(),
  fontSize: z.number().optional(),
  bold: z.literal(true).optional(),
  italic: z.literal(true).optional(),
  underline: z.literal(true).optional(),
  strikethrough: z.literal(true).optional(),
  textColor: z.string().optional(),
  backgroundColor: z.string().optional(),
  numberFormat: z.object({ type: z.string(), pattern: z.string().optional() }).optional(),
  horizontalAlignment: z.string().optional(),
  verticalAlignment: z.string().optional(),
  wrapStrategy: z.string().optional(),
  borders: z
    .object({
      top: border.optional(),
      bottom: border.optional(),
      left: border.optional(),
      right: border.optional(),
    })
    .optional(),
});
type FormatSummary = z.infer<typeof formatSummary>;
const SIDES = ['top', 'bottom', 'left', 'right'] as const;

/** read_formats: the formats set on a range's cells, grouped (docs/design.md §11). */
export function readFormatTools(deps: ToolDeps) {
  const { sheets, callGoogle } = deps;
  return [
    defineTool({
      name: 'read_formats',
      toolset: 'core-read',
      title: 'Read cell formats',
      description:
        "The formats of a range's cells and its merges, alike cells grouped. Up to 50,000 cells a call.",
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({ spreadsheetId, range: a1Range }),
      outputSchema: z.object({
        range: z.string(),
        cells: z.number(),
        /** Each format's ranges (A1 on the tab of `range`), most cells first. */
        groups: z.array(
          z.object({
            ranges: z.array(z.string()),
            moreRanges: z.number().optional(),
            cells: z.number(),
            format: formatSummary,
          }),
        ),
        moreGroups: z.number(),
        merges: z.array(z.string()),
        moreMerges: z.number(),
        /** What is left of the range past the cells read; null when it was read to its end. */
        nextRange: z.string().nullable(),
      }),
      async run(input, { auth, signal }) {
        const { sheetTitle, cells } = splitRange(input.range);
        const bounds = gridBounds(cells);
        if (!bounds)
          throw new ToolError(
            `cannot read ${JSON.stringify(input.range)} as A1 notation: give a range like Sheet1!A1:D20, or a tab name alone`,
          );
        const rowStart = bounds.startRowIndex ?? 0;
        const columnStart = bounds.startColumnIndex ?? 0;
        const windowOf = (tab: string | undefined, columnEnd: number, rowEnd: number | undefined) => {
          const rows = Math.max(1, Math.floor(FORMAT_MAX_CELLS / (columnEnd - columnStart)));
          const end = Math.min(rowEnd ?? Number.POSITIVE_INFINITY, rowStart + rows);
          const a1 = `${columnLetters(columnStart)}${rowStart + 1}:${columnLetters(columnEnd - 1)}${end}`;
          return { end, range: tab === undefined ? a1 : rangeOnSheet(tab, a1) };
        };
        const read = async (range: string) => {
          const { data } = await callGoogle(auth.userId, signal, (request) =>
            sheets.spreadsheets.get(
              {
                spreadsheetId: input.spreadsheetId,
                ranges: [range],
                fields:
                  'sheets(properties(sheetId,title,gridProperties(rowCount,columnCount)),merges,data(startRow,startColumn,rowData.values.userEnteredFormat))',
              },
              request,
            ),
          );
          return data.sheets?.[0];
        };
        // The window a first read can take, sized from the range as written (whole rows as a new
        // tab's width); only when the tab turns out wider, or the range narrower than written,
        // is the window read again at the tab's true size.
        const assumedEnd = bounds.endColumnIndex ?? columnStart + NEW_TAB_COLUMNS;
        const first = windowOf(sheetTitle, assumedEnd, bounds.endRowIndex);
        let sheet: sheets_v4.Schema$Sheet | undefined;
        let answered = true;
        try {
          sheet = await read(first.range);
        } catch (error) {
          if (!isUnknownRangeError(error) && !isPastGridError(error)) throw error;
          answered = false;
          // Google refused the window (no such tab, or outside the grid): the tabs' sizes say which.
          const tab = await tabOfRange(input.spreadsheetId, input.range, auth.userId, signal);
          sheet = {
            properties: {
              title: tab.title,
              gridProperties: { rowCount: tab.rows, columnCount: tab.columns },
            },
          };
        }
        const title = sheet?.properties?.title ?? sheetTitle ?? '';
        const rowCount = sheet?.properties?.gridProperties?.rowCount ?? 0;
        const columnCount = sheet?.properties?.gridProperties?.columnCount ?? 0;
        if (rowStart >= rowCount || columnStart >= columnCount)
          throw new ToolError(
            `${input.range} starts outside the tab ${JSON.stringify(title)}, which has ${amount(rowCount, 'row')} and ${amount(columnCount, 'column')}`,
          );
        const rowEnd = Math.min(bounds.endRowIndex ?? rowCount, rowCount);
        const columnEnd = Math.min(bounds.endColumnIndex ?? columnCount, columnCount);
        const window = windowOf(title, columnEnd, rowEnd);
        if (!answered || assumedEnd < columnEnd || first.end < window.end) sheet = await read(window.range);
        const area = { rowStart, rowEnd: window.end, columnStart, columnEnd };
        const groups = groupFormats(sheet?.data?.[0], area);
        const merges = (sheet?.merges ?? []).filter((merge) => overlaps(merge, area)).map(cellsOf);
        const nextRange =
          window.end < rowEnd
            ? rangeOnSheet(
                title,
                `${columnLetters(columnStart)}${window.end + 1}:${columnLetters(columnEnd - 1)}${rowEnd}`,
              )
            : null;
        const structured = {
          range: rangeOnSheet(title, cellsOf(area)),
          cells: (window.end - rowStart) * (columnEnd - columnStart),
          groups: groups.slice(0, MAX_GROUPS),
          moreGroups: Math.max(0, groups.length - MAX_GROUPS),
          merges: merges.slice(0, MAX_MERGES),
          moreMerges: Math.max(0, merges.length - MAX_MERGES),
          nextRange,
        };
        return { structuredContent: structured, text: renderFormats(structured) };
      },
    }),
  ];

  /** The tab a range names, from the tabs' sizes; none is a tool error listing the tabs. */
  async function tabOfRange(
    spreadsheetId: string,
    range: string,
    userId: string,
    signal: AbortSignal,
  ): Promise<TabGrid> {
    const tabs = await readTabGrids(deps, userId, signal, spreadsheetId);
    const { sheetTitle, tab } = rangeOnTabs(tabs, range);
    if (tab) return tab;
    const named = tabs.slice(0, MAX_TABS_NAMED).map((each) => JSON.stringify(each.title));
    const more = tabs.length > MAX_TABS_NAMED ? `, and ${tabs.length - MAX_TABS_NAMED} more` : '';
    throw new ToolError(
      `there is no tab named ${JSON.stringify(sheetTitle)}; the tabs are ${named.join(', ')}${more}`,
    );
  }
}

interface Area {
  rowStart: number;
  rowEnd: number;
  columnStart: number;
  columnEnd: number;
}
type Group = { ranges: string[]; moreRanges?: number; cells: number; format: FormatSummary };

/**
 * The area's cells grouped by format: each row cut into runs of one format, a run continuing the
 * run of the row above (same columns, same format) making its rectangle taller; then the
 * rectangles of each format together, the format with most cells first. Default cells are left out.
 */
function groupFormats(data: sheets_v4.Schema$GridData | undefined, area: Area): Group[] {
  const groups = new Map<string, { format: FormatSummary; rectangles: Area[] }>();
  let open = new Map<string, Area>();
  const dataRow = data?.startRow ?? 0;
  const dataColumn = data?.startColumn ?? 0;
  for (let row = area.rowStart; row < area.rowEnd; row++) {
    const values = data?.rowData?.[row - dataRow]?.values ?? [];
    const formats = Array.from({ length: area.columnEnd - area.columnStart }, (_, index) =>
      summarize(values[area.columnStart + index - dataColumn]?.userEnteredFormat),
    );
    const keys = formats.map((format) => JSON.stringify(format));
    const next = new Map<string, Area>();
    for (let start = 0; start < keys.length; ) {
      let end = start + 1;
      while (end < keys.length && keys[end] === keys[start]) end++;
      const key = keys[start] as string;
      const format = formats[start] as FormatSummary;
      if (Object.keys(format).length > 0) {
        const run = `${start}:${end}:${key}`;
        let rectangle = open.get(run);
        if (rectangle) rectangle.rowEnd = row + 1;
        else {
          rectangle = {
            rowStart: row,
            rowEnd: row + 1,
            columnStart: area.columnStart + start,
            columnEnd: area.columnStart + end,
          };
          const group = groups.get(key) ?? { format, rectangles: [] };
          group.rectangles.push(rectangle);
          groups.set(key, group);
        }
        next.set(run, rectangle);
      }
      start = end;
    }
    open = next;
  }
  return [...groups.values()]
    .map(({ format, rectangles }) => ({
      ranges: rectangles.slice(0, MAX_RANGES_PER_GROUP).map(cellsOf),
      ...(rectangles.length > MAX_RANGES_PER_GROUP
        ? { moreRanges: rectangles.length - MAX_RANGES_PER_GROUP }
        : {}),
      cells: rectangles.reduce(
        (sum, each) => sum + (each.rowEnd - each.rowStart) * (each.columnEnd - each.columnStart),
        0,
      ),
      format,
    }))
    .sort((a, b) => b.cells - a.cells);
}

/** What a format sets apart from Google's defaults (Arial 10, black on white, bottom, overflow). */
function summarize(format: sheets_v4.Schema$CellFormat | undefined): FormatSummary {
  const summary: FormatSummary = {};
  if (!format) return summary;
  const text = format.textFormat ?? {};
  if (text.fontFamily && !/^arial(,sans,sans-serif)?$/i.test(text.fontFamily))
    summary.fontFamily = text.fontFamily;
  if (text.fontSize != null && text.fontSize !== 10) summary.fontSize = text.fontSize;
  for (const flag of ['bold', 'italic', 'underline', 'strikethrough'] as const)
    if (text[flag]) summary[flag] = true;
  const textColor = colorOf(text.foregroundColorStyle, text.foregroundColor);
  if (textColor && textColor !== '#000000') summary.textColor = textColor;
  const background = colorOf(format.backgroundColorStyle, format.backgroundColor);
  if (background && background !== '#ffffff') summary.backgroundColor = background;
  const number = format.numberFormat;
  if (number?.type)
    summary.numberFormat = { type: number.type, ...(number.pattern ? { pattern: number.pattern } : {}) };
  if (format.horizontalAlignment) summary.horizontalAlignment = format.horizontalAlignment;
  if (format.verticalAlignment && format.verticalAlignment !== 'BOTTOM')
    summary.verticalAlignment = format.verticalAlignment;
  if (format.wrapStrategy && format.wrapStrategy !== 'OVERFLOW_CELL')
    summary.wrapStrategy = format.wrapStrategy;
  const borders: NonNullable<FormatSummary['borders']> = {};
  for (const side of SIDES) {
    const each = format.borders?.[side];
    if (!each?.style || each.style === 'NONE') continue;
    const color = colorOf(each.colorStyle, each.color);
    borders[side] = { style: each.style, ...(color ? { color } : {}) };
  }
  if (Object.keys(borders).length > 0) summary.borders = borders;
  return summary;
}

/** `#rrggbb`, or `theme ACCENT1` for a theme colour. */
function colorOf(
  style: sheets_v4.Schema$ColorStyle | undefined,
  color: sheets_v4.Schema$Color | undefined,
): string | undefined {
  if (style?.themeColor) return `theme ${style.themeColor}`;
  return hexOf(style?.rgbColor ?? color);
}

function overlaps(range: sheets_v4.Schema$GridRange, area: Area): boolean {
  return (
    (range.startRowIndex ?? 0) < area.rowEnd &&
    (range.endRowIndex ?? Number.POSITIVE_INFINITY) > area.rowStart &&
    (range.startColumnIndex ?? 0) < area.columnEnd &&
    (range.endColumnIndex ?? Number.POSITIVE_INFINITY) > area.columnStart
  );
}

/**
 * The cells of a GridRange or an area as A1 without the tab: `B2`, `A1:D9`, `A:C`, `2:5`, `A2:C`,
 * or `whole tab`.
 */
export function cellsOf(range: sheets_v4.Schema$GridRange | Area): string {
  const grid = 'rowStart' in range ? gridRangeOfArea(range) : range;
  const startRow = grid.startRowIndex ?? undefined;
  const endRow = grid.endRowIndex ?? undefined;
  const startColumn = grid.startColumnIndex ?? undefined;
  const endColumn = grid.endColumnIndex ?? undefined;
  const noRows = startRow === undefined && endRow === undefined;
  const noColumns = startColumn === undefined && endColumn === undefined;
  if (noRows && noColumns) return 'whole tab';
  if (noRows) return `${columnLetters(startColumn ?? 0)}:${columnLetters((endColumn ?? 1) - 1)}`;
  if (noColumns) return `${(startRow ?? 0) + 1}:${endRow ?? (startRow ?? 0) + 1}`;
  const start = `${columnLetters(startColumn ?? 0)}${(startRow ?? 0) + 1}`;
  if (endRow === (startRow ?? 0) + 1 && endColumn === (startColumn ?? 0) + 1) return start;
  return `${start}:${endColumn === undefined ? '' : columnLetters(endColumn - 1)}${endRow ?? ''}`;
}

function gridRangeOfArea(area: Area): sheets_v4.Schema$GridRange {
  return {
    startRowIndex: area.rowStart,
    endRowIndex: area.rowEnd,
    startColumnIndex: area.columnStart,
    endColumnIndex: area.columnEnd,
  };
}

const ALIGNED: Record<string, string> = {
  LEFT: 'left-aligned',
  CENTER: 'centred',
  RIGHT: 'right-aligned',
  TOP: 'top-aligned',
  MIDDLE: 'middle-aligned',
};
const WRAPPED: Record<string, string> = { WRAP: 'wrapped', CLIP: 'clipped' };

function describeFormat(format: FormatSummary): string {
  const parts: string[] = [];
  if (format.fontFamily) parts.push(`font ${format.fontFamily}`);
  if (format.fontSize !== undefined) parts.push(`${format.fontSize} pt`);
  if (format.bold) parts.push('bold');
  if (format.italic) parts.push('italic');
  if (format.underline) parts.push('underlined');
  if (format.strikethrough) parts.push('struck through');
  if (format.textColor) parts.push(`text ${format.textColor}`);
  if (format.backgroundColor) parts.push(`background ${format.backgroundColor}`);
  if (format.numberFormat)
    parts.push(
      `number format ${format.numberFormat.type}${format.numberFormat.pattern === undefined ? '' : ` ${JSON.stringify(format.numberFormat.pattern)}`}`,
    );
  for (const alignment of [format.horizontalAlignment, format.verticalAlignment])
    if (alignment) parts.push(ALIGNED[alignment] ?? `aligned ${alignment}`);
  if (format.wrapStrategy) parts.push(WRAPPED[format.wrapStrategy] ?? `wrap ${format.wrapStrategy}`);
  if (format.borders) {
    // Sides with the same border together: "borders top, bottom SOLID #000000".
    const bySide = new Map<string, string[]>();
    for (const side of SIDES) {
      const each = format.borders[side];
      if (!each) continue;
      const line = `${each.style}${each.color ? ` ${each.color}` : ''}`;
      bySide.set(line, [...(bySide.get(line) ?? []), side]);
    }
    parts.push(
      `borders ${[...bySide].map(([line, sides]) => `${sides.length === 4 ? 'all sides' : sides.join(', ')} ${line}`).join('; ')}`,
    );
  }
  return parts.join('; ');
}

function renderFormats(answer: {
  range: string;
  cells: number;
  groups: Group[];
  moreGroups: number;
  merges: string[];
  moreMerges: number;
  nextRange: string | null;
}): string {
  const lines = [
    `Formats set on ${answer.range} (${amount(answer.cells, 'cell')} read; cells with Google's default format left out):`,
  ];
  if (answer.groups.length === 0) lines.push('No cell has a format set.');
  for (const group of answer.groups)
    lines.push(
      `- ${group.ranges.join(', ')}${group.moreRanges ? ` and ${amount(group.moreRanges, 'more range')}` : ''} (${amount(group.cells, 'cell')}): ${describeFormat(group.format)}`,
    );
  if (answer.moreGroups > 0)
    lines.push(
      `… ${amount(answer.moreGroups, 'more group')} (fewer cells each): read a smaller range to see them.`,
    );
  if (answer.merges.length > 0)
    lines.push(
      `Merged: ${answer.merges.join(', ')}${answer.moreMerges > 0 ? ` and ${answer.moreMerges} more` : ''}`,
    );
  if (answer.nextRange) lines.push(`Not read yet: ${answer.nextRange} (call read_formats with it).`);
  return lines.join('\n');
}
