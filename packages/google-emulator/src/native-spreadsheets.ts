import { type DriveFile, type NativeSpreadsheets, SPREADSHEET_MIME_TYPE } from './contracts.ts';
import { GoogleApiError } from './google-error.ts';
import type { CellData, SpreadsheetContents } from './sheets/model.ts';
import { type SpreadsheetStore, spreadsheetContents } from './sheets/spreadsheet-store.ts';
import { cellFromInput } from './sheets/user-entered.ts';

/** The Sheets part's import and export of whole spreadsheets (src/sheets/convert.ts). */
export interface SpreadsheetConverter {
  importContents(bytes: Buffer, sourceMimeType: string, title: string): Promise<SpreadsheetContents>;
  exportContents(contents: SpreadsheetContents, targetMimeType: string): Promise<Buffer>;
}

export interface SeedSheet {
  title: string;
  /** Rows of values as a person would type them (`USER_ENTERED`): numbers, text, formulas. */
  values: Array<Array<string | number | boolean | null>>;
}

/** Drive's view of native spreadsheets, over the Sheets part's store and converter. */
export function createNativeSpreadsheets(
  store: SpreadsheetStore,
  converter: SpreadsheetConverter,
  files: { all(): DriveFile[] },
): NativeSpreadsheets & { createWithValues(fileId: string, title: string, sheets: SeedSheet[]): void } {
  const existing = (fileId: string) => {
    const spreadsheet = store.get(fileId);
    if (!spreadsheet) {
      throw new GoogleApiError({
        code: 500,
        status: 'INTERNAL',
        message: `Spreadsheet ${fileId} has no contents.`,
        reason: 'backendError',
      });
    }
    return spreadsheet;
  };
  return {
    createEmpty(fileId, title) {
      store.create(fileId, { title, sheets: [] });
    },
    async importInto(fileId, title, bytes, sourceMimeType) {
      const contents = await converter.importContents(bytes, sourceMimeType, title);
      store.create(fileId, { ...contents, title });
    },
    exportAs(fileId, targetMimeType) {
      return converter.exportContents(spreadsheetContents(existing(fileId)), targetMimeType);
    },
    copy(fromId, toId, title) {
      store.create(toId, spreadsheetContents(existing(fromId), title));
    },
    rename(fileId, title) {
      const spreadsheet = existing(fileId);
      store.replace({
        ...spreadsheet,
        properties: { ...spreadsheet.properties, title },
        revision: spreadsheet.revision + 1,
      });
    },
    delete(fileId) {
      store.delete(fileId);
    },
    reset() {
      // Spreadsheets made through the Sheets API are in the store too: every native file's id.
      for (const file of files.all()) if (file.mimeType === SPREADSHEET_MIME_TYPE) store.delete(file.id);
    },
    createWithValues(fileId, title, sheets) {
      store.create(fileId, {
        title,
        sheets: sheets.map((sheet) => ({
          title: sheet.title,
          rows: sheet.values.map((row) =>
            row.map((value): CellData | undefined =>
              value === null || value === '' ? undefined : cellFromInput(value, 'USER_ENTERED'),
            ),
          ),
        })),
      });
    },
  };
}
