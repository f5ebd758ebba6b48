/** Turns a `spreadsheets.create` request body into the contents of a new spreadsheet. */
import type { sheets_v4 } from 'googleapis';
import { googleErrors } from '../google-error.ts';
import type { CellData, CellRows, SpreadsheetContents } from './model.ts';

export function spreadsheetContentsFromResource(body: sheets_v4.Schema$Spreadsheet): SpreadsheetContents {
  const title = body.properties?.title ?? 'Untitled spreadsheet';
  const titles = new Set<string>();
  const sheets = [...(body.sheets ?? [])]
    .sort((a, b) => (a.properties?.index ?? 0) - (b.properties?.index ?? 0))
    .map((sheet, position) => {
      const properties = sheet.properties ?? {};
      const sheetTitle = properties.title ?? `Sheet${position + 1}`;
      if (titles.has(sheetTitle.toLowerCase())) {
        throw googleErrors.badRequest(
          `Invalid spreadsheet.sheets[${position}]: A sheet with the name "${sheetTitle}" already exists. Please enter another name.`,
        );
      }
      titles.add(sheetTitle.toLowerCase());
      const rows: CellRows = [];
      for (const data of sheet.data ?? []) {
        const startRow = data.startRow ?? 0;
        const startColumn = data.startColumn ?? 0;
        for (const [rowOffset, rowData] of (data.rowData ?? []).entries()) {
          for (const [columnOffset, cell] of (rowData.values ?? []).entries()) {
            const stored = storedCell(cell);
            if (!stored) continue;
            rows[startRow + rowOffset] ??= [];
            (rows[startRow + rowOffset] as CellRows[number] & object)[startColumn + columnOffset] = stored;
          }
        }
      }
      return {
        title: sheetTitle,
        rows,
        ...(properties.sheetId != null ? { sheetId: properties.sheetId } : {}),
        ...(properties.gridProperties?.rowCount != null
          ? { rowCount: properties.gridProperties.rowCount }
          : {}),
        ...(properties.gridProperties?.columnCount != null
          ? { columnCount: properties.gridProperties.columnCount }
          : {}),
      };
    });
  const { timeZone, locale } = body.properties ?? {};
  return { title, sheets, ...(timeZone ? { timeZone } : {}), ...(locale ? { locale } : {}) };
}

/** Keeps what the emulator stores of a cell; effective and formatted values are computed on read. */
function storedCell(cell: sheets_v4.Schema$CellData | null | undefined): CellData | undefined {
  if (!cell) return undefined;
  const stored: CellData = {};
  if (cell.userEnteredValue) stored.userEnteredValue = cell.userEnteredValue;
  if (cell.userEnteredFormat) stored.userEnteredFormat = cell.userEnteredFormat;
  if (cell.note) stored.note = cell.note;
  if (cell.dataValidation) stored.dataValidation = cell.dataValidation;
  return Object.keys(stored).length > 0 ? stored : undefined;
}
