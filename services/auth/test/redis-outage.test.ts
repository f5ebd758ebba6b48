import {
  createAccountServiceClient,
  createTokenBrokerClient,
  GrpcStatus,
  type TokenBrokerClient,
} from '@sheetgate/proto';
import {
  type PrivateServer,
  privateServersMissing,
  readJson,
  startPrivateRedis,
} from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';
import { type OAuthTestClient, oauthTestClient } from './support/oauth-flow.ts';

/** One key through the broker's `ResolveApiKeys`, as the MCP service sends it. */
async function resolveOne(broker: TokenBrokerClient, apiKey: string) {
  return (await broker.resolveApiKeys({ apiKeys: [apiKey], clientAddresses: [] })).results[0]!;
}

// A real auth process on a Redis of this file's own, which the tests stop: what a person and the
// other services see while Redis is down. (The shared Redis other test files use never goes down.)

const missing = privateServersMissing();
if (missing) console.warn(`redis-outage: skipped (outside CI only): ${missing}`);

let redis: PrivateServer;
let subject: AuthUnderTest;
let pool: DatabasePool;
let accounts: ReturnType<typeof createAccountServiceClient>;
let broker: ReturnType<typeof createTokenBrokerClient>;
let cookie: string;
let userId: string;

describe.skipIf(missing !== undefined)('auth while its Redis is down', () => {
  beforeAll(async () => {
    redis = await startPrivateRedis();
    subject = await startAuthUnderTest({ REDIS_URL: redis.url });
    pool = createDatabasePool(subject.database.url, 2);
    const address = `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`;
    const serviceToken = subject.env.INTERNAL_SERVICE_TOKEN!;
    accounts = createAccountServiceClient({ address, serviceToken });
    broker = createTokenBrokerClient({ address, serviceToken });
    const user = await createUserLibrary(pool).upsertFromGoogle({
      sub: 'outage-1',
      email: 'erin@example.com',
    });
    userId = user.id;
    cookie = (await createSessionStore(pool).create(userId)).cookieValue;
  });
  afterAll(async () => {
    accounts?.close();
    broker?.close();
    await pool?.end();
    await subject?.stop();
    await redis?.close();
  });

  /** Runs `during` with Redis stopped, then starts it again and waits until auth is ready. */
  async function withRedisDown(during: () => Promise<void>) {
    await redis.stop();
    try {
      await during();
    } finally {
      await redis.start();
      for (let attempt = 0; attempt < 100; attempt++) {
        if ((await fetch(`${subject.baseUrl}/readyz`)).ok) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  it('a key revoked meanwhile is refused at once; the dashboard hears UNAVAILABLE, and the revocation is audited', async () => {
    const created = await accounts.createApiKey({
      sessionCookie: cookie,
      name: 'revoked in an outage',
      scopes: ['sheets:read'],
      expiresAt: '',
    });
    const keyId = created.key!.id;
    expect((await resolveOne(broker, created.secret)).resolved?.keyId).toBe(keyId);
    await withRedisDown(async () => {
      await expect(accounts.revokeApiKey({ sessionCookie: cookie, keyId })).rejects.toMatchObject({
        code: GrpcStatus.UNAVAILABLE,
      });
      expect((await resolveOne(broker, created.secret)).refused?.reason).toBe('API_KEY_REFUSAL_REVOKED');
    });
    const { rows } = await pool.query(
      `SELECT count(*)::int AS events FROM audit_events WHERE kind = 'api_key.revoked' AND details->>'keyId' = $1`,
      [keyId],
    );
    expect(rows).toEqual([{ events: 1 }]);
    // Once Redis is back, revoking again (the dashboard's "try again") succeeds.
    expect((await accounts.revokeApiKey({ sessionCookie: cookie, keyId })).revoked).toBe(true);
    expect((await resolveOne(broker, created.secret)).refused?.reason).toBe('API_KEY_REFUSAL_REVOKED');
  });

  /** What auth answers on any HTTP route while a store it needs is down. */
  const expectOutageAnswer = (answer: { status: number; headers: Headers; body: unknown }) => {
    expect(answer.status).toBe(503);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    // (The authorization endpoint adds `iss` and `state`, RFC 9207 and RFC 6749 §4.1.2.1.)
    expect(answer.body).toMatchObject({
      error: 'temporarily_unavailable',
      error_description: expect.any(String),
    });
  };
  const answerOf = async (response: Response) => ({
    status: response.status,
    headers: response.headers,
    body: await readJson(response),
  });

  it('authorization, consent, token and sign-in requests answer 503 temporarily_unavailable at once, and work again after', async () => {
    const oauth: OAuthTestClient = oauthTestClient(subject, pool);
    const redirectUri = 'http://127.0.0.1:40119/callback';
    const registered = await oauth.register({
      client_name: 'outage client',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    expect(registered.status).toBe(201);
    const clientId = (registered.body as { client_id: string }).client_id;
    const auth = { method: 'none', clientId } as const;
    const browser = await oauth.signedInBrowser(userId);
    const authorizeUrl = () =>
      `${oauth.endpoint('authorize')}?${new URLSearchParams(oauth.codeRequest(clientId, redirectUri).params)}`;
    const codeFor = async () => {
      const request = oauth.codeRequest(clientId, redirectUri);
      const { redirect } = await oauth.authorize(browser, request.params);
      return { code: redirect.searchParams.get('code')!, verifier: request.verifier };
    };
    const exchange = (grant: { code: string; verifier: string }) =>
      oauth.token(
        {
          grant_type: 'authorization_code',
          code: grant.code,
          redirect_uri: redirectUri,
          code_verifier: grant.verifier,
        },
        auth,
      );
    const inBrowser = async (url: string, init: RequestInit = {}) =>
      answerOf(
        await fetch(url, {
          ...init,
          headers: { ...init.headers, cookie: await browser.jar.getCookieString(url) },
          redirect: 'manual',
        }),
      );

    // Before the outage: tokens held, a code not yet exchanged, and an authorization waiting at the
    // consent page (a loopback client is always asked): codes and interactions live in Redis.
    const tokens = await exchange(await codeFor());
    expect(tokens.status).toBe(200);
    const refreshToken = (tokens.body as { refresh_token: string }).refresh_token;
    const unexchanged = await codeFor();
    const waiting = await browser.navigate(authorizeUrl(), {}, (url) => url.pathname === '/authorize');
    const uid = new URL(waiting.redirects.at(-1)!).searchParams.get('interaction')!;
    expect(uid).toBeTruthy();

    const connectionErrorsLogged = () =>
      subject.auth.output.filter((line) => line.includes('Redis (oidc models): connection error')).length;
    const loggedBefore = connectionErrorsLogged();
    await withRedisDown(async () => {
      // Answered to the browser, not redirected to the client: the person retries the same page.
      expectOutageAnswer(await inBrowser(authorizeUrl()));
      expectOutageAnswer(
        await inBrowser(`${subject.baseUrl}/api/auth/interaction/${uid}/consent`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ decision: 'allow', csrf: oauth.csrf.issue('consent', uid) }).toString(),
        }),
      );
      expectOutageAnswer(await exchange(unexchanged));
      expectOutageAnswer(
        await oauth.token({ grant_type: 'refresh_token', refresh_token: refreshToken }, auth),
      );
      expectOutageAnswer(await inBrowser(`${subject.baseUrl}/api/auth/google/start?return_to=%2Fdashboard`));
      // The broker's cache of Google tokens is in Redis too: mcp hears UNAVAILABLE (retry).
      await expect(broker.getGoogleAccessToken({ userId, forceRefresh: false })).rejects.toMatchObject({
        code: GrpcStatus.UNAVAILABLE,
      });
    });

    // The refused requests consumed and rotated nothing: the refresh token still refreshes, and a
    // new authorization goes through.
    expect(
      (await oauth.token({ grant_type: 'refresh_token', refresh_token: refreshToken }, auth)).status,
    ).toBe(200);
    expect((await exchange(await codeFor())).status).toBe(200);
    // The outage was logged, once per client rather than once per reconnection attempt.
    expect(connectionErrorsLogged() - loggedBefore).toBe(1);

    // "Not you? Sign out" from a consent screen still signs out while Redis (which holds the
    // interaction it names) is down; only the way back to the app's request is lost.
    const atConsent = await browser.navigate(authorizeUrl(), {}, (url) => url.pathname === '/authorize');
    const pendingUid = new URL(atConsent.redirects.at(-1)!).searchParams.get('interaction')!;
    const sessionCookie = (await browser.jar.getCookies(subject.baseUrl)).find(
      (c) => c.key === 'sg_session',
    )!;
    const session = (await createSessionStore(pool).findByCookieValue(sessionCookie.value))!;
    await withRedisDown(async () => {
      const signedOut = await browser.submitForm(`${subject.baseUrl}/api/auth/sign-out`, {
        csrf: oauth.csrf.issue('sign-out', session.id),
        interaction: pendingUid,
      });
      expect(signedOut.status).toBe(303);
      expect(signedOut.location).toBe(`${subject.baseUrl}/login?signed_out=1`);
    });
    expect(await createSessionStore(pool).findByCookieValue(sessionCookie.value)).toBeUndefined();
  });
});
