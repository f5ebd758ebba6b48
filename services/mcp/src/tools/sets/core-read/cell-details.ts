import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { amount } from '../../guards/loss-phrases.ts';
import { columnLetters, gridBounds, rangeOnSheet, splitRange } from '../../kit/a1.ts';
import { READ } from '../../kit/annotations.ts';
import { a1Range, spreadsheetId } from '../../kit/common-schemas.ts';
import { PAGE_CHARACTER_BUDGET } from '../../kit/paging.ts';
import { describePivot, pivotSourceHeaders } from '../../kit/pivot-words.ts';
import { TAB_FIELDS, tabsOf } from '../../kit/rule-grid.ts';
import { spreadsheetRead } from '../../kit/spreadsheet-read.ts';
import {
  areaRows,
  cellAddress,
  readTabGridsWithData,
  resolveTabArea,
  type TabArea,
  tabAreaOf,
} from '../../kit/table-area.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/** The columns of a new tab: what read_cell_details takes a range of whole rows to span, until it knows. */
const NEW_TAB_COLUMNS = 26;
/** read_cell_details asks Google for at most this many cells per call… */
const DETAIL_WINDOW_CELLS = 10_000;
/** …and examines at most this many per tool call, so a sparse huge range stays bounded work. */
export const DETAIL_MAX_SCANNED_CELLS = 100_000;
/** The longest note or formula text returned; longer ones end with "…". */
const MAX_TEXT = 2_000;

/** What a caller may ask for, and the CellData field each is read from (the minimal mask). */
const DETAIL_FIELDS = {
  notes: 'note',
  hyperlinks: 'hyperlink',
  validation: 'dataValidation',
  formulas: 'userEnteredValue.formulaValue',
  errors: 'effectiveValue.errorValue',
  pivotTables: 'pivotTable',
} as const;
type DetailField = keyof typeof DETAIL_FIELDS;

const cellDetail = z.object({
  range: z.string(),
  cell: z.string(),
  note: z.string().optional(),
  hyperlink: z.string().optional(),
  formula: z.string().optional(),
  error: z.object({ type: z.string(), message: z.string() }).optional(),
  /** `from Sales!A1:C5; rows Region; values SUM of Units`, as set_pivot_table words it. */
  pivotTable: z.string().optional(),
  validation: z
    .object({
      condition: z.string(),
      values: z.array(z.string()),
      strict: z.boolean(),
      inputMessage: z.string().optional(),
    })
    .optional(),
});
type CellDetail = z.infer<typeof cellDetail>;

/** What a detail adds to an answer, in characters: once in the text, once in the structure. */
function detailLength(detail: CellDetail): number {
  return JSON.stringify(detail).length;
}

