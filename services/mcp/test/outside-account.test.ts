import { describe, expect, it } from 'vitest';
import { isOutside } from '../src/tools/guards/outside-account.ts';

// isOutside: the two readings of "outside the person's account" (issue 37) — the Workspace
// domain from the ID token's `hd` claim, or for a consumer account every other address.

const alice = { email: 'alice@example.com', hostedDomain: 'example.com' };
const carol = { email: 'carol@gmail.com' };

describe('a Workspace person', () => {
  it('is inside with anyone in their domain, themselves included', () => {
    expect(isOutside(alice, 'bob@example.com')).toBe(false);
    expect(isOutside(alice, 'alice@example.com')).toBe(false);
  });

  it('compares trimmed and case-insensitively, on both sides', () => {
    expect(isOutside(alice, '  Bob@EXAMPLE.com\n')).toBe(false);
    expect(isOutside({ email: 'alice@example.com', hostedDomain: ' Example.COM ' }, 'bob@example.com')).toBe(
      false,
    );
  });

  it('reads another domain as outside, a consumer address included', () => {
    expect(isOutside(alice, 'mallory@example.net')).toBe(true);
    expect(isOutside(alice, 'carol@gmail.com')).toBe(true);
  });

  it('reads a subdomain or a look-alike of the domain as outside', () => {
    expect(isOutside(alice, 'bob@sub.example.com')).toBe(true);
    expect(isOutside(alice, 'bob@example.com.evil.test')).toBe(true);
    expect(isOutside(alice, 'bob@notexample.com')).toBe(true);
    expect(isOutside(alice, 'bob@example.com.')).toBe(true);
    expect(isOutside(alice, 'bob@exаmple.com')).toBe(true); // Cyrillic "а"
  });

  it('takes the domain after the last @', () => {
    expect(isOutside(alice, 'bob@example.com@evil.test')).toBe(true);
    expect(isOutside(alice, '"bob@evil.test"@example.com')).toBe(false);
  });

  it('reads anything without a domain as outside', () => {
    for (const recipient of ['', '   ', 'example.com', '@example.com', 'bob@', 'bob']) {
      expect(isOutside(alice, recipient), recipient).toBe(true);
    }
  });
});

describe('a consumer person', () => {
  it('is inside only with their own address, trimmed and case-insensitive', () => {
    expect(isOutside(carol, 'carol@gmail.com')).toBe(false);
    expect(isOutside(carol, ' Carol@Gmail.COM ')).toBe(false);
    expect(isOutside({ email: ' CAROL@gmail.com ' }, 'carol@gmail.com')).toBe(false);
  });

  it('reads every other address as outside, in their provider or not', () => {
    expect(isOutside(carol, 'dave@gmail.com')).toBe(true);
    expect(isOutside(carol, 'alice@example.com')).toBe(true);
    expect(isOutside(carol, 'carol@gmail.com.evil.test')).toBe(true);
  });

  it('does not fold Gmail dots or +tags: the side that asks', () => {
    expect(isOutside(carol, 'c.arol@gmail.com')).toBe(true);
    expect(isOutside(carol, 'carol+x@gmail.com')).toBe(true);
  });

  it('treats an empty hosted domain as a consumer account', () => {
    expect(isOutside({ email: 'carol@gmail.com', hostedDomain: '' }, 'dave@gmail.com')).toBe(true);
    expect(isOutside({ email: 'carol@gmail.com', hostedDomain: '  ' }, 'carol@gmail.com')).toBe(false);
  });

  it('reads anything without a domain as outside', () => {
    expect(isOutside(carol, '')).toBe(true);
    expect(isOutside({ email: '' }, '')).toBe(true);
  });
});
