import type { ApiKeyResolution } from '@sheetgate/proto';
import type { RateLimitDecision } from '../rate-limits/index.ts';
import type { ApiKeyCredential } from './api-key-queries.ts';
import type { VerifiedKey } from './verified-key-cache.ts';

// The rules that decide what a presented key answers, without I/O: the library reads the cache,
// the revocation version, PostgreSQL and the rate limiter, and hands what it found to these.

export type ApiKeyStatus = 'active' | 'expired' | 'revoked';

/** The one rule for expiry: a key with an expiry is expired from that instant on. */
export function isExpired(expiresAtMs: number | null, nowMs: number): boolean {
  return expiresAtMs !== null && expiresAtMs <= nowMs;
}

/** A key's status as its owner sees it on the dashboard. */
export function keyStatus(
  key: { revokedAt: Date | null; expiresAt: Date | null },
  nowMs: number,
): ApiKeyStatus {
  if (key.revokedAt) return 'revoked';
  return isExpired(key.expiresAt?.getTime() ?? null, nowMs) ? 'expired' : 'active';
}

/** What is known of a presented key when it is judged. */
export type KeyEvidence =
  /** The verified-key cache vouches for it under the revocation version just read. */
  | { source: 'cache'; key: VerifiedKey }
  /**
   * Its row as PostgreSQL has it (undefined: no row has its HMAC), and whether the row's hash
   * matched the presented key's HMAC in constant time.
   */
  | { source: 'store'; row: ApiKeyCredential | undefined; matches: boolean };

export type KeyVerdict =
  | { outcome: 'unknown' }
  /** A live key; `fresh` when it was read from PostgreSQL (the cache may remember it). */
  | { outcome: 'live'; key: VerifiedKey; fresh: boolean }
  /** `fresh` when the row said so (the refusal is audited and the cache forgets the key). */
  | { outcome: 'refused'; reason: 'expired' | 'revoked'; keyId: string; userId: string; fresh: boolean };

/** The verdict on a presented key from what the cache or PostgreSQL says of it, at `nowMs`. */
export function judgeKey(evidence: KeyEvidence, nowMs: number): KeyVerdict {
  if (evidence.source === 'cache') {
    const { key } = evidence;
    return isExpired(key.expiresAtMs, nowMs)
      ? { outcome: 'refused', reason: 'expired', keyId: key.keyId, userId: key.userId, fresh: false }
      : { outcome: 'live', key, fresh: false };
  }
  const { row } = evidence;
  // The row was found by this very HMAC, so `matches` cannot fail: it makes the final decision a
  // constant-time comparison, as docs/design.md §7.4 requires.
  if (!row || !evidence.matches) return { outcome: 'unknown' };
  const refused = (reason: 'expired' | 'revoked'): KeyVerdict => ({
    outcome: 'refused',
    reason,
    keyId: row.id,
    userId: row.userId,
    fresh: true,
  });
  if (row.revokedAt) return refused('revoked');
  const expiresAtMs = row.expiresAt?.getTime() ?? null;
  if (isExpired(expiresAtMs, nowMs)) return refused('expired');
  return {
    outcome: 'live',
    key: { keyId: row.id, userId: row.userId, scopes: row.scopes, toolsets: row.toolsets, expiresAtMs },
    fresh: true,
  };
}

/** What a live key answers under its rate-limit decision. */
export function admission(key: VerifiedKey, decision: RateLimitDecision): ApiKeyResolution {
  if (!decision.allowed)
    return { ok: false, reason: 'rate_limited', retryAfterSeconds: decision.retryAfterSeconds };
  return {
    ok: true,
    userId: key.userId,
    scopes: key.scopes,
    keyId: key.keyId,
    expiresAtMs: key.expiresAtMs,
    toolsets: key.toolsets,
  };
}
