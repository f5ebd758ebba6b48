import { type Browser, readJson } from '@sheetgate/test-harness';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabasePool } from '../src/db/pool.ts';
import type { AuthUnderTest } from './support/auth-process.ts';
import {
  type ClientAuth,
  type OAuthTestbed,
  type OAuthTestClient,
  startOAuthTestbed,
} from './support/oauth-flow.ts';

// What a copy of auth's stores gives an attacker (a database dump, its WAL, a backup or replica,
// a Redis dump): no OAuth secret that works. Every bearer value issued in real flows — codes,
// refresh tokens, session and interaction ids, registration access tokens, client secrets — is
// looked for in every table and every Redis key and value, and must be absent.

const REDIRECT = 'http://127.0.0.1:40121/callback';
let testbed: OAuthTestbed;
let subject: AuthUnderTest;
let pool: DatabasePool;
let oauth: OAuthTestClient;
let userId: string;

beforeAll(async () => {
  testbed = await startOAuthTestbed({ sub: '15001', email: 'rita@example.com' });
  ({ subject, pool, oauth, userId } = testbed);
});
afterAll(() => testbed?.stop());

/** Every row of every table of the database, as text. */
async function databaseDump(): Promise<string> {
  const { rows: tables } = await pool.query<{ schema: string; name: string }>(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  expect(tables.map((table) => table.name)).toContain('oidc_models');
  const parts: string[] = [];
  for (const { schema, name } of tables) {
    const quoted = `"${schema.replaceAll('"', '""')}"."${name.replaceAll('"', '""')}"`;
    const { rows } = await pool.query<{ row: string }>(`SELECT t::text AS row FROM ${quoted} t`);
    parts.push(`${name}:`, ...rows.map((row) => row.row));
  }
  return parts.join('\n');
}

/** Every key of auth's namespaces in Redis with its value, as text (empty without Redis). */
async function redisDump(): Promise<string> {
  if (!subject.redis.url) return '';
  const client = createClient({ url: subject.redis.url });
  await client.connect();
  try {
    const parts: string[] = [];
    const patterns = ['sheetgate:*', `${subject.env.RATE_LIMIT_KEY_PREFIX}:*`];
    for (const pattern of patterns)
      for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 1000 })) {
        for (const key of keys) {
          const type = await client.type(key);
          let value: unknown;
          if (type === 'string') value = await client.get(key);
          else if (type === 'hash') value = await client.hGetAll(key);
          else if (type === 'set') value = await client.sMembers(key);
          else if (type === 'zset') value = await client.zRange(key, 0, -1);
          else if (type === 'list') value = await client.lRange(key, 0, -1);
          parts.push(`${key} ${JSON.stringify(value)}`);
        }
      }
    return parts.join('\n');
  } finally {
    await client.close();
  }
}

/** The issued values (by what they are) found in either dump. */
async function foundAtRest(issued: Map<string, string>): Promise<string[]> {
  const database = await databaseDump();
  const redis = await redisDump();
  // The dumps hold what the flows stored: tokens in PostgreSQL, interactions in Redis when it is set.
  expect(database).toContain('RefreshToken');
  if (subject.redis.url) expect(redis).toContain('sheetgate:oidc:Interaction:');
  const dump = `${database}\n${redis}`;
  return [...issued].filter(([, value]) => dump.includes(value)).map(([what]) => what);
}

async function registerClient(method: 'none' | 'client_secret_basic') {
  const registered = await oauth.register({
    client_name: `Secrets at rest (${method})`,
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: method,
  });
  expect(registered.status).toBe(201);
  const body = registered.body as Record<string, string>;
  const auth: ClientAuth =
    method === 'none'
      ? { method, clientId: body.client_id! }
      : { method, clientId: body.client_id!, secret: body.client_secret! };
  return { body, auth };
}

