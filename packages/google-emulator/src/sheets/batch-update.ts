/**
 * spreadsheets.batchUpdate: the request kinds Sheetgate's tools use. Requests apply in order to
 * a copy of the spreadsheet, which replaces the stored one only if every request succeeds, as
 * Google applies a batch atomically. Errors read `Invalid requests[i].kind: …` like Google's.
 */
import type { sheets_v4 } from 'googleapis';
import { GoogleApiError, googleErrors } from '../google-error.ts';
import { formatRange, type GridBounds } from './a1-notation.ts';
import { addBanding, deleteBanding, updateBanding } from './batch-update-banding.ts';
import { updateBorders } from './batch-update-borders.ts';
import {
  addChart,
  copyCharts,
  deleteEmbeddedObject,
  shiftChartsForDimension,
  updateChartSpec,
  updateEmbeddedObjectPosition,
} from './batch-update-charts.ts';
import { deleteDuplicates, trimWhitespace } from './batch-update-cleanup.ts';
import {
  autoFill,
  autoResizeDimensions,
  copyPaste,
  cutPaste,
  mergeCells,
  sortRange,
  unmergeCells,
  updateDimensionProperties,
} from './batch-update-editing.ts';
import {
  addFilterView,
  clearBasicFilter,
  deleteFilterView,
  duplicateFilterView,
  setBasicFilter,
  updateFilterView,
} from './batch-update-filters.ts';
import {
  addConditionalFormatRule,
  addNamedRange,
  addProtectedRange,
  copyConditionalFormats,
  deleteConditionalFormatRule,
  deleteNamedRange,
  deleteProtectedRange,
  setDataValidation,
  shiftRangesForDimension,
  updateConditionalFormatRule,
  updateNamedRange,
  updateProtectedRange,
} from './batch-update-rules.ts';
import { addTable, deleteTable, updateTable } from './batch-update-tables.ts';
import { rewriteFormulasForDimension } from './dimension-references.ts';
import { applyMaskedUpdate } from './field-mask.ts';
import {
  cellAt,
  dataRowEnd,
  deleteColumns,
  deleteRows,
  ensureGridSize,
  insertColumns,
  insertRows,
  positionsIn,
  setCell,
  storedCellsIn,
} from './grid.ts';
import type { CellData, SheetModel, SpreadsheetModel } from './model.ts';
import { checkPivotTable } from './pivot-tables.ts';
import { sheetPropertiesResource } from './spreadsheet-resource.ts';
import { newSheet } from './spreadsheet-store.ts';

type Request = sheets_v4.Schema$Request;
type Response = sheets_v4.Schema$Response;

/** Thrown inside one request; reported with the request's index and kind. */
class RequestProblem extends Error {}

const problem = (message: string) => new RequestProblem(message);

type Handler<K extends keyof Request> = (
  spreadsheet: SpreadsheetModel,
  request: NonNullable<Request[K]>,
) => Response;

const HANDLERS: { [K in keyof Request]?: Handler<K> } = {
  addSheet,
  deleteSheet,
  updateSheetProperties,
  duplicateSheet,
  insertDimension,
  deleteDimension,
  repeatCell,
  updateCells,
  findReplace,
  appendCells,
  updateSpreadsheetProperties,
  setDataValidation,
  addConditionalFormatRule,
  updateConditionalFormatRule,
  deleteConditionalFormatRule,
  addNamedRange,
  updateNamedRange,
  deleteNamedRange,
  addProtectedRange,
  updateProtectedRange,
  deleteProtectedRange,
  copyPaste,
  cutPaste,
  autoFill,
  sortRange,
  mergeCells,
  unmergeCells,
  updateDimensionProperties,
  autoResizeDimensions,
  addChart,
  updateChartSpec,
  updateEmbeddedObjectPosition,
  deleteEmbeddedObject,
  setBasicFilter,
  clearBasicFilter,
  addFilterView,
  updateFilterView,
  deleteFilterView,
  duplicateFilterView,
  addTable,
  updateTable,
  deleteTable,
  addBanding,
  updateBanding,
  deleteBanding,
  updateBorders,
  deleteDuplicates,
  trimWhitespace,
};

