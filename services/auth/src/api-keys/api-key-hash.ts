import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Keyed hashes of API keys: HMAC-SHA-256 with the API_KEY_PEPPER setting, hex. A key has 256
 * random bits, so a fast hash is enough (no password stretching needed); the pepper means a
 * stolen database alone cannot even confirm a guessed key.
 */
export function createApiKeyHasher(pepper: string) {
  if (pepper.length < 32) throw new Error('API_KEY_PEPPER must be at least 32 characters');
  const hash = (secret: string) => createHmac('sha256', pepper).update(secret, 'utf8').digest('hex');
  return {
    hash,
    /** Constant-time comparison of a presented key with a stored hash. */
    matches(secret: string, storedHash: string): boolean {
      const presented = Buffer.from(hash(secret), 'hex');
      const stored = Buffer.from(storedHash, 'hex');
      return presented.length === stored.length && timingSafeEqual(presented, stored);
    },
  };
}

export type ApiKeyHasher = ReturnType<typeof createApiKeyHasher>;
