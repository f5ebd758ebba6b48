import type Router from '@koa/router';
import { type SeedSpreadsheet, seedSpreadsheetInto } from './admin/seed-spreadsheet.ts';
import type { AccessControl, NativeSpreadsheets } from './contracts.ts';
import type { MemoryFileStore } from './drive/file-store.ts';
import { createNativeSpreadsheets } from './native-spreadsheets.ts';
import { addImportSources } from './sheets/import-range.ts';
import { createSheetsRouter } from './sheets/router.ts';
import { SpreadsheetStore } from './sheets/spreadsheet-store.ts';

export interface SheetsPart {
  router: Router;
  /** Drive's view of native spreadsheets (create, convert, export, copy, rename, delete, reset). */
  spreadsheets: NativeSpreadsheets;
  seedSpreadsheet: SeedSpreadsheet;
}

/** The Sheets API part of the emulator over the shared files and access control. */
export function sheetsPart(shared: {
  files: MemoryFileStore;
  access: AccessControl;
  publicUrl: string;
}): SheetsPart {
  const store = new SpreadsheetStore();
  // IMPORTRANGE reads the spreadsheets of this emulator, and their owners from its Drive files.
  addImportSources({
    spreadsheet: (id) => store.get(id),
    owner: (id) => shared.files.get(id)?.ownerEmail,
  });
  return {
    // Without publicUrl, spreadsheetUrl points at docs.google.com as Drive's webViewLink does.
    router: createSheetsRouter({ files: shared.files, access: shared.access, spreadsheets: store }),
    spreadsheets: createNativeSpreadsheets(store),
    seedSpreadsheet: seedSpreadsheetInto(store),
  };
}
