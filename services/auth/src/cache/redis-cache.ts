import type { Logger } from '@sheetgate/service-runtime';
import type { Cache } from './cache.ts';
import { createAuthRedisClient } from './redis-client.ts';
import { StoreUnavailableError } from './store-unavailable.ts';

/** Prefix of every key the cache writes in Redis. */
export const REDIS_CACHE_NAMESPACE = 'sheetgate:auth:';

/**
 * The Cache on Redis (node-redis), shared by every auth replica. Keys are namespaced. Fails fast:
 * while Redis is unreachable every operation rejects at once with a StoreUnavailableError, which
 * callers answer as "try again" (HTTP 503, gRPC UNAVAILABLE) instead of hanging.
 */
export async function createRedisCache(
  url: string,
  options: { namespace?: string; logger?: Logger | undefined } = {},
): Promise<Cache> {
  const namespace = options.namespace ?? REDIS_CACHE_NAMESPACE;
  const client = await createAuthRedisClient(url, { label: 'cache', logger: options.logger, failFast: true });
  const key = (name: string) => `${namespace}${name}`;
  const attempt = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw new StoreUnavailableError('the Redis cache is unavailable', error);
    }
  };
  return {
    get: (name) => attempt(async () => (await client.get(key(name))) ?? undefined),
    set: (name, value, ttlSeconds) =>
      attempt(async () => {
        await client.set(key(name), value, {
          expiration: { type: 'PX', value: Math.ceil(ttlSeconds * 1000) },
        });
      }),
    setIfAbsent: (name, value, ttlSeconds) =>
      attempt(async () => {
        const reply = await client.set(key(name), value, {
          condition: 'NX',
          expiration: { type: 'PX', value: Math.ceil(ttlSeconds * 1000) },
        });
        return reply === 'OK';
      }),
    delete: (name) =>
      attempt(async () => {
        await client.del(key(name));
      }),
    ping: () =>
      attempt(async () => {
        await client.ping();
      }),
    async close() {
      await client.close();
    },
  };
}
