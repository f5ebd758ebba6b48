import { describe, expect, it } from 'vitest';
import { canonicalToolsets, DEFAULT_TOOLSETS, isToolsetName, TOOLSET_NAMES, TOOLSETS } from '../src/index.ts';

describe('toolsets', () => {
  it('has unique, URL- and claim-safe names, each with a title', () => {
    expect(new Set(TOOLSET_NAMES).size).toBe(TOOLSETS.length);
    for (const set of TOOLSETS) {
      expect(set.name).toMatch(/^[a-z][a-z-]*$/);
      expect(set.title.length).toBeGreaterThan(0);
    }
  });

  it('defaults to reading and writing', () => {
    expect(DEFAULT_TOOLSETS).toEqual(['core-read', 'core-write']);
    expect(DEFAULT_TOOLSETS.every(isToolsetName)).toBe(true);
  });

  it('puts names in TOOLSETS order without repeats, and refuses an unknown one', () => {
    expect(canonicalToolsets(['files', 'core-read', 'files'])).toEqual(['core-read', 'files']);
    expect(canonicalToolsets([])).toEqual([]);
    expect(canonicalToolsets(['core-read', 'everything'])).toBeUndefined();
    expect(canonicalToolsets([1])).toBeUndefined();
  });
});
