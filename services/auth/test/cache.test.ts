import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger } from '@sheetgate/service-runtime';
import {
  createTestRedis,
  privateServersMissing,
  startPrivateRedis,
  type TestRedis,
} from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cache } from '../src/cache/cache.ts';
import { createMemoryCache } from '../src/cache/memory-cache.ts';
import { createRedisCache } from '../src/cache/redis-cache.ts';
import { StoreUnavailableError } from '../src/cache/store-unavailable.ts';
import { startFreezableRedis } from './support/frozen-redis.ts';

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
      return createRedisCache(redis.url, { namespace: `sheetgate:test:${randomBytes(4).toString('hex')}:` });
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

describe('redis cache while its Redis is down', () => {
  it('fails every operation at once with StoreUnavailableError, logs it, and works again once Redis is back', async ({
    skip,
  }) => {
    const missing = privateServersMissing();
    if (missing) skip(missing);
    const server = await startPrivateRedis();
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const cache = await createRedisCache(server.url, {
      logger: createLogger({ service: 'test', level: 'info', destination }),
    });
    try {
      await cache.set('kept', 'until the restart', 60);
      await server.stop();
      // Without the offline queue these reject now; with it they would wait for Redis (the test's
      // timeout is the only bound).
      for (const operation of [
        () => cache.get('kept'),
        () => cache.set('other', 'x', 60),
        () => cache.setIfAbsent('lock', 'x', 60),
        () => cache.delete('kept'),
        () => cache.ping(),
      ]) {
        await expect(operation()).rejects.toBeInstanceOf(StoreUnavailableError);
      }
      expect(lines.filter((line) => line.includes('Redis (cache): connection error'))).toHaveLength(1);
      await server.start();
      let back = false;
      for (let attempt = 0; attempt < 100 && !back; attempt++) {
        back = await cache.ping().then(
          () => true,
          () => false,
        );
        if (!back) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(back).toBe(true);
      expect(await cache.get('kept')).toBeUndefined(); // a restarted private Redis keeps nothing
      expect(await cache.setIfAbsent('lock', 'x', 60)).toBe(true);
      expect(lines.some((line) => line.includes('Redis (cache): connected again'))).toBe(true);
    } finally {
      await cache.close();
      await server.close();
    }
  });
});

describe('redis cache on a Redis that stops answering', () => {
  it('fails each operation with StoreUnavailableError instead of waiting, and answers rightly once Redis does', async ({
    skip,
  }) => {
    if (!redis.url) skip('no Redis server or Docker engine here');
    const relay = await startFreezableRedis(redis.url!);
    const cache = await createRedisCache(relay.url, { namespace: `test:${randomBytes(4).toString('hex')}:` });
    try {
      await cache.set('before', 'the freeze', 60);
      relay.freeze();
      // The connection stays open and nothing answers: only a deadline on replies ends these.
      await expect(cache.get('before')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(cache.set('during', 'the freeze', 60)).rejects.toBeInstanceOf(StoreUnavailableError);
      relay.thaw();
      // The write given up on still landed (it was sent), and every reply goes to its own call.
      expect(await cache.get('during')).toBe('the freeze');
      expect(await cache.get('before')).toBe('the freeze');
      expect(await cache.setIfAbsent('before', 'again', 60)).toBe(false);
    } finally {
      relay.thaw();
      await cache.close();
      await relay.close();
    }
  }, 20_000);
});
