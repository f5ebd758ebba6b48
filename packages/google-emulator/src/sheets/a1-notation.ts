/**
 * A1 notation as the Sheets API accepts it: `Sheet1!A1:C9`, `'My tab'!A1` (quotes doubled inside:
 * `'It''s'!A1`), `A:C`, `2:5`, open-ended `A2:C` / `A2:5`, single cells, `$` anchors, and a sheet
 * name alone for the whole sheet. A range without a sheet name means the first sheet.
 */
import { googleErrors } from '../google-error.ts';
import type { SheetModel, SpreadsheetModel } from './model.ts';

/** A rectangle on a sheet: zero-based, end-exclusive, like Google's GridRange. */
export interface GridBounds {
  startRow: number;
  endRow: number;
  startColumn: number;
  endColumn: number;
}

/** What a range text says, before it meets a sheet: missing bounds are open. */
export interface ParsedA1 {
  sheetName?: string;
  area?: Partial<GridBounds>;
}

export interface ResolvedRange {
  sheet: SheetModel;
  /** The range with open bounds filled from the sheet's grid. */
  bounds: GridBounds;
  /** The bounds the text itself fixes: a missing one was open (`A:C` fixes no rows). */
  area: Partial<GridBounds>;
}

interface Endpoint {
  row?: number;
  column?: number;
}

const ENDPOINT = /^\$?([A-Za-z]{1,3})?\$?([0-9]{1,7})?$/;

export function columnToLetters(column: number): string {
  let letters = '';
  for (let n = column + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  }
  return letters;
}

export function lettersToColumn(letters: string): number {
  let column = 0;
  for (const char of letters.toUpperCase()) column = column * 26 + (char.charCodeAt(0) - 64);
  return column - 1;
}

function parseEndpoint(text: string): Endpoint | undefined {
  const match = ENDPOINT.exec(text);
  if (!match || (!match[1] && !match[2])) return undefined;
  const endpoint: Endpoint = {};
  if (match[1]) endpoint.column = lettersToColumn(match[1]);
  if (match[2]) {
    const row = Number(match[2]);
    if (row < 1) return undefined;
    endpoint.row = row - 1;
  }
  return endpoint;
}

/** Parses the cell part of a range (`A1:C9`, `A:C`, `2:5`, `B3`); undefined if it is not one. */
export function parseArea(text: string): Partial<GridBounds> | undefined {
  const parts = text.split(':');
  if (parts.length > 2) return undefined;
  const start = parseEndpoint(parts[0] ?? '');
  if (!start) return undefined;
  if (parts.length === 1) {
    // A lone endpoint must be a cell: `A` or `5` alone is not a range.
    if (start.row === undefined || start.column === undefined) return undefined;
    return {
      startRow: start.row,
      endRow: start.row + 1,
      startColumn: start.column,
      endColumn: start.column + 1,
    };
  }
  const end = parseEndpoint(parts[1] ?? '');
  if (!end) return undefined;
  const startIsColumnOnly = start.row === undefined;
  const startIsRowOnly = start.column === undefined;
  const endIsColumnOnly = end.row === undefined;
  const endIsRowOnly = end.column === undefined;
  // `A:5` and `5:A` mix a whole column with a whole row: Google refuses them.
  if ((startIsColumnOnly && endIsRowOnly) || (startIsRowOnly && endIsColumnOnly)) return undefined;
  const area: Partial<GridBounds> = {};
  const rows = orderedPair(start.row, end.row);
  const columns = orderedPair(start.column, end.column);
  // A bound is fixed only where both endpoints give it, or where the start gives it and the end is
  // open in that dimension (`A2:C` starts at row 2, `A2:5` starts at column A).
  if (rows.low !== undefined) area.startRow = rows.low;
  if (rows.high !== undefined) area.endRow = rows.high + 1;
  if (columns.low !== undefined) area.startColumn = columns.low;
  if (columns.high !== undefined) area.endColumn = columns.high + 1;
  return area;
}

function orderedPair(a: number | undefined, b: number | undefined): { low?: number; high?: number } {
  if (a !== undefined && b !== undefined) return { low: Math.min(a, b), high: Math.max(a, b) };
  if (a !== undefined) return { low: a };
  if (b !== undefined) return { high: b };
  return {};
}

/** Splits `'It''s'!A1` / `Sheet1!A1` / `Sheet1` / `A1` into its sheet name and area; syntax only. */
export function parseA1(text: string): ParsedA1[] {
  const trimmed = text.trim();
  if (trimmed.startsWith("'")) {
    let name = '';
    let i = 1;
    for (; i < trimmed.length; i++) {
      const char = trimmed[i];
      if (char === "'") {
        if (trimmed[i + 1] === "'") {
          name += "'";
          i++;
          continue;
        }
        break;
      }
      name += char;
    }
    if (i >= trimmed.length) return [];
    const rest = trimmed.slice(i + 1);
    if (rest === '') return [{ sheetName: name }];
    if (!rest.startsWith('!')) return [];
    const area = parseArea(rest.slice(1));
    return area ? [{ sheetName: name, area }] : [];
  }
  // Unquoted: either `name!area`, an area alone, or a sheet name alone. Several readings may
  // apply (a sheet named `A1`); the caller tries them in order.
  const readings: ParsedA1[] = [];
  const bang = trimmed.lastIndexOf('!');
  if (bang > 0) {
    const area = parseArea(trimmed.slice(bang + 1));
    if (area) readings.push({ sheetName: trimmed.slice(0, bang), area });
  } else {
    const area = parseArea(trimmed);
    if (area) readings.push({ area });
  }
  if (trimmed !== '') readings.push({ sheetName: trimmed });
  return readings;
}

