import { randomBytes } from 'node:crypto';
import { createLogger } from '@sheetgate/service-runtime';
import { createTestDatabase, type TestDatabase } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyringSpec, parseKeyring } from '../src/crypto/keyring.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createModelSecrets } from '../src/oidc/model-secrets.ts';
import { postgresAdapterFactory, sweepExpiredOidcModels } from '../src/oidc/postgres-adapter.ts';

// The provider's long-lived models in PostgreSQL (oidc_models): consumed tokens stay findable
// until they expire, so reuse is detected; the sweep deletes only what has expired.

let database: TestDatabase;
let pool: DatabasePool;
let Adapter: ReturnType<typeof postgresAdapterFactory>;
const secrets = createModelSecrets({
  pepper: randomBytes(32).toString('base64url'),
  keyring: parseKeyring(generateKeyringSpec()),
});

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateToLatest(database.url, createLogger({ service: 'test', level: 'silent' }));
  pool = createDatabasePool(database.url, 2);
  Adapter = postgresAdapterFactory(pool, secrets);
});
afterAll(async () => {
  await pool?.end();
  await database?.close();
});

const id = () => randomBytes(12).toString('base64url');

/** Time passing for one row: its expiry moves into the past. */
async function expire(model: string, modelId: string) {
  await pool.query(
    "UPDATE oidc_models SET expires_at = now() - interval '1 second' WHERE model = $1 AND id = $2",
    [model, secrets.storedId(model, modelId)],
  );
}

describe('oidc_models and the sweep of expired models', () => {
  it('keeps a consumed refresh token findable, marked consumed, until it expires', async () => {
    const tokens = new Adapter('RefreshToken');
    const tokenId = id();
    await tokens.upsert(tokenId, { accountId: 'a', grantId: id() }, 3600);
    await tokens.consume(tokenId);
    expect(await tokens.find(tokenId)).toMatchObject({ accountId: 'a', consumed: expect.any(Number) });
    await expire('RefreshToken', tokenId);
    expect(await tokens.find(tokenId)).toBeUndefined();
  });

  it('deletes expired models only: live, consumed-but-live and never-expiring ones stay', async () => {
    await sweepExpiredOidcModels(pool); // what earlier tests left expired
    const tokens = new Adapter('RefreshToken');
    const clients = new Adapter('Client');
    const [expired, live, consumedLive, client] = [id(), id(), id(), id()];
    await tokens.upsert(expired, { grantId: id() }, 3600);
    await tokens.upsert(live, { grantId: id() }, 3600);
    await tokens.upsert(consumedLive, { grantId: id() }, 3600);
    await tokens.consume(consumedLive);
    await clients.upsert(client, { client_id: client }, 0);
    await expire('RefreshToken', expired);

    expect(await sweepExpiredOidcModels(pool)).toBe(1);
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM oidc_models ORDER BY id');
    const left = rows.map((row) => row.id);
    const stored = (tokenId: string) => secrets.storedId('RefreshToken', tokenId);
    expect(left).not.toContain(stored(expired));
    expect(left).toEqual(expect.arrayContaining([stored(live), stored(consumedLive), client]));
    expect(await tokens.find(consumedLive)).toMatchObject({ consumed: expect.any(Number) });

    // Nothing left to sweep: a second run deletes nothing.
    expect(await sweepExpiredOidcModels(pool)).toBe(0);
  });

  it('revokes every model of a grant, and only that grant', async () => {
    const grant = id();
    const tokens = new Adapter('RefreshToken');
    const mine = [id(), id()];
    const theirs = id();
    for (const tokenId of mine) await tokens.upsert(tokenId, { grantId: grant }, 3600);
    await tokens.upsert(theirs, { grantId: id() }, 3600);
    await tokens.revokeByGrantId(grant);
    for (const tokenId of mine) expect(await tokens.find(tokenId)).toBeUndefined();
    expect(await tokens.find(theirs)).toBeDefined();
  });
});
