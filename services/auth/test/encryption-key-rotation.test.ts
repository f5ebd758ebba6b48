import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisCache } from '../src/cache/redis-cache.ts';
import { generateKeyringSpec, parseKeyring } from '../src/crypto/keyring.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createAccessTokenCache } from '../src/google/access-token-cache.ts';
import { createGoogleConnectionLibrary } from '../src/google/google-connections.ts';
import { createSigningKeyStore } from '../src/signing-keys/signing-key-store.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';

// The documented rotation of AUTH_ENCRYPTION_KEYS (deploy/README.md, "Encryption-key rotation"),
// as an operator runs it: a new key first in the ring and a rollout, the `reseal` CLI as its own
// process, then the old key dropped and another rollout. Everything auth stored must still open.

const RESEAL_CLI = fileURLToPath(new URL('../src/crypto/reseal-cli.ts', import.meta.url));
const FULL_SCOPES = ['openid', 'email', 'profile', 'https://www.googleapis.com/auth/spreadsheets'];

let subject: AuthUnderTest;
let pool: DatabasePool;
let oldRing: string;
let userId: string;
/** A confidential OAuth client, whose secret auth keeps sealed. */
let oauthClient: { client_id: string; client_secret: string; registration_access_token: string };
const refreshToken = `1//${randomBytes(24).toString('base64url')}`;
const cachedToken = {
  accessToken: `ya29.${randomBytes(24).toString('base64url')}`,
  expiresAt: 0,
  scopes: FULL_SCOPES,
  account: { email: 'rotation@example.com', hostedDomain: null },
};

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `pnpm --filter @sheetgate/auth reseal` with auth's settings and this key ring. */
async function reseal(ring: string): Promise<CliRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [RESEAL_CLI], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: subject.env.DATABASE_URL,
        AUTH_ENCRYPTION_KEYS: ring,
        LOG_LEVEL: 'silent',
        ...(subject.env.REDIS_URL ? { REDIS_URL: subject.env.REDIS_URL } : {}),
      },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

async function publishedKids(): Promise<string[]> {
  const response = await fetch(`${subject.baseUrl}/api/auth/jwks`);
  expect(response.status).toBe(200);
  return ((await readJson(response)).keys as Array<{ kid: string }>).map((key) => key.kid).sort();
}

/** Auth rolled out with another AUTH_ENCRYPTION_KEYS (one replica: stop, start). */
async function rollOut(ring: string): Promise<void> {
  subject.env.AUTH_ENCRYPTION_KEYS = ring;
  await subject.restart();
}

