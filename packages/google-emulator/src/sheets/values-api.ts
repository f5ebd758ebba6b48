/**
 * spreadsheets.values: get, batchGet, update, batchUpdate, append, clear, batchClear, as pure
 * functions over a spreadsheet model that return Google's response shapes.
 */
import type { sheets_v4 } from 'googleapis';
import { googleErrors } from '../google-error.ts';
import {
  columnToLetters,
  formatRange,
  type GridBounds,
  type ResolvedRange,
  resolveRange,
} from './a1-notation.ts';
import { shiftChartsForDimension } from './batch-update-charts.ts';
import { shiftRangesForDimension } from './batch-update-rules.ts';
import {
  effectiveCell,
  type RenderedValue,
  type RenderOptions,
  renderCell,
  shownCellsIn,
} from './cell-values.ts';
import { rewriteFormulasForDimension } from './dimension-references.ts';
import { cellAt, ensureGridSize, hasValue, insertRows, setCell, storedCellsIn } from './grid.ts';
import type { SheetModel, SpreadsheetModel } from './model.ts';
import { evaluateShownCells } from './pivot-tables.ts';
import { cellFromInput, type ValueInputOption } from './user-entered.ts';

export type MajorDimension = 'ROWS' | 'COLUMNS';

export interface ReadOptions extends RenderOptions {
  majorDimension: MajorDimension;
}

export function readValueRange(
  spreadsheet: SpreadsheetModel,
  rangeText: string,
  options: ReadOptions,
): sheets_v4.Schema$ValueRange {
  const { sheet, bounds } = resolveRange(spreadsheet, rangeText);
  const grid = sheet.properties.gridProperties;
  // A read that starts outside the tab's grid is refused, as Google does; one that reaches past
  // its end is answered with what is there.
  if (bounds.startRow >= grid.rowCount || bounds.startColumn >= grid.columnCount) {
    throw googleErrors.badRequest(
      `Range (${formatRange(sheet.properties.title, bounds)}) exceeds grid limits. Max rows: ${grid.rowCount}, max columns: ${grid.columnCount}`,
    );
  }
  return readBounds(spreadsheet, sheet, bounds, options);
}

export function readBounds(
  spreadsheet: SpreadsheetModel,
  sheet: SheetModel,
  bounds: GridBounds,
  options: ReadOptions,
): sheets_v4.Schema$ValueRange {
  const evaluation = evaluateShownCells(spreadsheet);
  const sheetIndex = spreadsheet.sheets.indexOf(sheet);
  const matrix: Array<Array<RenderedValue | undefined>> = [];
  for (const [row, column, cell] of shownCellsIn(evaluation, sheet, sheetIndex, bounds)) {
    const value = renderCell(effectiveCell(evaluation, sheetIndex, row, column, cell), cell, options);
    if (value === undefined) continue;
    const [line, position] =
      options.majorDimension === 'COLUMNS'
        ? [column - bounds.startColumn, row - bounds.startRow]
        : [row - bounds.startRow, column - bounds.startColumn];
    matrix[line] ??= [];
    (matrix[line] as Array<RenderedValue | undefined>)[position] = value;
  }
  const valueRange: sheets_v4.Schema$ValueRange = {
    range: formatRange(sheet.properties.title, bounds),
    majorDimension: options.majorDimension,
  };
  // Google drops trailing empty rows and cells; empty cells before a value read as "".
  if (matrix.length > 0)
    valueRange.values = Array.from(matrix, (line) => Array.from(line ?? [], (value) => value ?? ''));
  return valueRange;
}

export interface WriteOptions {
  valueInputOption: ValueInputOption;
  majorDimension: MajorDimension;
}

/** The counts of an UpdateValuesResponse, always present. */
export interface UpdateResult {
  spreadsheetId: string;
  updatedRange: string;
  updatedRows: number;
  updatedColumns: number;
  updatedCells: number;
}

