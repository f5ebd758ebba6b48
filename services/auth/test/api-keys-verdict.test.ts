import { describe, expect, it } from 'vitest';
import type { ApiKeyCredential } from '../src/api-keys/api-key-queries.ts';
import { admission, isExpired, judgeKey, keyStatus } from '../src/api-keys/key-verdict.ts';
import type { VerifiedKey } from '../src/api-keys/verified-key-cache.ts';

// The rules of resolving an API key, without I/O: what the cache or PostgreSQL says of a key, at
// a given moment, and what that answers.

const NOW = Date.parse('2026-06-01T12:00:00Z');
const key: VerifiedKey = {
  keyId: 'key-1',
  userId: 'user-1',
  scopes: ['sheets:read'],
  toolsets: ['core-read'],
  expiresAtMs: null,
};
const row = (overrides: Partial<ApiKeyCredential> = {}): ApiKeyCredential => ({
  id: 'key-1',
  userId: 'user-1',
  secretHash: 'ab'.repeat(32),
  scopes: ['sheets:read', 'sheets:write'],
  toolsets: null,
  expiresAt: null,
  revokedAt: null,
  ...overrides,
});

describe('isExpired, the one expiry rule', () => {
  it('is expired from the expiry instant on, never without an expiry', () => {
    expect(isExpired(null, NOW)).toBe(false);
    expect(isExpired(NOW + 1, NOW)).toBe(false);
    expect(isExpired(NOW, NOW)).toBe(true);
    expect(isExpired(NOW - 1, NOW)).toBe(true);
  });

  it('gives the dashboard the same status', () => {
    expect(keyStatus({ revokedAt: null, expiresAt: null }, NOW)).toBe('active');
    expect(keyStatus({ revokedAt: null, expiresAt: new Date(NOW) }, NOW)).toBe('expired');
    expect(keyStatus({ revokedAt: null, expiresAt: new Date(NOW + 1) }, NOW)).toBe('active');
    expect(keyStatus({ revokedAt: new Date(NOW - 1), expiresAt: new Date(NOW - 1) }, NOW)).toBe('revoked');
  });
});

describe('judgeKey', () => {
  it('trusts a key the cache vouches for until its expiry', () => {
    expect(judgeKey({ source: 'cache', key }, NOW)).toEqual({ outcome: 'live', key, fresh: false });
    const expiring = { ...key, expiresAtMs: NOW };
    expect(judgeKey({ source: 'cache', key: expiring }, NOW)).toEqual({
      outcome: 'refused',
      reason: 'expired',
      keyId: 'key-1',
      userId: 'user-1',
      fresh: false,
    });
  });

  it('answers unknown without a row, or with a row whose hash does not match', () => {
    expect(judgeKey({ source: 'store', row: undefined, matches: false }, NOW)).toEqual({
      outcome: 'unknown',
    });
    expect(judgeKey({ source: 'store', row: row(), matches: false }, NOW)).toEqual({ outcome: 'unknown' });
  });

  it('turns a live row into the verified key the cache may remember', () => {
    const expiresAt = new Date(NOW + 60_000);
    expect(judgeKey({ source: 'store', row: row({ expiresAt }), matches: true }, NOW)).toEqual({
      outcome: 'live',
      key: {
        keyId: 'key-1',
        userId: 'user-1',
        scopes: ['sheets:read', 'sheets:write'],
        toolsets: null,
        expiresAtMs: NOW + 60_000,
      },
      fresh: true,
    });
  });

  it('refuses a revoked row as revoked, even when it has expired too', () => {
    const revoked = row({ revokedAt: new Date(NOW - 5), expiresAt: new Date(NOW - 10) });
    expect(judgeKey({ source: 'store', row: revoked, matches: true }, NOW)).toEqual({
      outcome: 'refused',
      reason: 'revoked',
      keyId: 'key-1',
      userId: 'user-1',
      fresh: true,
    });
  });

  it('refuses an expired row as expired from the expiry instant on', () => {
    expect(
      judgeKey({ source: 'store', row: row({ expiresAt: new Date(NOW) }), matches: true }, NOW),
    ).toMatchObject({ outcome: 'refused', reason: 'expired', fresh: true });
    expect(
      judgeKey({ source: 'store', row: row({ expiresAt: new Date(NOW + 1) }), matches: true }, NOW),
    ).toMatchObject({ outcome: 'live' });
  });
});

describe('admission', () => {
  it('answers the key when its rate limit allows, and when to retry when not', () => {
    expect(admission(key, { allowed: true })).toEqual({
      ok: true,
      userId: 'user-1',
      scopes: ['sheets:read'],
      keyId: 'key-1',
      expiresAtMs: key.expiresAtMs,
      toolsets: ['core-read'],
    });
    expect(admission(key, { allowed: false, retryAfterSeconds: 12, firstRefusal: true })).toEqual({
      ok: false,
      reason: 'rate_limited',
      retryAfterSeconds: 12,
    });
  });
});
