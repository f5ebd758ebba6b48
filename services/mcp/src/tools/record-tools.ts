import { z } from 'zod';
import { columnLetters } from './a1.ts';
import { a1Range, pageLimit, pageOffset, spreadsheetId, valueRender } from './common-schemas.ts';
import { WINDOW_ROWS } from './page-window.ts';
import { pageBudget } from './paging.ts';
import { type CellValue, filterInput, rowFilter } from './record-filters.ts';
import { renderRows } from './render.ts';
import { areaRows, resolveTabArea, type TabArea } from './table-area.ts';
import { defineTool, ToolError } from './tool-definition.ts';
import type { ToolDeps } from './tool-deps.ts';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
/** read_records examines at most this many rows per call, so a filter that matches little stays bounded. */
export const RECORDS_MAX_SCANNED_ROWS = 20_000;
/** Rows asked of Google per call while filtering: fewer calls for a sparse match. */
const FILTER_WINDOW_ROWS = 2_000;
/** …but no more cells than this per call, for wide tables. */
const WINDOW_CELLS = 100_000;

type Row = CellValue[];

export function recordTools(deps: ToolDeps) {
  const { sheets, callGoogle } = deps;
  return [
    defineTool({
      name: 'read_records',
      title: 'Read table records',
      description:
        'Reads a table as records keyed by its header row, optionally only some columns and the rows matching filters (ANDed), a page at a time. Scans at most 20,000 rows per call; continue from nextOffset. A blank stretch of 500+ rows ends the table.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range.describe("The table, header first: a tab name ('Orders') or 'Orders'!A3:F."),
        headerRow: z
          .number()
          .int()
          .min(1)
          .max(10_000_000)
          .optional()
          .describe("The header's row number in the tab; the range's first row by default."),
        columns: z
          .array(z.string().min(1).max(500))
          .min(1)
          .max(500)
          .optional()
          .describe('Header names to return; all by default.'),
        filters: z
          .array(filterInput)
          .max(20)
          .default([])
          .describe(
            'e.g. ["Total >= 100", {"column":"Status","op":"=","value":"Paid"}]; ops =, !=, >, >=, <, <=, contains. Numbers compare as numbers, text ignoring case; quote a name holding an operator: "\\"a>b\\" = x".',
          ),
        valueRenderOption: valueRender,
        offset: pageOffset.describe('Skip this many data rows (below the header) before scanning.'),
        limit: pageLimit.describe('At most this many records are returned.'),
      }),
      outputSchema: z.object({
        records: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))),
        columns: z.array(z.string()),
        offset: z.number(),
        /** The data-row offset to continue from, or null when the table ended. */
        nextOffset: z.number().nullable(),
        scannedRows: z.number(),
      }),
      async run(input, context) {
        const { auth, signal } = context;
        const area = await resolveTabArea(deps, auth.userId, signal, input.spreadsheetId, input.range);
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

        const width = area.columnEnd - area.columnStart;
        const windowRows = Math.max(
          1,
          Math.min(
            input.filters.length > 0 ? FILTER_WINDOW_ROWS : Math.max(input.limit + 1, WINDOW_ROWS),
            Math.floor(WINDOW_CELLS / width),
          ),
        );
        const records: Array<Record<string, string | number | boolean>> = [];
        const budget = pageBudget();
        let header: Header | undefined;
        let keep: ((row: Row) => boolean) | undefined;
        let scanned = 0;
        let nextOffset: number | null = null;
        let first = dataStart + input.offset;
        scan: for (;;) {
          signal.throwIfAborted();
          const end = Math.min(first + Math.min(windowRows, RECORDS_MAX_SCANNED_ROWS - scanned), area.rowEnd);
          const withHeader = header === undefined;
          const answers = await readWindow(first, end, withHeader);
          if (!header) {
            header = headerOf(answers[0]?.[0] ?? [], area, headerIndex);
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
            if (row.every((cell) => cell === '' || cell === null || cell === undefined)) continue;
            if (!keep!(row)) continue;
            const record = header.record(row);
            const values = Object.values(record);
            const characters = values.reduce<number>((sum, value) => sum + String(value).length + 1, 0);
            if ((characters > budget.characters || values.length > budget.cells) && records.length > 0) {
              scanned--;
              nextOffset = offset;
              break scan;
            }
            budget.characters -= characters;
            budget.cells -= values.length;
            records.push(record);
          }
          // A short answer: the rest of the window is blank, and the table ended.
          if (end >= area.rowEnd || rows.length < end - first) break;
          scanned += end - first - rows.length;
          first = end;
          if (scanned >= RECORDS_MAX_SCANNED_ROWS || records.length >= input.limit) {
            nextOffset = first - dataStart;
            break;
          }
          context.progress(scanned, undefined, `Scanned ${scanned} rows`);
        }
        const columns = header?.selected.map((index) => header.names[index]!) ?? [];
        const notice =
          nextOffset === null
            ? ''
            : `\n… more rows may match; call read_records again with offset=${nextOffset} (${scanned} rows scanned).`;
        return {
          structuredContent: { records, columns, offset: input.offset, nextOffset, scannedRows: scanned },
          text: `${records.length === 0 ? 'No records.' : renderRows([columns, ...records.map((record) => columns.map((name) => record[name]))])}${notice}`,
        };
      },
    }),
  ];
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
function headerOf(row: Row, area: TabArea, headerIndex: number): Header {
  const width = Math.min(row.length, area.columnEnd - area.columnStart);
  if (width === 0 || row.slice(0, width).every((cell) => String(cell ?? '').trim() === ''))
    throw new ToolError(
      `the header row ${headerIndex + 1} is empty; give headerRow, or a range starting at the header`,
    );
  const names: string[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < width; index++) {
    const text = String(row[index] ?? '').trim();
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
