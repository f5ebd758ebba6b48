/**
 * The ranges `spreadsheets.getByDataFilter` returns: each DataFilter's `gridRange` or `a1Range`
 * resolved against the spreadsheet. Google's reference
 * (https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/getByDataFilter):
 * "Specifying one or more data filters returns the portions of the spreadsheet that intersect
 * ranges matched by any of the filters" — so a grid range reaching past a tab's grid selects the
 * part of it on the grid. A `developerMetadataLookup` filter is refused: the emulator keeps no
 * developer metadata (a known difference).
 */
import type { sheets_v4 } from 'googleapis';
import { googleErrors } from '../google-error.ts';
import { type ResolvedRange, resolveRange } from './a1-notation.ts';
import type { SpreadsheetModel } from './model.ts';

export function dataFilterRanges(
  spreadsheet: SpreadsheetModel,
  filters: sheets_v4.Schema$DataFilter[],
): ResolvedRange[] {
  return filters.map((filter, index) => {
    const where = `Invalid dataFilters[${index}]`;
    if (filter.developerMetadataLookup)
      throw googleErrors.badRequest(
        `${where}: developer metadata lookups are not supported by the emulator.`,
      );
    if (filter.a1Range != null) return resolveRange(spreadsheet, filter.a1Range);
    if (filter.gridRange) return gridRangeArea(spreadsheet, filter.gridRange, where);
    throw googleErrors.badRequest(
      `${where}: a data filter needs a gridRange, a1Range or developerMetadataLookup.`,
    );
  });
}

function gridRangeArea(
  spreadsheet: SpreadsheetModel,
  range: sheets_v4.Schema$GridRange,
  where: string,
): ResolvedRange {
  const id = range.sheetId ?? 0;
  const sheet = spreadsheet.sheets.find((candidate) => candidate.properties.sheetId === id);
  // The reference does not say what a filter naming no tab gets; refused as batchUpdate refuses
  // an unknown sheetId.
  if (!sheet) throw googleErrors.badRequest(`${where}: No grid with id: ${id}`);
  const grid = sheet.properties.gridProperties;
  const area = {
    ...(range.startRowIndex != null ? { startRow: range.startRowIndex } : {}),
    ...(range.endRowIndex != null ? { endRow: range.endRowIndex } : {}),
    ...(range.startColumnIndex != null ? { startColumn: range.startColumnIndex } : {}),
    ...(range.endColumnIndex != null ? { endColumn: range.endColumnIndex } : {}),
  };
  const bounds = {
    startRow: Math.min(area.startRow ?? 0, grid.rowCount),
    endRow: Math.min(area.endRow ?? grid.rowCount, grid.rowCount),
    startColumn: Math.min(area.startColumn ?? 0, grid.columnCount),
    endColumn: Math.min(area.endColumn ?? grid.columnCount, grid.columnCount),
  };
  if (
    bounds.startRow < 0 ||
    bounds.startColumn < 0 ||
    bounds.endRow < bounds.startRow ||
    bounds.endColumn < bounds.startColumn
  )
    throw googleErrors.badRequest(`${where}: start index must be at least 0 and not after the end index.`);
  return { sheet, area, bounds };
}