export function cellDetailTools(deps: ToolDeps) {
  const { sheets, callGoogle } = deps;
  const readSpreadsheet = spreadsheetRead(deps);
  return [
    defineTool({
      name: 'read_cell_details',
      toolset: 'core-read',
      title: 'Read notes, links, validation, formulas',
      description: 'The cells of a range with a note, link, validation rule, formula, error or pivot table.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range,
        fields: z
          .array(z.enum(Object.keys(DETAIL_FIELDS) as [DetailField, ...DetailField[]]))
          .min(1)
          .optional()
          .describe('All by default.'),
        offset: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(1_000).default(200),
      }),
      outputSchema: z.object({
        cells: z.array(cellDetail),
        /** The row offset to continue from, or null when the range was examined to its end. */
        nextOffset: z.number().nullable(),
        scannedCells: z.number(),
      }),
      async run(input, context) {
        const { auth, signal } = context;
        const fields = [...new Set(input.fields ?? (Object.keys(DETAIL_FIELDS) as DetailField[]))];
        const cellFields = fields.map((field) => DETAIL_FIELDS[field]).join(',');
        const mask = `sheets(data(startRow,startColumn,rowData(values(${cellFields}))))`;
        // The tab's size comes with the first window's cells (one spreadsheets.get for a range of
        // up to 10,000 cells); only when that read cannot stand does the size come on its own.
        let first = await firstDetailWindow(input, auth.userId, signal, cellFields);
        const area =
          first?.area ?? (await resolveTabArea(deps, auth.userId, signal, input.spreadsheetId, input.range));
        const width = Math.max(1, area.columnEnd - area.columnStart);
        const windowRows = Math.max(1, Math.floor(DETAIL_WINDOW_CELLS / width));
        const cells: CellDetail[] = [];
        const pivots = new Map<CellDetail, sheets_v4.Schema$PivotTable>();
        let characters = 0;
        let scannedCells = 0;
        let row = area.rowStart + input.offset;
        let nextOffset: number | null = null;
        scan: while (row < area.rowEnd && area.columnEnd > area.columnStart) {
          signal.throwIfAborted();
          if (scannedCells + width > DETAIL_MAX_SCANNED_CELLS && scannedCells > 0) {
            nextOffset = row - area.rowStart;
            break;
          }
          const rowsLeft = Math.max(1, Math.floor((DETAIL_MAX_SCANNED_CELLS - scannedCells) / width));
          let end = Math.min(row + Math.min(windowRows, rowsLeft), area.rowEnd);
          let rowData: sheets_v4.Schema$RowData[];
          if (first?.cells && first.cells.row === row) {
            // Read with the tab's size: its rows from here, as many as this window takes.
            end = Math.min(end, first.cells.end);
            rowData = first.cells.rowData;
          } else {
            const { data } = await callGoogle(auth.userId, signal, (request) =>
              sheets.spreadsheets.get(
                {
                  spreadsheetId: input.spreadsheetId,
                  ranges: [areaRows(area, row, end)],
                  includeGridData: true,
                  fields: mask,
                },
                request,
              ),
            );
            rowData = data.sheets?.[0]?.data?.[0]?.rowData ?? [];
          }
          first = undefined;
          for (let index = 0; index < end - row; index++) {
            const found = detailsOfRow(rowData[index]?.values ?? [], area, row + index, fields, pivots);
            const size = found.reduce((sum, detail) => sum + detailLength(detail), 0);
            // A page stops before a row that would pass `limit`, or the characters of one answer
            // (1,000 cells of long notes would be megabytes); it holds at least one row.
            if (
              cells.length > 0 &&
              (cells.length + found.length > input.limit || characters + size > PAGE_CHARACTER_BUDGET)
            ) {
              nextOffset = row + index - area.rowStart;
              break scan;
            }
            characters += size;
            cells.push(...found);
            scannedCells += width;
          }
          row = end;
          context.progress(scannedCells, undefined, `Examined ${amount(scannedCells, 'cell')}`);
        }
        await namePivotColumns(pivots, input.spreadsheetId, auth.userId, signal);
        return {
          structuredContent: { cells, nextOffset, scannedCells },
          text: `${cells.length === 0 ? 'No cell in the range has any of these details.' : cells.map(renderDetail).join('\n')}${nextOffset === null ? '' : `\n… call read_cell_details again with offset=${nextOffset} for the rest.`}`,
        };
      },
    }),
  ];

  /**
   * The pivot tables found, worded by their sources' header texts: one read of the tabs (a source
   * may be on another tab) and one of the headers, only when the page holds a pivot table.
   */
  async function namePivotColumns(
    pivots: Map<CellDetail, sheets_v4.Schema$PivotTable>,
    spreadsheetId: string,
    userId: string,
    signal: AbortSignal,
  ): Promise<void> {
    if (pivots.size === 0) return;
    const tabs = tabsOf(await readSpreadsheet(userId, signal, spreadsheetId, TAB_FIELDS));
    const found = [...pivots].filter(([, pivot]) =>
      tabs.some((tab) => tab.sheetId === pivot.source?.sheetId),
    );
    const headers = await pivotSourceHeaders(
      deps,
      userId,
      signal,
      spreadsheetId,
      found.map(([, pivot]) => pivot.source ?? {}),
      tabs,
    );
    for (const [index, [detail, pivot]] of found.entries())
      detail.pivotTable = describePivot(pivot, headers[index] ?? [], tabs);
  }

  /**
   * The tab's size and the cells of read_cell_details's first window, in one spreadsheets.get: the
   * window the paging loop would ask first, worked out from the range as written (a range of whole
   * rows taken as 26 columns wide, a new tab's width). Its cells are used when they hold every
   * column of the range in the tab, from the loop's first row (the loop's window is then as tall
   * or taller, and goes on below them); otherwise only the size is, and the loop reads as before.
   * Undefined when the range is not A1, starts past its end or Google refuses it (no such tab,
   * outside the grid): the caller then reads the size alone and says what is wrong, as before.
   */
  async function firstDetailWindow(
    input: { spreadsheetId: string; range: string; offset: number },
    userId: string,
    signal: AbortSignal,
    cellFields: string,
  ): Promise<
    { area: TabArea; cells?: { row: number; end: number; rowData: sheets_v4.Schema$RowData[] } } | undefined
  > {
    const { sheetTitle, cells } = splitRange(input.range);
    const bounds = gridBounds(cells);
    if (!bounds) return undefined;
    const columnStart = bounds.startColumnIndex ?? 0;
    const columnEnd = bounds.endColumnIndex ?? columnStart + NEW_TAB_COLUMNS;
    const row = (bounds.startRowIndex ?? 0) + input.offset;
    let end = row + Math.max(1, Math.floor(DETAIL_WINDOW_CELLS / (columnEnd - columnStart)));
    if (bounds.endRowIndex !== undefined) {
      if (row >= bounds.endRowIndex) return undefined;
      end = Math.min(end, bounds.endRowIndex);
    }
    const window = `${columnLetters(columnStart)}${row + 1}:${columnLetters(columnEnd - 1)}${end}`;
    const answer = await readTabGridsWithData(
      deps,
      userId,
      signal,
      input.spreadsheetId,
      [sheetTitle === undefined ? window : rangeOnSheet(sheetTitle, window)],
      cellFields,
    );
    if (!answer) return undefined;
    const area = tabAreaOf(input.range, answer.tabs);
    if (
      area.rowStart + input.offset !== row ||
      area.columnStart !== columnStart ||
      area.columnEnd > columnEnd
    )
      return { area };
    return { area, cells: { row, end, rowData: answer.data.get(area.title)?.[0]?.rowData ?? [] } };
  }
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