/** Reads a client's registration with its registration access token (RFC 7592). */
async function readRegistration(clientId: string, registrationAccessToken: string) {
  const response = await fetch(`${oauth.endpoint('register')}/${clientId}`, {
    headers: { authorization: `Bearer ${registrationAccessToken}` },
  });
  return { status: response.status, body: (await readJson(response)) as Record<string, string> };
}

/**
 * A person connects the client: authorization with consent, the code exchanged, the refresh token
 * rotated twice. Answers every value issued on the way, and the newest refresh token.
 */
async function connect(client: Awaited<ReturnType<typeof registerClient>>, label: string) {
  const issued = new Map<string, string>();
  const browser = await oauth.signedInBrowser(userId);
  const { params, verifier } = oauth.codeRequest(client.auth.clientId, REDIRECT);
  const { redirect, last } = await oauth.authorize(browser, params);
  const interaction = last.searchParams.get('interaction');
  if (interaction) issued.set(`${label} interaction id`, interaction);
  const code = redirect.searchParams.get('code')!;
  expect(code).toEqual(expect.any(String));
  issued.set(`${label} authorization code`, code);
  for (const cookie of await browser.jar.getCookies(subject.baseUrl)) {
    if (!cookie.key.endsWith('.sig')) issued.set(`${label} cookie ${cookie.key}`, cookie.value);
  }
  expect([...issued.keys()]).toContain(`${label} cookie sg_oidc_session`);

  const exchanged = await oauth.token(
    { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT },
    client.auth,
  );
  expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
  let tokens = exchanged.body as Record<string, string>;
  for (let round = 0; round < 3; round += 1) {
    issued.set(`${label} access token ${round}`, tokens.access_token!);
    issued.set(`${label} refresh token ${round}`, tokens.refresh_token!);
    if (round === 2) break;
    const refreshed = await oauth.token(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
      client.auth,
    );
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    tokens = refreshed.body as Record<string, string>;
  }
  return { issued, browser, refreshToken: tokens.refresh_token! };
}

/**
 * An authorization left waiting at the consent page: its interaction stays stored (a finished one
 * is deleted), naming the provider session. Answers its interaction id and the browser's cookies.
 */
async function pendingAuthorization(clientId: string) {
  const issued = new Map<string, string>();
  const browser = await oauth.signedInBrowser(userId);
  const { params } = oauth.codeRequest(clientId, REDIRECT);
  const step = await browser.navigate(
    `${oauth.endpoint('authorize')}?${new URLSearchParams(params)}`,
    {},
    (url) => url.pathname === '/authorize',
  );
  const consentPage = new URL(step.redirects.at(-1) ?? step.url);
  expect(consentPage.pathname).toBe('/authorize');
  issued.set('pending interaction id', consentPage.searchParams.get('interaction')!);
  for (const cookie of await browser.jar.getCookies(`${subject.baseUrl}/api/auth/interaction/x`)) {
    if (!cookie.key.endsWith('.sig')) issued.set(`pending cookie ${cookie.key}`, cookie.value);
  }
  expect([...issued.keys()]).toContain('pending cookie sg_oidc_session');
  return issued;
}