export const SUPPORTED_REQUEST_KINDS = Object.keys(HANDLERS);

/** Applies the requests to a copy of `spreadsheet` and returns the copy with Google's replies. */
export function applyBatchUpdate(
  spreadsheet: SpreadsheetModel,
  requests: unknown,
): { updated: SpreadsheetModel; replies: Response[] } {
  if (!Array.isArray(requests))
    throw googleErrors.badRequest('Invalid requests: a list of requests is required.');
  const updated = structuredClone(spreadsheet);
  const replies: Response[] = [];
  for (const [index, request] of (requests as Request[]).entries()) {
    const kinds = Object.keys(request ?? {}).filter(
      (kind) => (request as Record<string, unknown>)[kind] != null,
    );
    if (kinds.length !== 1) {
      throw googleErrors.badRequest(`Invalid requests[${index}]: exactly one kind of request must be set.`);
    }
    const kind = kinds[0] as keyof Request;
    const handler = HANDLERS[kind] as Handler<typeof kind> | undefined;
    if (!handler) {
      throw googleErrors.badRequest(
        `Invalid requests[${index}].${kind}: not supported by the Sheetgate Google emulator.`,
      );
    }
    try {
      replies.push(handler(updated, request[kind] as never));
    } catch (error) {
      if (error instanceof RequestProblem)
        throw googleErrors.badRequest(`Invalid requests[${index}].${kind}: ${error.message}`);
      if (error instanceof GoogleApiError) {
        throw googleErrors.badRequest(`Invalid requests[${index}].${kind}: ${error.message}`, error.reason);
      }
      throw error;
    }
  }
  updated.revision = spreadsheet.revision + 1;
  return { updated, replies };
}

export function sheetById(spreadsheet: SpreadsheetModel, sheetId: number | null | undefined): SheetModel {
  const id = sheetId ?? 0;
  const sheet = spreadsheet.sheets.find((candidate) => candidate.properties.sheetId === id);
  if (!sheet) throw problem(`No grid with id: ${id}`);
  return sheet;
}

function reindex(spreadsheet: SpreadsheetModel): void {
  for (const [index, sheet] of spreadsheet.sheets.entries()) sheet.properties.index = index;
}

function checkTitle(spreadsheet: SpreadsheetModel, title: string, except?: SheetModel): void {
  if (title.trim() === '') throw problem('Sheet names must be non-empty.');
  const clash = spreadsheet.sheets.find(
    (sheet) => sheet !== except && sheet.properties.title.toLowerCase() === title.toLowerCase(),
  );
  if (clash) throw problem(`A sheet with the name "${title}" already exists. Please enter another name.`);
}

function placeSheet(
  spreadsheet: SpreadsheetModel,
  sheet: SheetModel,
  index: number | null | undefined,
): void {
  const at = Math.min(Math.max(index ?? spreadsheet.sheets.length, 0), spreadsheet.sheets.length);
  spreadsheet.sheets.splice(at, 0, sheet);
  reindex(spreadsheet);
}

function defaultSheetTitle(spreadsheet: SpreadsheetModel): string {
  for (let n = spreadsheet.sheets.length + 1; ; n++) {
    const title = `Sheet${n}`;
    if (!spreadsheet.sheets.some((sheet) => sheet.properties.title.toLowerCase() === title.toLowerCase()))
      return title;
  }
}

function addSheet(spreadsheet: SpreadsheetModel, request: sheets_v4.Schema$AddSheetRequest): Response {
  const properties = request.properties ?? {};
  const title = properties.title ?? defaultSheetTitle(spreadsheet);
  checkTitle(spreadsheet, title);
  if (
    properties.sheetId != null &&
    spreadsheet.sheets.some((sheet) => sheet.properties.sheetId === properties.sheetId)
  ) {
    throw problem(`Sheet with id ${properties.sheetId} already exists.`);
  }
  const sheet = newSheet(spreadsheet, {
    sheetId: properties.sheetId ?? undefined,
    title,
    index: 0,
    rowCount: properties.gridProperties?.rowCount ?? undefined,
    columnCount: properties.gridProperties?.columnCount ?? undefined,
  });
  const grid = properties.gridProperties;
  if (grid?.frozenRowCount) sheet.properties.gridProperties.frozenRowCount = grid.frozenRowCount;
  if (grid?.frozenColumnCount) sheet.properties.gridProperties.frozenColumnCount = grid.frozenColumnCount;
  if (properties.hidden) sheet.properties.hidden = true;
  if (properties.tabColor) sheet.properties.tabColor = properties.tabColor;
  if (properties.tabColorStyle) sheet.properties.tabColorStyle = properties.tabColorStyle;
  placeSheet(spreadsheet, sheet, properties.index);
  return { addSheet: { properties: sheetPropertiesResource(sheet) } };
}

