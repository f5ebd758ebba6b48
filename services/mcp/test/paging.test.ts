import { describe, expect, it } from 'vitest';
import { PAGE_CELL_BUDGET, PAGE_CHARACTER_BUDGET, page, pageBudget } from '../src/tools/kit/paging.ts';

const rows = (count: number, cell: string, width = 1) =>
  Array.from({ length: count }, () => Array.from({ length: width }, () => cell));

describe('paging of values', () => {
  it('returns at most `limit` rows from `offset` and says where the next page starts', () => {
    const values = rows(10, 'x');
    expect(page(values, 0, 4, pageBudget())).toEqual({ rows: rows(4, 'x'), nextOffset: 4, remaining: 6 });
    expect(page(values, 8, 4, pageBudget())).toEqual({ rows: rows(2, 'x'), nextOffset: null, remaining: 0 });
    expect(page(values, 20, 4, pageBudget())).toEqual({ rows: [], nextOffset: null, remaining: 0 });
  });

  it('stops at the character budget, whatever the row limit', () => {
    const long = 'y'.repeat(10_000);
    const result = page(rows(100, long), 0, 2_000, pageBudget());
    expect(result.rows.length).toBe(Math.floor(PAGE_CHARACTER_BUDGET / (long.length + 1)));
    expect(result.nextOffset).toBe(result.rows.length);
  });

  it('stops at the cell budget for wide rows of short cells', () => {
    const result = page(rows(100, '1', 1_000), 0, 2_000, pageBudget());
    expect(result.rows.length).toBe(PAGE_CELL_BUDGET / 1_000);
  });

  it('always returns one row, so paging makes progress', () => {
    const huge = [['z'.repeat(PAGE_CHARACTER_BUDGET * 2)], ['next']];
    expect(page(huge, 0, 10, pageBudget())).toMatchObject({ nextOffset: 1, remaining: 1 });
  });

  it('shares one budget across the ranges of one call', () => {
    const budget = pageBudget();
    const long = 'w'.repeat(20_000);
    expect(page(rows(2, long), 0, 10, budget).rows).toHaveLength(2);
    expect(page(rows(2, long), 0, 10, budget).rows).toHaveLength(1);
  });

  it('gives the ranges after the shared budget is spent no rows, only the read_range notice', () => {
    const budget = pageBudget();
    const long = 'v'.repeat(20_000);
    // As read_ranges pages 50 ranges whose first row alone is 20,000 characters.
    const pages = Array.from({ length: 50 }, () => page(rows(2, long), 0, 10, budget));
    // The first range's two rows fit; the second still gets one row over the rest of the budget
    // (it was not spent yet)…
    expect(pages.slice(0, 2).map((each) => each.rows.length)).toEqual([2, 1]);
    // …and every range after it gets none, with the offset read_range continues from.
    for (const each of pages.slice(2)) expect(each).toEqual({ rows: [], nextOffset: 0, remaining: 2 });
  });
});
