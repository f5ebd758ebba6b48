import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Keyed hashes of API keys: HMAC-SHA-256 with the API_KEY_PEPPER setting, stored as hex. A key has
 * 256 random bits, so a fast hash is enough (no password stretching needed); the pepper means a
 * stolen database alone cannot even confirm a guessed key.
 */
export function createApiKeyHasher(pepper: string) {
  if (pepper.length < 32) throw new Error('API_KEY_PEPPER must be at least 32 characters');
  const digest = (secret: string) => createHmac('sha256', pepper).update(secret, 'utf8').digest();
  return {
    /** The HMAC of a presented key: computed once per request, then used for lookup and comparison. */
    digest,
    /** The stored form (hex) of a key's HMAC. */
    hash: (secret: string) => digest(secret).toString('hex'),
    /**
     * Constant-time comparison of a presented key's HMAC with a stored hash. The row was selected
     * by this very HMAC, so the comparison cannot fail; it exists so that the final decision is a
     * constant-time comparison, as docs/design.md §7.4 requires, and it reuses the HMAC rather than
     * hashing the key a second time.
     */
    matches(presentedDigest: Buffer, storedHash: string): boolean {
      const stored = Buffer.from(storedHash, 'hex');
      return presentedDigest.length === stored.length && timingSafeEqual(presentedDigest, stored);
    },
  };
}

export type ApiKeyHasher = ReturnType<typeof createApiKeyHasher>;