function deleteSheet(spreadsheet: SpreadsheetModel, request: sheets_v4.Schema$DeleteSheetRequest): Response {
  const sheet = sheetById(spreadsheet, request.sheetId);
  if (spreadsheet.sheets.length === 1) throw problem("You can't remove all the sheets in a document.");
  spreadsheet.sheets.splice(spreadsheet.sheets.indexOf(sheet), 1);
  reindex(spreadsheet);
  return {};
}

function updateSheetProperties(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$UpdateSheetPropertiesRequest,
): Response {
  if (!request.fields) throw problem("At least one field must be updated, but 'fields' is empty.");
  const properties = request.properties ?? {};
  const sheet = sheetById(spreadsheet, properties.sheetId);
  const next = structuredClone(sheet.properties) as unknown as Record<string, unknown>;
  applyMaskedUpdate(next, properties as Record<string, unknown>, request.fields);
  const updated = next as unknown as SheetModel['properties'];
  if (updated.sheetId !== sheet.properties.sheetId) throw problem('sheetId cannot be changed.');
  if (typeof updated.title !== 'string') throw problem('Sheet names must be non-empty.');
  if (updated.title !== sheet.properties.title) checkTitle(spreadsheet, updated.title, sheet);
  updated.gridProperties ??= { rowCount: 0, columnCount: 0 };
  const grid = updated.gridProperties;
  grid.rowCount ??= 0;
  grid.columnCount ??= 0;
  // A sheet of type OBJECT (a chart's own) has no grid to keep or resize.
  const isObject = sheet.properties.sheetType === 'OBJECT';
  if (isObject) updated.gridProperties = structuredClone(sheet.properties.gridProperties);
  else if (grid.rowCount < 1 || grid.columnCount < 1)
    throw problem('Sheets must have at least one row and one column.');
  if (grid.rowCount < sheet.properties.gridProperties.rowCount)
    sheet.rows.length = Math.min(sheet.rows.length, grid.rowCount);
  if (grid.columnCount < sheet.properties.gridProperties.columnCount) {
    for (const cells of sheet.rows)
      if (cells && cells.length > grid.columnCount) cells.length = grid.columnCount;
  }
  const newIndex = updated.index;
  const oldIndex = sheet.properties.index;
  updated.index = oldIndex;
  updated.sheetType = sheet.properties.sheetType;
  sheet.properties = updated;
  // "Movement is considered in 'before the move' indexes": to move S1 of S1, S2, S3 after S2 the
  // index is 2, and an index equal to the current one or one more moves nothing
  // (https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/sheets#sheetproperties).
  if (newIndex != null && newIndex !== oldIndex && newIndex !== oldIndex + 1) {
    spreadsheet.sheets.splice(spreadsheet.sheets.indexOf(sheet), 1);
    placeSheet(spreadsheet, sheet, newIndex > oldIndex ? newIndex - 1 : newIndex);
  }
  return {};
}

function duplicateSheet(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$DuplicateSheetRequest,
): Response {
  const source = sheetById(spreadsheet, request.sourceSheetId);
  const title = request.newSheetName ?? copyTitle(spreadsheet, source.properties.title);
  checkTitle(spreadsheet, title);
  if (
    request.newSheetId != null &&
    spreadsheet.sheets.some((sheet) => sheet.properties.sheetId === request.newSheetId)
  ) {
    throw problem(`Sheet with id ${request.newSheetId} already exists.`);
  }
  const copy = newSheet(spreadsheet, { sheetId: request.newSheetId ?? undefined, title, index: 0 });
  copy.properties = { ...structuredClone(source.properties), sheetId: copy.properties.sheetId, title };
  copy.rows = structuredClone(source.rows);
  copyConditionalFormats(source, copy);
  copyCharts(spreadsheet, source, copy);
  placeSheet(spreadsheet, copy, request.insertSheetIndex ?? source.properties.index + 1);
  return { duplicateSheet: { properties: sheetPropertiesResource(copy) } };
}

