import { randomBytes } from 'node:crypto';
import { createLogger } from '@sheetgate/service-runtime';
import { createTestDatabase, type TestDatabase } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyringSpec, parseKeyring } from '../src/crypto/keyring.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createModelSecrets } from '../src/oidc/model-secrets.ts';
import { postgresAdapterFactory, sweepExpiredOidcModels } from '../src/oidc/postgres-adapter.ts';
import { convertModelsStoredInClear } from '../src/oidc/stored-in-clear.ts';

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
  pool = createDatabasePool(database.url, 4);
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

describe('rows an earlier release stored in clear', () => {
  it('are converted once, by replicas starting together, and are found by the values they were issued as', async () => {
    // What the previous release wrote: bearer ids as row ids, repeated as jti; a client's secret in
    // clear. More tokens than one conversion batch.
    const tokenIds = Array.from({ length: 1203 }, id);
    const grantId = id();
    const clientId = id();
    const interactionId = id();
    const expiresAt = new Date(Date.now() + 3600_000);
    await pool.query(
      `INSERT INTO oidc_models (model, id, payload, grant_id, expires_at)
       SELECT 'RefreshToken', raw, jsonb_build_object('jti', raw, 'accountId', 'a', 'grantId', $2::text), $2, $3
         FROM unnest($1::text[]) AS raw`,
      [tokenIds, grantId, expiresAt],
    );
    await pool.query(
      `INSERT INTO oidc_models (model, id, payload) VALUES ('Grant', $1, '{"accountId": "a"}')`,
      [grantId],
    );
    await pool.query(
      `INSERT INTO oidc_models (model, id, payload) VALUES ('Client', $1, jsonb_build_object('client_id', $1::text, 'client_secret', 'the-secret'))`,
      [clientId],
    );
    await pool.query(
      `INSERT INTO oidc_models (model, id, payload, expires_at)
       VALUES ('Interaction', $1, jsonb_build_object('jti', $1::text, 'returnTo', '/resume/' || $1, 'session', '{"cookie": "session-id"}'::jsonb), $2)`,
      [interactionId, expiresAt],
    );
    await pool.query('UPDATE oidc_models SET consumed_at = now() WHERE id = $1', [tokenIds[0]]);

    const converted = await Promise.all([
      convertModelsStoredInClear(pool, secrets),
      convertModelsStoredInClear(pool, secrets),
    ]);
    expect(converted[0] + converted[1]).toBe(tokenIds.length + 2);
    expect(await convertModelsStoredInClear(pool, secrets)).toBe(0);

    const dump = (
      await pool.query<{ row: string }>('SELECT string_agg(t::text, chr(10)) AS row FROM oidc_models t')
    ).rows[0]!.row;
    for (const secret of [...tokenIds, interactionId, 'the-secret', 'session-id'])
      expect(dump).not.toContain(secret);
    // Grants and clients keep their ids.
    expect(dump).toContain(grantId);
    expect(dump).toContain(clientId);

    const tokens = new Adapter('RefreshToken');
    expect(await tokens.find(tokenIds[0]!)).toMatchObject({ jti: tokenIds[0], consumed: expect.any(Number) });
    expect(await tokens.find(tokenIds[1202]!)).toEqual({ jti: tokenIds[1202], accountId: 'a', grantId });
    expect(await new Adapter('Client').find(clientId)).toEqual({
      client_id: clientId,
      client_secret: 'the-secret',
    });
    expect(await new Adapter('Interaction').find(interactionId)).toEqual({
      jti: interactionId,
      returnTo: `/resume/${interactionId}`,
      session: { cookie: 'session-id' },
    });
    // Still revoked with their grant.
    await tokens.revokeByGrantId(grantId);
    expect(await tokens.find(tokenIds[5]!)).toBeUndefined();
  });
});

describe('bearer ids stored as keyed hashes', () => {
  it('finds a model by the value it was issued as, never by what is stored', async () => {
    const tokens = new Adapter('RefreshToken');
    const tokenId = id();
    await tokens.upsert(tokenId, { jti: tokenId, accountId: 'a', grantId: id() }, 3600);
    const { rows } = await pool.query<{ id: string; payload: object }>(
      `SELECT id, payload FROM oidc_models WHERE model = 'RefreshToken' AND payload->>'accountId' = 'a'
        AND id = $1`,
      [secrets.storedId('RefreshToken', tokenId)],
    );
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(tokenId);
    expect(await tokens.find(tokenId)).toMatchObject({ jti: tokenId, accountId: 'a' });
    // A copy of the table gives the stored id: presented, it finds nothing.
    expect(await tokens.find(rows[0]!.id)).toBeUndefined();
  });

  it('converts a row stored in clear during a rollout on its first use', async () => {
    const tokenId = id();
    await pool.query(
      `INSERT INTO oidc_models (model, id, payload, expires_at)
       VALUES ('RefreshToken', $1, jsonb_build_object('jti', $1::text, 'accountId', 'b'), now() + interval '1 hour')`,
      [tokenId],
    );
    const tokens = new Adapter('RefreshToken');
    expect(await tokens.find(tokenId)).toEqual({ jti: tokenId, accountId: 'b' });
    const { rows } = await pool.query('SELECT id FROM oidc_models WHERE id = $1', [tokenId]);
    expect(rows).toEqual([]);
    await tokens.consume(tokenId);
    expect(await tokens.find(tokenId)).toMatchObject({ consumed: expect.any(Number) });
  });
});
