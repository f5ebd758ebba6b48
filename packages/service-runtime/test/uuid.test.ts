import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isUuid } from '../src/uuid.ts';

describe('isUuid', () => {
  it("accepts a UUID's text form, in either case", () => {
    const id = randomUUID();
    expect(isUuid(id)).toBe(true);
    expect(isUuid(id.toUpperCase())).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['too short', '123e4567-e89b-12d3-a456-42661417400'],
    ['a line break after it', '123e4567-e89b-12d3-a456-426614174000\n'],
    ['no hyphens', '123e4567e89b12d3a456426614174000'],
    ['braces', '{123e4567-e89b-12d3-a456-426614174000}'],
    ['not hex', '123e4567-e89b-12d3-a456-42661417400g'],
    ['SQL', "123e4567-e89b-12d3-a456-426614174000' OR 1=1"],
  ])('refuses %s', (_case, value) => {
    expect(isUuid(value)).toBe(false);
  });

  it('refuses what is not a string', () => {
    for (const value of [undefined, null, 42, {}, ['123e4567-e89b-12d3-a456-426614174000']])
      expect(isUuid(value)).toBe(false);
  });
});
