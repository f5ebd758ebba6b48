import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { columnLetters, gridBounds, rangeOnSheet, splitRange } from '../../kit/a1.ts';
import { READ } from '../../kit/annotations.ts';
import { readableRanges } from '../../kit/bare-tab.ts';
import { a1Range, pageLimit, pageOffset, spreadsheetId, valueRender } from '../../kit/common-schemas.ts';
import { isBlankRow } from '../../kit/data-below.ts';
import { WINDOW_ROWS } from '../../kit/page-window.ts';
import { pageBudget } from '../../kit/paging.ts';
import { renderRows } from '../../kit/render.ts';
import {
  areaRows,
  readTabGridsWithData,
  resolveTabArea,
  type TabArea,
  tabAreaOf,
} from '../../kit/table-area.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { type CellValue, filterInput, rowFilter } from './record-filters.ts';

/** read_records examines at most this many rows per call, so a filter that matches little stays bounded. */
export const RECORDS_MAX_SCANNED_ROWS = 20_000;
/** Rows asked of Google per call while filtering: fewer calls for a sparse match. */
const FILTER_WINDOW_ROWS = 2_000;
/** …but no more cells than this per call, for wide tables. */
const WINDOW_CELLS = 100_000;
/**
 * The columns a range of whole rows is taken to span until the tab's size is known: the widest
 * table whose windows are as tall as a narrow one's (2,001 rows of 49 columns fit WINDOW_CELLS).
 */
const GUESSED_COLUMNS = 49;

type Row = CellValue[];

