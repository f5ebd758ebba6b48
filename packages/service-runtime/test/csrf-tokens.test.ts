import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCsrfTokens } from '../src/csrf-tokens.ts';

const secret = randomBytes(32).toString('base64url');
type Purpose = 'consent' | 'sign-out';

describe('CSRF tokens', () => {
  const tokens = createCsrfTokens<Purpose>(secret, 'test forms v1');

  it('verify for the purpose and binding they were issued for', () => {
    const token = tokens.issue('consent', 'uid-1');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.verify('consent', 'uid-1', token)).toBe(true);
  });

  it('are refused for another purpose, another binding, or no binding', () => {
    const token = tokens.issue('consent', 'uid-1');
    expect(tokens.verify('sign-out', 'uid-1', token)).toBe(false);
    expect(tokens.verify('consent', 'uid-2', token)).toBe(false);
    expect(tokens.verify('consent', '', tokens.issue('consent', ''))).toBe(false);
  });

  it('are refused tampered, truncated, oversized or not a string', () => {
    const token = tokens.issue('consent', 'uid-1');
    const flipped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect(tokens.verify('consent', 'uid-1', flipped)).toBe(false);
    expect(tokens.verify('consent', 'uid-1', token.slice(0, -1))).toBe(false);
    expect(tokens.verify('consent', 'uid-1', `${token}${'a'.repeat(100)}`)).toBe(false);
    expect(tokens.verify('consent', 'uid-1', 'x'.repeat(10_000))).toBe(false);
    expect(tokens.verify('consent', 'uid-1', undefined)).toBe(false);
    expect(tokens.verify('consent', 'uid-1', [token])).toBe(false);
  });

  it('depend on the secret and on the label (one service’s tokens mean nothing to another)', () => {
    const token = tokens.issue('consent', 'uid-1');
    const otherSecret = createCsrfTokens<Purpose>(randomBytes(32).toString('base64url'), 'test forms v1');
    const otherLabel = createCsrfTokens<Purpose>(secret, 'other forms v1');
    expect(otherSecret.verify('consent', 'uid-1', token)).toBe(false);
    expect(otherLabel.verify('consent', 'uid-1', token)).toBe(false);
    expect(createCsrfTokens<Purpose>(secret, 'test forms v1').verify('consent', 'uid-1', token)).toBe(true);
  });
});
