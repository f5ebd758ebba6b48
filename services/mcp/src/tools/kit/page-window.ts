import { columnLetters, gridBounds, rangeOnSheet, splitRange } from './a1.ts';

/**
 * The rows of a range one page reads from Google, rather than the whole range: a page of a
 * 60,000-row tab then costs what a page of a 60-row tab costs, at any offset.
 *
 * The window is the page's rows and one more: when that row holds data, the read itself says
 * that more follows. A range whose rest is at most WINDOW_ROWS tall is read to its end. Google leaves out a read's trailing empty rows (ValueRange.values), so an
 * answer shorter than the window says the window's last rows are blank, not that the range's
 * data ended: whether data lies below it is looked up apart (data-below.ts). A taller window would
 * reach the end of a short tab in the same read, but on a tall tab every read would carry rows
 * the page does not return.
 */

/** A new tab's 1,000 rows: the fewest one look below a window reads (data-below.ts), and read_records' window. */
export const WINDOW_ROWS = 1_000;

/** The last row A1 is read with here (seven digits, a1.ts); Sheets holds at most 10 million cells. */
const LAST_ROW = 9_999_999;

/** What a named range's name may be: letters, digits and underscores, not starting with a digit. */
const NAMED_RANGE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Ask Google for `range`, `rows` tall from the zero-based sheet row `first` (row `offset` of the
 * caller's range). `rangeTop` and `rangeEnd` are the caller's range's first row and end
 * (end-exclusive; undefined to the tab's last row); `columns` its column letters, or undefined
 * for whole rows. `lastOfRange`: the window ends where the caller's range ends.
 * `maybeNamedRange`: the caller gave a bare name, read as a tab's; if Google knows no such tab,
 * it is a named range, read whole.
 */
export interface RowsWindow {
  kind: 'rows';
  range: string;
  rows: number;
  first: number;
  rangeTop: number;
  rangeEnd: number | undefined;
  sheetTitle: string | undefined;
  columns: [string, string] | undefined;
  lastOfRange: boolean;
  maybeNamedRange: boolean;
}

export type PageWindow =
  | RowsWindow
  /** The offset is past the range's last row: nothing to read. */
  | { kind: 'past-end' }
  /** The range's shape does not say which rows it covers (a named range): read it whole. */
  | { kind: 'whole' };

export function pageWindow(range: string, offset: number, limit: number): PageWindow {
  const { sheetTitle, cells } = splitRange(range);
  const bounds = gridBounds(cells);
  // Columns from a start to the sheet's end (`B5:10`) have no A1 spelling for a row window.
  if (!bounds || (bounds.startColumnIndex === undefined) !== (bounds.endColumnIndex === undefined))
    return { kind: 'whole' };
  const rangeTop = bounds.startRowIndex ?? 0;
  const first = rangeTop + offset;
  const rangeEnd = Math.min(bounds.endRowIndex ?? LAST_ROW, LAST_ROW);
  if (first >= rangeEnd) return { kind: 'past-end' };
  // A bounded range whose rest fits one look is read to its end: its total is then known too.
  const end = rangeEnd - first <= WINDOW_ROWS ? rangeEnd : Math.min(first + limit + 1, rangeEnd);
  const lastOfRange = end >= rangeEnd;
  const window: RowsWindow = {
    kind: 'rows',
    range: '',
    rows: end - first,
    first,
    rangeTop,
    rangeEnd: bounds.endRowIndex === undefined ? undefined : rangeEnd,
    sheetTitle,
    columns:
      bounds.startColumnIndex === undefined
        ? undefined
        : [columnLetters(bounds.startColumnIndex), columnLetters(bounds.endColumnIndex! - 1)],
    lastOfRange,
    maybeNamedRange: cells === '' && !range.includes('!') && NAMED_RANGE.test(range),
  };
  window.range = windowRows(window, first, end);
  return window;
}

/** Rows [first, end) (zero-based sheet rows) of a window's tab and columns, in A1. */
export function windowRows(
  window: Pick<RowsWindow, 'sheetTitle' | 'columns'>,
  first: number,
  end: number,
): string {
  const [left, right] = window.columns ?? ['', ''];
  const cells = `${left}${first + 1}:${right}${end}`;
  return window.sheetTitle === undefined ? cells : rangeOnSheet(window.sheetTitle, cells);
}

/** Google's 400 for a range naming no tab (nor anything else it knows). */
export function isUnknownRangeError(error: unknown): boolean {
  const message = (error as { message?: unknown })?.message;
  return typeof message === 'string' && message.includes('Unable to parse range');
}

/** Google's 400 for a read that starts below the tab's last row ("exceeds grid limits"). */
export function isPastGridError(error: unknown): boolean {
  const message = (error as { message?: unknown })?.message;
  return typeof message === 'string' && message.includes('exceeds grid limits');
}
