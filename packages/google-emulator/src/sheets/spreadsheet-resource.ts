/**
 * The Spreadsheet resource as Google returns it from create, get and batchUpdate
 * (`includeSpreadsheetInResponse`): properties, sheets, and grid data when asked for.
 */
import type { sheets_v4 } from 'googleapis';
import { type GridBounds, type ResolvedRange, resolveRange } from './a1-notation.ts';
import { effectiveCell, formattedValue, shownCellsIn } from './cell-values.ts';
import type { CellData, CellFormat, DimensionMetadata, SheetModel, SpreadsheetModel } from './model.ts';
import { evaluateShownCells, pivotTableResource } from './pivot-tables.ts';

/** Google's default cell format for a new spreadsheet (en_US). */
export const DEFAULT_CELL_FORMAT: CellFormat = {
  backgroundColor: { red: 1, green: 1, blue: 1 },
  padding: { top: 2, right: 3, bottom: 2, left: 3 },
  verticalAlignment: 'BOTTOM',
  wrapStrategy: 'OVERFLOW_CELL',
  textFormat: {
    foregroundColor: {},
    fontFamily: 'arial,sans,sans-serif',
    fontSize: 10,
    bold: false,
    italic: false,
    strikethrough: false,
    underline: false,
    foregroundColorStyle: { rgbColor: {} },
  },
  backgroundColorStyle: { rgbColor: { red: 1, green: 1, blue: 1 } },
};

const ROW_PIXELS = 21;
const COLUMN_PIXELS = 100;

export function spreadsheetUrl(spreadsheetId: string, publicUrl = 'https://docs.google.com'): string {
  return `${publicUrl}/spreadsheets/d/${spreadsheetId}/edit`;
}

export interface ResourceOptions {
  /** A1 ranges (or ranges resolved already): only their sheets are returned, and grid data covers only them. */
  ranges?: Array<string | ResolvedRange>;
  includeGridData?: boolean;
  /** The origin `spreadsheetUrl` points at: the emulator's own, or Google's by default. */
  publicUrl?: string;
}

export function spreadsheetResource(
  spreadsheet: SpreadsheetModel,
  options: ResourceOptions = {},
): sheets_v4.Schema$Spreadsheet {
  const ranges = (options.ranges ?? []).map((range) =>
    typeof range === 'string' ? resolveRange(spreadsheet, range) : range,
  );
  const sheets =
    ranges.length === 0
      ? spreadsheet.sheets
      : spreadsheet.sheets.filter((sheet) => ranges.some((range) => range.sheet === sheet));
  return {
    spreadsheetId: spreadsheet.spreadsheetId,
    properties: { ...spreadsheet.properties, defaultFormat: structuredClone(DEFAULT_CELL_FORMAT) },
    sheets: sheets.map((sheet) => {
      const resource: sheets_v4.Schema$Sheet = { properties: sheetPropertiesResource(sheet) };
      if (sheet.merges?.length) {
        const sheetId = sheet.properties.sheetId;
        resource.merges = sheet.merges.map((merge) => ({
          sheetId,
          startRowIndex: merge.startRow,
          endRowIndex: merge.endRow,
          startColumnIndex: merge.startColumn,
          endColumnIndex: merge.endColumn,
        }));
      }
      if (options.includeGridData) {
        const sheetRanges = ranges.filter((range) => range.sheet === sheet).map((range) => range.bounds);
        const bounds = sheetRanges.length > 0 ? sheetRanges : [wholeSheet(sheet)];
        resource.data = bounds.map((area) => gridData(spreadsheet, sheet, area));
      }
      // Google leaves empty lists out of its JSON.
      if (sheet.conditionalFormats?.length)
        resource.conditionalFormats = structuredClone(sheet.conditionalFormats);
      if (sheet.protectedRanges?.length) resource.protectedRanges = structuredClone(sheet.protectedRanges);
      if (sheet.charts?.length) resource.charts = structuredClone(sheet.charts);
      if (sheet.basicFilter) resource.basicFilter = structuredClone(sheet.basicFilter);
      if (sheet.filterViews?.length) resource.filterViews = structuredClone(sheet.filterViews);
      if (sheet.tables?.length) resource.tables = structuredClone(sheet.tables);
      if (sheet.bandedRanges?.length) resource.bandedRanges = structuredClone(sheet.bandedRanges);
      return resource;
    }),
    ...(spreadsheet.namedRanges?.length ? { namedRanges: structuredClone(spreadsheet.namedRanges) } : {}),
    spreadsheetUrl: spreadsheetUrl(spreadsheet.spreadsheetId, options.publicUrl),
  };
}

export function sheetPropertiesResource(sheet: SheetModel): sheets_v4.Schema$SheetProperties {
  const properties: sheets_v4.Schema$SheetProperties = structuredClone(sheet.properties);
  // A sheet of type OBJECT has no grid, and Google returns none.
  if (sheet.properties.sheetType === 'OBJECT') delete properties.gridProperties;
  // Google leaves zero and false fields out of its JSON: a tab unfrozen again reads as one never frozen.
  const grid = properties.gridProperties;
  if (grid && !grid.frozenRowCount) delete grid.frozenRowCount;
  if (grid && !grid.frozenColumnCount) delete grid.frozenColumnCount;
  if (grid && !grid.hideGridlines) delete grid.hideGridlines;
  if (!properties.hidden) delete properties.hidden;
  if (!properties.rightToLeft) delete properties.rightToLeft;
  return properties;
}