export function writeValueRange(
  spreadsheet: SpreadsheetModel,
  rangeText: string,
  values: unknown,
  options: WriteOptions,
): UpdateResult {
  const target = resolveRange(spreadsheet, rangeText);
  const rows = toRows(checkValues(values), options.majorDimension);
  checkFits(target, rows, rangeText);
  return writeRows(
    spreadsheet,
    target.sheet,
    target.bounds.startRow,
    target.bounds.startColumn,
    rows,
    options.valueInputOption,
  );
}

function checkValues(values: unknown): unknown[][] {
  if (values === undefined || values === null) return [];
  if (!Array.isArray(values))
    throw googleErrors.badRequest("Invalid value at 'data.values': expected a list of lists.");
  return values.map((line, index) => {
    if (!Array.isArray(line))
      throw googleErrors.badRequest(`Invalid value at 'data.values[${index}]', expected a list.`);
    for (const [position, value] of line.entries()) {
      if (value !== null && typeof value === 'object') {
        throw googleErrors.badRequest(`Invalid values[${index}][${position}]: struct_value {}`);
      }
    }
    return line;
  });
}

function toRows(values: unknown[][], majorDimension: MajorDimension): unknown[][] {
  if (majorDimension !== 'COLUMNS') return values;
  const rows: unknown[][] = [];
  for (const [column, line] of values.entries()) {
    for (const [row, value] of line.entries()) {
      rows[row] ??= [];
      (rows[row] as unknown[])[column] = value;
    }
  }
  return Array.from(rows, (row) => row ?? []);
}

/** Google refuses values outside a multi-cell range; a single cell or an open side has no limit. */
function checkFits(target: ResolvedRange, rows: unknown[][], rangeText: string): void {
  const { area, bounds } = target;
  const singleCell =
    area.endRow === (area.startRow ?? 0) + 1 && area.endColumn === (area.startColumn ?? 0) + 1;
  if (singleCell) return;
  if (area.endRow !== undefined && bounds.startRow + rows.length > area.endRow) {
    throw googleErrors.badRequest(
      `Requested writing within range [${rangeText}], but tried writing to row [${area.endRow + 1}]`,
    );
  }
  const widest = Math.max(0, ...rows.map((row) => row.length));
  if (area.endColumn !== undefined && bounds.startColumn + widest > area.endColumn) {
    throw googleErrors.badRequest(
      `Requested writing within range [${rangeText}], but tried writing to column [${columnToLetters(area.endColumn)}]`,
    );
  }
}

/** Writes rows of values from a top-left cell, growing the grid as Google does for values writes. */
function writeRows(
  spreadsheet: SpreadsheetModel,
  sheet: SheetModel,
  startRow: number,
  startColumn: number,
  rows: unknown[][],
  inputOption: ValueInputOption,
): UpdateResult {
  const touchedRows = new Set<number>();
  const touchedColumns = new Set<number>();
  let cells = 0;
  for (const [rowOffset, line] of rows.entries()) {
    for (const [columnOffset, value] of line.entries()) {
      if (value === null || value === undefined) continue;
      const row = startRow + rowOffset;
      const column = startColumn + columnOffset;
      const existing = cellAt(sheet, row, column);
      const written = cellFromInput(value, inputOption);
      const next = { ...existing };
      delete next.userEnteredValue;
      if (written?.userEnteredValue) next.userEnteredValue = written.userEnteredValue;
      if (written?.userEnteredFormat)
        next.userEnteredFormat = { ...existing?.userEnteredFormat, ...written.userEnteredFormat };
      setCell(sheet, row, column, next);
      touchedRows.add(row);
      touchedColumns.add(column);
      cells++;
    }
  }
  const height = Math.max(1, rows.length);
  const width = Math.max(1, ...rows.map((row) => row.length));
  ensureGridSize(sheet, startRow + height, startColumn + width);
  spreadsheet.revision++;
  return {
    spreadsheetId: spreadsheet.spreadsheetId,
    updatedRange: formatRange(sheet.properties.title, {
      startRow,
      endRow: startRow + height,
      startColumn,
      endColumn: startColumn + width,
    }),
    updatedRows: touchedRows.size,
    updatedColumns: touchedColumns.size,
    updatedCells: cells,
  };
}

