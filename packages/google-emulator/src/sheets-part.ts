import type Router from '@koa/router';
import type { AccessControl, NativeSpreadsheets } from './contracts.ts';
import type { MemoryFileStore } from './drive/file-store.ts';
import { GoogleApiError } from './google-error.ts';
import {
  createNativeSpreadsheets,
  type SeedSheet,
  type SpreadsheetConverter,
} from './native-spreadsheets.ts';
import { createSheetsRouter } from './sheets/router.ts';
import { SpreadsheetStore } from './sheets/spreadsheet-store.ts';

const notYet = () =>
  new GoogleApiError({
    code: 501,
    status: 'UNIMPLEMENTED',
    message: 'Conversion is not available yet.',
    reason: 'notImplemented',
  });

const converter: SpreadsheetConverter = {
  importContents: async () => {
    throw notYet();
  },
  exportContents: async () => {
    throw notYet();
  },
};

/** The Sheets API part of the emulator over the shared files and access control, and Drive's view of it. */
export function sheetsPart(shared: { files: MemoryFileStore; access: AccessControl; publicUrl: string }): {
  router: Router;
  spreadsheets: NativeSpreadsheets & {
    createWithValues(fileId: string, title: string, sheets: SeedSheet[]): void;
  };
} {
  const store = new SpreadsheetStore();
  return {
    // Without publicUrl, spreadsheetUrl points at docs.google.com as Drive's webViewLink does.
    router: createSheetsRouter({ files: shared.files, access: shared.access, spreadsheets: store }),
    spreadsheets: createNativeSpreadsheets(store, converter, shared.files),
  };
}
