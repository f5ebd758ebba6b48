import type { Cache } from '../cache/cache.ts';
import type { Keyring } from '../crypto/keyring.ts';

export interface CachedAccessToken {
  accessToken: string;
  /** Unix seconds. */
  expiresAt: number;
  scopes: string[];
  /** Unix seconds (fractional) when Sheetgate received it. */
  obtainedAt?: number;
  /** The Google account the token acts as, answered with it (the MCP service's "outside" reading). */
  account: GoogleAccount;
}

/** The person's Google address and Workspace domain (empty: consumer account; null: not known). */
export interface GoogleAccount {
  email: string;
  hostedDomain: string | null;
}

/** Cache keys of sealed access tokens: this prefix and the user id, which is also the AAD. */
export const ACCESS_TOKEN_KEY_PREFIX = 'google-access-token:';
const tokenKey = (userId: string) => `${ACCESS_TOKEN_KEY_PREFIX}${userId}`;

/**
 * Users' Google access tokens in the shared cache, sealed with the key ring (Redis is not trusted
 * with bearer credentials in the clear) and bound to the user id, so an entry copied to another
 * key does not decrypt.
 */
export function createAccessTokenCache(cache: Cache, keyring: Keyring) {
  return {
    async get(userId: string): Promise<CachedAccessToken | undefined> {
      const sealed = await cache.get(tokenKey(userId));
      if (!sealed) return undefined;
      let token: CachedAccessToken;
      try {
        token = JSON.parse(keyring.decrypt(sealed, tokenKey(userId))) as CachedAccessToken;
      } catch {
        // Written under a key since removed from the ring, or tampered with: refresh instead.
        return undefined;
      }
      // Written before tokens carried their account: refreshed like a missing one.
      return typeof token.account?.email === 'string' ? token : undefined;
    },

    async set(userId: string, token: CachedAccessToken, ttlSeconds: number): Promise<void> {
      if (ttlSeconds <= 0) return;
      await cache.set(tokenKey(userId), keyring.encrypt(JSON.stringify(token), tokenKey(userId)), ttlSeconds);
    },

    /** After a reconnect or disconnect: the next call must not see the old grant's token. */
    forget(userId: string): Promise<void> {
      return cache.delete(tokenKey(userId));
    },
  };
}

export type AccessTokenCache = ReturnType<typeof createAccessTokenCache>;
