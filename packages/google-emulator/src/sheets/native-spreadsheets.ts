/** The `NativeSpreadsheets` seam Drive uses, over the SpreadsheetStore and the conversions. */
import type { NativeSpreadsheets } from '../contracts.ts';
import { googleErrors } from '../google-error.ts';
import { exportSpreadsheet, importSpreadsheet } from './convert.ts';
import { type SpreadsheetStore, spreadsheetContents } from './spreadsheet-store.ts';

export function createNativeSpreadsheets(
  store: SpreadsheetStore,
): NativeSpreadsheets & { store: SpreadsheetStore } {
  const existing = (fileId: string) => {
    const spreadsheet = store.get(fileId);
    if (!spreadsheet) throw googleErrors.notFound();
    return spreadsheet;
  };
  return {
    store,
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
      const spreadsheet = store.get(fileId);
      if (spreadsheet) spreadsheet.properties.title = title;
    },
    delete(fileId) {
      store.delete(fileId);
    },
    reset() {
      store.clear();
    },
  };
}
