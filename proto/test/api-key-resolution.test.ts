import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type ApiKeyResolution,
  fromResolveApiKeyResponse,
  mayBeApiKey,
  toResolveApiKeyResponse,
} from '../src/index.ts';

describe('ApiKeyResolution on the wire', () => {
  const resolutions: ApiKeyResolution[] = [
    {
      ok: true,
      userId: 'user-1',
      scopes: ['sheets:read', 'sheets:write'],
      keyId: 'key-1',
      expiresAtMs: null,
      toolsets: null,
    },
    {
      ok: true,
      userId: 'user-1',
      scopes: ['sheets:read'],
      keyId: 'key-2',
      expiresAtMs: 1_900_000_000_000,
      toolsets: ['core-read', 'files'],
    },
    { ok: false, reason: 'unknown' },
    { ok: false, reason: 'expired' },
    { ok: false, reason: 'revoked' },
    { ok: false, reason: 'rate_limited', retryAfterSeconds: 17 },
    { ok: false, reason: 'throttled', retryAfterSeconds: 240 },
  ];

  it.each(resolutions)('round-trips %j', (resolution) => {
    expect(fromResolveApiKeyResponse(toResolveApiKeyResponse(resolution))).toEqual(resolution);
  });

  it('sends an expiry in whole seconds rounded down, so a receiver never holds a key past it', () => {
    const wire = toResolveApiKeyResponse({
      ok: true,
      userId: 'user-1',
      scopes: ['sheets:read'],
      keyId: 'key-1',
      expiresAtMs: 1_900_000_000_999,
      toolsets: null,
    });
    expect(wire.resolved?.expiresAt).toBe(1_900_000_000);
    expect(fromResolveApiKeyResponse(wire)).toMatchObject({ expiresAtMs: 1_900_000_000_000 });
    // An auth that does not send it yet: the key never expires as far as the receiver knows.
    expect(
      fromResolveApiKeyResponse({
        resolved: { userId: 'u', scopes: [], keyId: 'k', expiresAt: undefined, toolsets: [] },
        refused: undefined,
      }),
    ).toMatchObject({ expiresAtMs: null, toolsets: null });
  });

  it('sends every set as an empty list and a choice as its names', () => {
    const base = { ok: true, userId: 'u', scopes: ['sheets:read'], keyId: 'k', expiresAtMs: null } as const;
    expect(toResolveApiKeyResponse({ ...base, toolsets: null }).resolved?.toolsets).toEqual([]);
    expect(toResolveApiKeyResponse({ ...base, toolsets: ['core-read'] }).resolved?.toolsets).toEqual([
      'core-read',
    ]);
  });

  it('reads an unset or unspecified refusal as unknown, and a rate limit as at least 1 s', () => {
    expect(fromResolveApiKeyResponse({ resolved: undefined, refused: undefined })).toEqual({
      ok: false,
      reason: 'unknown',
    });
    expect(
      fromResolveApiKeyResponse({
        resolved: undefined,
        refused: { reason: 'API_KEY_REFUSAL_UNSPECIFIED', retryAfterSeconds: 0 },
      }),
    ).toEqual({ ok: false, reason: 'unknown' });
    expect(
      fromResolveApiKeyResponse({
        resolved: undefined,
        refused: { reason: 'API_KEY_REFUSAL_RATE_LIMITED', retryAfterSeconds: 0 },
      }),
    ).toEqual({ ok: false, reason: 'rate_limited', retryAfterSeconds: 1 });
    expect(
      fromResolveApiKeyResponse({
        resolved: undefined,
        refused: { reason: 'API_KEY_REFUSAL_ADDRESS_THROTTLED', retryAfterSeconds: 0 },
      }),
    ).toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 1 });
  });
});

describe('mayBeApiKey', () => {
  it.each([
    ['a key Sheetgate issued', `sg_live_${randomBytes(32).toString('base64url')}`],
    ['an imported key with another prefix', `ba_${randomBytes(24).toString('base64url')}`],
    ['an imported key of 16 characters', 'abcdefghij012345'],
    ['an imported key of 256 characters', 'k'.repeat(256)],
    ['an imported key with every unreserved character', `key.with~all-of_them.${'x'.repeat(20)}`],
  ])('accepts %s', (_name, value) => {
    expect(mayBeApiKey(value)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['15 characters', 'abcdefghij01234'],
    ['257 characters', 'k'.repeat(257)],
    ['sg_live_ one character short', `sg_live_${randomBytes(32).toString('base64url').slice(1)}`],
    ['sg_live_ with padding', `sg_live_${randomBytes(32).toString('base64')}`],
    // Sheetgate's namespace holds only keys it issued: never an imported key.
    ['another sg_ prefix', `sg_test_${randomBytes(32).toString('base64url')}`],
    ['sg_ and any characters', `sg_${'k'.repeat(40)}`],
    ['spaces', 'abcdefgh ijklmnop'],
    ['non-ASCII', 'é'.repeat(20)],
    ['a JWT-like value with slashes', 'eyJ/abc+def/ghi=jklmnop'],
    ['not a string', 1234567890123456],
  ])('refuses %s', (_name, value) => {
    expect(mayBeApiKey(value)).toBe(false);
  });
});
