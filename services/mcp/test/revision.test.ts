import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CellArea,
  checkRevision,
  parseRevision,
  revisionCovers,
  revisionOf,
  revisionRange,
  rowsToCheck,
} from '../src/tools/kit/revision.ts';

// The revision token (docs/design.md §11): the area of a tab it vouches for, that a write to any
// part of that area is checked against the rows it changes, and that no string a client sends can
// make checking it throw, loop long, or pass for an area it was not taken of.

const cell = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
const grid = fc.array(fc.array(cell, { maxLength: 5 }), { maxLength: 300 });
/** A read of `Tab`'s columns B:F from row 1. */
const AREA = { sheet: 'Tab', top: 0, left: 1, width: 5 };

/** What a check of a write to `area` reads again, taken from `values` (the rows from the read's top). */
function current(values: unknown[][], area: CellArea, sheet = 'Tab') {
  const parsed = parseRevision(revisionOf('FORMULA', AREA, values, 0))!;
  const { first, end } = rowsToCheck(parsed, area);
  return { sheet, first, values: values.slice(first, end) };
}

describe('revision', () => {
  it('round-trips: a write to any part of what was read checks out while it is unchanged', () => {
    fc.assert(
      fc.property(
        grid.filter((values) => values.length > 0),
        fc.nat(),
        fc.nat(),
        (values, a, b) => {
          const parsed = parseRevision(revisionOf('FORMULA', AREA, values, 0));
          expect(parsed).toBeDefined();
          const top = a % values.length;
          const rows = 1 + (b % (values.length - top));
          const area = { top, left: 2, rows, columns: 3 };
          expect(revisionCovers(parsed!, area)).toBe(true);
          const { first, end } = rowsToCheck(parsed!, area);
          expect(
            checkRevision(parsed!, area, { sheet: 'Tab', first, values: values.slice(first, end) }),
          ).toEqual({
            ok: true,
          });
        },
      ),
    );
  });

  it('names the group of a changed row the write covers, and only that group', () => {
    fc.assert(
      fc.property(
        grid.filter((values) => values.length > 0),
        fc.nat(),
        (values, pick) => {
          const row = pick % values.length;
          const parsed = parseRevision(revisionOf('FORMULA', AREA, values, 0))!;
          const changed = values.map((each, index) => (index === row ? [...each, 'changed'] : each));
          const area = { top: row, left: 1, rows: 1, columns: 1 };
          const check = checkRevision(parsed, area, current(changed, area));
          expect(check.ok).toBe(false);
          if (check.ok || check.reason !== 'changed') return;
          expect(check.rows).toHaveLength(1);
          const [first, last] = check.rows[0]!;
          expect(first).toBeLessThanOrEqual(row + 1);
          expect(last).toBeGreaterThanOrEqual(row + 1);
          expect(last - first).toBeLessThan(Math.ceil(values.length / 32));
        },
      ),
    );
  });

  it('a change in rows the write does not touch does not refuse it', () => {
    const values = [['a'], ['b'], ['c'], ['d']];
    const parsed = parseRevision(revisionOf('FORMULA', AREA, values, 0))!;
    const area = { top: 1, left: 5, rows: 3, columns: 1 };
    expect(checkRevision(parsed, area, current([['changed'], ...values.slice(1)], area))).toEqual({
      ok: true,
    });
  });

  it('covers the rows below seen blank, and refuses them once they hold data', () => {
    const parsed = parseRevision(revisionOf('FORMULA', AREA, [['a']], 3))!;
    expect(revisionRange(parsed)).toBe('B1:F4');
    const below = { top: 3, left: 1, rows: 1, columns: 5 };
    expect(revisionCovers(parsed, below)).toBe(true);
    expect(revisionCovers(parsed, { ...below, top: 4 })).toBe(false);
    expect(checkRevision(parsed, below, { sheet: 'Tab', first: 3, values: [] })).toEqual({ ok: true });
    expect(checkRevision(parsed, below, { sheet: 'Tab', first: 3, values: [['new']] })).toEqual({
      ok: false,
      reason: 'changed',
      rows: [[4, 4]],
    });
    const open = parseRevision(revisionOf('FORMULA', { ...AREA, width: null, left: 0 }, [['a']], null))!;
    expect(revisionRange(open)).toBe('rows 1 on');
    expect(revisionCovers(open, { top: 9_000, left: 300, rows: 10, columns: 10 })).toBe(true);
  });

  it('does not cover cells outside the columns or rows read', () => {
    const parsed = parseRevision(revisionOf('FORMULA', AREA, [['a'], ['b']], 0))!;
    expect(revisionCovers(parsed, { top: 0, left: 0, rows: 1, columns: 1 })).toBe(false);
    expect(revisionCovers(parsed, { top: 0, left: 5, rows: 1, columns: 2 })).toBe(false);
    expect(revisionCovers(parsed, { top: 1, left: 5, rows: 2, columns: 1 })).toBe(false);
  });

  it('stays short however many rows a page has', () => {
    const values = Array.from({ length: 2_000 }, (_, row) => [row]);
    const token = revisionOf(
      'FORMATTED_VALUE',
      { sheet: 'T', top: 9_990_000, left: 18_000, width: 278 },
      values,
      999,
    );
    expect(token.length).toBeLessThanOrEqual(170);
    expect(parseRevision(token)).toBeDefined();
  });

  it('a revision of another tab is told apart from a change', () => {
    const values = [['a']];
    const parsed = parseRevision(revisionOf('FORMULA', AREA, values, 0))!;
    const area = { top: 0, left: 1, rows: 1, columns: 1 };
    expect(checkRevision(parsed, area, { sheet: 'Other', first: 0, values })).toEqual({
      ok: false,
      reason: 'other-tab',
    });
  });

  it('hostile tokens parse to undefined or to something bounded, never throw', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.stringMatching(
            /^2\.[FUV][A-Za-z0-9_-]{5}\.[0-9a-z]{1,5}\.[0-9a-z]{1,4}\.([0-9a-z]{1,4}|\*)\.[0-9a-z]{1,3}\.([0-9a-z]{1,5}|\*)\.([A-Za-z0-9_-]{4}){0,32}$/,
          ),
        ),
        (token) => {
          const parsed = parseRevision(token);
          if (parsed === undefined) return;
          expect(parsed.rows).toBeLessThanOrEqual(2_000);
          const area = { top: parsed.top, left: parsed.left, rows: 1, columns: 1 };
          const { first, end } = rowsToCheck(parsed, area);
          expect(end - first).toBeLessThanOrEqual(2_001);
          expect(checkRevision(parsed, area, { sheet: 'T', first, values: [['x']] }).ok).toBe(false);
        },
      ),
    );
  });
});
