/**
 * spreadsheets.batchUpdate request kinds for structured tables (addTable, updateTable with a field
 * mask, deleteTable). A table's first row is its header: the column names are written there, and
 * a column given no name takes its header cell's text, or `Column N`. Each throws Google's 400
 * text, which `applyBatchUpdate` prefixes with `Invalid requests[i].kind: `.
 */
import { randomInt } from 'node:crypto';
import type { sheets_v4 } from 'googleapis';
import { googleErrors } from '../google-error.ts';
import { formatRange, type GridBounds } from './a1-notation.ts';
import { checkCondition, onGrid } from './batch-update-rules.ts';
import { applyMaskedUpdate } from './field-mask.ts';
import { cellAt, setCell } from './grid.ts';
import type { SheetModel, SpreadsheetModel } from './model.ts';

type Response = sheets_v4.Schema$Response;
type Table = sheets_v4.Schema$Table;
type Column = sheets_v4.Schema$TableColumnProperties;

const problem = (message: string) => googleErrors.badRequest(message);

/** Sheets API ColumnType. */
export const TABLE_COLUMN_TYPES = [
  'COLUMN_TYPE_UNSPECIFIED',
  'DOUBLE',
  'CURRENCY',
  'PERCENT',
  'DATE',
  'TIME',
  'DATE_TIME',
  'TEXT',
  'BOOLEAN',
  'DROPDOWN',
  'FILES_CHIP',
  'PEOPLE_CHIP',
  'FINANCE_CHIP',
  'PLACE_CHIP',
  'RATINGS_CHIP',
];

const MAX_NAME = 255;

function allTables(spreadsheet: SpreadsheetModel) {
  return spreadsheet.sheets.flatMap((sheet) => (sheet.tables ?? []).map((table) => ({ sheet, table })));
}

function tableById(spreadsheet: SpreadsheetModel, id: string | null | undefined) {
  const found = allTables(spreadsheet).find((each) => each.table.tableId === id);
  if (!found) throw problem(`No table with id: ${id ?? ''}`);
  return found;
}

function boundsOf(sheet: SheetModel, range: sheets_v4.Schema$GridRange | undefined): GridBounds {
  const grid = sheet.properties.gridProperties;
  return {
    startRow: range?.startRowIndex ?? 0,
    endRow: range?.endRowIndex ?? grid.rowCount,
    startColumn: range?.startColumnIndex ?? 0,
    endColumn: range?.endColumnIndex ?? grid.columnCount,
  };
}

const overlap = (a: GridBounds, b: GridBounds) =>
  a.startRow < b.endRow &&
  b.startRow < a.endRow &&
  a.startColumn < b.endColumn &&
  b.startColumn < a.endColumn;

function headerText(sheet: SheetModel, row: number, column: number): string | undefined {
  const value = cellAt(sheet, row, column)?.userEnteredValue;
  const text = value?.stringValue ?? (value?.numberValue != null ? String(value.numberValue) : undefined);
  return text?.trim() ? text : undefined;
}

/**
 * The table as stored: its range on the grid and clear of other tables, a unique name, and one
 * column property per column, checked; then its header row written with the column names.
 */
