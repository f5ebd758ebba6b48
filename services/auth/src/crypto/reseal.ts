import { REDIS_CACHE_NAMESPACE } from '../cache/redis-cache.ts';
import { type AuthRedisClient, createAuthRedisClient } from '../cache/redis-client.ts';
import { createChangeJournal } from '../change-journal/change-journal.ts';
import type { DatabasePool } from '../db/pool.ts';
import { ACCESS_TOKEN_KEY_PREFIX } from '../google/access-token-cache.ts';
import { createGoogleConnectionLibrary } from '../google/google-connections.ts';
import { clientSecretContext } from '../oidc/model-secrets.ts';
import { createOidcModelQueries } from '../oidc/oidc-model-queries.ts';
import { createSigningKeyStore } from '../signing-keys/signing-key-store.ts';
import type { Keyring } from './keyring.ts';
import { type ResealCount, resealEach } from './reseal-each.ts';

export interface ResealReport {
  googleRefreshTokens: ResealCount;
  signingKeys: ResealCount;
  /** Secrets of confidential OAuth clients (registered dynamically). */
  oauthClientSecrets: ResealCount;
  /** The change journal's before-images (docs/design.md §11.8). */
  changeJournalPayloads: ResealCount;
  /** Undefined without Redis: the in-process cache lives and dies with each auth process. */
  cachedGoogleAccessTokens?: ResealCount;
}

// Replaces a value only if it is still the one read, keeping its expiry.
const COMPARE_AND_SET = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
end
return false`;

/**
 * Google access tokens cached in Redis, sealed with the ring and bound to their cache key: each
 * one under an older key is re-encrypted in place (same expiry), unless a replica replaced it
 * meanwhile.
 */
async function resealCachedGoogleAccessTokens(redisUrl: string, keyring: Keyring): Promise<ResealCount> {
  // A one-shot command: an unreachable Redis fails the run rather than being waited for.
  const client = await createAuthRedisClient(redisUrl, { label: 'reseal', reconnect: false });
  try {
    return await resealEach(
      keyring,
      cachedAccessTokensUnderOlderKeys(client, keyring),
      async ({ key, sealed }, resealed) =>
        Boolean(await client.eval(COMPARE_AND_SET, { keys: [key], arguments: [sealed, resealed] })),
    );
  } finally {
    await client.close();
  }
}

/** Scans the cache in batches, reading each access token as the reseal reaches it. */
async function* cachedAccessTokensUnderOlderKeys(client: AuthRedisClient, keyring: Keyring) {
  const match = `${REDIS_CACHE_NAMESPACE}${ACCESS_TOKEN_KEY_PREFIX}*`;
  for await (const keys of client.scanIterator({ MATCH: match, COUNT: 500 })) {
    for (const key of keys) {
      const sealed = await client.get(key);
      if (!sealed || keyring.keyIdOf(sealed) === keyring.currentKeyId) continue;
      yield { key, sealed, associatedData: key.slice(REDIS_CACHE_NAMESPACE.length) };
    }
  }
}

/** Client secrets in the provider's store, each bound to its client id. */
async function resealOAuthClientSecrets(pool: DatabasePool, keyring: Keyring): Promise<ResealCount> {
  const models = createOidcModelQueries(pool);
  const secrets = (await models.sealedClientSecrets())
    .filter(({ sealed }) => keyring.keyIdOf(sealed) !== keyring.currentKeyId)
    .map(({ id, sealed }) => ({ id, sealed, associatedData: clientSecretContext(id) }));
  return resealEach(keyring, secrets, ({ id, sealed }, resealed) =>
    models.replaceSealedClientSecret(id, sealed, resealed),
  );
}

/**
 * After a new key was put first in AUTH_ENCRYPTION_KEYS: re-encrypts every secret auth keeps
 * under an older key — Google refresh tokens, stored signing keys, OAuth client secrets, the change
 * journal's before-images, and (with
 * Redis) cached Google
 * access tokens — so the older keys can then leave the ring. Idempotent, and safe while auth runs:
 * every write is a compare-and-swap on the value read.
 */
export async function resealStoredSecrets(options: {
  pool: DatabasePool;
  keyring: Keyring;
  redisUrl?: string | undefined;
}): Promise<ResealReport> {
  const { pool, keyring } = options;
  return {
    googleRefreshTokens: await createGoogleConnectionLibrary({ pool, keyring }).resealWithCurrentKey(),
    signingKeys: await createSigningKeyStore(pool, keyring).resealWithCurrentKey(),
    oauthClientSecrets: await resealOAuthClientSecrets(pool, keyring),
    // Retention and the per-person bound play no part in resealing.
    changeJournalPayloads: await createChangeJournal({
      pool,
      keyring,
      retentionDays: 30,
      maxBytesPerPerson: 0,
    }).resealWithCurrentKey(),
    ...(options.redisUrl
      ? { cachedGoogleAccessTokens: await resealCachedGoogleAccessTokens(options.redisUrl, keyring) }
      : {}),
  };
}
