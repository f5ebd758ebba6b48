import { describe, expect, it } from 'vitest';
import { isPastGridError, pageWindow, WINDOW_ROWS } from '../src/tools/kit/page-window.ts';

describe('pageWindow', () => {
  it('a tab alone: whole rows from the offset, the page and one row more', () => {
    expect(pageWindow("'My tab'", 0, 20)).toEqual({
      kind: 'rows',
      range: `'My tab'!1:21`,
      rows: 21,
      first: 0,
      rangeTop: 0,
      rangeEnd: undefined,
      sheetTitle: 'My tab',
      columns: undefined,
      lastOfRange: false,
      maybeNamedRange: false,
    });
    expect(pageWindow('Sheet1', 1_000, 2_000)).toMatchObject({
      kind: 'rows',
      range: 'Sheet1!1001:3001',
      rows: 2_001,
      first: 1_000,
      lastOfRange: false,
      maybeNamedRange: true,
    });
  });

  it('columns keep their letters; the window starts at the range’s top plus the offset', () => {
    expect(pageWindow('Sheet1!B5:D', 10, 20)).toMatchObject({ range: 'Sheet1!B15:D35' });
    expect(pageWindow('A:AB', 0, 1)).toMatchObject({ range: 'A1:AB2' });
  });

  it('a bounded range ends the window at its last row, and says so', () => {
    expect(pageWindow('Sheet1!A1:C40', 30, 5)).toEqual({
      kind: 'rows',
      range: 'Sheet1!A31:C40',
      rows: 10,
      first: 30,
      rangeTop: 0,
      rangeEnd: 40,
      sheetTitle: 'Sheet1',
      columns: ['A', 'C'],
      lastOfRange: true,
      maybeNamedRange: false,
    });
    // A bounded range whose rest fits WINDOW_ROWS is read to its end; a taller one a page at a time.
    expect(pageWindow('Sheet1!A1:C40', 0, 5)).toMatchObject({ range: 'Sheet1!A1:C40', lastOfRange: true });
    expect(pageWindow(`Sheet1!A1:C${WINDOW_ROWS + 1}`, 0, 5)).toMatchObject({
      range: 'Sheet1!A1:C6',
      lastOfRange: false,
    });
    expect(pageWindow('Sheet1!A1:C40', 40, 5)).toEqual({ kind: 'past-end' });
    expect(pageWindow('Sheet1!B2', 0, 5)).toMatchObject({
      range: 'Sheet1!B2:B2',
      rows: 1,
      lastOfRange: true,
    });
  });

  it('what has no row window is read whole: named ranges, and columns open on one side', () => {
    // A bare name is read as a tab's first; the tools read it whole if Google knows no such tab.
    expect(pageWindow('Budget_2026', 0, 5)).toMatchObject({
      range: 'Budget_2026!1:6',
      maybeNamedRange: true,
    });
    expect(pageWindow('Big tab', 0, 5)).toMatchObject({ maybeNamedRange: false });
    expect(pageWindow('Budget_2026!A:C', 0, 5)).toMatchObject({ maybeNamedRange: false });
    expect(pageWindow('Sheet1!B5:10', 0, 5)).toEqual({ kind: 'whole' });
    expect(pageWindow('Sheet1!A1:B2:C3', 0, 5)).toEqual({ kind: 'whole' });
  });

  it('recognises Google’s refusal of a read below the grid', () => {
    expect(
      isPastGridError(
        new Error(
          'Google refused the request: Range (Sheet1!A2001:B2500) exceeds grid limits. Max rows: 1000, max columns: 26',
        ),
      ),
    ).toBe(true);
    expect(isPastGridError(new Error('Unable to parse range'))).toBe(false);
    expect(isPastGridError(undefined)).toBe(false);
  });
});
