import { columnLetters } from '../shared/sheet-link.ts';
/** read_range's arguments as the host passes them on (ui/notifications/tool-input). */
export interface ReadArgs {
  spreadsheetId: string;
  range: string;
  offset?: number;
  [argument: string]: unknown;
}

/** read_range's structuredContent (services/mcp/src/tools/kit/range-page.ts). */
export interface RangeResult {
  range: string;
  values: Array<Array<string | number | boolean | null>>;
  offset: number;
  returnedRows: number;
  nextOffset: number | null;
  lastRow: number | null;
}

/** A page placed on its tab: zero-based first row and column, and its own A1 on the tab. */
export interface PlacedPage extends RangeResult {
  top: number;
  left: number;
  a1: string;
}

/**
 * Where a page's first row lies. read_range answers Google's range for what it read: for a page
 * read as a window of rows (every range with a row span, and a bare tab), that range starts at the
 * page's first row; for a range read whole (a named range), at the range's top, the page `offset`
 * rows below. A page that reached the data's end says its last row, which settles it.
 */
export function pageOf(result: RangeResult, args: ReadArgs | undefined): PlacedPage {
  const { sheet, cells } = split(result.range);
  const answered = corner(cells);
  const offset = result.offset;
  const rows = result.values.length;
  let top: number;
  if (result.lastRow !== null && rows > 0) top = result.lastRow - rows;
  else if (answered.row === corner(split(args?.range ?? '').cells).row + offset) top = answered.row;
  else top = answered.row + offset;
  const left = answered.column;
  const width = Math.max(1, ...result.values.map((row) => row.length));
  const a1 = `${sheet ? `${sheet}!` : ''}${columnLetters(left)}${top + 1}:${columnLetters(left + width - 1)}${top + Math.max(rows, 1)}`;
  return { ...result, top, left, a1 };
}

/** A range's tab part (as written, quotes kept) and its cells. */
function split(range: string): { sheet: string; cells: string } {
  const bang = range.lastIndexOf('!');
  return bang === -1
    ? { sheet: '', cells: range }
    : { sheet: range.slice(0, bang), cells: range.slice(bang + 1) };
}

/** The zero-based row and column a range's cells start at (a whole column starts at row 0). */
function corner(cells: string): { row: number; column: number } {
  const [, letters = '', digits = ''] = /^\$?([A-Za-z]*)\$?(\d*)/.exec(cells) ?? [];
  let column = 0;
  for (const letter of letters.toUpperCase()) column = column * 26 + letter.charCodeAt(0) - 64;
  return { row: digits ? Number(digits) - 1 : 0, column: Math.max(0, column - 1) };
}
