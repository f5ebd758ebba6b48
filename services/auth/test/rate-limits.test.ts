import { randomBytes } from 'node:crypto';
import { createLogger } from '@sheetgate/service-runtime';
import {
  createTestDatabase,
  createTestRedis,
  type TestDatabase,
  type TestRedis,
} from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createRateLimits, type RateLimits, type RateLimitsOptions } from '../src/rate-limits/index.ts';
import { startFreezableRedis } from './support/frozen-redis.ts';

let database: TestDatabase;
let redis: TestRedis;
let pool: DatabasePool;

beforeAll(async () => {
  [database, redis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  await migrateToLatest(database.url, createLogger({ service: 'test', level: 'silent' }));
  pool = createDatabasePool(database.url, 4);
});
afterAll(async () => {
  await pool?.end();
  await database?.close();
  await redis?.close();
});

// One contract for both stores, so PostgreSQL can stand in for Redis when none is configured.
const backends: Array<['redis' | 'postgres', (rules: RateLimitsOptions['rules']) => Promise<RateLimits>]> = [
  [
    'redis',
    (rules) =>
      createRateLimits({
        redisUrl: redis.url,
        pool,
        rules,
        keyPrefix: `sheetgate:test:${randomBytes(4).toString('hex')}`,
      }),
  ],
  [
    'postgres',
    (rules) => createRateLimits({ pool, rules, keyPrefix: `test:${randomBytes(4).toString('hex')}` }),
  ],
];

describe.each(backends)('rate limits on %s', (backend, create) => {
  const skipUnlessAvailable = (skip: (note: string) => void) => {
    if (backend === 'redis' && !redis.url) skip('no Redis server or Docker engine here');
  };

  it('allows up to the limit, then refuses with a positive Retry-After', async ({ skip }) => {
    skipUnlessAvailable(skip);
    const limits = await create({ apiKey: { points: 3, durationSeconds: 60 } });
    try {
      expect(limits.backend).toBe(backend);
      for (let i = 0; i < 3; i++) expect(await limits.apiKey.consume('key-a')).toEqual({ allowed: true });
      const refused = await limits.apiKey.consume('key-a');
      expect(refused.allowed).toBe(false);
      if (refused.allowed) return;
      expect(refused.retryAfterSeconds).toBeGreaterThan(0);
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    } finally {
      await limits.close();
    }
  });

  it('counts each key and each limiter separately', async ({ skip }) => {
    skipUnlessAvailable(skip);
    const limits = await create({
      authIp: { points: 1, durationSeconds: 60 },
      token: { points: 1, durationSeconds: 60 },
    });
    try {
      expect((await limits.authIp.consume('203.0.113.1')).allowed).toBe(true);
      expect((await limits.authIp.consume('203.0.113.1')).allowed).toBe(false);
      expect((await limits.authIp.consume('203.0.113.2')).allowed).toBe(true);
      // Same key, another limiter: its own window.
      expect((await limits.token.consume('203.0.113.1')).allowed).toBe(true);
    } finally {
      await limits.close();
    }
  });

  it('marks only the first refusal of a window, for auditing', async ({ skip }) => {
    skipUnlessAvailable(skip);
    const limits = await create({ signIn: { points: 1, durationSeconds: 60 } });
    try {
      await limits.signIn.consume('user-1');
      const first = await limits.signIn.consume('user-1');
      const second = await limits.signIn.consume('user-1');
      expect(first).toMatchObject({ allowed: false, firstRefusal: true });
      expect(second).toMatchObject({ allowed: false, firstRefusal: false });
    } finally {
      await limits.close();
    }
  });

  it('leases what is left of a window, at most what was asked, marking the lease holding the first refusal', async ({
    skip,
  }) => {
    skipUnlessAvailable(skip);
    const limits = await create({ apiKey: { points: 25, durationSeconds: 60 } });
    try {
      expect((await limits.apiKey.consume('leased')).allowed).toBe(true);
      const full = await limits.apiKey.lease('leased', 10);
      expect(full).toMatchObject({ granted: 10, firstRefusal: false });
      expect(full.validForMs).toBeGreaterThan(0);
      expect(full.validForMs).toBeLessThanOrEqual(60_000);
      // 11 spent: 14 left, so 10 and then 4.
      expect(await limits.apiKey.lease('leased', 10)).toMatchObject({ granted: 10, firstRefusal: false });
      const short = await limits.apiKey.lease('leased', 10);
      expect(short).toMatchObject({ granted: 4, firstRefusal: true });
      expect(short.retryAfterSeconds).toBeGreaterThan(0);
      expect(short.retryAfterSeconds).toBeLessThanOrEqual(60);
      expect(await limits.apiKey.lease('leased', 10)).toMatchObject({ granted: 0, firstRefusal: false });
      // Requests counted one by one see the window spent too.
      expect((await limits.apiKey.consume('leased')).allowed).toBe(false);
      expect(await limits.apiKey.lease('another key', 10)).toMatchObject({ granted: 10 });
    } finally {
      await limits.close();
    }
  });

  it('opens again when the window ends', async ({ skip }) => {
    skipUnlessAvailable(skip);
    const limits = await create({ register: { points: 1, durationSeconds: 1 } });
    try {
      await limits.register.consume('198.51.100.7');
      expect((await limits.register.consume('198.51.100.7')).allowed).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await limits.register.consume('198.51.100.7')).allowed).toBe(true);
    } finally {
      await limits.close();
    }
  });

  it('shares counters between replicas on the same store', async ({ skip }) => {
    skipUnlessAvailable(skip);
    const keyPrefix = `sheetgate:test:${randomBytes(4).toString('hex')}`;
    const rules = { apiKey: { points: 2, durationSeconds: 60 } };
    const options = { redisUrl: backend === 'redis' ? redis.url : undefined, pool, rules, keyPrefix };
    const [one, two] = await Promise.all([createRateLimits(options), createRateLimits(options)]);
    try {
      expect((await one.apiKey.consume('shared')).allowed).toBe(true);
      expect((await two.apiKey.consume('shared')).allowed).toBe(true);
      expect((await one.apiKey.consume('shared')).allowed).toBe(false);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('says which keys have spent their window, with the seconds left, without counting', async ({ skip }) => {
    skipUnlessAvailable(skip);
    const limits = await create({ apiKeyFailures: { points: 2, durationSeconds: 60 } });
    try {
      const failures = limits.apiKeyFailures;
      await failures.consumeMany(['198.51.100.1', '198.51.100.1', '198.51.100.2']);
      for (let read = 0; read < 3; read++) {
        const spent = await failures.spent(['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.1']);
        expect([...spent.keys()]).toEqual(['198.51.100.1']);
        expect(spent.get('198.51.100.1')).toBeGreaterThan(0);
        expect(spent.get('198.51.100.1')).toBeLessThanOrEqual(60);
      }
      // Reading counted nothing: the second address still has its last point.
      expect(await failures.consume('198.51.100.2')).toEqual({ allowed: true });
    } finally {
      await limits.close();
    }
  });

  it('takes hostile keys (long, non-ASCII, SQL-looking) without errors', async ({ skip }) => {
    skipUnlessAvailable(skip);
    const limits = await create({ signIn: { points: 1, durationSeconds: 60 } });
    try {
      for (const key of ['x'.repeat(100_000), 'ключ-🔑', "'; DROP TABLE rate_limits; --", '']) {
        expect((await limits.signIn.consume(key)).allowed).toBe(true);
        expect((await limits.signIn.consume(key)).allowed).toBe(false);
      }
    } finally {
      await limits.close();
    }
  });
});

describe('rate limits without their store', () => {
  it('fall back to a per-replica in-memory limit when PostgreSQL fails', async () => {
    const broken = {
      query: async () => {
        throw new Error('connection refused');
      },
    } as unknown as DatabasePool;
    const limits = await createRateLimits({
      pool: broken,
      rules: { apiKey: { points: 2, durationSeconds: 60 } },
    });
    try {
      expect((await limits.apiKey.consume('k')).allowed).toBe(true);
      expect((await limits.apiKey.consume('k')).allowed).toBe(true);
      expect((await limits.apiKey.consume('k')).allowed).toBe(false);
      // The per-address failure limit reads its spent addresses from the fallback too.
      await limits.apiKeyFailures.consumeMany(Array(100).fill('198.51.100.9'));
      expect([...(await limits.apiKeyFailures.spent(['198.51.100.9', '198.51.100.10'])).keys()]).toEqual([
        '198.51.100.9',
      ]);
    } finally {
      await limits.close();
    }
  });
});

describe('rate limits on a Redis that stops answering', () => {
  it('answer from the per-replica in-memory limit instead of waiting for Redis, and count on Redis again after', async ({
    skip,
  }) => {
    if (!redis.url) skip('no Redis server or Docker engine here');
    const relay = await startFreezableRedis(redis.url!);
    const options = {
      pool,
      rules: { apiKey: { points: 2, durationSeconds: 60 } },
      keyPrefix: `sheetgate:test:${randomBytes(4).toString('hex')}`,
    };
    const limits = await createRateLimits({ ...options, redisUrl: relay.url });
    try {
      relay.freeze();
      // Without a deadline on replies each of these waits for Redis forever (the test's timeout
      // ends it); with one, the insurance limiter counts them.
      const answers = [];
      for (let request = 0; request < 3; request++) answers.push((await limits.apiKey.consume('k')).allowed);
      expect(answers).toEqual([true, true, false]);
      // So does the per-address failure limit, reads included: a guesser is not let through.
      await limits.apiKeyFailures.consumeMany(Array(100).fill('198.51.100.9'));
      expect([...(await limits.apiKeyFailures.spent(['198.51.100.9', '198.51.100.10'])).keys()]).toEqual([
        '198.51.100.9',
      ]);
      relay.thaw();
      // Once Redis answers, counting is shared there again: another replica on the same Redis
      // (not through the relay) sees the two requests this one let through for another key.
      expect((await limits.apiKey.consume('other')).allowed).toBe(true);
      expect((await limits.apiKey.consume('other')).allowed).toBe(true);
      const replica = await createRateLimits({ ...options, redisUrl: redis.url! });
      try {
        expect((await replica.apiKey.consume('other')).allowed).toBe(false);
      } finally {
        await replica.close();
      }
    } finally {
      relay.thaw();
      await limits.close();
      await relay.close();
    }
  }, 20_000);
});