function placedTable(
  spreadsheet: SpreadsheetModel,
  table: Table,
  except?: Table,
): { sheet: SheetModel; table: Table } {
  const name = table.name ?? '';
  if (name.trim() === '') throw problem('A table must have a name.');
  if (name.length > MAX_NAME) throw problem(`A table name must be at most ${MAX_NAME} characters.`);
  const clash = allTables(spreadsheet).find(
    (each) => each.table !== except && each.table.name?.toLowerCase() === name.toLowerCase(),
  );
  if (clash) throw problem(`A table with the name "${name}" already exists.`);
  const { sheet, bounds } = onGrid(spreadsheet, table.range);
  if (bounds.endRow <= bounds.startRow || bounds.endColumn <= bounds.startColumn)
    throw problem('A table range must have at least one row and one column.');
  for (const other of sheet.tables ?? []) {
    if (other === except || !overlap(bounds, boundsOf(sheet, other.range))) continue;
    throw problem(
      `The table range (${formatRange(sheet.properties.title, bounds)}) overlaps the table "${other.name}".`,
    );
  }
  const width = bounds.endColumn - bounds.startColumn;
  const given = new Map<number, Column>();
  for (const column of table.columnProperties ?? []) {
    const index = column.columnIndex ?? 0;
    if (!Number.isInteger(index) || index < 0 || index >= width)
      throw problem(`Invalid columnProperties: column index ${index} is outside the table (width ${width}).`);
    if (given.has(index))
      throw problem(`Invalid columnProperties: column index ${index} is given more than once.`);
    given.set(index, column);
  }
  const names = new Set<string>();
  const columns: Column[] = [];
  for (let index = 0; index < width; index++) {
    const column = given.get(index);
    const columnName =
      column?.columnName ??
      headerText(sheet, bounds.startRow, bounds.startColumn + index) ??
      `Column ${index + 1}`;
    if (columnName.trim() === '') throw problem(`The name of column ${index} must not be empty.`);
    if (columnName.length > MAX_NAME)
      throw problem(`A column name must be at most ${MAX_NAME} characters (column ${index}).`);
    if (names.has(columnName.toLowerCase()))
      throw problem(`Duplicate column name in table: "${columnName}".`);
    names.add(columnName.toLowerCase());
    const columnType = column?.columnType ?? undefined;
    if (columnType != null && !TABLE_COLUMN_TYPES.includes(columnType))
      throw problem(`Invalid column type: ${columnType}`);
    const rule = column?.dataValidationRule;
    if (columnType === 'DROPDOWN') {
      if (rule?.condition?.type !== 'ONE_OF_LIST')
        throw problem(
          `A DROPDOWN column needs a dataValidationRule with a ONE_OF_LIST condition (column ${index}).`,
        );
      checkCondition(rule.condition, 'v');
    } else if (rule) {
      throw problem(`Only a DROPDOWN column may have a dataValidationRule (column ${index}).`);
    }
    columns.push({
      columnIndex: index,
      columnName,
      ...(columnType && columnType !== 'COLUMN_TYPE_UNSPECIFIED' ? { columnType } : {}),
      ...(rule ? { dataValidationRule: structuredClone(rule) } : {}),
    });
  }
  for (const column of columns) {
    const at = bounds.startColumn + (column.columnIndex as number);
    const { userEnteredValue: _old, ...rest } = cellAt(sheet, bounds.startRow, at) ?? {};
    setCell(sheet, bounds.startRow, at, {
      ...rest,
      userEnteredValue: { stringValue: column.columnName as string },
    });
  }
  const stored: Table = {
    tableId: table.tableId as string,
    name,
    range: { ...structuredClone(table.range), sheetId: sheet.properties.sheetId },
    columnProperties: columns,
    ...(table.rowsProperties ? { rowsProperties: structuredClone(table.rowsProperties) } : {}),
  };
  return { sheet, table: stored };
}

function newTableId(spreadsheet: SpreadsheetModel): string {
  const taken = new Set(allTables(spreadsheet).map((each) => each.table.tableId));
  let id = String(randomInt(1, 2 ** 31 - 1));
  while (taken.has(id)) id = String(randomInt(1, 2 ** 31 - 1));
  return id;
}

export function addTable(spreadsheet: SpreadsheetModel, request: sheets_v4.Schema$AddTableRequest): Response {
  if (!request.table) throw problem('table is required.');
  const requestedId = request.table.tableId;
  if (requestedId != null && allTables(spreadsheet).some((each) => each.table.tableId === requestedId))
    throw problem(`A table with id ${requestedId} already exists.`);
  const { sheet, table } = placedTable(spreadsheet, {
    ...request.table,
    tableId: requestedId ?? newTableId(spreadsheet),
  });
  sheet.tables ??= [];
  sheet.tables.push(table);
  return { addTable: { table: structuredClone(table) } };
}

/** Changes the masked fields (`name`, `range`, `columnProperties`, `rowsProperties`) of a table. */
export function updateTable(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$UpdateTableRequest,
): Response {
  if (!request.fields) throw problem("At least one field must be updated, but 'fields' is empty.");
  const update = request.table ?? {};
  const { sheet, table } = tableById(spreadsheet, update.tableId);
  const next = structuredClone(table) as Record<string, unknown>;
  applyMaskedUpdate(next, update as Record<string, unknown>, request.fields);
  if (next.tableId !== table.tableId) throw problem('tableId cannot be changed.');
  // A table resized without new column properties keeps those of the columns it still has.
  const masked = request.fields.split(',').map((field) => field.trim());
  if (!masked.some((field) => field === '*' || field.startsWith('columnProperties')) && next.range) {
    const { bounds } = onGrid(spreadsheet, next.range as sheets_v4.Schema$GridRange);
    const width = bounds.endColumn - bounds.startColumn;
    next.columnProperties = (table.columnProperties ?? []).filter(
      (column) => (column.columnIndex ?? 0) < width,
    );
  }
  const placed = placedTable(spreadsheet, next as Table, table);
  sheet.tables = (sheet.tables ?? []).filter((each) => each !== table);
  if (sheet.tables.length === 0) delete sheet.tables;
  placed.sheet.tables ??= [];
  placed.sheet.tables.push(placed.table);
  return {};
}

/** Removes the table; its cells keep their values and formats. */
export function deleteTable(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$DeleteTableRequest,
): Response {
  const { sheet, table } = tableById(spreadsheet, request.tableId);
  sheet.tables = (sheet.tables ?? []).filter((each) => each !== table);
  if (sheet.tables.length === 0) delete sheet.tables;
  // A filter backed by the table goes with it.
  if (sheet.basicFilter?.tableId === table.tableId) delete sheet.basicFilter;
  if (sheet.filterViews) {
    sheet.filterViews = sheet.filterViews.filter((view) => view.tableId !== table.tableId);
    if (sheet.filterViews.length === 0) delete sheet.filterViews;
  }
  return {};
}
