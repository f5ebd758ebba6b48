import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../src/errors/tool-error.ts';
import {
  FILTER_OPERATORS,
  type Filter,
  filterInput,
  filterText,
  matches,
  numberOf,
  parseFilter,
  rowFilter,
} from '../src/tools/sets/core-read/record-filters.ts';

// Property-based: read_records' filters for hostile text — quotes, operators, `contains`, spaces,
// emoji and other scripts in column names and values — and cells of any kind.

const hostile = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({
    unit: fc.constantFrom('"', '=', '!', '<', '>', ' ', 'contains', 'a', '1', ',', '.', '-', 'é', '😀', '\t'),
    maxLength: 20,
  }),
);
const filter: fc.Arbitrary<Filter> = fc.record({
  column: hostile.filter((text) => text !== ''),
  op: fc.constantFrom(...FILTER_OPERATORS),
  value: hostile,
});
const cell = fc.oneof(
  hostile,
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer().map(String),
  fc.boolean(),
  fc.constant(null),
);

describe('read_records filters (property-based)', () => {
  it('the text form of any filter parses back to that filter', () => {
    fc.assert(
      fc.property(filter, (each) => {
        expect(parseFilter(filterText(each))).toEqual(each);
      }),
      { numRuns: 2_000 },
    );
  });

  it('a filter given as an object is taken as the text that parses back to it; a stray key is refused', () => {
    fc.assert(
      fc.property(filter, fc.oneof(fc.constant(undefined), fc.integer(), fc.boolean()), (each, typed) => {
        const given = typed === undefined ? each : { ...each, value: typed };
        const read = filterInput.safeParse(given);
        expect(read.success).toBe(true);
        expect(parseFilter(read.data!)).toEqual({ ...each, value: String(given.value) });
      }),
      { numRuns: 1_000 },
    );
    const stray = filterInput.safeParse({ column: 'Total', op: '>', value: 1, negate: true });
    expect(stray.error?.issues.map((issue) => issue.code)).toEqual(['unrecognized_keys']);
    expect(filterInput.safeParse({ column: 'Total', op: 'like', value: 1 }).success).toBe(false);
    expect(filterInput.safeParse([]).error?.issues[0]?.message).toContain('write a filter as');
  });

  it('any text either parses to a filter with a column, or is a ToolError saying how to write one', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        try {
          const parsed = parseFilter(text);
          expect(parsed.column).not.toBe('');
          expect(FILTER_OPERATORS).toContain(parsed.op);
        } catch (error) {
          expect(error).toBeInstanceOf(ToolError);
          expect((error as Error).message).toMatch(/^cannot read the filter .*; write a filter as/s);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('an unquoted column and value without operators read as written, trimmed', () => {
    const plain = fc
      .string({ unit: fc.constantFrom('a', 'B', '1', '_', 'é', '表', ' '), minLength: 1, maxLength: 15 })
      .filter((text) => text.trim() !== '' && !/(^|\s)contains(\s|$)/i.test(text));
    fc.assert(
      fc.property(plain, fc.constantFrom('=', '!=', '>', '>=', '<', '<='), plain, (column, op, value) => {
        expect(parseFilter(`${column}${op}${value}`)).toEqual({
          column: column.trim(),
          op,
          value: value.trim(),
        });
      }),
    );
  });

  it('numbers compare as numbers: a number cell against any number agrees with <, =, >', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer({ min: -1_000_000, max: 1_000_000 }),
        (value, target) => {
          const at = (op: Filter['op']) => matches(value, { column: 'x', op, value: String(target) });
          expect(at('>')).toBe(value > target);
          expect(at('>=')).toBe(value >= target);
          expect(at('<')).toBe(value < target);
          expect(at('<=')).toBe(value <= target);
          expect(at('=')).toBe(value === target);
          expect(at('!=')).toBe(value !== target);
        },
      ),
    );
  });

  it('grouped digits read as the number they show', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (value) => {
        expect(numberOf(value.toLocaleString('en-US'))).toBe(value);
        expect(numberOf(`-${value.toLocaleString('en-US')}.5`)).toBe(-(value + 0.5));
      }),
    );
  });

  it('= and != are complements, and ordering against a number never matches a non-number', () => {
    fc.assert(
      fc.property(cell, filter, (value, each) => {
        const equal = matches(value, { ...each, op: '=' });
        expect(matches(value, { ...each, op: '!=' })).toBe(!equal);
        if (numberOf(each.value) !== undefined && numberOf(value) === undefined)
          for (const op of ['>', '>=', '<', '<='] as const)
            expect(matches(value, { ...each, op })).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });

  it('filters are ANDed, and a filter naming an unknown column fails before any row is read', () => {
    fc.assert(
      fc.property(fc.array(filter, { maxLength: 5 }), fc.array(cell, { maxLength: 5 }), (filters, row) => {
        const columns = filters.map((each) => each.column);
        const test = rowFilter(filters, (name) => columns.indexOf(name));
        const expected = filters.every((each) => matches(row[columns.indexOf(each.column)], each));
        expect(test(row)).toBe(expected);
        const unknown = () => {
          throw new ToolError('unknown column');
        };
        if (filters.length > 0) expect(() => rowFilter(filters, unknown)).toThrow(ToolError);
      }),
    );
  });
});
