import { describe, expect, it } from 'vitest';
import { DEFAULT_RETURN_TO, safeReturnTo } from '../src/return-to.ts';

describe('return_to (open-redirect guard)', () => {
  it.each([
    [undefined, DEFAULT_RETURN_TO],
    ['', DEFAULT_RETURN_TO],
    ['/dashboard', '/dashboard'],
    ['/api/auth/interaction/abc_DEF-123', '/api/auth/interaction/abc_DEF-123'],
    ['/api/auth/oauth2/authorize?client_id=c&scope=a+b', '/api/auth/oauth2/authorize?client_id=c&scope=a+b'],
    // A fragment never reaches a server and a return needs none: dropped.
    ['/dashboard?tab=keys#new', '/dashboard?tab=keys'],
    ['/dashboard#//evil.example', '/dashboard'],
    ['/a/../dashboard', '/dashboard'],
  ])('accepts %j as %j', (value, expected) => {
    expect(safeReturnTo(value)).toBe(expected);
  });

  it.each([
    '//evil.example',
    '//evil.example/dashboard',
    'https://evil.example',
    'https://evil.example/dashboard',
    'http:evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '/dash\\board',
    '/\tevil',
    '/\n/evil.example',
    '/dash\u0000board',
    '/dash\u007fboard',
    'javascript:alert(1)',
    'dashboard',
    `/${'a'.repeat(3000)}`,
  ])('refuses %j', (value) => {
    expect(safeReturnTo(value)).toBeUndefined();
  });

  it('refuses anything that is not text', () => {
    expect(safeReturnTo(['/dashboard'])).toBeUndefined();
    expect(safeReturnTo(42)).toBeUndefined();
  });
});