function wholeSheet(sheet: SheetModel): GridBounds {
  const grid = sheet.properties.gridProperties;
  return { startRow: 0, endRow: grid.rowCount, startColumn: 0, endColumn: grid.columnCount };
}

export function gridData(
  spreadsheet: SpreadsheetModel,
  sheet: SheetModel,
  bounds: GridBounds,
): sheets_v4.Schema$GridData {
  const evaluation = evaluateShownCells(spreadsheet);
  const sheetIndex = spreadsheet.sheets.indexOf(sheet);
  const rowData: sheets_v4.Schema$RowData[] = [];
  for (const [row, column, cell] of shownCellsIn(evaluation, sheet, sheetIndex, bounds)) {
    rowData[row - bounds.startRow] ??= { values: [] };
    const line = rowData[row - bounds.startRow] as sheets_v4.Schema$RowData;
    (line.values as sheets_v4.Schema$CellData[])[column - bounds.startColumn] = cellResource(
      cell ?? {},
      effectiveCell(evaluation, sheetIndex, row, column, cell),
    );
  }
  const grid = sheet.properties.gridProperties;
  const endRow = Math.min(bounds.endRow, grid.rowCount);
  const endColumn = Math.min(bounds.endColumn, grid.columnCount);
  const data: sheets_v4.Schema$GridData = {};
  // Google leaves zero-valued fields out of its JSON.
  if (bounds.startRow > 0) data.startRow = bounds.startRow;
  if (bounds.startColumn > 0) data.startColumn = bounds.startColumn;
  if (rowData.length > 0) {
    data.rowData = Array.from(rowData, (line) =>
      line?.values?.length ? { values: Array.from(line.values, (cell) => cell ?? {}) } : {},
    );
  }
  const metadata = (stored: DimensionMetadata | undefined, pixels: number) => ({
    ...(stored?.hiddenByUser ? { hiddenByUser: true } : {}),
    pixelSize: stored?.pixelSize ?? pixels,
  });
  data.rowMetadata = Array.from({ length: Math.max(0, endRow - bounds.startRow) }, (_, index) =>
    metadata(sheet.rowMetadata?.[bounds.startRow + index], ROW_PIXELS),
  );
  data.columnMetadata = Array.from({ length: Math.max(0, endColumn - bounds.startColumn) }, (_, index) =>
    metadata(sheet.columnMetadata?.[bounds.startColumn + index], COLUMN_PIXELS),
  );
  return data;
}

function cellResource(
  cell: CellData,
  effective: ReturnType<typeof effectiveCell>,
): sheets_v4.Schema$CellData {
  const resource: sheets_v4.Schema$CellData = {};
  if (cell.userEnteredValue) resource.userEnteredValue = structuredClone(cell.userEnteredValue);
  if (effective.effectiveValue) resource.effectiveValue = structuredClone(effective.effectiveValue);
  const text = formattedValue(effective);
  if (text !== undefined) resource.formattedValue = text;
  if (cell.userEnteredFormat) resource.userEnteredFormat = structuredClone(cell.userEnteredFormat);
  if (cell.userEnteredValue || cell.userEnteredFormat || effective.effectiveValue) {
    resource.effectiveFormat = mergeFormats(DEFAULT_CELL_FORMAT, {
      ...cell.userEnteredFormat,
      ...(effective.numberFormat ? { numberFormat: effective.numberFormat } : {}),
    });
  }
  if (cell.note) resource.note = cell.note;
  if (cell.textFormatRuns?.length) resource.textFormatRuns = structuredClone(cell.textFormatRuns);
  const link = hyperlinkOf(cell);
  if (link) resource.hyperlink = link;
  if (cell.dataValidation) resource.dataValidation = structuredClone(cell.dataValidation);
  if (cell.pivotTable) resource.pivotTable = pivotTableResource(cell.pivotTable);
  return resource;
}

/** `=HYPERLINK("url", …)` with a literal URL: its first argument, quotes undoubled. */
const HYPERLINK_FORMULA = /^=\s*HYPERLINK\s*\(\s*"((?:[^"]|"")*)"/i;

/**
 * A cell's read-only `hyperlink`, as Google derives it: the URL of a `=HYPERLINK()` formula, or
 * the link of the cell's whole text (`userEnteredFormat.textFormat.link.uri`).
 */
function hyperlinkOf(cell: CellData): string | undefined {
  const formula = cell.userEnteredValue?.formulaValue;
  const match = formula == null ? null : HYPERLINK_FORMULA.exec(formula);
  if (match) return (match[1] as string).replaceAll('""', '"');
  return cell.userEnteredFormat?.textFormat?.link?.uri ?? undefined;
}

function mergeFormats<T extends object>(base: T, over: T): T {
  const merged: Record<string, unknown> = structuredClone(base) as Record<string, unknown>;
  for (const [key, value] of Object.entries(over)) {
    const current = merged[key];
    merged[key] =
      value && typeof value === 'object' && !Array.isArray(value) && current && typeof current === 'object'
        ? mergeFormats(current as object, value as object)
        : structuredClone(value);
  }
  return merged as T;
}