export function recordTools(deps: ToolDeps) {
  const { sheets, callGoogle } = deps;
  return [
    defineTool({
      name: 'read_records',
      toolset: 'core-read',
      title: 'Read table records',
      description: 'Reads a table as records keyed by its header, optionally filtered.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range.describe('Header row first.'),
        headerRow: z
          .number()
          .int()
          .min(1)
          .max(10_000_000)
          .optional()
          .describe("The header's row; the range's first by default."),
        columns: z.array(z.string().min(1).max(500)).min(1).max(500).optional(),
        filters: z
          .array(filterInput)
          .max(20)
          .default([])
          .describe(
            '"column op value", op = != > >= < <= or contains, e.g. Total >= 100; quote a name holding an op; text ignores case.',
          ),
        valueRenderOption: valueRender,
        offset: pageOffset.describe('Data rows to skip.'),
        limit: pageLimit,
      }),
      outputSchema: z.object({
        records: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))),
        columns: z.array(z.string()),
        offset: z.number(),
        /** The data-row offset to continue from, or null when the table ended. */
        nextOffset: z.number().nullable(),
        scannedRows: z.number(),
        /** Where the data this call scanned ends (sheet row, column letter) once the table ended; else null. */
        lastRow: z.number().nullable(),
        lastColumn: z.string().nullable(),
      }),
      async run(received, context) {
        const { auth, signal } = context;
        const [range] = (await readableRanges(
          deps,
          { userId: auth.userId, signal, spreadsheetId: received.spreadsheetId },
          [received.range],
        )) as [string];
        const input = { ...received, range };
        // In the default rendering the tab's size comes with the header and the first window
        // (one spreadsheets.get); another rendering is the values API's alone, so the size is read first.
        let prefetched =
          input.valueRenderOption === 'FORMATTED_VALUE'
            ? await firstWindowWithSize(input, auth.userId, signal)
            : undefined;
        const area =
          prefetched?.area ??
          (await resolveTabArea(deps, auth.userId, signal, input.spreadsheetId, input.range));
        const headerIndex = input.headerRow === undefined ? area.rowStart : input.headerRow - 1;
        if (headerIndex < area.rowStart || headerIndex >= area.rowEnd)
          throw new ToolError(
            `the header row ${headerIndex + 1} is outside the range ${areaRows(area, area.rowStart, area.rowEnd)}`,
          );
        if (area.columnEnd <= area.columnStart) throw new ToolError('the range has no columns');
        const dataStart = headerIndex + 1;
        /** The header row (on the first call) and rows [first, end) when there are any. */
        const readWindow = async (first: number, end: number, withHeader: boolean) => {
          const ranges = [
            ...(withHeader ? [areaRows(area, headerIndex, headerIndex + 1)] : []),
            ...(first < end ? [areaRows(area, first, end)] : []),
          ];
          const { data } = await callGoogle(auth.userId, signal, (request) =>
            sheets.spreadsheets.values.batchGet(
              { spreadsheetId: input.spreadsheetId, ranges, valueRenderOption: input.valueRenderOption },
              request,
            ),
          );
          return (data.valueRanges ?? []).map((valueRange) => (valueRange.values ?? []) as Row[]);
        };

        let windowRows = recordWindowRows(input, area.columnEnd - area.columnStart);
        const records: Array<Record<string, string | number | boolean>> = [];
        const budget = pageBudget();
        let header: Header | undefined;
        let keep: ((row: Row) => boolean) | undefined;
        let scanned = 0;
        let nextOffset: number | null = null;
        /** The last row holding data the scan saw (zero-based), and the widest such row. */
        let lastData = -1;
        let widest = 0;
        let first = dataStart + input.offset;
        scan: for (;;) {
          signal.throwIfAborted();
          const end = Math.min(first + Math.min(windowRows, RECORDS_MAX_SCANNED_ROWS - scanned), area.rowEnd);
          const withHeader = header === undefined;
          const answers =
            prefetched?.answers && prefetched.first === first && prefetched.end === end
              ? prefetched.answers
              : await readWindow(first, end, withHeader);
          prefetched = undefined;
          if (!header) {
            const headerCells = answers[0]?.[0] ?? [];
            header = headerOf(headerCells, area, headerIndex);
            widest = Math.min(headerCells.length, area.columnEnd - area.columnStart);
            if (input.offset === 0) lastData = headerIndex;
            keep = rowFilter(input.filters, (name) => header!.indexOf(name));
            header.select(input.columns);
          }
          const rows = first < end ? (answers[withHeader ? 1 : 0] ?? []) : [];
          for (const [index, row] of rows.entries()) {
            const offset = first + index - dataStart;
            if (records.length >= input.limit) {
              nextOffset = offset;
              break scan;
            }
            scanned++;
            if (isBlankRow(row)) continue;
            lastData = first + index;
            widest = Math.max(widest, Math.min(row.length, area.columnEnd - area.columnStart));
            if (!keep!(row)) continue;
            const record = header.record(row);
            const values = Object.values(record);
            // Each value is returned under its header name: both count against the answer's budget.
            const characters = Object.entries(record).reduce<number>(
              (sum, [name, value]) => sum + name.length + String(value).length + 1,
              0,
            );
            if ((characters > budget.characters || values.length > budget.cells) && records.length > 0) {
              scanned--;
              nextOffset = offset;
              break scan;
            }
            budget.characters -= characters;
            budget.cells -= values.length;
            records.push(record);
          }
          if (end >= area.rowEnd) break;
          // A short answer: the rest of the window is blank. Rows below may still hold data: the
          // scan goes on in windows as large as the cell bound allows, within the rows per call.
          if (rows.length < end - first)
            windowRows = Math.max(windowRows, Math.floor(WINDOW_CELLS / (area.columnEnd - area.columnStart)));
          scanned += end - first - rows.length;
          first = end;
          if (scanned >= RECORDS_MAX_SCANNED_ROWS || records.length >= input.limit) {
            nextOffset = first - dataStart;
            break;
          }
          context.progress(scanned, undefined, `Scanned ${scanned} rows`);
        }
        const columns = header?.selected.map((index) => header.names[index]!) ?? [];
        const ended = nextOffset === null && lastData >= 0;
        const lastRow = ended ? lastData + 1 : null;
        const lastColumn = ended && widest > 0 ? columnLetters(area.columnStart + widest - 1) : null;
        const notice =
          nextOffset !== null
            ? `\n… more rows may match; call read_records again with offset=${nextOffset} (${scanned} rows scanned).`
            : lastRow !== null
              ? `\nThe table's data ends at row ${lastRow}${lastColumn ? ` (last column ${lastColumn})` : ''}.`
              : '';
        return {
          structuredContent: {
            records,
            columns,
            offset: input.offset,
            nextOffset,
            scannedRows: scanned,
            lastRow,
            lastColumn,
          },
          text: `${records.length === 0 ? 'No records.' : renderRows([columns, ...records.map((record) => columns.map((name) => record[name]))])}${notice}`,
        };
      },
    }),
  ];

  /**
   * The tab's size, the header and the first window of rows in one spreadsheets.get, each cell's
   * formattedValue as values.batchGet would answer it in FORMATTED_VALUE (trailing empty cells and
   * rows dropped, an empty cell before a value ""). The window is the one the loop would ask first,
   * worked out from the range as written (a range of whole rows taken as GUESSED_COLUMNS wide); its
   * rows are used when, the tab's size known, the loop's first window is that same window or a
   * part of it from its top, with every column. Otherwise only the size is used. Undefined when the
   * range is not A1, its header row lies outside it, or Google refuses it (no such tab, outside the
   * grid): the caller then reads the size alone and says what is wrong, as before.
   */
  async function firstWindowWithSize(
    input: {
      spreadsheetId: string;
      range: string;
      headerRow?: number | undefined;
      offset: number;
      limit: number;
      filters: readonly unknown[];
    },
    userId: string,
    signal: AbortSignal,
  ): Promise<{ area: TabArea; first?: number; end?: number; answers?: Row[][] } | undefined> {
    const { sheetTitle, cells } = splitRange(input.range);
    const bounds = gridBounds(cells);
    if (!bounds) return undefined;
    const rowStart = bounds.startRowIndex ?? 0;
    const headerIndex = input.headerRow === undefined ? rowStart : input.headerRow - 1;
    if (headerIndex < rowStart || (bounds.endRowIndex !== undefined && headerIndex >= bounds.endRowIndex))
      return undefined;
    const columnStart = bounds.startColumnIndex ?? 0;
    const columnEnd = bounds.endColumnIndex ?? columnStart + GUESSED_COLUMNS;
    const first = headerIndex + 1 + input.offset;
    const end = Math.min(
      first + Math.min(recordWindowRows(input, columnEnd - columnStart), RECORDS_MAX_SCANNED_ROWS),
      bounds.endRowIndex ?? Number.POSITIVE_INFINITY,
    );
    const rows = (top: number, bottom: number) => {
      const a1 = `${columnLetters(columnStart)}${top + 1}:${columnLetters(columnEnd - 1)}${bottom}`;
      return sheetTitle === undefined ? a1 : rangeOnSheet(sheetTitle, a1);
    };
    const answer = await readTabGridsWithData(
      deps,
      userId,
      signal,
      input.spreadsheetId,
      [rows(headerIndex, headerIndex + 1), ...(first < end ? [rows(first, end)] : [])],
      'formattedValue',
    );
    if (!answer) return undefined;
    const area = tabAreaOf(input.range, answer.tabs);
    const areaEnd = Math.min(
      first + Math.min(recordWindowRows(input, area.columnEnd - area.columnStart), RECORDS_MAX_SCANNED_ROWS),
      area.rowEnd,
    );
    if (area.columnStart !== columnStart || area.columnEnd > columnEnd || areaEnd > end) return { area };
    const [headerGrid, windowGrid] = answer.data.get(area.title) ?? [];
    return {
      area,
      first,
      end: areaEnd,
      answers: [
        formattedRows(headerGrid, 1),
        ...(first < areaEnd ? [formattedRows(windowGrid, areaEnd - first)] : []),
      ],
    };
  }
}

