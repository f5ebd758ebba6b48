import { createAccountServiceClient, GrpcStatus } from '@sheetgate/proto';
import {
  type PrivateServer,
  privateServersMissing,
  readJson,
  startPrivatePostgres,
} from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';
import { type OAuthTestClient, oauthTestClient } from './support/oauth-flow.ts';

// A real auth process on a PostgreSQL of this file's own, which the test stops: what an OAuth
// client and a person's browser see while the database is down. (The shared PostgreSQL other test
// files use never goes down.)

const missing = privateServersMissing();
if (missing) console.warn(`postgres-outage: skipped (outside CI only): ${missing}`);

let postgres: PrivateServer;
let subject: AuthUnderTest;
let pool: DatabasePool;
let userId: string;

const answerOf = async (response: Response) => ({
  status: response.status,
  headers: response.headers,
  body: await readJson(response),
});

/** What auth answers on any HTTP route while a store it needs is down: a retry, never a 500. */
const expectOutageAnswer = (label: string, answer: { status: number; headers: Headers; body: unknown }) => {
  expect(answer.status, label).toBe(503);
  expect(answer.headers.get('content-type'), label).toMatch(/^application\/json/);
  expect(Number(answer.headers.get('retry-after')), label).toBeGreaterThan(0);
  expect(answer.body, label).toMatchObject({
    error: 'temporarily_unavailable',
    error_description: expect.any(String),
  });
};

describe.skipIf(missing !== undefined)('auth while its PostgreSQL is down', () => {
  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    subject = await startAuthUnderTest({ DATABASE_URL: postgres.url });
    pool = createDatabasePool(postgres.url, 2);
    userId = (
      await createUserLibrary(pool).upsertFromGoogle({ sub: 'pg-outage-1', email: 'pat@example.com' })
    ).id;
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await subject?.stop();
    await postgres?.close();
  });

  it('registration, authorization, token and userinfo requests answer 503 temporarily_unavailable, and work again after', async () => {
    const oauth: OAuthTestClient = oauthTestClient(subject, pool);
    const redirectUri = 'http://127.0.0.1:40121/callback';
    const metadata = {
      client_name: 'database outage client',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
    const registered = await oauth.register(metadata);
    expect(registered.status).toBe(201);
    const clientId = (registered.body as { client_id: string }).client_id;
    const auth = { method: 'none', clientId } as const;
    const browser = await oauth.signedInBrowser(userId);
    const request = oauth.codeRequest(clientId, redirectUri);
    const { redirect } = await oauth.authorize(browser, request.params);
    const tokens = await oauth.token(
      {
        grant_type: 'authorization_code',
        code: redirect.searchParams.get('code')!,
        redirect_uri: redirectUri,
        code_verifier: request.verifier,
      },
      auth,
    );
    expect(tokens.status).toBe(200);
    const { refresh_token: refreshToken, access_token: accessToken } = tokens.body as Record<string, string>;
    const inBrowser = async (url: string) =>
      answerOf(
        await fetch(url, { headers: { cookie: await browser.jar.getCookieString(url) }, redirect: 'manual' }),
      );
    const authorizeUrl = `${oauth.endpoint('authorize')}?${new URLSearchParams(oauth.codeRequest(clientId, redirectUri).params)}`;

    // An authorization waiting at the consent page (a loopback client is always asked).
    const waiting = await browser.navigate(authorizeUrl, {}, (url) => url.pathname === '/authorize');
    const uid = new URL(waiting.redirects.at(-1)!).searchParams.get('interaction')!;
    const { cookieValue } = await createSessionStore(pool).create(userId);
    const accounts = createAccountServiceClient({
      address: `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`,
      serviceToken: subject.env.INTERNAL_SERVICE_TOKEN!,
    });

    await postgres.stop();
    try {
      // What the consent page asks over gRPC (the client is in PostgreSQL): retry, not a bug.
      await expect(
        accounts.getInteraction({ interactionUid: uid, sessionCookie: cookieValue }),
      ).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE });
      expectOutageAnswer(
        'register',
        await answerOf(
          await fetch(oauth.endpoint('register'), {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ ...metadata, client_name: 'registered in the outage' }),
          }),
        ),
      );
      expectOutageAnswer(
        'refresh',
        await oauth.token({ grant_type: 'refresh_token', refresh_token: refreshToken! }, auth),
      );
      expectOutageAnswer('authorize', await inBrowser(authorizeUrl));
      expectOutageAnswer(
        'userinfo',
        await answerOf(
          await fetch(oauth.endpoint('userinfo'), { headers: { authorization: `Bearer ${accessToken}` } }),
        ),
      );
      // What needs no database still answers: discovery and the keys.
      expect((await fetch(`${subject.baseUrl}/.well-known/openid-configuration`)).status).toBe(200);
      expect((await fetch(`${subject.baseUrl}/api/auth/jwks`)).status).toBe(200);
    } finally {
      accounts.close();
      await postgres.start();
    }

    // The refused requests consumed and rotated nothing: the refresh token still refreshes, and a
    // new authorization goes through.
    let refreshed = { status: 0 } as Awaited<ReturnType<typeof oauth.token>>;
    for (let attempt = 0; attempt < 50 && refreshed.status !== 200; attempt++) {
      refreshed = await oauth.token({ grant_type: 'refresh_token', refresh_token: refreshToken! }, auth);
      if (refreshed.status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(refreshed.status).toBe(200);
    const again = oauth.codeRequest(clientId, redirectUri);
    expect((await oauth.authorize(browser, again.params)).redirect.searchParams.get('code')).toBeTruthy();
    // Nothing was written by the refused registration.
    const { rows } = await pool.query(
      `SELECT count(*)::int AS clients FROM oidc_models WHERE model = 'Client' AND payload->>'client_name' = $1`,
      ['registered in the outage'],
    );
    expect(rows).toEqual([{ clients: 0 }]);
  }, 90_000);
});
