/** Reading and reshaping a sheet's sparse cell rows. */
import type { GridBounds } from './a1-notation.ts';
import type { CellData, SheetModel } from './model.ts';

export function cellAt(sheet: SheetModel, row: number, column: number): CellData | undefined {
  return sheet.rows[row]?.[column];
}

export function setCell(sheet: SheetModel, row: number, column: number, cell: CellData | undefined): void {
  let cells = sheet.rows[row];
  if (!cells) {
    if (!cell) return;
    cells = [];
    sheet.rows[row] = cells;
  }
  if (cell && Object.keys(cell).length > 0) cells[column] = cell;
  else delete cells[column];
}

export function hasValue(cell: CellData | undefined): boolean {
  return cell?.userEnteredValue != null && Object.keys(cell.userEnteredValue).length > 0;
}

/** Grows the sheet's grid so that it holds `rows` × `columns` cells. */
export function ensureGridSize(sheet: SheetModel, rows: number, columns: number): void {
  const grid = sheet.properties.gridProperties;
  grid.rowCount = Math.max(grid.rowCount, rows);
  grid.columnCount = Math.max(grid.columnCount, columns);
}

/** The index after the last row holding a value, within `columns` if given. */
export function dataRowEnd(sheet: SheetModel, columns?: { start: number; end: number }): number {
  for (let row = sheet.rows.length - 1; row >= 0; row--) {
    if (rowHasValue(sheet, row, columns)) return row + 1;
  }
  return 0;
}

export function rowHasValue(
  sheet: SheetModel,
  row: number,
  columns?: { start: number; end: number },
): boolean {
  const cells = sheet.rows[row];
  if (!cells) return false;
  for (const [column, cell] of cells.entries()) {
    if (columns && (column < columns.start || column >= columns.end)) continue;
    if (hasValue(cell)) return true;
  }
  return false;
}

export function insertRows(sheet: SheetModel, at: number, count: number): void {
  if (at < sheet.rows.length) sheet.rows.splice(at, 0, ...new Array(count));
  sheet.properties.gridProperties.rowCount += count;
}

export function deleteRows(sheet: SheetModel, start: number, end: number): void {
  if (start < sheet.rows.length) sheet.rows.splice(start, end - start);
  sheet.properties.gridProperties.rowCount -= end - start;
}

export function insertColumns(sheet: SheetModel, at: number, count: number): void {
  for (const cells of sheet.rows) if (cells && at < cells.length) cells.splice(at, 0, ...new Array(count));
  sheet.properties.gridProperties.columnCount += count;
}

export function deleteColumns(sheet: SheetModel, start: number, end: number): void {
  for (const cells of sheet.rows) if (cells && start < cells.length) cells.splice(start, end - start);
  sheet.properties.gridProperties.columnCount -= end - start;
}

/** Visits every position in `bounds` (row-major). */
export function* positionsIn(bounds: GridBounds): Generator<[row: number, column: number]> {
  for (let row = bounds.startRow; row < bounds.endRow; row++) {
    for (let column = bounds.startColumn; column < bounds.endColumn; column++) yield [row, column];
  }
}

/** Visits only the stored cells in `bounds`: cheap for whole-sheet ranges on sparse sheets. */
export function* storedCellsIn(
  sheet: SheetModel,
  bounds: GridBounds,
): Generator<[row: number, column: number, CellData]> {
  const rowEnd = Math.min(bounds.endRow, sheet.rows.length);
  for (let row = bounds.startRow; row < rowEnd; row++) {
    const cells = sheet.rows[row];
    if (!cells) continue;
    for (const [column, cell] of cells.entries()) {
      if (cell && column >= bounds.startColumn && column < bounds.endColumn) yield [row, column, cell];
    }
  }
}
