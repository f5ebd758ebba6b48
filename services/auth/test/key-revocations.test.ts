import { randomBytes } from 'node:crypto';
import { createAccountServiceClient } from '@sheetgate/proto';
import { createLogger } from '@sheetgate/service-runtime';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRedisKeyRevocations,
  type KeyRevocations,
  keyRevocationNames,
} from '../src/api-keys/key-revocations.ts';
import { createDatabasePool } from '../src/db/pool.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { startAuthUnderTest } from './support/auth-process.ts';

// The API-key revocation version and its channel in Redis (docs/design.md §5), namespaced by the
// deployment's key prefix: a revocation changes the version of its own deployment's replicas only,
// so another deployment on the same Redis (a test stack beside this one) keeps trusting its cached
// keys rather than reading each of them from PostgreSQL again.

const redisUrl = process.env.REDIS_URL;
const logger = createLogger({ service: 'test', level: 'silent' });

describe('the revocation version’s names in Redis', () => {
  it('are the historical ones without a prefix, and under the prefix otherwise', () => {
    expect(keyRevocationNames()).toEqual({
      version: 'sheetgate:auth:api-keys:revocation-version',
      channel: 'sheetgate:auth:api-keys:revoked',
    });
    expect(keyRevocationNames('e2e:ab12')).toEqual({
      version: 'e2e:ab12:api-keys:revocation-version',
      channel: 'e2e:ab12:api-keys:revoked',
    });
  });
});

describe.skipIf(!redisUrl)('two deployments on one Redis', () => {
  const ours = `test:${randomBytes(6).toString('hex')}`;
  const theirs = `test:${randomBytes(6).toString('hex')}`;
  let first: KeyRevocations;
  let second: KeyRevocations;
  let other: KeyRevocations;
  const heard = new Map<KeyRevocations, string[]>();

  /** Resolves once `revocations` hears `keyId` revoked. */
  function hearing(revocations: KeyRevocations, keyId: string): Promise<void> {
    return new Promise((resolve) => revocations.onRevoked((revoked) => revoked === keyId && resolve()));
  }
  /** The version, once it is known (the first read of a missing one writes it and answers none). */
  async function versionOf(revocations: KeyRevocations): Promise<string> {
    return (await revocations.version()) ?? (await revocations.version())!;
  }

  beforeAll(async () => {
    first = await createRedisKeyRevocations({ redisUrl: redisUrl!, keyPrefix: ours, logger });
    second = await createRedisKeyRevocations({ redisUrl: redisUrl!, keyPrefix: ours, logger });
    other = await createRedisKeyRevocations({ redisUrl: redisUrl!, keyPrefix: theirs, logger });
    for (const revocations of [first, second, other]) {
      heard.set(revocations, []);
      revocations.onRevoked((keyId) => heard.get(revocations)!.push(keyId));
    }
  });
  afterAll(async () => {
    await Promise.all([first, second, other].map((revocations) => revocations?.close()));
  });

  it('a revocation changes its own deployment’s version only, and is heard there only', async () => {
    const ourVersion = await versionOf(first);
    const theirVersion = await versionOf(other);
    expect(await second.version()).toBe(ourVersion);

    const theirKey = `key-${randomBytes(4).toString('hex')}`;
    const ourKey = `key-${randomBytes(4).toString('hex')}`;
    const atOther = hearing(other, theirKey);
    const atSecond = hearing(second, ourKey);
    await other.announce(theirKey);
    expect(await first.version()).toBe(ourVersion);
    expect(await second.version()).toBe(ourVersion);
    const theirNewVersion = await other.version();
    expect(theirNewVersion).not.toBe(theirVersion);
    await atOther;

    // Announced after theirs: had our replicas been subscribed to their channel, Redis would have
    // handed them theirs first.
    await first.announce(ourKey);
    await atSecond;
    const ourNewVersion = await second.version();
    expect(ourNewVersion).not.toBe(ourVersion);
    expect(await first.version()).toBe(ourNewVersion);
    expect(await other.version()).toBe(theirNewVersion);
    expect(heard.get(second)).toEqual([ourKey]);
    expect(heard.get(first)).toEqual([ourKey]);
    expect(heard.get(other)).toEqual([theirKey]);
  });
});

describe.skipIf(!redisUrl)('an auth process under RATE_LIMIT_KEY_PREFIX', () => {
  it('keeps its revocation version and channel under that prefix', async () => {
    const subject = await startAuthUnderTest();
    const pool = createDatabasePool(subject.database.url, 1);
    const redis = createClient({ url: redisUrl! });
    const subscriber = redis.duplicate();
    const accounts = createAccountServiceClient({
      address: `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`,
      serviceToken: subject.env.INTERNAL_SERVICE_TOKEN!,
    });
    try {
      await Promise.all([redis.connect(), subscriber.connect()]);
      const names = keyRevocationNames(subject.env.RATE_LIMIT_KEY_PREFIX);
      const user = await createUserLibrary(pool).upsertFromGoogle({
        sub: randomBytes(6).toString('hex'),
        email: 'carol@example.com',
        name: 'Carol',
      });
      const sessionCookie = (await createSessionStore(pool).create(user.id)).cookieValue;
      const created = await accounts.createApiKey({
        sessionCookie,
        name: 'revoked',
        scopes: ['sheets:read'],
        expiresAt: '',
      });
      // Subscribed before the revocation, so its publish cannot pass unheard.
      const published = Promise.withResolvers<string>();
      await subscriber.subscribe(names.channel, published.resolve);
      // Written at start, so the first keys a new deployment verifies are kept under it.
      const atStart = await redis.get(names.version);
      expect(atStart).toMatch(/^[\da-f-]{36}$/);
      await accounts.revokeApiKey({ sessionCookie, keyId: created.key!.id });
      expect(await redis.get(names.version)).toMatch(/^[\da-f-]{36}$/);
      expect(await redis.get(names.version)).not.toBe(atStart);
      expect(await published.promise).toBe(created.key!.id);
    } finally {
      accounts.close();
      await Promise.allSettled([subscriber.close(), redis.close()]);
      await pool.end();
      await subject.stop();
    }
  });
});
