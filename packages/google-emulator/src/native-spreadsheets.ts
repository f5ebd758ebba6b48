import type { NativeSpreadsheets } from './contracts.ts';
import { googleErrors } from './google-error.ts';
import { exportSpreadsheet, importSpreadsheet } from './sheets/convert.ts';
import { type SpreadsheetStore, spreadsheetContents } from './sheets/spreadsheet-store.ts';

/** Drive's view of native spreadsheets, over the Sheets part's store and conversions. */
export function createNativeSpreadsheets(store: SpreadsheetStore): NativeSpreadsheets {
  const existing = (fileId: string) => {
    const spreadsheet = store.get(fileId);
    if (!spreadsheet) throw googleErrors.notFound();
    return spreadsheet;
  };
  return {
    createEmpty(fileId, title) {
      store.create(fileId, { title, sheets: [] });
    },
    async importInto(fileId, title, bytes, sourceMimeType) {
      store.create(fileId, await importSpreadsheet(bytes, sourceMimeType, title));
    },
    exportAs(fileId, targetMimeType) {
      return exportSpreadsheet(existing(fileId), targetMimeType);
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
    textOf(fileId) {
      const parts: string[] = [];
      for (const sheet of store.get(fileId)?.sheets ?? []) {
        for (const row of sheet.rows) {
          for (const cell of row ?? []) {
            const value = cell?.userEnteredValue;
            const text = value?.stringValue ?? value?.numberValue ?? value?.boolValue;
            if (text !== undefined && text !== null) parts.push(String(text));
          }
        }
      }
      return parts.join('\n');
    },
    delete(fileId) {
      store.delete(fileId);
    },
    reset() {
      store.clear();
    },
  };
}