beforeAll(async () => {
  subject = await startAuthUnderTest();
  oldRing = subject.env.AUTH_ENCRYPTION_KEYS!;
  pool = createDatabasePool(subject.database.url, 2);
  // What auth keeps sealed: a Google connection, its signing key (made at start), and, with
  // Redis, a cached Google access token.
  const user = await createUserLibrary(pool).upsertFromGoogle({
    sub: '7001',
    email: 'rotation@example.com',
    name: 'Rotation',
  });
  userId = user.id;
  const keyring = parseKeyring(oldRing);
  await createGoogleConnectionLibrary({ pool, keyring }).save({
    userId,
    googleSubject: '7001',
    email: 'rotation@example.com',
    refreshToken,
    grantedScopes: FULL_SCOPES,
  });
  const registered = await fetch(`${subject.baseUrl}/api/auth/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Rotation',
      redirect_uris: ['http://127.0.0.1:40131/callback'],
      token_endpoint_auth_method: 'client_secret_basic',
    }),
  });
  expect(registered.status).toBe(201);
  oauthClient = (await readJson(registered)) as typeof oauthClient;
  if (subject.env.REDIS_URL) {
    const cache = await createRedisCache(subject.env.REDIS_URL);
    cachedToken.expiresAt = Math.floor(Date.now() / 1000) + 3600;
    await createAccessTokenCache(cache, keyring).set(userId, cachedToken, 600);
    await cache.close();
  }
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await subject?.stop();
});

describe('encryption-key rotation with the reseal CLI', () => {
  const newKey = generateKeyringSpec('rotated');
  let kidsBefore: string[];

  it('re-encrypts refresh tokens, signing keys and cached access tokens under the new first key', async () => {
    kidsBefore = await publishedKids();
    await rollOut(`${newKey},${oldRing}`);
    const run = await reseal(`${newKey},${oldRing}`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('current key: rotated\n');
    expect(run.stdout).toContain('Google refresh tokens: 1 re-encrypted, 0 unreadable\n');
    expect(run.stdout).toContain(`signing keys: ${kidsBefore.length} re-encrypted, 0 unreadable\n`);
    expect(run.stdout).toContain('OAuth client secrets: 1 re-encrypted, 0 unreadable\n');
    if (subject.env.REDIS_URL) {
      // Redis is shared with other test files, whose entries this ring cannot open: at least ours.
      const cached = /^cached Google access tokens: (\d+) re-encrypted/m.exec(run.stdout);
      expect(Number(cached?.[1])).toBeGreaterThanOrEqual(1);
    } else {
      expect(run.stdout).toContain('cached Google access tokens: none to re-encrypt without REDIS_URL');
    }
    const sealed = await pool.query<{ key_id: string }>(
      `SELECT split_part(refresh_token_encrypted, '.', 2) AS key_id FROM google_connections
       UNION ALL SELECT split_part(private_jwk_encrypted, '.', 2) FROM signing_keys
       UNION ALL SELECT split_part(payload->>'client_secret_sealed', '.', 2) FROM oidc_models WHERE model = 'Client'`,
    );
    expect(new Set(sealed.rows.map((row) => row.key_id))).toEqual(new Set(['rotated']));
  });

  it('is idempotent: a second run has nothing left to do', async () => {
    const run = await reseal(`${newKey},${oldRing}`);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Google refresh tokens: 0 re-encrypted, 0 unreadable\n');
    expect(run.stdout).toContain('signing keys: 0 re-encrypted, 0 unreadable\n');
    expect(run.stdout).toContain('OAuth client secrets: 0 re-encrypted, 0 unreadable\n');
  });

  it('after the old key leaves the ring, auth starts with the same signing keys and every secret opens', async () => {
    await rollOut(newKey);
    expect(await publishedKids()).toEqual(kidsBefore);
    const keyring = parseKeyring(newKey);
    const connections = createGoogleConnectionLibrary({ pool, keyring });
    const connection = await connections.findSealed(userId);
    expect(connections.unsealRefreshToken(connection!)).toBe(refreshToken);
    const stored = await createSigningKeyStore(pool, keyring).list();
    expect(stored.map((key) => key.kid).sort()).toEqual(kidsBefore);
    const registration = await fetch(`${subject.baseUrl}/api/auth/oauth2/register/${oauthClient.client_id}`, {
      headers: { authorization: `Bearer ${oauthClient.registration_access_token}` },
    });
    expect(registration.status).toBe(200);
    expect((await readJson(registration)).client_secret).toBe(oauthClient.client_secret);
    if (subject.env.REDIS_URL) {
      const cache = await createRedisCache(subject.env.REDIS_URL);
      try {
        expect(await createAccessTokenCache(cache, keyring).get(userId)).toEqual(cachedToken);
      } finally {
        await cache.close();
      }
    }
  });

  it('counts secrets no key in the ring opens, leaves them alone, and exits 1', async () => {
    const stranger = await createUserLibrary(pool).upsertFromGoogle({
      sub: '7002',
      email: 'lost-key@example.com',
      name: 'Lost key',
    });
    const lostKey = generateKeyringSpec('lost');
    await createGoogleConnectionLibrary({ pool, keyring: parseKeyring(lostKey) }).save({
      userId: stranger.id,
      googleSubject: '7002',
      email: 'lost-key@example.com',
      refreshToken: 'rt-sealed-with-a-key-that-is-gone',
      grantedScopes: FULL_SCOPES,
    });
    const before = await pool.query(
      'SELECT refresh_token_encrypted FROM google_connections WHERE user_id = $1',
      [stranger.id],
    );
    const run = await reseal(newKey);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Google refresh tokens: 0 re-encrypted, 1 unreadable\n');
    expect(run.stderr).toMatch(/1 secret\(s\) could not be read with any key in AUTH_ENCRYPTION_KEYS/);
    const after = await pool.query(
      'SELECT refresh_token_encrypted FROM google_connections WHERE user_id = $1',
      [stranger.id],
    );
    expect(after.rows).toEqual(before.rows);
  });

  it('refuses a malformed ring with one line naming the setting, and never echoes it', async () => {
    const secret = randomBytes(16).toString('base64');
    const run = await reseal(`k:${secret}`);
    expect(run.code).toBe(78);
    expect(run.stderr).toMatch(/^reseal: invalid setting AUTH_ENCRYPTION_KEYS: key k must be 32 bytes/);
    expect(run.stderr).not.toContain(secret);
    expect(run.stdout).toBe('');
  });
});
