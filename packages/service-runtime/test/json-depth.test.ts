import { describe, expect, it } from 'vitest';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../src/json-depth.ts';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('jsonNestsDeeperThan', () => {
  it('counts arrays and objects, mixed, up to the limit and one past it', () => {
    expect(jsonNestsDeeperThan(nested(3), 3)).toBe(false);
    expect(jsonNestsDeeperThan(nested(4), 3)).toBe(true);
    expect(jsonNestsDeeperThan(nestedObjects(3), 3)).toBe(false);
    expect(jsonNestsDeeperThan(nestedObjects(4), 3)).toBe(true);
    expect(jsonNestsDeeperThan('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":[{"b":[[1]]}]}', 4)).toBe(true);
  });

  it('measures depth, not how many containers follow one another', () => {
    expect(jsonNestsDeeperThan(`[${Array.from({ length: 1000 }, () => '[[1]]').join(',')}]`, 3)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestsDeeperThan(JSON.stringify({ text: '[[[[[[{{{{' }), 1)).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify({ text: 'say \\"[[[[ and "[[[[' }), 1)).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify(['\\', [[1]]]), 2)).toBe(true);
  });

  it('answers for hostile bodies nested far past any stack, without recursing', () => {
    expect(jsonNestsDeeperThan(nested(1_000_000))).toBe(true);
    expect(jsonNestsDeeperThan(nestedObjects(100_000))).toBe(true);
    expect(jsonNestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
  });
});
