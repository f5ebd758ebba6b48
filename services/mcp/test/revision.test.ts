import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRevision, parseRevision, revisionOf } from '../src/tools/kit/revision.ts';

// The revision token (docs/design.md §11): what it covers, and that no string a client sends can
// make checking it throw, loop long, or pass for a range it was not taken of.

const cell = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
const grid = fc.array(fc.array(cell, { maxLength: 5 }), { maxLength: 300 });

describe('revision', () => {
  it('round-trips: the revision of what is there now checks out', () => {
    fc.assert(
      fc.property(grid, fc.boolean(), (values, ended) => {
        const parsed = parseRevision(revisionOf('FORMULA', 'Tab!A1:E300', 0, values, ended));
        expect(parsed).toBeDefined();
        expect(checkRevision(parsed!, 'Tab!A1:E300', values)).toEqual({ ok: true });
      }),
    );
  });

  it('names the group of a changed row, and only that group', () => {
    fc.assert(
      fc.property(
        grid.filter((values) => values.length > 0),
        fc.nat(),
        (values, pick) => {
          const row = pick % values.length;
          const parsed = parseRevision(revisionOf('FORMULA', 'T', 0, values, true))!;
          const changed = values.map((each, index) => (index === row ? [...each, 'changed'] : each));
          const check = checkRevision(parsed, 'T', changed);
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

  it('stays short however many rows a page has', () => {
    const values = Array.from({ length: 2_000 }, (_, row) => [row]);
    expect(revisionOf('FORMATTED_VALUE', 'T', 0, values, false).length).toBeLessThanOrEqual(150);
  });

  it('a revision of another range, offset or rendering is told apart from a change', () => {
    const values = [['a']];
    for (const [render, range, offset] of [
      ['FORMULA', 'Other', 0],
      ['FORMULA', 'T', 5],
      ['FORMATTED_VALUE', 'T', 0],
    ] as const) {
      const parsed = parseRevision(revisionOf(render, range, offset, values, true))!;
      const check = checkRevision({ ...parsed, render: 'FORMULA' }, 'T', values);
      expect(check).toEqual({ ok: false, reason: 'other-range' });
    }
  });

  it('hostile tokens parse to undefined or to something bounded, never throw', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.stringMatching(/^1\.[FUV][A-Za-z0-9_-]{6}\.[0-9a-z]{1,7}[eo]\.([A-Za-z0-9_-]{4}){0,32}$/),
        ),
        (token) => {
          const parsed = parseRevision(token);
          if (parsed === undefined) return;
          expect(parsed.rows).toBeLessThanOrEqual(2_000);
          expect(checkRevision(parsed, 'T', [['x']]).ok).toBe(false);
        },
      ),
    );
  });
});
