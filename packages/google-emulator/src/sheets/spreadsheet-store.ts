import { randomInt } from 'node:crypto';
import {
  type CellRows,
  DEFAULT_GRID,
  type SheetModel,
  type SpreadsheetContents,
  type SpreadsheetModel,
} from './model.ts';

/**
 * A new spreadsheet's time zone and locale when the request names none. Google takes them from the
 * creating account's settings, which the emulator's accounts do not have (README-sheets.md).
 */
export const DEFAULT_TIME_ZONE = 'Etc/GMT';
export const DEFAULT_LOCALE = 'en_US';

/**
 * Native spreadsheets, keyed by the id of their Drive file (which lives in the shared FileStore).
 */
export class SpreadsheetStore {
  readonly #spreadsheets = new Map<string, SpreadsheetModel>();

  /** Stores a spreadsheet under `id` (the Drive file's id); without contents, one empty "Sheet1". */
  create(
    id: string,
    contents: SpreadsheetContents = { title: 'Untitled spreadsheet', sheets: [] },
  ): SpreadsheetModel {
    const sheets = contents.sheets.length > 0 ? contents.sheets : [{ title: 'Sheet1', rows: [] }];
    const spreadsheet: SpreadsheetModel = {
      spreadsheetId: id,
      properties: {
        title: contents.title,
        locale: contents.locale ?? DEFAULT_LOCALE,
        autoRecalc: 'ON_CHANGE',
        timeZone: contents.timeZone ?? DEFAULT_TIME_ZONE,
      },
      sheets: [],
      revision: 0,
    };
    for (const [index, sheet] of sheets.entries()) {
      const rows = structuredClone(sheet.rows);
      spreadsheet.sheets.push(
        newSheet(spreadsheet, {
          // Google gives the first sheet of a new spreadsheet id 0.
          sheetId: sheet.sheetId ?? (index === 0 ? 0 : undefined),
          title: sheet.title,
          index,
          rows,
          rowCount: Math.max(sheet.rowCount ?? DEFAULT_GRID.rowCount, rows.length),
          columnCount: Math.max(sheet.columnCount ?? DEFAULT_GRID.columnCount, widestRow(rows)),
        }),
      );
    }
    this.#spreadsheets.set(id, spreadsheet);
    return spreadsheet;
  }

  get(id: string): SpreadsheetModel | undefined {
    return this.#spreadsheets.get(id);
  }

  /** Replaces a spreadsheet with an updated copy (batchUpdate applies requests to a copy, atomically). */
  replace(spreadsheet: SpreadsheetModel): void {
    this.#spreadsheets.set(spreadsheet.spreadsheetId, spreadsheet);
  }

  delete(id: string): void {
    this.#spreadsheets.delete(id);
  }

  clear(): void {
    this.#spreadsheets.clear();
  }
}

/** The contents of a spreadsheet, for copying it under another id or exporting it. */
export function spreadsheetContents(
  spreadsheet: SpreadsheetModel,
  title = spreadsheet.properties.title,
): SpreadsheetContents {
  return {
    title,
    // A copy keeps the original's time zone and locale, as a copy made in Sheets does.
    timeZone: spreadsheet.properties.timeZone,
    locale: spreadsheet.properties.locale,
    // A chart's own sheet (OBJECT) holds no cells: a copy of the cells has nothing of it.
    sheets: spreadsheet.sheets
      .filter((sheet) => sheet.properties.sheetType === 'GRID')
      .map((sheet) => ({
        title: sheet.properties.title,
        rows: structuredClone(sheet.rows),
        rowCount: sheet.properties.gridProperties.rowCount,
        columnCount: sheet.properties.gridProperties.columnCount,
      })),
  };
}

export function newSheet(
  spreadsheet: SpreadsheetModel,
  options: {
    sheetId?: number | undefined;
    title: string;
    index: number;
    rows?: CellRows;
    rowCount?: number;
    columnCount?: number;
  },
): SheetModel {
  return {
    properties: {
      sheetId: options.sheetId ?? unusedSheetId(spreadsheet),
      title: options.title,
      index: options.index,
      sheetType: 'GRID',
      gridProperties: {
        rowCount: options.rowCount ?? DEFAULT_GRID.rowCount,
        columnCount: options.columnCount ?? DEFAULT_GRID.columnCount,
      },
    },
    rows: options.rows ?? [],
  };
}

/** Google gives added sheets random positive 31-bit ids. */
function unusedSheetId(spreadsheet: SpreadsheetModel): number {
  for (;;) {
    const id = randomInt(1, 2 ** 31 - 1);
    if (!spreadsheet.sheets.some((sheet) => sheet.properties.sheetId === id)) return id;
  }
}

function widestRow(rows: CellRows): number {
  let widest = 0;
  for (const row of rows) if (row) widest = Math.max(widest, row.length);
  return widest;
}