function copyTitle(spreadsheet: SpreadsheetModel, title: string): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `Copy of ${title}` : `Copy ${n} of ${title}`;
    if (!spreadsheet.sheets.some((sheet) => sheet.properties.title.toLowerCase() === candidate.toLowerCase()))
      return candidate;
  }
}

function dimensionSpan(
  spreadsheet: SpreadsheetModel,
  range: sheets_v4.Schema$DimensionRange | undefined,
): { sheet: SheetModel; rows: boolean; start: number; end: number; count: number } {
  if (!range) throw problem('range is required.');
  const sheet = sheetById(spreadsheet, range.sheetId);
  if (range.dimension !== 'ROWS' && range.dimension !== 'COLUMNS')
    throw problem('dimension must be ROWS or COLUMNS.');
  const rows = range.dimension === 'ROWS';
  const grid = sheet.properties.gridProperties;
  const count = rows ? grid.rowCount : grid.columnCount;
  const start = range.startIndex ?? 0;
  const end = range.endIndex ?? count;
  if (start < 0 || end <= start)
    throw problem(`Invalid dimension range: startIndex ${start}, endIndex ${end}.`);
  return { sheet, rows, start, end, count };
}

function insertDimension(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$InsertDimensionRequest,
): Response {
  const { sheet, rows, start, end, count } = dimensionSpan(spreadsheet, request.range);
  if (start > count) {
    throw problem(
      `Cannot insert ${rows ? 'rows' : 'columns'} at index ${start}: the sheet has only ${count}.`,
    );
  }
  if (request.inheritFromBefore && start === 0)
    throw problem('Cannot inherit properties from before the first row or column.');
  if (rows) insertRows(sheet, start, end - start);
  else insertColumns(sheet, start, end - start);
  shiftRangesForDimension(spreadsheet, sheet, rows, start, end - start);
  shiftChartsForDimension(spreadsheet, sheet, rows, start, end - start);
  rewriteFormulasForDimension(spreadsheet, sheet, rows, start, end - start);
  inheritFormats(sheet, rows, start, end, request.inheritFromBefore ? start - 1 : end);
  return {};
}

/** New rows or columns take the formats of their neighbour, as in Google. */
function inheritFormats(sheet: SheetModel, rows: boolean, start: number, end: number, from: number): void {
  const grid = sheet.properties.gridProperties;
  const span = rows ? grid.columnCount : grid.rowCount;
  for (let across = 0; across < span; across++) {
    const source = rows ? cellAt(sheet, from, across) : cellAt(sheet, across, from);
    if (!source?.userEnteredFormat) continue;
    for (let index = start; index < end; index++) {
      const [row, column] = rows ? [index, across] : [across, index];
      setCell(sheet, row, column, { userEnteredFormat: structuredClone(source.userEnteredFormat) });
    }
  }
}

function deleteDimension(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$DeleteDimensionRequest,
): Response {
  const { sheet, rows, start, end, count } = dimensionSpan(spreadsheet, request.range);
  const last = Math.min(end, count);
  if (start >= count)
    throw problem(
      `Cannot delete ${rows ? 'rows' : 'columns'} from index ${start}: the sheet has only ${count}.`,
    );
  if (start === 0 && last >= count)
    throw problem(`You can't delete all the ${rows ? 'rows' : 'columns'} on the sheet.`);
  if (rows) deleteRows(sheet, start, last);
  else deleteColumns(sheet, start, last);
  shiftRangesForDimension(spreadsheet, sheet, rows, start, start - last);
  shiftChartsForDimension(spreadsheet, sheet, rows, start, start - last);
  rewriteFormulasForDimension(spreadsheet, sheet, rows, start, start - last);
  return {};
}

