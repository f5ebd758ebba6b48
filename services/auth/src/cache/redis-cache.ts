import { createClient } from 'redis';
import type { Cache } from './cache.ts';

/** The Cache on Redis (node-redis), shared by every auth replica. Keys are namespaced. */
export async function createRedisCache(url: string, namespace = 'sheetgate:auth:'): Promise<Cache> {
  const client = createClient({
    url,
    socket: { reconnectStrategy: (retries) => Math.min(retries * 100, 2_000), connectTimeout: 5_000 },
  });
  // node-redis emits connection errors as events; without a listener they would crash the process.
  client.on('error', () => {});
  await client.connect();
  const key = (name: string) => `${namespace}${name}`;
  return {
    async get(name) {
      return (await client.get(key(name))) ?? undefined;
    },
    async set(name, value, ttlSeconds) {
      await client.set(key(name), value, { expiration: { type: 'PX', value: Math.ceil(ttlSeconds * 1000) } });
    },
    async setIfAbsent(name, value, ttlSeconds) {
      const reply = await client.set(key(name), value, {
        condition: 'NX',
        expiration: { type: 'PX', value: Math.ceil(ttlSeconds * 1000) },
      });
      return reply === 'OK';
    },
    async delete(name) {
      await client.del(key(name));
    },
    async ping() {
      await client.ping();
    },
    async close() {
      await client.close();
    },
  };
}