describe('OAuth secrets at rest', () => {
  const issued = new Map<string, string>();
  let confidential: Awaited<ReturnType<typeof registerClient>>;
  let publicClient: Awaited<ReturnType<typeof registerClient>>;
  let confidentialRefreshToken: string;
  let confidentialSessionId: string;
  let confidentialBrowser: Browser;

  it('stores no issued code, token, session id, interaction id or client secret anywhere', async () => {
    confidential = await registerClient('client_secret_basic');
    publicClient = await registerClient('none');
    issued.set('client secret', confidential.body.client_secret!);
    issued.set('confidential registration access token', confidential.body.registration_access_token!);
    issued.set('public registration access token', publicClient.body.registration_access_token!);

    const first = await connect(confidential, 'confidential');
    const second = await connect(publicClient, 'public');
    confidentialRefreshToken = first.refreshToken;
    confidentialBrowser = first.browser;
    confidentialSessionId = first.issued.get('confidential cookie sg_oidc_session')!;
    const pending = await pendingAuthorization((await registerClient('none')).auth.clientId);
    for (const [what, value] of [...first.issued, ...second.issued, ...pending]) issued.set(what, value);

    // Everything still works from what is stored: registrations read back (secret included).
    const read = await readRegistration(
      confidential.auth.clientId,
      confidential.body.registration_access_token!,
    );
    expect(read.status).toBe(200);
    expect(read.body.client_secret).toBe(confidential.body.client_secret);
    expect(
      (await readRegistration(publicClient.auth.clientId, publicClient.body.registration_access_token!))
        .status,
    ).toBe(200);

    expect(await foundAtRest(issued)).toEqual([]);
  });

  it('converts rows written in clear by the previous release, which keep working', async () => {
    // What the previous release wrote: each bearer model keyed by its raw value, which its payload
    // repeated as jti, and the client secret in clear in the client's metadata.
    const { clientId } = confidential.auth;
    const downgrade = async (where: string, raw: string) => {
      const { rows } = await pool.query<{ uid: string | null }>(
        `UPDATE oidc_models SET id = $2, payload = payload || jsonb_build_object('jti', $2::text) WHERE ${where}
         RETURNING uid`,
        [clientId, raw],
      );
      expect(rows, where).toHaveLength(1);
      return rows[0]!.uid;
    };
    await downgrade(
      `model = 'RefreshToken' AND payload->>'clientId' = $1 AND consumed_at IS NULL`,
      confidentialRefreshToken,
    );
    await downgrade(
      `model = 'RegistrationAccessToken' AND payload->>'clientId' = $1`,
      confidential.body.registration_access_token!,
    );
    const confidentialSessionUid = await downgrade(
      `model = 'Session' AND payload->'authorizations' ? $1`,
      confidentialSessionId,
    );
    expect(confidentialSessionUid).toEqual(expect.any(String));
    await pool.query(
      `UPDATE oidc_models SET payload = jsonb_set(payload, '{client_secret}', to_jsonb($2::text))
        WHERE model = 'Client' AND id = $1`,
      [clientId, confidential.body.client_secret],
    );

    await subject.restart();
    expect(await foundAtRest(issued)).toEqual([]);

    // The refresh token issued before the upgrade still refreshes, with the client's secret.
    const refreshed = await oauth.token(
      { grant_type: 'refresh_token', refresh_token: confidentialRefreshToken },
      confidential.auth,
    );
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    const tokens = refreshed.body as Record<string, string>;
    issued.set('refresh token after the upgrade', tokens.refresh_token!);
    // The registration access token still reads the registration, secret included.
    const read = await readRegistration(clientId, confidential.body.registration_access_token!);
    expect(read.status).toBe(200);
    expect(read.body.client_secret).toBe(confidential.body.client_secret);
    // The provider session is still found by its cookie: a new authorization goes on with it,
    // which stores it under a new id (the provider renews the id at each resume) and the same uid.
    const sessionRow = async () =>
      (
        await pool.query<{ id: string }>(`SELECT id FROM oidc_models WHERE model = 'Session' AND uid = $1`, [
          confidentialSessionUid,
        ])
      ).rows;
    const [converted] = await sessionRow();
    const { params } = oauth.codeRequest(clientId, REDIRECT);
    const { redirect } = await oauth.authorize(confidentialBrowser, params);
    expect(redirect.searchParams.get('code')).toEqual(expect.any(String));
    const renewed = await sessionRow();
    expect(renewed).toHaveLength(1);
    expect(renewed[0]!.id).not.toBe(converted!.id);
    issued.set('code after the upgrade', redirect.searchParams.get('code')!);
    const cookies = await confidentialBrowser.jar.getCookies(subject.baseUrl);
    issued.set(
      'session after the upgrade',
      cookies.find((cookie) => cookie.key === 'sg_oidc_session')!.value,
    );

    expect(await foundAtRest(issued)).toEqual([]);
  });
});
