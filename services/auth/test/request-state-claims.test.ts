import { randomBytes } from 'node:crypto';
import {
  createRequestStateClient,
  GrpcStatus,
  type RequestStateClient,
  requestStateService,
  startGrpcServer,
} from '@sheetgate/proto';
import { createLogger } from '@sheetgate/service-runtime';
import { createTestRedis, type TestRedis } from '@sheetgate/test-harness';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cache } from '../src/cache/cache.ts';
import { createMemoryCache } from '../src/cache/memory-cache.ts';
import { createRedisCache } from '../src/cache/redis-cache.ts';
import { requestStateHandlers } from '../src/grpc/request-state-service.ts';
import {
  CLAIM_CLOCK_MARGIN_MS,
  createRequestStateClaims,
} from '../src/request-states/request-state-claims.ts';
import { startFreezableRedis } from './support/frozen-redis.ts';

// Auth's record of used MCP requestStates (docs/design.md §15) over real gRPC, on the in-process
// cache and on Redis: one claim of an id wins, and the record outlives the state on every replica.

const TOKEN = randomBytes(32).toString('base64url');
const quiet = createLogger({ service: 'test', level: 'silent' });
const stateId = () => randomBytes(16).toString('base64url');

let redis: TestRedis;
beforeAll(async () => {
  redis = await createTestRedis();
});
afterAll(async () => {
  await redis?.close();
});

/** Auth's RequestStateService on `cache`, and a client of it as the MCP service holds one. */
async function serve(cache: Cache) {
  const server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    serviceToken: TOKEN,
    services: [
      requestStateService(requestStateHandlers({ logger: quiet, claims: createRequestStateClaims(cache) })),
    ],
  });
  const client = createRequestStateClient({ address: `127.0.0.1:${server.port}`, serviceToken: TOKEN });
  return {
    client,
    async close() {
      client.close();
      await server.close();
    },
  };
}

const namespace = () => `sheetgate:test:${randomBytes(4).toString('hex')}:`;
const caches: Array<[string, () => Promise<Cache>]> = [
  ['in-process cache', async () => createMemoryCache()],
  ['Redis', async () => createRedisCache(redis.url!, { namespace: namespace() })],
];

describe.each(caches)('ClaimRequestState on the %s', (name, create) => {
  const available = () => name !== 'Redis' || Boolean(redis.url);
  let cache: Cache;
  let service: Awaited<ReturnType<typeof serve>>;
  let client: RequestStateClient;
  beforeAll(async () => {
    if (!available()) return;
    cache = await create();
    service = await serve(cache);
    client = service.client;
  });
  afterAll(async () => {
    await service?.close();
    await cache?.close();
  });

  it('claims an id once: every later claim of it is refused, other ids are not', async ({ skip }) => {
    if (!available()) skip('no Redis server or Docker engine here');
    const id = stateId();
    expect(await client.claimRequestState({ stateId: id, validForMs: 300_000 })).toEqual({ claimed: true });
    expect(await client.claimRequestState({ stateId: id, validForMs: 300_000 })).toEqual({ claimed: false });
    expect(await client.claimRequestState({ stateId: id, validForMs: 1 })).toEqual({ claimed: false });
    expect(await client.claimRequestState({ stateId: stateId(), validForMs: 300_000 })).toEqual({
      claimed: true,
    });
  });

  it('of claims of one id sent at once, exactly one wins', async ({ skip }) => {
    if (!available()) skip('no Redis server or Docker engine here');
    const id = stateId();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => client.claimRequestState({ stateId: id, validForMs: 300_000 })),
    );
    expect(answers.filter((answer) => answer.claimed)).toHaveLength(1);
  });

  it('refuses a malformed id or lifetime as INVALID_ARGUMENT, claiming nothing', async ({ skip }) => {
    if (!available()) skip('no Redis server or Docker engine here');
    const id = stateId();
    const malformed = [
      { stateId: '', validForMs: 1_000 },
      { stateId: 'abc', validForMs: 1_000 },
      { stateId: `${id}:x`, validForMs: 1_000 },
      { stateId: `${id}${'a'.repeat(64)}`, validForMs: 1_000 },
      { stateId: id, validForMs: 0 },
      { stateId: id, validForMs: -5 },
      { stateId: id, validForMs: 600_001 },
    ];
    for (const request of malformed) {
      await expect(client.claimRequestState(request)).rejects.toMatchObject({
        code: GrpcStatus.INVALID_ARGUMENT,
      });
    }
    expect(await client.claimRequestState({ stateId: id, validForMs: 600_000 })).toEqual({ claimed: true });
  });
});

describe('how long a claim is kept', () => {
  it('in process: for the state lifetime plus the clock margin, then the id is free again', async () => {
    let now = 1_000_000;
    const cache = createMemoryCache(() => now);
    const claims = createRequestStateClaims(cache);
    try {
      const id = stateId();
      expect(await claims.claim(id, 300_000)).toBe(true);
      now += 300_000 + CLAIM_CLOCK_MARGIN_MS - 1;
      expect(await claims.claim(id, 300_000)).toBe(false);
      now += 1;
      expect(await claims.claim(id, 300_000)).toBe(true);
    } finally {
      await cache.close();
    }
  });

  it('in Redis: the key expires after the state lifetime plus the clock margin', async ({ skip }) => {
    if (!redis.url) skip('no Redis server or Docker engine here');
    const prefix = namespace();
    const cache = await createRedisCache(redis.url!, { namespace: prefix });
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const id = stateId();
      expect(await createRequestStateClaims(cache).claim(id, 120_000)).toBe(true);
      const ttl = await raw.pTTL(`${prefix}request-state:${id}`);
      expect(ttl).toBeGreaterThan(120_000 + CLAIM_CLOCK_MARGIN_MS - 10_000);
      expect(ttl).toBeLessThanOrEqual(120_000 + CLAIM_CLOCK_MARGIN_MS);
    } finally {
      await raw.close();
      await cache.close();
    }
  });
});

describe('ClaimRequestState while Redis does not answer', () => {
  it('answers UNAVAILABLE (the MCP service then refuses the retry), and claims again once Redis is back', async ({
    skip,
  }) => {
    if (!redis.url) skip('no Redis server or Docker engine here');
    const relay = await startFreezableRedis(redis.url!);
    const cache = await createRedisCache(relay.url, { namespace: namespace() });
    const service = await serve(cache);
    try {
      relay.freeze();
      const id = stateId();
      await expect(
        service.client.claimRequestState({ stateId: id, validForMs: 300_000 }),
      ).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE });
      relay.thaw();
      const other = stateId();
      expect(await service.client.claimRequestState({ stateId: other, validForMs: 300_000 })).toEqual({
        claimed: true,
      });
      expect(await service.client.claimRequestState({ stateId: other, validForMs: 300_000 })).toEqual({
        claimed: false,
      });
    } finally {
      relay.thaw();
      await service.close();
      await cache.close();
      await relay.close();
    }
  }, 20_000);
});