export type InsertDataOption = 'OVERWRITE' | 'INSERT_ROWS';

export interface AppendResult {
  tableRange?: string;
  updates: UpdateResult;
  sheet: SheetModel;
}

/**
 * Appends after the "table" found from the range, as Google does: the first row at or below the
 * range's start with a value in the range's columns starts the table, which extends down over
 * consecutive rows with values and sideways over adjacent columns with values. Values go to the
 * row after the table, from its first column; INSERT_ROWS inserts rows there first.
 */
export function appendValueRange(
  spreadsheet: SpreadsheetModel,
  rangeText: string,
  values: unknown,
  options: WriteOptions & { insertDataOption: InsertDataOption },
): AppendResult {
  const { sheet, bounds } = resolveRange(spreadsheet, rangeText);
  const rows = toRows(checkValues(values), options.majorDimension);
  const table = findTable(sheet, bounds);
  const at = table ? table.endRow : bounds.startRow;
  const column = table ? table.startColumn : bounds.startColumn;
  if (options.insertDataOption === 'INSERT_ROWS' && rows.length > 0) {
    // Whole rows go in, as with insertDimension: what refers to the rows below follows them.
    insertRows(sheet, at, rows.length);
    shiftRangesForDimension(spreadsheet, sheet, true, at, rows.length);
    shiftChartsForDimension(spreadsheet, sheet, true, at, rows.length);
    rewriteFormulasForDimension(spreadsheet, sheet, true, at, rows.length);
  }
  const updates = writeRows(spreadsheet, sheet, at, column, rows, options.valueInputOption);
  return {
    ...(table ? { tableRange: formatRange(sheet.properties.title, table) } : {}),
    updates,
    sheet,
  };
}

export function findTable(sheet: SheetModel, bounds: GridBounds): GridBounds | undefined {
  const valueAt = (row: number, column: number) => column >= 0 && hasValue(cellAt(sheet, row, column));
  let start = -1;
  let low = Number.POSITIVE_INFINITY;
  let high = -1;
  for (let row = bounds.startRow; row < sheet.rows.length && start < 0; row++) {
    for (
      let column = bounds.startColumn;
      column < bounds.endColumn && column < (sheet.rows[row]?.length ?? 0);
      column++
    ) {
      if (!valueAt(row, column)) continue;
      start = row;
      low = Math.min(low, column);
      high = Math.max(high, column);
    }
  }
  if (start < 0) return undefined;
  let end = start;
  for (;;) {
    while (valueAt(end, low - 1)) low--;
    while (valueAt(end, high + 1)) high++;
    let next = false;
    for (let column = low; column <= high; column++) next ||= valueAt(end + 1, column);
    if (!next) break;
    end++;
  }
  return { startRow: start, endRow: end + 1, startColumn: low, endColumn: high + 1 };
}

export function clearValueRange(spreadsheet: SpreadsheetModel, rangeText: string): string {
  const { sheet, bounds } = resolveRange(spreadsheet, rangeText);
  for (const [row, column, cell] of [...storedCellsIn(sheet, bounds)]) {
    const { userEnteredValue: _cleared, ...rest } = cell;
    setCell(sheet, row, column, rest);
  }
  spreadsheet.revision++;
  const grid = sheet.properties.gridProperties;
  return formatRange(sheet.properties.title, {
    startRow: bounds.startRow,
    endRow: Math.min(bounds.endRow, Math.max(grid.rowCount, bounds.startRow + 1)),
    startColumn: bounds.startColumn,
    endColumn: Math.min(bounds.endColumn, Math.max(grid.columnCount, bounds.startColumn + 1)),
  });
}
