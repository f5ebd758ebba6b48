import type { sheets_v4 } from 'googleapis';
import type { AuthInfo } from '../auth/auth-info.ts';
import { ToolError } from '../errors/tool-error.ts';
import { columnLetters, rangeOnSheet } from '../tools/kit/a1.ts';
import { tabList } from '../tools/kit/tab-ref.ts';
import type { ToolDeps } from '../tools/kit/tool-deps.ts';
import { MAX_PAYLOAD_BYTES, MAX_UNDO_CELLS, type SheetImage, tooLargeReason } from './change-payloads.ts';

/** The cell fields a deleted tab (or deleted rows or columns) are recreated with; a pivot table is its anchor's. */
export const SHEET_IMAGE_CELL_FIELDS = 'userEnteredValue,userEnteredFormat,note,pivotTable';

/**
 * Enough of a tab to recreate it after delete_sheet: its properties, merges and every cell's
 * value, format and note. Two reads: the tabs' sizes (to find the tab and bound the read), then the
 * tab's grid, unless it is larger than undo keeps (then only the reason).
 */
export async function captureSheet(
  { sheets, callGoogle }: ToolDeps,
  auth: AuthInfo,
  signal: AbortSignal,
  spreadsheetId: string,
  sheetId: number,
): Promise<{
  title: string;
  cells: number;
  rows: number;
  image?: SheetImage;
  undoUnavailableReason?: string;
}> {
  const { data: outline } = await callGoogle(auth.userId, signal, (request) =>
    sheets.spreadsheets.get(
      { spreadsheetId, fields: 'sheets.properties(sheetId,title,gridProperties(rowCount,columnCount))' },
      request,
    ),
  );
  const tab = outline.sheets?.find((sheet) => sheet.properties?.sheetId === sheetId)?.properties;
  if (!tab) throw new ToolError(noTabWithId(sheetId, outline.sheets));
  const title = tab.title ?? '';
  const rows = tab.gridProperties?.rowCount ?? 0;
  const cells = rows * (tab.gridProperties?.columnCount ?? 0);
  const { data } = await callGoogle(auth.userId, signal, (request) =>
    sheets.spreadsheets.get(
      {
        spreadsheetId,
        ranges: [rangeOnSheet(title)],
        fields: `sheets(properties,merges,data(rowData(values(${SHEET_IMAGE_CELL_FIELDS}))))`,
      },
      request,
    ),
  );
  const sheet = data.sheets?.[0];
  const rowData: sheets_v4.Schema$RowData[] = sheet?.data?.[0]?.rowData ?? [];
  const filled = rowData.reduce((sum, row) => sum + (row.values?.length ?? 0), 0);
  if (filled > MAX_UNDO_CELLS) return { title, cells, rows, undoUnavailableReason: tooLargeReason(filled) };
  const image: SheetImage = {
    properties: sheet?.properties ?? tab,
    rows: rowData,
    merges: sheet?.merges ?? [],
  };
  if (JSON.stringify(image).length > MAX_PAYLOAD_BYTES)
    return { title, cells, rows, undoUnavailableReason: tooLargeReason(filled) };
  return { title, cells, rows, image };
}

/** Rows or columns delete_dimension removed: enough to insert them again with their cells. */
export interface DimensionImage {
  sheet: string;
  sheetId: number;
  dimension: 'ROWS' | 'COLUMNS';
  startIndex: number;
  endIndex: number;
  /** The removed cells: for ROWS from the first column, for COLUMNS from the first row. */
  rows: sheets_v4.Schema$RowData[];
}

/**
 * The rows or columns a delete_dimension is about to remove, with every cell's value, format and
 * note: the tabs' titles, then the span's grid (two reads), unless it holds more than undo keeps.
 */
export async function captureDimension(
  { sheets, callGoogle }: ToolDeps,
  auth: AuthInfo,
  signal: AbortSignal,
  input: {
    spreadsheetId: string;
    sheetId: number;
    dimension: 'ROWS' | 'COLUMNS';
    startIndex: number;
    endIndex: number;
  },
): Promise<{ title: string; image?: DimensionImage; undoUnavailableReason?: string }> {
  const { data: outline } = await callGoogle(auth.userId, signal, (request) =>
    sheets.spreadsheets.get(
      { spreadsheetId: input.spreadsheetId, fields: 'sheets.properties(sheetId,title)' },
      request,
    ),
  );
  const tab = outline.sheets?.find((sheet) => sheet.properties?.sheetId === input.sheetId)?.properties;
  if (!tab) throw new ToolError(noTabWithId(input.sheetId, outline.sheets));
  const title = tab.title ?? '';
  const span =
    input.dimension === 'ROWS'
      ? `${input.startIndex + 1}:${input.endIndex}`
      : `${columnLetters(input.startIndex)}:${columnLetters(input.endIndex - 1)}`;
  const { data } = await callGoogle(auth.userId, signal, (request) =>
    sheets.spreadsheets.get(
      {
        spreadsheetId: input.spreadsheetId,
        ranges: [rangeOnSheet(title, span)],
        fields: `sheets(data(rowData(values(${SHEET_IMAGE_CELL_FIELDS}))))`,
      },
      request,
    ),
  );
  const rows: sheets_v4.Schema$RowData[] = data.sheets?.[0]?.data?.[0]?.rowData ?? [];
  const filled = rows.reduce((sum, row) => sum + (row.values?.length ?? 0), 0);
  const image: DimensionImage = {
    sheet: title,
    sheetId: input.sheetId,
    dimension: input.dimension,
    startIndex: input.startIndex,
    endIndex: input.endIndex,
    rows,
  };
  if (filled > MAX_UNDO_CELLS || JSON.stringify(image).length > MAX_PAYLOAD_BYTES)
    return { title, undoUnavailableReason: tooLargeReason(filled) };
  return { title, image };
}

/** The refusal of a sheetId of no tab, in the words of kit/tab-ref.ts (a dry run says the same). */
function noTabWithId(sheetId: number, sheets: sheets_v4.Schema$Sheet[] | undefined): string {
  const tabs = (sheets ?? []).map((sheet) => ({
    sheetId: sheet.properties?.sheetId ?? 0,
    title: sheet.properties?.title ?? '',
  }));
  return `there is no tab with sheetId ${sheetId}; the tabs are ${tabList(tabs)}`;
}
