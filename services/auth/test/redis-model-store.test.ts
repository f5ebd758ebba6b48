import { randomBytes } from 'node:crypto';
import { createTestRedis, type TestRedis } from '@sheetgate/test-harness';
import type { Adapter } from 'oidc-provider';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyringSpec, parseKeyring } from '../src/crypto/keyring.ts';
import { createModelSecrets } from '../src/oidc/model-secrets.ts';
import { createRedisModelStore, type RedisModelStore } from '../src/oidc/redis-adapter.ts';

// The provider's short-lived models on a real Redis (what every auth replica shares). Without a
// Redis these models live in PostgreSQL, and this file has nothing to test.

// Known before the tests are collected, so that they are skipped (and say so) without a Redis.
const redis: TestRedis = await createTestRedis();
let store: RedisModelStore | undefined;
let inspector: ReturnType<typeof createClient> | undefined;
const namespace = `sheetgate:test:${randomBytes(4).toString('hex')}:oidc:`;
const secrets = createModelSecrets({
  pepper: randomBytes(32).toString('base64url'),
  keyring: parseKeyring(generateKeyringSpec()),
});
/** The Redis key of the code presented as `codeId`. */
const codeKey = (codeId: string) =>
  `${namespace}AuthorizationCode:${secrets.storedId('AuthorizationCode', codeId)}`;

beforeAll(async () => {
  if (!redis.url) return;
  store = await createRedisModelStore(redis.url, { namespace, secrets });
  inspector = createClient({ url: redis.url });
  await inspector.connect();
});
afterAll(async () => {
  await store?.close();
  await inspector?.close();
  await redis?.close();
});

const id = () => randomBytes(12).toString('base64url');

describe.skipIf(!redis.url)('oidc-provider models on Redis', () => {
  let codes: Adapter;
  let interactions: Adapter;
  beforeAll(() => {
    codes = store!.adapterFor('AuthorizationCode');
    interactions = store!.adapterFor('Interaction');
  });

  it('stores, finds and destroys a model, expiring with it', async () => {
    const codeId = id();
    await codes.upsert(codeId, { accountId: 'a', grantId: id(), exp: 1 }, 60);
    expect(await codes.find(codeId)).toMatchObject({ accountId: 'a' });
    const ttl = await inspector!.ttl(codeKey(codeId));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
    await codes.destroy(codeId);
    expect(await codes.find(codeId)).toBeUndefined();
  });

  it('finds an interaction by its uid', async () => {
    const interactionId = id();
    const uid = id();
    await interactions.upsert(interactionId, { uid, returnTo: '/x' }, 600);
    expect(await interactions.findByUid!(uid)).toMatchObject({ uid, returnTo: '/x' });
    expect(await interactions.findByUid!(id())).toBeUndefined();
  });

  it('marks a code consumed without changing its payload or its expiry', async () => {
    const codeId = id();
    await codes.upsert(codeId, { accountId: 'a', grantId: id() }, 60);
    const key = codeKey(codeId);
    await codes.consume(codeId);
    const found = await codes.find(codeId);
    expect(found).toMatchObject({ accountId: 'a', consumed: expect.any(Number) });
    expect(await inspector!.ttl(key)).toBeGreaterThan(0);
  });

  it('consuming a code that is gone does not bring it back (as a key without expiry)', async () => {
    const codeId = id();
    await codes.consume(codeId);
    expect(await inspector!.exists(codeKey(codeId))).toBe(0);
    expect(await codes.find(codeId)).toBeUndefined();
  });

  it('racing consumes leave one consumed code', async () => {
    const codeId = id();
    const payload = { accountId: 'a', grantId: id() };
    await codes.upsert(codeId, payload, 60);
    await Promise.all(Array.from({ length: 10 }, () => codes.consume(codeId)));
    const key = codeKey(codeId);
    const stored = await inspector!.hGetAll(key);
    expect(Object.keys(stored).sort()).toEqual(['consumed', 'payload']);
    expect(JSON.parse(stored.payload!)).toEqual(payload);
    expect(await inspector!.ttl(key)).toBeGreaterThan(0);

    // Racing a destroy, they never bring the code back. Commands on one connection run in the
    // order sent (consumes, the destroy, more consumes): a consume that checked for the code apart
    // from marking it would mark it after the destroy, as a key without expiry.
    const destroyedId = id();
    await codes.upsert(destroyedId, payload, 60);
    const consume = () => codes.consume(destroyedId);
    await Promise.all([
      ...Array.from({ length: 5 }, consume),
      codes.destroy(destroyedId),
      ...Array.from({ length: 5 }, consume),
    ]);
    expect(await inspector!.exists(codeKey(destroyedId))).toBe(0);
    expect(await codes.find(destroyedId)).toBeUndefined();
  });

  it('revokes every model of a grant, and only that grant', async () => {
    const grant = id();
    const other = id();
    const mine = [id(), id()];
    const theirs = id();
    for (const codeId of mine) await codes.upsert(codeId, { grantId: grant }, 60);
    await codes.upsert(theirs, { grantId: other }, 60);
    await codes.revokeByGrantId(grant);
    for (const codeId of mine) expect(await codes.find(codeId)).toBeUndefined();
    expect(await codes.find(theirs)).toBeDefined();
    expect(await inspector!.exists(`${namespace}grant:${grant}`)).toBe(0);
  });

  it('keeps a grant’s key set as long as its longest-lived member', async () => {
    const grant = id();
    await codes.upsert(id(), { grantId: grant }, 600);
    await codes.upsert(id(), { grantId: grant }, 30);
    const ttl = await inspector!.ttl(`${namespace}grant:${grant}`);
    expect(ttl).toBeGreaterThan(30);
    expect(ttl).toBeLessThanOrEqual(600);
  });
});
