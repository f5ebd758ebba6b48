/**
 * batchUpdate requests of Data > Data cleanup: deleteDuplicates and trimWhitespace, as the Sheets
 * API reference documents them
 * (https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/request#DeleteDuplicatesRequest,
 * #TrimWhitespaceRequest). Problems are thrown as Google's 400s; `applyBatchUpdate` prefixes them
 * with the request's index and kind.
 */
import type { sheets_v4 } from 'googleapis';
import { googleErrors } from '../google-error.ts';
import { gridBounds } from './batch-update.ts';
import { freshResults } from './batch-update-editing.ts';
import { cellAt, setCell } from './grid.ts';
import type { CellData, ExtendedValue, SpreadsheetModel } from './model.ts';
import { shiftFormula } from './shift-formula.ts';

type Response = sheets_v4.Schema$Response;

const problem = (message: string) => googleErrors.badRequest(message);

/**
 * What two cells must share to be duplicates: "Rows with identical values but different letter
 * cases, formatting, or formulas are considered to be duplicates", so the computed value, text
 * without case; an empty cell matches only an empty cell.
 */
function comparisonKey(value: ExtendedValue | undefined): string {
  if (value?.numberValue != null) return `n${value.numberValue}`;
  if (value?.stringValue != null && value.stringValue !== '') return `s${value.stringValue.toLowerCase()}`;
  if (value?.boolValue != null) return `b${value.boolValue}`;
  if (value?.errorValue != null) return `e${value.errorValue.type}`;
  return '';
}

/**
 * "Removes rows within this range that contain values in the specified columns that are duplicates
 * of values in any previous row … the first instance of each duplicate row scanning from the top
 * downwards is kept … Content outside of the specified range isn't removed, and rows considered
 * duplicates do not have to be adjacent": the rows kept move up within the range, whole (a moved
 * formula's relative references move with it, as sortRange moves them), and the rows freed at the
 * range's bottom are left empty. No comparison columns: every column of the range. Hidden rows
 * count like any other. Reply: `duplicatesRemovedCount`, left out when zero as Google leaves out
 * zero counts.
 */
export function deleteDuplicates(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$DeleteDuplicatesRequest,
): Response {
  if (!request.range) throw problem('range is required.');
  const { sheet, bounds } = gridBounds(spreadsheet, request.range);
  const columns = new Set<number>();
  for (const dimension of request.comparisonColumns ?? []) {
    if (dimension.dimension !== 'COLUMNS') throw problem('comparisonColumns must be dimension COLUMNS.');
    if ((dimension.sheetId ?? 0) !== (request.range.sheetId ?? 0))
      throw problem('comparisonColumns must be on the sheet of the range.');
    const start = dimension.startIndex ?? bounds.startColumn;
    const end = dimension.endIndex ?? bounds.endColumn;
    if (start < bounds.startColumn || end > bounds.endColumn || start >= end)
      throw problem('comparisonColumns must be within the range.');
    for (let column = start; column < end; column++) columns.add(column);
  }
  if (columns.size === 0)
    for (let column = bounds.startColumn; column < bounds.endColumn; column++) columns.add(column);
  const compared = [...columns].sort((a, b) => a - b);
  const result = freshResults(spreadsheet);
  const seen = new Set<string>();
  const kept: number[] = [];
  for (let row = bounds.startRow; row < bounds.endRow; row++) {
    const key = JSON.stringify(
      compared.map((column) => comparisonKey(result(sheet, row, column, cellAt(sheet, row, column)))),
    );
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(row);
  }
  const removed = bounds.endRow - bounds.startRow - kept.length;
  if (removed === 0) return { deleteDuplicates: {} };
  const rows = kept.map((from) =>
    Array.from({ length: bounds.endColumn - bounds.startColumn }, (_, offset) =>
      structuredClone(cellAt(sheet, from, bounds.startColumn + offset)),
    ),
  );
  for (let row = bounds.startRow; row < bounds.endRow; row++) {
    const index = row - bounds.startRow;
    const from = kept[index];
    for (let column = bounds.startColumn; column < bounds.endColumn; column++) {
      let cell: CellData | undefined =
        from === undefined ? undefined : rows[index]?.[column - bounds.startColumn];
      if (cell?.userEnteredValue?.formulaValue != null && from !== undefined && from !== row)
        cell = {
          ...cell,
          userEnteredValue: { formulaValue: shiftFormula(cell.userEnteredValue.formulaValue, row - from, 0) },
        };
      setCell(sheet, row, column, cell);
    }
  }
  return { deleteDuplicates: { duplicatesRemovedCount: removed } };
}

/**
 * "Removes all whitespace from the start and end of each cell's text, and reduces any subsequence
 * of remaining whitespace characters to a single space. If the resulting trimmed text starts with a
 * '+' or '=' character, the text remains as a string value": only text values change (numbers,
 * booleans and formulas stay); text left empty empties the cell's value. A trimmed cell's
 * textFormatRuns, whose indexes point into the old text, are dropped. Reply: `cellsChangedCount`.
 */
export function trimWhitespace(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$TrimWhitespaceRequest,
): Response {
  if (!request.range) throw problem('range is required.');
  const { sheet, bounds } = gridBounds(spreadsheet, request.range);
  let changed = 0;
  for (let row = bounds.startRow; row < Math.min(bounds.endRow, sheet.rows.length); row++) {
    for (let column = bounds.startColumn; column < bounds.endColumn; column++) {
      const cell = cellAt(sheet, row, column);
      const text = cell?.userEnteredValue?.stringValue;
      if (text == null) continue;
      const trimmed = text.replace(/\s+/g, ' ').trim();
      if (trimmed === text) continue;
      const { userEnteredValue: _old, textFormatRuns: _runs, ...rest } = cell as CellData;
      setCell(
        sheet,
        row,
        column,
        trimmed === '' ? rest : { ...rest, userEnteredValue: { stringValue: trimmed } },
      );
      changed++;
    }
  }
  return { trimWhitespace: changed === 0 ? {} : { cellsChangedCount: changed } };
}