export function gridBounds(
  spreadsheet: SpreadsheetModel,
  range: sheets_v4.Schema$GridRange | undefined,
): { sheet: SheetModel; bounds: GridBounds } {
  const sheet = sheetById(spreadsheet, range?.sheetId);
  const grid = sheet.properties.gridProperties;
  const bounds: GridBounds = {
    startRow: range?.startRowIndex ?? 0,
    endRow: range?.endRowIndex ?? grid.rowCount,
    startColumn: range?.startColumnIndex ?? 0,
    endColumn: range?.endColumnIndex ?? grid.columnCount,
  };
  checkWithinGrid(sheet, bounds);
  return { sheet, bounds };
}

function checkWithinGrid(sheet: SheetModel, bounds: GridBounds): void {
  const grid = sheet.properties.gridProperties;
  if (
    bounds.startRow < 0 ||
    bounds.startColumn < 0 ||
    bounds.endRow < bounds.startRow ||
    bounds.endColumn < bounds.startColumn
  ) {
    throw problem('Invalid range: start index must be at least 0 and not after the end index.');
  }
  if (bounds.endRow > grid.rowCount || bounds.endColumn > grid.columnCount) {
    throw problem(
      `Range (${formatRange(sheet.properties.title, bounds)}) exceeds grid limits. Max rows: ${grid.rowCount}, max columns: ${grid.columnCount}`,
    );
  }
}

function maskedCell(existing: CellData | undefined, update: CellData, fields: string): CellData {
  const next = structuredClone(existing ?? {}) as Record<string, unknown>;
  applyMaskedUpdate(next, update as Record<string, unknown>, fields);
  return next as CellData;
}

function repeatCell(spreadsheet: SpreadsheetModel, request: sheets_v4.Schema$RepeatCellRequest): Response {
  if (!request.fields) throw problem("At least one field must be updated, but 'fields' is empty.");
  const { sheet, bounds } = gridBounds(spreadsheet, request.range);
  const cell = request.cell ?? {};
  for (const [row, column] of positionsIn(bounds)) {
    setCell(sheet, row, column, maskedCell(cellAt(sheet, row, column), cell, request.fields));
  }
  return {};
}

function writeRowData(
  sheet: SheetModel,
  startRow: number,
  startColumn: number,
  rows: sheets_v4.Schema$RowData[],
  fields: string,
  limit?: GridBounds,
): void {
  for (const [rowOffset, rowData] of rows.entries()) {
    for (const [columnOffset, cell] of (rowData.values ?? []).entries()) {
      const row = startRow + rowOffset;
      const column = startColumn + columnOffset;
      if (limit && (row >= limit.endRow || column >= limit.endColumn)) continue;
      setCell(sheet, row, column, maskedCell(cellAt(sheet, row, column), cell ?? {}, fields));
    }
  }
}

function updateCells(spreadsheet: SpreadsheetModel, request: sheets_v4.Schema$UpdateCellsRequest): Response {
  if (!request.fields) throw problem("At least one field must be updated, but 'fields' is empty.");
  const rows = request.rows ?? [];
  if (/(^|,)\s*(\*|pivotTable)\b/.test(request.fields))
    for (const row of rows)
      for (const cell of row.values ?? [])
        if (cell?.pivotTable) checkPivotTable(spreadsheet, cell.pivotTable);
  if (request.range) {
    // A range bounds the write: every cell in it is set, from `rows` or to empty.
    const { sheet, bounds } = gridBounds(spreadsheet, request.range);
    for (const [row, column] of positionsIn(bounds)) {
      const cell = rows[row - bounds.startRow]?.values?.[column - bounds.startColumn] ?? {};
      setCell(sheet, row, column, maskedCell(cellAt(sheet, row, column), cell, request.fields));
    }
    return {};
  }
  if (!request.start) throw problem('Either start or range must be set.');
  const sheet = sheetById(spreadsheet, request.start.sheetId);
  const startRow = request.start.rowIndex ?? 0;
  const startColumn = request.start.columnIndex ?? 0;
  const width = Math.max(0, ...rows.map((row) => row.values?.length ?? 0));
  checkWithinGrid(sheet, {
    startRow,
    endRow: startRow + rows.length,
    startColumn,
    endColumn: startColumn + width,
  });
  writeRowData(sheet, startRow, startColumn, rows, request.fields);
  return {};
}