/** The rows of one window for a table `width` columns wide: see the constants above. */
function recordWindowRows(input: { limit: number; filters: readonly unknown[] }, width: number): number {
  return Math.max(
    1,
    Math.min(
      input.filters.length > 0 ? FILTER_WINDOW_ROWS : Math.max(input.limit + 1, WINDOW_ROWS),
      Math.floor(WINDOW_CELLS / width),
    ),
  );
}

/**
 * The first `rows` rows of grid data as values.batchGet answers them in FORMATTED_VALUE: each
 * cell's formattedValue, an empty cell before a value "", trailing empty cells and rows dropped.
 */
function formattedRows(grid: sheets_v4.Schema$GridData | undefined, rows: number): Row[] {
  const answer = (grid?.rowData ?? []).slice(0, rows).map((rowData) => {
    const cells = (rowData.values ?? []).map((cell) => cell.formattedValue ?? undefined);
    while (cells.length > 0 && cells.at(-1) === undefined) cells.pop();
    return cells.map((cell) => cell ?? '');
  });
  while (answer.length > 0 && answer.at(-1)!.length === 0) answer.pop();
  return answer;
}

interface Header {
  names: string[];
  selected: number[];
  indexOf(name: string): number;
  select(columns: readonly string[] | undefined): void;
  record(row: Row): Record<string, string | number | boolean>;
}

/**
 * The header row's names: a blank header is named by its column letter, and a repeated name gets
 * ` (2)`, ` (3)`, so every record has distinct keys. A column is found by name exactly, then
 * ignoring case; an unknown name is a tool error listing the known ones.
 */
/**
 * The longest header name, as `columns` takes them: a longer header is cut to it (ending "…"),
 * so every column can still be named, and a record's keys stay small whatever the header holds.
 */
const MAX_HEADER_NAME = 500;

function headerName(text: string): string {
  return text.length > MAX_HEADER_NAME ? `${text.slice(0, MAX_HEADER_NAME - 1)}…` : text;
}

function headerOf(row: Row, area: TabArea, headerIndex: number): Header {
  const width = Math.min(row.length, area.columnEnd - area.columnStart);
  if (width === 0 || row.slice(0, width).every((cell) => String(cell ?? '').trim() === ''))
    throw new ToolError(
      `the header row ${headerIndex + 1} is empty; give headerRow, or a range starting at the header`,
    );
  const names: string[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < width; index++) {
    const text = headerName(String(row[index] ?? '').trim());
    let name = text === '' ? columnLetters(area.columnStart + index) : text;
    for (let copy = 2; seen.has(name); copy++)
      name = `${text || columnLetters(area.columnStart + index)} (${copy})`;
    seen.add(name);
    names.push(name);
  }
  const indexOf = (name: string) => {
    let index = names.indexOf(name);
    if (index === -1) index = names.findIndex((each) => each.toLowerCase() === name.toLowerCase());
    if (index === -1) {
      const shown = names.slice(0, 30).map((each) => JSON.stringify(each));
      throw new ToolError(
        `there is no column ${JSON.stringify(name)}; the header has ${shown.join(', ')}${names.length > 30 ? ', …' : ''}`,
      );
    }
    return index;
  };
  const header: Header = {
    names,
    selected: names.map((_, index) => index),
    indexOf,
    select(columns) {
      if (columns) header.selected = columns.map(indexOf);
    },
    record(cells) {
      const record: Record<string, string | number | boolean> = {};
      for (const index of header.selected) {
        const cell = cells[index];
        record[names[index]!] = cell === null || cell === undefined ? '' : cell;
      }
      return record;
    },
  };
  return header;
}
