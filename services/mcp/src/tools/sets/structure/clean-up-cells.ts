import type { sheets_v4 } from 'googleapis';
import { ToolError } from '../../../errors/tool-error.ts';
import { MAX_UNDO_CELLS } from '../../../journal/change-payloads.ts';
import { amount } from '../../guards/loss-phrases.ts';
import { columnLetters } from '../../kit/a1.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { type Area, a1Of, cellCount, type Tab, widthOf } from './edit-grid.ts';

/**
 * What the clean-up tools (clean-up.ts) share: their bound, one read of a range's cells, and the
 * rules they change text by — the same rules Google's deleteDuplicates and trimWhitespace follow,
 * so a dry run predicts what the request will do.
 */

/** Cells one clean-up call may cover: what one change keeps for undo. */
export const CLEANUP_MAX_CELLS = MAX_UNDO_CELLS;

export function checkCleanupSize(range: string, area: Area): void {
  const cells = cellCount(area);
  if (cells <= CLEANUP_MAX_CELLS) return;
  const rows = Math.floor(CLEANUP_MAX_CELLS / widthOf(area));
  throw new ToolError(
    `${range} covers ${amount(cells, 'cell')}; one call cleans at most ${amount(CLEANUP_MAX_CELLS, 'cell')} (${amount(rows, 'row')} of these ${amount(widthOf(area), 'column')}): name fewer rows, e.g. the rows holding data, and call again for the rest.`,
  );
}

/** A range's cells by offset from its top-left corner; a cell Google leaves out is empty. */
export type CellGrid = Array<Array<sheets_v4.Schema$CellData | undefined>>;

/** One spreadsheets.get of the cells of `area`: what they hold as entered, and what they show. */
export async function readCells(
  { sheets, callGoogle }: ToolDeps,
  userId: string,
  signal: AbortSignal,
  spreadsheetId: string,
  tab: Tab,
  area: Area,
): Promise<CellGrid> {
  const { data } = await callGoogle(userId, signal, (request) =>
    sheets.spreadsheets.get(
      {
        spreadsheetId,
        ranges: [a1Of(tab, area)],
        includeGridData: true,
        fields: 'sheets(data(startRow,startColumn,rowData(values(userEnteredValue,effectiveValue))))',
      },
      request,
    ),
  );
  const grid: CellGrid = [];
  for (const block of data.sheets?.[0]?.data ?? []) {
    const top = (block.startRow ?? 0) - area.startRowIndex;
    const left = (block.startColumn ?? 0) - area.startColumnIndex;
    for (const [r, row] of (block.rowData ?? []).entries())
      for (const [c, cell] of (row.values ?? []).entries()) {
        if (!cell || Object.keys(cell).length === 0) continue;
        grid[top + r] ??= [];
        grid[top + r]![left + c] = cell;
      }
  }
  return grid;
}

/** The number of rows of the grid down to its last row holding a value. */
export function rowsWithData(grid: CellGrid): number {
  for (let row = grid.length - 1; row >= 0; row--)
    if (grid[row]?.some((cell) => cell?.userEnteredValue != null)) return row + 1;
  return 0;
}

/** The number of columns of the grid up to its last column holding a value. */
export function columnsWithData(grid: CellGrid): number {
  let columns = 0;
  for (const row of grid)
    for (const [column, cell] of (row ?? []).entries())
      if (cell?.userEnteredValue != null) columns = Math.max(columns, column + 1);
  return columns;
}

/** `B7`: the cell at an offset from the area's corner. */
export const cellName = (area: Area, row: number, column: number) =>
  `${columnLetters(area.startColumnIndex + column)}${area.startRowIndex + row + 1}`;

/**
 * What two cells share when deleteDuplicates counts them alike: "Rows with identical values but
 * different letter cases, formatting, or formulas are considered to be duplicates" (Sheets API
 * DeleteDuplicatesRequest) — the value shown, text without case.
 */
export function comparisonKey(cell: sheets_v4.Schema$CellData | undefined): string {
  const value = cell?.effectiveValue;
  if (value?.numberValue != null) return `n${value.numberValue}`;
  if (value?.stringValue != null && value.stringValue !== '') return `s${value.stringValue.toLowerCase()}`;
  if (value?.boolValue != null) return `b${value.boolValue}`;
  if (value?.errorValue != null) return `e${value.errorValue.type}`;
  return '';
}

/** A cell's value for an answer: its text, number or boolean as shown. */
export function shownValue(cell: sheets_v4.Schema$CellData | undefined): string | number | boolean {
  const value = cell?.effectiveValue;
  return value?.numberValue ?? value?.stringValue ?? value?.boolValue ?? value?.errorValue?.type ?? '';
}

/**
 * Text as trimWhitespace leaves it: "removes all whitespace from the start and end of each cell's
 * text, and reduces any subsequence of remaining whitespace characters to a single space" (Sheets
 * API TrimWhitespaceRequest).
 */
export const trimmed = (text: string) => text.replace(/\s+/g, ' ').trim();

export type TextCase = 'upper' | 'lower' | 'title' | 'sentence';

/**
 * Text in a case: title capitalizes each word's first letter (a word runs on through letters and
 * apostrophes, so "o'neil-smith" is "O'neil-Smith"), sentence the first letter of the text and of
 * each sentence after . ! or ?, the rest lower case.
 */
export function inCase(text: string, textCase: TextCase): string {
  if (textCase === 'upper') return text.toUpperCase();
  if (textCase === 'lower') return text.toLowerCase();
  if (textCase === 'title')
    return text.replace(
      /\p{L}[\p{L}\p{M}'’]*/gu,
      (word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase(),
    );
  return text
    .toLowerCase()
    .replace(/(^|[.!?]\s+)(\P{L}*)(\p{L})/gu, (_all, before, between, letter: string) => {
      return `${before}${between}${letter.toUpperCase()}`;
    });
}
