import { z } from 'zod';
import { columnLetters } from './a1.ts';
import { type Below, isBlankRow } from './data-below.ts';
import { type PageBudget, page } from './paging.ts';

/**
 * A page of a range as read_range and read_ranges answer it, by one rule: a page is up to `limit`
 * rows of the range from row `offset` (blank rows between data count; trailing blank rows are
 * left out, as Google leaves them out), within the answer's size budget (paging.ts). The answer
 * always says which way it ended: the range's data ended (its last row and column), or the next
 * row holding data is `nextOffset` (the page reached its limit or the size budget), or rows were
 * blank as far as the read looked (`nextOffset` then goes on from there).
 */
export type StoppedBy = 'end' | 'limit' | 'budget' | 'scan';

export const valueRangeOutput = z.object({
  range: z.string(),
  // What the Sheets API puts in a cell: text, a number, a boolean (empty cells are "").
  values: z.array(z.array(z.union([z.string(), z.number(), z.boolean(), z.null()]))),
  // Rows of the range down to its last row holding data, once that is known; else null.
  totalRows: z.number().nullable(),
  offset: z.number(),
  returnedRows: z.number(),
  // The offset of the next row holding data; null when none lies below this page in the range.
  nextOffset: z.number().nullable(),
  // The sheet row and column letter where the range's data ends, when this page reached it.
  lastRow: z.number().nullable(),
  lastColumn: z.string().nullable(),
  stoppedBy: z.enum(['end', 'limit', 'budget', 'scan']),
  revision: z.string(),
});

export interface RangePage {
  values: unknown[][];
  totalRows: number | null;
  offset: number;
  returnedRows: number;
  nextOffset: number | null;
  lastRow: number | null;
  lastColumn: string | null;
  stoppedBy: StoppedBy;
}

/**
 * Where a page lies, in zero-based sheet rows and columns: its range's first row and end
 * (end-exclusive; undefined to the tab's end), the page's first row, its left column.
 */
export interface PagePlace {
  rangeTop: number;
  rangeEnd: number | undefined;
  top: number;
  left: number;
}

/** A page, and the rows under its values it saw blank (null: to the tab's end), which its revision covers too. */
export interface SettledPage {
  page: RangePage;
  blankBelow: number | null;
}

export type PageStart =
  | { settled: SettledPage }
  /** The page's data ended inside the rows read, which did not reach the range's end: look from `lookFrom`. */
  | { lookFrom: number; settle(below: Below): SettledPage };

/**
 * The page of `values` (the rows read, from the page's first row). `readToEnd`: they run to the
 * range's end, so a page taking every row with data ends the range; `readEnd` is the sheet row
 * they run to, where a look below would start.
 */
export function startPage(
  values: readonly unknown[][],
  place: PagePlace,
  offset: number,
  limit: number,
  budget: PageBudget,
  read: { toEnd: boolean; end: number },
): PageStart {
  const { rows: taken } = page(values as unknown[][], 0, limit, budget);
  // The page's own trailing blank rows are left out too: nextOffset says where data resumes.
  let returned = taken.length;
  while (returned > 0 && isBlankRow(taken[returned - 1])) returned--;
  const rows = taken.slice(0, returned);
  const width = rows.reduce((widest, row) => Math.max(widest, row.length), 0);
  const base = {
    values: rows,
    offset,
    returnedRows: returned,
    lastColumn: width ? columnLetters(place.left + width - 1) : null,
  };
  const firstBlank = place.top + returned;
  const goesOn = (next: number, stoppedBy: StoppedBy, totalRows: number | null = null): SettledPage => ({
    page: { ...base, totalRows, nextOffset: next - place.rangeTop, lastRow: null, stoppedBy },
    blankBelow: next - firstBlank,
  });
  const ended = (): SettledPage => ({
    page: {
      ...base,
      totalRows: returned > 0 || offset === 0 ? offset + returned : null,
      nextOffset: null,
      lastRow: returned > 0 ? firstBlank : null,
      stoppedBy: 'end',
    },
    blankBelow: place.rangeEnd === undefined ? null : Math.max(0, place.rangeEnd - firstBlank),
  });
  if (taken.length < values.length) {
    const next = values.findIndex((row, index) => index >= taken.length && !isBlankRow(row));
    if (next === -1) return { settled: ended() };
    return {
      settled: goesOn(
        place.top + next,
        taken.length >= limit ? 'limit' : 'budget',
        read.toEnd ? offset + values.length : null,
      ),
    };
  }
  if (read.toEnd) return { settled: ended() };
  return {
    lookFrom: read.end,
    settle(below) {
      if (below.kind === 'end') return ended();
      return below.kind === 'data' ? goesOn(below.row, 'limit') : goesOn(below.through, 'scan');
    },
  };
}

/** The line after a page's rows: where the data ends, or the read_range call that goes on. */
export function pageNotice(range: string, result: RangePage, rangeTop: number): string {
  const call = `call read_range with range=${JSON.stringify(range)} and offset=${result.nextOffset}`;
  switch (result.stoppedBy) {
    case 'end':
      if (result.lastRow !== null)
        return `\nData ends at row ${result.lastRow}${result.lastColumn ? ` (last column ${result.lastColumn})` : ''}: nothing below it in the range.`;
      return result.offset === 0
        ? '\nThe range holds no data.'
        : `\nNo data in the range from row ${rangeTop + result.offset + 1} on.`;
    case 'limit':
      return `\n… more data from row ${rangeTop + result.nextOffset! + 1}; ${call}.`;
    case 'budget':
      return `\n… the page stopped at the answer's size budget; ${call}.`;
    case 'scan':
      return `\n… rows ${rangeTop + result.offset + result.returnedRows + 1}–${rangeTop + result.nextOffset!} are blank and the read looked no further; ${call} to look on.`;
  }
}
