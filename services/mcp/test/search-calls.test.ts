import { describe, expect, it } from 'vitest';
import {
  nextSearchCall,
  SEARCH_RANGE_CHARACTERS,
  type SearchArea,
  searchStart,
} from '../src/tools/kit/search-calls.ts';

const tab = (title: string, rows: number, columns: number): SearchArea => ({
  title,
  rowStart: 0,
  rowEnd: rows,
  columnStart: 0,
  columnEnd: columns,
});

/** Every call of a whole search, as find_in_spreadsheet makes them with `cellsPerCall`. */
function allCalls(areas: SearchArea[], cellsPerCall: number) {
  const calls: string[][] = [];
  let cursor = searchStart(areas, { area: 0, row: 0 });
  while (cursor) {
    const { pieces, next } = nextSearchCall(areas, cursor, cellsPerCall);
    calls.push(pieces.map((piece) => piece.range));
    cursor = next;
  }
  return calls;
}

describe('the Google calls of a search', () => {
  it('packs rows of several tabs into one call, up to the cell budget', () => {
    const areas = [tab('A', 10, 2), tab('B', 10, 2), tab('C', 10, 2)];
    expect(allCalls(areas, 25)).toEqual([
      ["'A'!A1:B10", "'B'!A1:B2"],
      ["'B'!A3:B10", "'C'!A1:B4"],
      ["'C'!A5:B10"],
    ]);
  });

  it('skips tabs with no rows or no columns, and ends where the last tab ends', () => {
    const areas = [tab('Empty', 0, 5), tab('Narrow', 3, 0), tab('One', 1, 1), tab('Also empty', 0, 0)];
    expect(allCalls(areas, 100)).toEqual([["'One'!A1:A1"]]);
    expect(searchStart([tab('Empty', 0, 5)], { area: 0, row: 0 })).toBeNull();
  });

  it('takes one row of a tab wider than the budget, so a search always moves on', () => {
    expect(allCalls([tab('Wide', 3, 100)], 10)).toEqual([['Wide!A1:CV1'], ['Wide!A2:CV2'], ['Wide!A3:CV3']]);
  });

  it('starts a range where the area starts, for a search of one range', () => {
    const area = { title: "Q's", rowStart: 4, rowEnd: 9, columnStart: 2, columnEnd: 4 };
    expect(allCalls([area], 6)).toEqual([["'Q''s'!C5:D7"], ["'Q''s'!C8:D9"]]);
  });

  it('keeps the ranges of one call within a URL that servers accept, however many small tabs', () => {
    const title = 'タブ'.repeat(40);
    const areas = Array.from({ length: 500 }, (_, index) => tab(`${title} ${index}`, 1, 1));
    const calls = allCalls(areas, 50_000);
    expect(calls.length).toBeGreaterThan(1);
    for (const ranges of calls) {
      const query = ranges.map((range) => `ranges=${encodeURIComponent(range)}`).join('&');
      expect(query.length).toBeLessThanOrEqual(SEARCH_RANGE_CHARACTERS);
    }
    expect(calls.flat()).toHaveLength(500);
  });
});