export function findSheetByTitle(spreadsheet: SpreadsheetModel, title: string): SheetModel | undefined {
  return (
    spreadsheet.sheets.find((sheet) => sheet.properties.title === title) ??
    spreadsheet.sheets.find((sheet) => sheet.properties.title.toLowerCase() === title.toLowerCase())
  );
}

/**
 * The sheet a range without a sheet name is on. Google's A1 notation (Sheets API overview,
 * https://developers.google.com/workspace/sheets/api/guides/concepts, "A1 notation"):
 * "`Sheet1!A1:B2` refers to all the cells in the first two rows and columns of Sheet1 … `A1:B2`
 * refers to all the cells in the first two rows and columns of the first visible sheet" — a hidden
 * sheet before it is skipped. Google keeps one sheet visible; should none be, the first.
 */
export function firstVisibleSheet(spreadsheet: SpreadsheetModel): SheetModel | undefined {
  return spreadsheet.sheets.find((sheet) => sheet.properties.hidden !== true) ?? spreadsheet.sheets[0];
}

/**
 * Resolves a range text against a spreadsheet, filling open bounds from the sheet's grid; a range
 * without a sheet name is on the first visible sheet. Throws Google's `Unable to parse range: …`
 * for bad syntax or an unknown sheet.
 */
export function resolveRange(spreadsheet: SpreadsheetModel, text: string): ResolvedRange {
  for (const reading of parseA1(text)) {
    const sheet =
      reading.sheetName === undefined
        ? firstVisibleSheet(spreadsheet)
        : findSheetByTitle(spreadsheet, reading.sheetName);
    if (!sheet) continue;
    const grid = sheet.properties.gridProperties;
    const area = reading.area ?? {};
    return {
      sheet,
      area,
      bounds: {
        startRow: area.startRow ?? 0,
        endRow: area.endRow ?? grid.rowCount,
        startColumn: area.startColumn ?? 0,
        endColumn: area.endColumn ?? grid.columnCount,
      },
    };
  }
  const named = namedRangeArea(spreadsheet, text.trim());
  if (named) return named;
  throw googleErrors.badRequest(`Unable to parse range: ${text}`);
}

/** A named range's name stands for its range wherever A1 is accepted (after tab names, as Google). */
function namedRangeArea(spreadsheet: SpreadsheetModel, name: string): ResolvedRange | undefined {
  const named = spreadsheet.namedRanges?.find((each) => each.name?.toLowerCase() === name.toLowerCase());
  const sheet = spreadsheet.sheets.find((each) => each.properties.sheetId === (named?.range?.sheetId ?? 0));
  if (!named || !sheet) return undefined;
  const grid = sheet.properties.gridProperties;
  const range = named.range ?? {};
  const area: Partial<GridBounds> = {};
  if (range.startRowIndex != null) area.startRow = range.startRowIndex;
  if (range.endRowIndex != null) area.endRow = range.endRowIndex;
  if (range.startColumnIndex != null) area.startColumn = range.startColumnIndex;
  if (range.endColumnIndex != null) area.endColumn = range.endColumnIndex;
  return {
    sheet,
    area,
    bounds: {
      startRow: area.startRow ?? 0,
      endRow: area.endRow ?? grid.rowCount,
      startColumn: area.startColumn ?? 0,
      endColumn: area.endColumn ?? grid.columnCount,
    },
  };
}

/** Quotes a sheet title for A1 when Google does: anything but a plain identifier that is not a cell. */
export function quoteSheetTitle(title: string): string {
  const plain =
    /^[\p{L}_][\p{L}\p{N}_]*$/u.test(title) &&
    !/^[A-Za-z]{1,3}[0-9]+$/.test(title) &&
    !/^[Rr][0-9]*[Cc][0-9]*$/.test(title);
  return plain ? title : `'${title.replaceAll("'", "''")}'`;
}

export function formatCell(row: number, column: number): string {
  return `${columnToLetters(column)}${row + 1}`;
}

/** `Sheet1!A1:C9`, or `Sheet1!B2` for one cell, as Google writes ranges in responses. */
export function formatRange(sheetTitle: string, bounds: GridBounds): string {
  const start = formatCell(bounds.startRow, bounds.startColumn);
  const single = bounds.endRow - bounds.startRow === 1 && bounds.endColumn - bounds.startColumn === 1;
  const area = single ? start : `${start}:${formatCell(bounds.endRow - 1, bounds.endColumn - 1)}`;
  return `${quoteSheetTitle(sheetTitle)}!${area}`;
}
