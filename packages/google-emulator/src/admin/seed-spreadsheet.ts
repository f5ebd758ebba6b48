import type { CellData } from '../sheets/model.ts';
import type { SpreadsheetStore } from '../sheets/spreadsheet-store.ts';
import { cellFromInput } from '../sheets/user-entered.ts';

export interface SeedSheet {
  title: string;
  /** Rows of values as a person would type them (`USER_ENTERED`): numbers, text, dates, formulas. */
  values: Array<Array<string | number | boolean | null>>;
}

export type SeedSpreadsheet = (fileId: string, title: string, sheets: SeedSheet[]) => void;

/** Stores a seeded native spreadsheet's sheets in the Sheets model. */
export function seedSpreadsheetInto(store: SpreadsheetStore): SeedSpreadsheet {
  return (fileId, title, sheets) => {
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
  };
}