function detailsOfRow(
  values: readonly sheets_v4.Schema$CellData[],
  area: TabArea,
  row: number,
  fields: readonly DetailField[],
  pivots: Map<CellDetail, sheets_v4.Schema$PivotTable>,
): CellDetail[] {
  const details: CellDetail[] = [];
  for (const [index, cell] of values.entries()) {
    const address = cellAddress(row, area.columnStart + index);
    const detail: CellDetail = { range: rangeOnSheet(area.title, address), cell: address };
    if (fields.includes('notes') && cell.note) detail.note = clip(cell.note);
    if (fields.includes('hyperlinks') && cell.hyperlink) detail.hyperlink = clip(cell.hyperlink);
    const formula = cell.userEnteredValue?.formulaValue;
    if (fields.includes('formulas') && formula) detail.formula = clip(formula);
    const error = cell.effectiveValue?.errorValue;
    if (fields.includes('errors') && error)
      detail.error = { type: error.type ?? 'ERROR', message: clip(error.message ?? '') };
    const rule = cell.dataValidation;
    if (fields.includes('validation') && rule)
      detail.validation = {
        condition: rule.condition?.type ?? 'CONDITION_TYPE_UNSPECIFIED',
        values: (rule.condition?.values ?? []).map((value) =>
          clip(value.userEnteredValue ?? value.relativeDate ?? ''),
        ),
        strict: rule.strict ?? false,
        ...(rule.inputMessage ? { inputMessage: clip(rule.inputMessage) } : {}),
      };
    const pivot = cell.pivotTable;
    if (fields.includes('pivotTables') && pivot) {
      // By column letter until namePivotColumns names them: what the page's size is counted by.
      detail.pivotTable = pivot.source ? describePivot(pivot, [], []) : 'from a data source';
      if (pivot.source) pivots.set(detail, pivot);
    }
    if (Object.keys(detail).length > 2) details.push(detail);
  }
  return details;
}

function renderDetail(detail: CellDetail): string {
  const parts: string[] = [];
  if (detail.formula) parts.push(`formula ${detail.formula}`);
  if (detail.error) parts.push(`error ${detail.error.type}: ${detail.error.message}`);
  if (detail.hyperlink) parts.push(`link ${detail.hyperlink}`);
  if (detail.note) parts.push(`note ${JSON.stringify(detail.note)}`);
  if (detail.pivotTable) parts.push(`pivot table ${detail.pivotTable}`);
  if (detail.validation)
    parts.push(
      `validation ${detail.validation.condition}${detail.validation.values.length ? ` [${detail.validation.values.join(', ')}]` : ''}${detail.validation.strict ? ' (strict)' : ''}`,
    );
  return `${detail.range}: ${parts.join('; ')}`;
}
