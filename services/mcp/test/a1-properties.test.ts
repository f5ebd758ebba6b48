import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnLetters, gridBounds, normalizeRange, rangeOnSheet, splitRange } from '../src/tools/kit/a1.ts';

// Property-based: A1 ranges as the tools build and read them, for tab names of any characters a
// person may type into Google Sheets — quotes, spaces, `!`, `:`, digits, emoji, other scripts.

/** A tab name Google accepts: anything but blank. */
const tabName = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
    // Mostly the characters A1 notation gives meaning to: quotes, `!`, `:`, `$`, spaces, digits.
    fc.string({
      unit: fc.constantFrom("'", '!', ':', '$', ' ', 'A', 'b', '1', '_', 'é', '表', '😀', '"'),
      minLength: 1,
      maxLength: 30,
    }),
  )
  .filter((name) => name.trim() !== '');

/** The cell part of a range: a cell, a rectangle, whole columns or whole rows. */
const cells = fc
  .record({
    column: fc.integer({ min: 0, max: 18_277 }),
    row: fc.integer({ min: 1, max: 9_999_999 }),
    toColumn: fc.integer({ min: 0, max: 18_277 }),
    toRow: fc.integer({ min: 1, max: 9_999_999 }),
    shape: fc.constantFrom('cell', 'rectangle', 'columns', 'rows'),
  })
  .map(({ column, row, toColumn, toRow, shape }) => {
    const [from, to] = [columnLetters(column), columnLetters(toColumn)];
    if (shape === 'cell') return `${from}${row}`;
    if (shape === 'rectangle') return `${from}${row}:${to}${toRow}`;
    if (shape === 'columns') return `${from}:${to}`;
    return `${row}:${toRow}`;
  });

describe('A1 ranges (property-based)', () => {
  it('a range built on any tab name reads back as that tab and those cells', () => {
    fc.assert(
      fc.property(tabName, cells, (title, cellPart) => {
        expect(splitRange(rangeOnSheet(title, cellPart))).toEqual({ sheetTitle: title, cells: cellPart });
      }),
      { numRuns: 1_000 },
    );
  });

  it('a whole-sheet range on any tab name reads back as that tab', () => {
    fc.assert(
      fc.property(tabName, (title) => {
        expect(splitRange(rangeOnSheet(title))).toEqual({ sheetTitle: title, cells: '' });
      }),
      { numRuns: 1_000 },
    );
  });

  it('normalising is idempotent and never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        const once = normalizeRange(text);
        expect(normalizeRange(once)).toBe(once);
        expect(() => splitRange(text)).not.toThrow();
        expect(() => gridBounds(text)).not.toThrow();
      }),
      { numRuns: 1_000 },
    );
  });

  it('the grid bounds of a cell are its zero-based row and column', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 18_277 }),
        fc.integer({ min: 0, max: 9_999_998 }),
        (column, row) => {
          expect(gridBounds(`${columnLetters(column)}${row + 1}`)).toEqual({
            startColumnIndex: column,
            endColumnIndex: column + 1,
            startRowIndex: row,
            endRowIndex: row + 1,
          });
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
