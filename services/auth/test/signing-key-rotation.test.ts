import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readJson } from '@sheetgate/test-harness';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';
import { type ClientAuth, type OAuthTestClient, oauthTestClient } from './support/oauth-flow.ts';

// The documented rotation of stored signing keys (README, "Signing keys"), as an operator runs it:
// the `keys` CLI as its own process, and a rollout (restart) of auth after each step. A token
// issued before the rotation must verify until its key is pruned.

const KEYS_CLI = fileURLToPath(new URL('../src/signing-keys/rotate-cli.ts', import.meta.url));
const REDIRECT = 'http://127.0.0.1:43210/callback';
let subject: AuthUnderTest;
let pool: DatabasePool;
let oauth: OAuthTestClient;
let auth: ClientAuth;
let refreshToken: string;

beforeAll(async () => {
  subject = await startAuthUnderTest();
  pool = createDatabasePool(subject.database.url, 2);
  oauth = oauthTestClient(subject, pool);
});
afterAll(async () => {
  await pool?.end();
  await subject?.stop();
});

/** `pnpm --filter @sheetgate/auth keys <command>`, with the settings auth has (async: an embedded
 * database answers from this process). */
async function keys(command: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [KEYS_CLI, command], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: subject.env.DATABASE_URL,
      AUTH_ENCRYPTION_KEYS: subject.env.AUTH_ENCRYPTION_KEYS,
      LOG_LEVEL: 'silent',
    },
  });
  return stdout;
}

async function publishedKids(): Promise<string[]> {
  return ((await jwks()).keys as Array<{ kid: string }>).map((key) => key.kid).sort();
}

async function jwks(): Promise<JSONWebKeySet> {
  const response = await fetch(`${subject.baseUrl}/api/auth/jwks`);
  expect(response.status).toBe(200);
  return readJson(response);
}

/** Verifies an access token against the JWKS published right now (no cached keys). */
async function verifiesNow(token: string) {
  return jwtVerify(token, createLocalJWKSet(await jwks()), {
    issuer: subject.baseUrl,
    audience: oauth.resource,
    typ: 'at+jwt',
  });
}

/** A new access token from the running process (a refresh), and the kid that signed it. */
async function newAccessToken() {
  const refreshed = await oauth.token({ grant_type: 'refresh_token', refresh_token: refreshToken }, auth);
  expect(refreshed.status).toBe(200);
  refreshToken = refreshed.body.refresh_token;
  const token = refreshed.body.access_token as string;
  return { token, kid: decodeProtectedHeader(token).kid! };
}

describe('signing-key rotation: stage, promote, prune, with a rollout after each', () => {
  let oldToken: string;
  let oldKid: string;
  let nextKid: string;

  it('issues a token signed with the current key', async () => {
    const user = await createUserLibrary(pool).upsertFromGoogle({ sub: '7001', email: 'hal@example.com' });
    const { body: client } = await oauth.register({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    auth = { method: 'none', clientId: client.client_id };
    const { params, verifier } = oauth.codeRequest(client.client_id, REDIRECT);
    const { redirect } = await oauth.authorize(await oauth.signedInBrowser(user.id), params);
    const tokens = await oauth.token(
      {
        grant_type: 'authorization_code',
        code: redirect.searchParams.get('code')!,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
      },
      auth,
    );
    expect(tokens.status).toBe(200);
    oldToken = tokens.body.access_token;
    refreshToken = tokens.body.refresh_token;
    oldKid = decodeProtectedHeader(oldToken).kid!;
    expect(await publishedKids()).toEqual([oldKid]);
  });

  it('stage: the next key is published, and does not sign yet', async () => {
    nextKid = /staged next key (\S+)/.exec(await keys('stage'))![1]!;
    await subject.restart();
    expect(await publishedKids()).toEqual([oldKid, nextKid].sort());
    expect((await newAccessToken()).kid).toBe(oldKid);
    await verifiesNow(oldToken);
  });

  it('promote: the new key signs, and the old token still verifies', async () => {
    await keys('promote');
    await subject.restart();
    expect(await publishedKids()).toEqual([oldKid, nextKid].sort());
    const fresh = await newAccessToken();
    expect(fresh.kid).toBe(nextKid);
    await verifiesNow(fresh.token);
    const { payload } = await verifiesNow(oldToken);
    expect(payload.iss).toBe(subject.baseUrl);
  });

  it('prune: keeps a key retired moments ago, drops it once retired long enough', async () => {
    expect(await keys('prune')).toContain('removed 0');
    await subject.restart();
    expect(await publishedKids()).toEqual([oldKid, nextKid].sort());
    await verifiesNow(oldToken);

    // An hour passes (the retirement window, longer than any access token lives).
    await pool.query("UPDATE signing_keys SET retired_at = retired_at - interval '61 minutes'");
    expect(await keys('prune')).toContain('removed 1');
    await subject.restart();
    expect(await publishedKids()).toEqual([nextKid]);
    await expect(verifiesNow(oldToken)).rejects.toThrow(/no applicable key found/i);
    await verifiesNow((await newAccessToken()).token);
  });
});
