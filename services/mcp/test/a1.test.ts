import { describe, expect, it } from 'vitest';
import {
  columnLetters,
  gridBounds,
  normalizeRange,
  quoteSheetName,
  rangeOnSheet,
  splitRange,
} from '../src/tools/kit/a1.ts';

describe('A1 helpers', () => {
  it.each([
    ['Sheet1', 'Sheet1'],
    ['My tab', "'My tab'"],
    ["It's", "'It''s'"],
    ['A1', "'A1'"],
    ['R1C1', "'R1C1'"],
    ['Données 2024', "'Données 2024'"],
    ['2024', "'2024'"],
    ['sales_q1', 'sales_q1'],
  ])('quotes %j as %s', (title, quoted) => {
    expect(quoteSheetName(title)).toBe(quoted);
  });

  it.each([
    ['Sheet1!A1:B2', 'Sheet1!A1:B2'],
    ['My tab!A1:B2', "'My tab'!A1:B2"],
    ["'My tab'!A:A", "'My tab'!A:A"],
    ["'It''s'!A1", "'It''s'!A1"],
    ["It's!A1", "'It''s'!A1"],
    ['A1:C3', 'A1:C3'],
    ['  Budget 2025!B2  ', "'Budget 2025'!B2"],
  ])('normalizes %j to %s', (range, normalized) => {
    expect(normalizeRange(range)).toBe(normalized);
  });

  it('builds ranges and column letters', () => {
    expect(rangeOnSheet('My tab', 'A1:C9')).toBe("'My tab'!A1:C9");
    expect(rangeOnSheet('Sheet1')).toBe('Sheet1');
    expect([0, 25, 26, 51, 52, 701, 702].map(columnLetters)).toEqual([
      'A',
      'Z',
      'AA',
      'AZ',
      'BA',
      'ZZ',
      'AAA',
    ]);
  });
});

describe('grid bounds', () => {
  it.each([
    ['B2', { startColumnIndex: 1, endColumnIndex: 2, startRowIndex: 1, endRowIndex: 2 }],
    ['A1:C9', { startColumnIndex: 0, endColumnIndex: 3, startRowIndex: 0, endRowIndex: 9 }],
    ['A:C', { startColumnIndex: 0, endColumnIndex: 3 }],
    ['2:5', { startRowIndex: 1, endRowIndex: 5 }],
    ['A2:C', { startColumnIndex: 0, endColumnIndex: 3, startRowIndex: 1 }],
    ['', {}],
  ])('parses %j', (cells, bounds) => {
    expect(gridBounds(cells)).toEqual(bounds);
  });

  it.each(['A1:B2:C3', '1A', 'A:', 'A1;DROP', 'ABCD1', 'BIG', '12'])('refuses %j', (cells) => {
    expect(gridBounds(cells)).toBeUndefined();
  });

  it('splits ranges into tab and cells', () => {
    expect(splitRange("'My tab'!A1:B2")).toEqual({ sheetTitle: 'My tab', cells: 'A1:B2' });
    expect(splitRange('A1:B2')).toEqual({ sheetTitle: undefined, cells: 'A1:B2' });
    expect(splitRange('Budget')).toEqual({ sheetTitle: 'Budget', cells: '' });
    // A name of three letters or fewer is a tab, as Sheets reads it, not a lone column.
    expect(splitRange('Big')).toEqual({ sheetTitle: 'Big', cells: '' });
  });
});
