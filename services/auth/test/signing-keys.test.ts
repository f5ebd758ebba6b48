import { createLogger } from '@sheetgate/service-runtime';
import { createTestDatabase, generateLocalSecrets, type TestDatabase } from '@sheetgate/test-harness';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyringSpec, parseKeyring } from '../src/crypto/keyring.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import {
  createSigningKeyStore,
  parseConfiguredSigningKeys,
  SigningKeyError,
} from '../src/signing-keys/signing-key-store.ts';

let database: TestDatabase;
let pool: DatabasePool;
const keyring = parseKeyring(generateLocalSecrets().AUTH_ENCRYPTION_KEYS);

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateToLatest(database.url, createLogger({ service: 'test', level: 'silent' }));
  pool = createDatabasePool(database.url, 4);
});
afterAll(async () => {
  await pool?.end();
  await database?.close();
});

describe('stored signing keys', () => {
  it('generates one current ES256 key, once, even when replicas race', async () => {
    const store = createSigningKeyStore(pool, keyring);
    const results = await Promise.all([store.loadOrCreate(), store.loadOrCreate(), store.loadOrCreate()]);
    const kids = results.map((keys) => keys.filter((key) => key.state === 'current').map((key) => key.kid));
    expect(new Set(kids.flat()).size).toBe(1);
    expect(results[0]![0]).toMatchObject({ alg: 'ES256', state: 'current' });
  });

  it('keeps private parts encrypted at rest', async () => {
    const [key] = await createSigningKeyStore(pool, keyring).list();
    const { rows } = await pool.query('SELECT public_jwk::text, private_jwk_encrypted FROM signing_keys');
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(String(key!.privateJwk.d));
    expect(rows[0].private_jwk_encrypted).toMatch(/^v1\./);
  });

  it('cannot be read with another key ring', async () => {
    const other = createSigningKeyStore(pool, parseKeyring(generateKeyringSpec('other')));
    await expect(other.list()).rejects.toThrow(/not in the key ring/);
  });

  it('rotates: stage publishes without signing, promote switches, prune retires', async () => {
    const store = createSigningKeyStore(pool, keyring);
    const [original] = await store.list();
    const next = await store.stageNextKey();
    let keys = await store.list();
    expect(keys.map((key) => [key.kid, key.state])).toEqual([
      [original!.kid, 'current'],
      [next, 'next'],
    ]);
    await store.promoteNextKey();
    keys = await store.list();
    expect(keys[0]).toMatchObject({ kid: next, state: 'current' });
    expect(keys.find((key) => key.kid === original!.kid)?.state).toBe('retired');
    expect(await store.removeRetiredKeys(3600)).toBe(0);
    await pool.query(
      "UPDATE signing_keys SET retired_at = now() - interval '2 hours' WHERE state = 'retired'",
    );
    expect(await store.removeRetiredKeys(3600)).toBe(1);
    expect((await store.list()).map((key) => key.kid)).toEqual([next]);
    await expect(store.promoteNextKey()).rejects.toThrow(SigningKeyError);
  });
});

describe('AUTH_SIGNING_KEYS', () => {
  it('accepts a private JWKS and makes the first key current', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: 'ops-1', alg: 'ES256' };
    const keys = parseConfiguredSigningKeys(JSON.stringify({ keys: [jwk] }));
    expect(keys).toEqual([expect.objectContaining({ kid: 'ops-1', alg: 'ES256', state: 'current' })]);
  });

  it.each([
    ['not JSON', '{', /not valid JSON/],
    ['no keys', '{"keys":[]}', /non-empty/],
    ['no kid', '{"keys":[{"kty":"EC","alg":"ES256","d":"x"}]}', /no "kid"/],
    [
      'a symmetric algorithm',
      '{"keys":[{"kty":"oct","kid":"a","alg":"HS256","k":"x","d":"x"}]}',
      /must be one of/,
    ],
    [
      'a public key only',
      '{"keys":[{"kty":"EC","kid":"a","alg":"ES256","x":"x","y":"y"}]}',
      /not a private key/,
    ],
  ])('refuses %s with a clear message', (_name, json, message) => {
    expect(() => parseConfiguredSigningKeys(json)).toThrow(message);
  });
});
