import { randomBytes } from 'node:crypto';
import { createTestRedis, type TestRedis } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cache } from '../src/cache/cache.ts';
import { createMemoryCache } from '../src/cache/memory-cache.ts';
import { createRedisCache } from '../src/cache/redis-cache.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await createTestRedis();
});
afterAll(async () => {
  await redis?.close();
});

// The same contract for both implementations, so the in-process cache can stand in for Redis.
const implementations: Array<[string, () => Promise<Cache>]> = [
  ['in-process', async () => createMemoryCache()],
  [
    'redis',
    async () => {
      if (!redis.url) throw new Error('no Redis');
      return createRedisCache(redis.url, `sheetgate:test:${randomBytes(4).toString('hex')}:`);
    },
  ],
];

describe.each(implementations)('%s cache', (name, create) => {
  const available = () => name !== 'redis' || Boolean(redis.url);

  it('stores, reads, expires and deletes', async ({ skip }) => {
    if (!available()) skip('no Redis server or Docker engine here');
    const cache = await create();
    try {
      await cache.ping();
      expect(await cache.get('missing')).toBeUndefined();
      await cache.set('a', 'one', 60);
      expect(await cache.get('a')).toBe('one');
      await cache.set('short', 'x', 0.2);
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect(await cache.get('short')).toBeUndefined();
      await cache.delete('a');
      expect(await cache.get('a')).toBeUndefined();
    } finally {
      await cache.close();
    }
  });

  it('setIfAbsent stores once until the entry expires', async ({ skip }) => {
    if (!available()) skip('no Redis server or Docker engine here');
    const cache = await create();
    try {
      expect(await cache.setIfAbsent('lock', 'first', 0.3)).toBe(true);
      expect(await cache.setIfAbsent('lock', 'second', 0.3)).toBe(false);
      expect(await cache.get('lock')).toBe('first');
      await new Promise((resolve) => setTimeout(resolve, 450));
      expect(await cache.setIfAbsent('lock', 'third', 1)).toBe(true);
    } finally {
      await cache.close();
    }
  });
});
