import { describe, expect, it } from 'vitest';
import { pageBudget } from '../src/tools/kit/paging.ts';
import { type PagePlace, pageNotice, type SettledPage, startPage } from '../src/tools/kit/range-page.ts';

// The paging rule of read_range and read_ranges (range-page.ts): a page is up to `limit` rows from
// `offset`, and it always says which way it ended — the data's end, the next row with data, the
// size budget, or as far as the read looked.

const place: PagePlace = { rangeTop: 0, rangeEnd: undefined, top: 0, left: 0 };
const rows = (count: number) => Array.from({ length: count }, (_, row) => [`r${row + 1}`, 'x']);

function settled(start: ReturnType<typeof startPage>): SettledPage {
  if (!('settled' in start)) throw new Error('expected a settled page');
  return start.settled;
}

describe('a page of a range', () => {
  it('values running to the range’s end: the data ends at its last row and column', () => {
    const { page, blankBelow } = settled(
      startPage(rows(14), { ...place, rangeEnd: 40 }, 0, 200, pageBudget(), { toEnd: true, end: 40 }),
    );
    expect(page).toMatchObject({
      nextOffset: null,
      totalRows: 14,
      lastRow: 14,
      lastColumn: 'B',
      stoppedBy: 'end',
    });
    expect(blankBelow).toBe(26);
    expect(pageNotice('T', page, 0)).toBe(
      '\nData ends at row 14 (last column B): nothing below it in the range.',
    );
  });

  it('a window whose data ended short of the range’s end looks below before it says anything', () => {
    const start = startPage(rows(14), place, 0, 200, pageBudget(), { toEnd: false, end: 1_000 });
    expect(start).toMatchObject({ lookFrom: 1_000 });
    if (!('settle' in start)) return;
    expect(start.settle({ kind: 'data', row: 1_400 })).toEqual({
      page: expect.objectContaining({ nextOffset: 1_400, stoppedBy: 'limit', lastRow: null }),
      blankBelow: 1_386,
    });
    expect(start.settle({ kind: 'end' }).page).toMatchObject({ nextOffset: null, lastRow: 14 });
    const looked = start.settle({ kind: 'looked', through: 5_000 }).page;
    expect(looked).toMatchObject({ nextOffset: 5_000, stoppedBy: 'scan' });
    expect(pageNotice('T', looked, 0)).toBe(
      '\n… rows 15–5000 are blank and the read looked no further; call read_range with range="T" and offset=5000 to look on.',
    );
  });

  it('the limit reached: nextOffset is the next row holding data, past blank rows', () => {
    const values = [...rows(3), [], [], ['late']];
    const { page, blankBelow } = settled(
      startPage(values, place, 0, 3, pageBudget(), { toEnd: false, end: 7 }),
    );
    expect(page).toMatchObject({ returnedRows: 3, nextOffset: 5, stoppedBy: 'limit' });
    expect(blankBelow).toBe(2);
    expect(pageNotice('T', page, 0)).toBe(
      '\n… more data from row 6; call read_range with range="T" and offset=5.',
    );
  });

  it('the size budget reached: it says so', () => {
    const long = Array.from({ length: 10 }, () => ['y'.repeat(20_000)]);
    const { page } = settled(startPage(long, place, 0, 200, pageBudget(), { toEnd: true, end: 10 }));
    expect(page).toMatchObject({ returnedRows: 2, nextOffset: 2, stoppedBy: 'budget', totalRows: 10 });
    expect(pageNotice('T', page, 0)).toContain("the page stopped at the answer's size budget");
  });

  it('nothing from the offset on, and a range with no data at all', () => {
    const past = settled(
      startPage([], { ...place, top: 50 }, 50, 10, pageBudget(), { toEnd: true, end: 50 }),
    );
    expect(past.page).toMatchObject({ nextOffset: null, lastRow: null, totalRows: null });
    expect(pageNotice('T', past.page, 0)).toBe('\nNo data in the range from row 51 on.');
    const empty = settled(startPage([], place, 0, 10, pageBudget(), { toEnd: true, end: 0 }));
    expect(pageNotice('T', empty.page, 0)).toBe('\nThe range holds no data.');
  });
});
