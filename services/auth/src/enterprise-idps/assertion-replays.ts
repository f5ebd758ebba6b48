import { createHash } from 'node:crypto';
import type { Cache } from '../cache/cache.ts';
import { MAX_ASSERTION_AGE_SECONDS } from './id-jag-verifier.ts';

/** Kept past the assertion's `exp` by more than any clock tolerance, as request states are. */
const CLOCK_MARGIN_SECONDS = 60;

/**
 * The `jti`s of ID-JAGs already exchanged (the extension's §7.4.2: replay detection is required in
 * this profile): each is claimed once per issuer by a conditional write only the first claim wins
 * (Redis `SET NX EX`, shared by every auth replica, or the in-process cache when auth runs alone),
 * kept until the assertion has expired, or is too old to be taken anyway (an hour after its `iat`,
 * whatever its `exp`). The key is a hash, so an issuer's long `jti` costs no more.
 */
export function createAssertionReplays(cache: Cache) {
  return {
    /** True the first time; false while an earlier claim of the same issuer and `jti` lasts. */
    claim(issuer: string, jti: string, expiresAt: number): Promise<boolean> {
      const key = createHash('sha256').update(issuer).update('\0').update(jti).digest('base64url');
      const lifetime = Math.min(expiresAt - Math.floor(Date.now() / 1000), MAX_ASSERTION_AGE_SECONDS);
      const ttlSeconds = Math.max(lifetime, 0) + CLOCK_MARGIN_SECONDS;
      return cache.setIfAbsent(`id-jag-jti:${key}`, '1', ttlSeconds);
    },
  };
}

export type AssertionReplays = ReturnType<typeof createAssertionReplays>;
