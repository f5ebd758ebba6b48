import { columnLetters, gridBounds, rangeOnSheet, splitRange } from './a1.ts';

/**
 * The rows of a range one page reads from Google, rather than the whole range: a page of a
 * 60,000-row tab then costs what a page of a 60-row tab costs, at any offset.
 *
 * The window is at least WINDOW_ROWS tall and one row taller than the page, so a short answer
 * means the data ended: Google drops trailing empty rows, and keeps the empty rows between
 * values. (A blank stretch taller than the rest of the window hides what lies below it; the
 * tool's description says to read a range that starts lower down.)
 */
export const WINDOW_ROWS = 500;

/** What a named range's name may be: letters, digits and underscores, not starting with a digit. */
const NAMED_RANGE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type PageWindow =
  /**
   * Ask Google for `range`, `rows` tall; its first row is row `offset` of the caller's range.
   * `lastOfRange`: the window ends where the caller's range ends. `maybeNamedRange`: the caller
   * gave a bare name, read as a tab's; if Google knows no such tab, it is a named range, read whole.
   */
  | { kind: 'rows'; range: string; rows: number; lastOfRange: boolean; maybeNamedRange: boolean }
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
  const first = (bounds.startRowIndex ?? 0) + offset;
  let end = first + Math.max(limit + 1, WINDOW_ROWS);
  let lastOfRange = false;
  if (bounds.endRowIndex !== undefined) {
    if (first >= bounds.endRowIndex) return { kind: 'past-end' };
    lastOfRange = end >= bounds.endRowIndex;
    end = Math.min(end, bounds.endRowIndex);
  }
  const columns =
    bounds.startColumnIndex === undefined
      ? ['', '']
      : [columnLetters(bounds.startColumnIndex), columnLetters(bounds.endColumnIndex! - 1)];
  const windowCells = `${columns[0]}${first + 1}:${columns[1]}${end}`;
  return {
    kind: 'rows',
    range: sheetTitle === undefined ? windowCells : rangeOnSheet(sheetTitle, windowCells),
    rows: end - first,
    lastOfRange,
    maybeNamedRange: cells === '' && !range.includes('!') && NAMED_RANGE.test(range),
  };
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
