import { describe, expect, it } from 'vitest';
import { isInteractionUid, URL_SAFE_ID } from '../src/url-safe-id.ts';

describe('interaction uids', () => {
  it.each(['a', 'abc_DEF-123', 'x'.repeat(64)])('accepts %j', (value) => {
    expect(isInteractionUid(value)).toBe(true);
    expect(URL_SAFE_ID.test(value)).toBe(true);
  });

  it.each(['', 'x'.repeat(65), 'abc/def', 'abc def', 'abc.def', '../x', 'uid%2F', 'uid\n', 'é'])(
    'refuses %j',
    (value) => {
      expect(isInteractionUid(value)).toBe(false);
    },
  );

  it('refuses what is not a string', () => {
    expect(isInteractionUid(undefined)).toBe(false);
    expect(isInteractionUid(['abc'])).toBe(false);
  });
});