function appendCells(spreadsheet: SpreadsheetModel, request: sheets_v4.Schema$AppendCellsRequest): Response {
  if (!request.fields) throw problem("At least one field must be updated, but 'fields' is empty.");
  const sheet = sheetById(spreadsheet, request.sheetId);
  const rows = request.rows ?? [];
  const start = dataRowEnd(sheet);
  const width = Math.max(0, ...rows.map((row) => row.values?.length ?? 0));
  ensureGridSize(sheet, start + rows.length, width);
  writeRowData(sheet, start, 0, rows, request.fields);
  return {};
}

function updateSpreadsheetProperties(
  spreadsheet: SpreadsheetModel,
  request: sheets_v4.Schema$UpdateSpreadsheetPropertiesRequest,
): Response {
  if (!request.fields) throw problem("At least one field must be updated, but 'fields' is empty.");
  const next = structuredClone(spreadsheet.properties) as unknown as Record<string, unknown>;
  applyMaskedUpdate(next, (request.properties ?? {}) as Record<string, unknown>, request.fields);
  if (typeof next.title !== 'string' || next.title === '')
    throw problem('The spreadsheet title must be non-empty.');
  spreadsheet.properties = {
    ...spreadsheet.properties,
    ...(next as Partial<SpreadsheetModel['properties']>),
  };
  return {};
}

function findReplace(spreadsheet: SpreadsheetModel, request: sheets_v4.Schema$FindReplaceRequest): Response {
  if (!request.find) throw problem('find must be non-empty.');
  const scopes = [request.range != null, request.sheetId != null, request.allSheets === true].filter(
    Boolean,
  ).length;
  if (scopes !== 1) throw problem('Exactly one of range, sheetId or allSheets must be set.');
  const targets: Array<{ sheet: SheetModel; bounds: GridBounds }> = [];
  if (request.range) targets.push(gridBounds(spreadsheet, request.range));
  else {
    const sheets = request.allSheets ? spreadsheet.sheets : [sheetById(spreadsheet, request.sheetId)];
    for (const sheet of sheets)
      targets.push({ sheet, bounds: { startRow: 0, endRow: Infinity, startColumn: 0, endColumn: Infinity } });
  }
  const flags = request.matchCase ? 'g' : 'gi';
  let pattern: RegExp;
  try {
    const source = request.searchByRegex ? request.find : request.find.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    pattern = new RegExp(request.matchEntireCell ? `^(?:${source})$` : source, flags);
  } catch {
    throw problem(`Invalid regular expression: ${request.find}`);
  }
  const replacement = request.replacement ?? '';
  const counts = {
    valuesChanged: 0,
    formulasChanged: 0,
    rowsChanged: 0,
    sheetsChanged: 0,
    occurrencesChanged: 0,
  };
  for (const { sheet, bounds } of targets) {
    const rowsChanged = new Set<number>();
    for (const [row, column, cell] of [...storedCellsIn(sheet, bounds)]) {
      const value = cell.userEnteredValue;
      const isFormula = value?.formulaValue != null;
      if (isFormula && !request.includeFormulas) continue;
      const text = isFormula ? value?.formulaValue : (value?.stringValue ?? undefined);
      if (text == null) continue;
      const occurrences = text.match(pattern)?.length ?? 0;
      if (occurrences === 0) continue;
      const replaced = request.searchByRegex
        ? text.replace(pattern, replacement)
        : text.replace(pattern, () => replacement);
      setCell(sheet, row, column, {
        ...cell,
        userEnteredValue: isFormula ? { formulaValue: replaced } : { stringValue: replaced },
      });
      counts.occurrencesChanged += occurrences;
      if (isFormula) counts.formulasChanged++;
      else counts.valuesChanged++;
      rowsChanged.add(row);
    }
    counts.rowsChanged += rowsChanged.size;
    if (rowsChanged.size > 0) counts.sheetsChanged++;
  }
  // Google leaves zero counts out of the reply.
  const reply: sheets_v4.Schema$FindReplaceResponse = {};
  for (const [key, count] of Object.entries(counts)) if (count > 0) reply[key as keyof typeof counts] = count;
  return { findReplace: reply };
}
