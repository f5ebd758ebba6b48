/**
 * `spreadsheets.sheets.copyTo`: a tab copied, with its cells, formats, merges and sizes, to the end
 * of another spreadsheet (or the same one) as "Copy of <title>" — "Copy of <title> 2" and so on
 * when that name is taken there. Answers the new tab's properties, as Google does.
 */
import type { sheets_v4 } from 'googleapis';
import { googleErrors } from '../google-error.ts';
import type { SpreadsheetModel } from './model.ts';
import { sheetPropertiesResource } from './spreadsheet-resource.ts';
import { newSheet } from './spreadsheet-store.ts';

export function copySheetTo(
  source: SpreadsheetModel,
  sheetId: number,
  destination: SpreadsheetModel,
): { updated: SpreadsheetModel; properties: sheets_v4.Schema$SheetProperties } {
  const sheet = source.sheets.find((candidate) => candidate.properties.sheetId === sheetId);
  if (!sheet) throw googleErrors.badRequest(`Invalid sheetId: No grid with id: ${sheetId}`);
  const updated = structuredClone(destination);
  const taken = (title: string) =>
    updated.sheets.some((each) => each.properties.title.toLowerCase() === title.toLowerCase());
  let title = `Copy of ${sheet.properties.title}`;
  for (let n = 2; taken(title); n++) title = `Copy of ${sheet.properties.title} ${n}`;
  const copy = newSheet(updated, { title, index: updated.sheets.length });
  const { sheetId: newId } = copy.properties;
  copy.properties = {
    ...structuredClone(sheet.properties),
    sheetId: newId,
    title,
    index: updated.sheets.length,
  };
  copy.rows = structuredClone(sheet.rows);
  if (sheet.merges) copy.merges = structuredClone(sheet.merges);
  if (sheet.rowMetadata) copy.rowMetadata = structuredClone(sheet.rowMetadata);
  if (sheet.columnMetadata) copy.columnMetadata = structuredClone(sheet.columnMetadata);
  updated.sheets.push(copy);
  updated.revision = destination.revision + 1;
  return { updated, properties: sheetPropertiesResource(copy) };
}
