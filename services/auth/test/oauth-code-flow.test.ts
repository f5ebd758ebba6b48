import { randomBytes } from 'node:crypto';
import http from 'node:http';
import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationFull,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { type Browser, createBrowser, readJson } from '@sheetgate/test-harness';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createCsrfTokens } from '../src/interactions/csrf.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';

// The whole OAuth 2.1 code flow as an MCP client runs it, driven by the official MCP SDK's client
// auth functions, against a real auth process on a real database. Signing in with Google is
// proven in google-sign-in tests; here the browser already holds a dashboard session.

const REDIRECT = 'http://127.0.0.1:40111/callback';
// How the SDK reports an `invalid_grant` error response.
const INVALID_GRANT = /grant request is invalid/;
let subject: AuthUnderTest;
let pool: DatabasePool;
let metadata: AuthorizationServerMetadata;
let resource: URL;
let csrf: ReturnType<typeof createCsrfTokens>;
let aliceId: string;

beforeAll(async () => {
  subject = await startAuthUnderTest({ ACCESS_TOKEN_TTL_SECONDS: '60' });
  pool = createDatabasePool(subject.database.url, 2);
  csrf = createCsrfTokens(subject.env.AUTH_COOKIE_KEYS!.split(',')[0]!);
  resource = new URL(`${subject.baseUrl}/api/mcp`);
  const discovered = await discoverAuthorizationServerMetadata(subject.baseUrl);
  if (!discovered) throw new Error('no authorization server metadata');
  metadata = discovered;
  aliceId = (
    await createUserLibrary(pool).upsertFromGoogle({ sub: '1001', email: 'alice@example.com', name: 'Alice' })
  ).id;
});
afterAll(async () => {
  await pool?.end();
  await subject?.stop();
});

async function signedInBrowser(userId: string): Promise<Browser> {
  const browser = createBrowser();
  const session = await createSessionStore(pool).create(userId);
  await browser.jar.setCookie(`sg_session=${session.cookieValue}; Path=/; HttpOnly`, subject.baseUrl);
  return browser;
}

async function newClient(name = 'Test MCP client'): Promise<OAuthClientInformationFull> {
  return registerClient(subject.baseUrl, {
    metadata,
    clientMetadata: {
      client_name: name,
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
  });
}

const atConsentPage = (url: URL) => url.pathname === '/authorize' || url.pathname === '/login';

/** Runs the browser part: authorization request → (consent decision) → the app's redirect. */
async function authorizeInBrowser(
  browser: Browser,
  client: OAuthClientInformationFull,
  decision: 'allow' | 'deny' = 'allow',
  redirectUri = REDIRECT,
) {
  const atRedirect = (url: URL) => url.href.startsWith(redirectUri);
  const state = randomBytes(8).toString('hex');
  const { authorizationUrl, codeVerifier } = await startAuthorization(subject.baseUrl, {
    metadata,
    clientInformation: client,
    redirectUrl: redirectUri,
    scope: 'sheets:read sheets:write',
    state,
    resource,
  });
  let step = await browser.navigate(
    authorizationUrl.href,
    {},
    (url) => atRedirect(url) || atConsentPage(url),
  );
  const pages = step.redirects.map((location) => new URL(location).pathname);
  let consentShown = false;
  const last = new URL(step.redirects.at(-1) ?? step.url);
  if (last.pathname === '/authorize') {
    consentShown = true;
    const uid = last.searchParams.get('interaction')!;
    const posted = await browser.submitForm(`${subject.baseUrl}/api/auth/interaction/${uid}/consent`, {
      decision,
      csrf: csrf.issue('consent', uid),
    });
    expect(posted.status).toBe(303);
    step = await browser.navigate(posted.location!, {}, atRedirect);
  }
  const redirect = new URL(step.redirects.at(-1) ?? step.url);
  return { redirect, codeVerifier, state, consentShown, pages, last };
}

/** The dashboard session a test browser holds. */
async function sessionOfBrowser(browser: Browser) {
  const cookie = (await browser.jar.getCookies(subject.baseUrl)).find((each) => each.key === 'sg_session')!;
  return (await createSessionStore(pool).findByCookieValue(cookie.value))!;
}

/** A fresh authorization request URL for `client` (PKCE, state, resource). */
async function authorizationRequestUrl(client: OAuthClientInformationFull) {
  const { authorizationUrl } = await startAuthorization(subject.baseUrl, {
    metadata,
    clientInformation: client,
    redirectUrl: REDIRECT,
    scope: 'sheets:read',
    state: randomBytes(8).toString('hex'),
    resource,
  });
  return authorizationUrl;
}

/** The audit rows of `kind` whose details contain `details`, once the asynchronous write landed. */
async function auditRows(kind: string, details: Record<string, unknown>) {
  for (let attempt = 0; ; attempt++) {
    const { rows } = await pool.query<{ user_id: string | null; details: Record<string, unknown> }>(
      'SELECT user_id, details FROM audit_events WHERE kind = $1 AND details @> $2::jsonb ORDER BY id',
      [kind, JSON.stringify(details)],
    );
    if (rows.length > 0 || attempt >= 40) return rows;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function verifyAccessToken(token: string) {
  const jwks = createRemoteJWKSet(new URL(`${subject.baseUrl}/api/auth/jwks`));
  return jwtVerify(token, jwks, { issuer: subject.baseUrl, audience: resource.href, typ: 'at+jwt' });
}

describe('OAuth 2.1 authorization code flow with PKCE (MCP client)', () => {
  let client: OAuthClientInformationFull;
  let tokens: Awaited<ReturnType<typeof exchangeAuthorization>>;

  it('signs in, asks consent, and returns a code with iss and state to the app', async () => {
    client = await newClient();
    const browser = await signedInBrowser(aliceId);
    const { redirect, codeVerifier, state, consentShown } = await authorizeInBrowser(browser, client);
    expect(consentShown).toBe(true);
    expect(redirect.origin + redirect.pathname).toBe(REDIRECT);
    expect(redirect.searchParams.get('state')).toBe(state);
    expect(redirect.searchParams.get('iss')).toBe(subject.baseUrl);
    const code = redirect.searchParams.get('code')!;
    expect(code).toEqual(expect.any(String));

    tokens = await exchangeAuthorization(subject.baseUrl, {
      metadata,
      clientInformation: client,
      authorizationCode: code,
      codeVerifier,
      redirectUri: REDIRECT,
      resource,
    });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    // Codes and interactions are Redis's when there is one (docs/design.md §5), PostgreSQL's
    // otherwise.
    const { rows: shortLived } = await pool.query<{ model: string }>(
      `SELECT DISTINCT model FROM oidc_models WHERE model IN ('AuthorizationCode', 'Interaction', 'ReplayDetection')`,
    );
    if (subject.redis.url) expect(shortLived).toEqual([]);
    else expect(shortLived.map((row) => row.model)).toContain('AuthorizationCode');

    // The same code a second time is refused (and, per the provider, revokes what it issued).
    await expect(
      exchangeAuthorization(subject.baseUrl, {
        metadata,
        clientInformation: client,
        authorizationCode: code,
        codeVerifier,
        redirectUri: REDIRECT,
        resource,
      }),
    ).rejects.toThrow(INVALID_GRANT);
    // …and the grant is gone with everything issued under it: the refresh token no longer works.
    await expect(
      refreshAuthorization(subject.baseUrl, {
        metadata,
        clientInformation: client,
        refreshToken: tokens.refresh_token!,
        resource,
      }),
    ).rejects.toThrow(INVALID_GRANT);
    expect(
      await auditRows('grant.revoked', { clientId: client.client_id, reason: 'authorization_code_reused' }),
    ).toHaveLength(1);
  });

  it('issues a resource-bound ES256 JWT access token', async () => {
    // The reused code above revoked the first grant: connect again for a live token.
    const browser = await signedInBrowser(aliceId);
    const { redirect, codeVerifier } = await authorizeInBrowser(browser, client);
    tokens = await exchangeAuthorization(subject.baseUrl, {
      metadata,
      clientInformation: client,
      authorizationCode: redirect.searchParams.get('code')!,
      codeVerifier,
      redirectUri: REDIRECT,
      resource,
    });
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const { payload } = await verifyAccessToken(tokens.access_token);
    expect(payload).toMatchObject({
      iss: subject.baseUrl,
      aud: resource.href,
      sub: aliceId,
      client_id: client.client_id,
      scope: 'sheets:read sheets:write',
    });
    expect((payload.exp as number) - (payload.iat as number)).toBeLessThanOrEqual(900);
  });

  it('refuses a wrong PKCE verifier', async () => {
    const browser = await signedInBrowser(aliceId);
    const { redirect } = await authorizeInBrowser(browser, client);
    await expect(
      exchangeAuthorization(subject.baseUrl, {
        metadata,
        clientInformation: client,
        authorizationCode: redirect.searchParams.get('code')!,
        codeVerifier: randomBytes(32).toString('base64url'),
        redirectUri: REDIRECT,
        resource,
      }),
    ).rejects.toThrow(INVALID_GRANT);
  });

  it('rotates refresh tokens and revokes the grant when a rotated one is reused', async () => {
    const first = tokens.refresh_token!;
    const refreshed = await refreshAuthorization(subject.baseUrl, {
      metadata,
      clientInformation: client,
      refreshToken: first,
      resource,
    });
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(first);
    await verifyAccessToken(refreshed.access_token);

    // The old refresh token again, in a request that differs from the first (so the short retry
    // window does not replay the earlier answer): that is reuse.
    const reuse = await fetch(`${subject.baseUrl}/api/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: first,
        client_id: client.client_id,
        scope: 'sheets:read',
      }),
    });
    expect(reuse.status).toBe(400);
    expect((await readJson(reuse)).error).toBe('invalid_grant');
    // …and the whole grant is gone: the newest refresh token no longer works either.
    await expect(
      refreshAuthorization(subject.baseUrl, {
        metadata,
        clientInformation: client,
        refreshToken: refreshed.refresh_token!,
        resource,
      }),
    ).rejects.toThrow(INVALID_GRANT);
    // Both security events are recorded for Alice, without the token.
    const [reused] = await auditRows('refresh_token.reused', { clientId: client.client_id });
    expect(reused).toMatchObject({ user_id: aliceId, details: { grantId: expect.any(String) } });
    const [revoked] = await auditRows('grant.revoked', {
      clientId: client.client_id,
      reason: 'refresh_token_reused',
    });
    expect(revoked).toMatchObject({ user_id: aliceId, details: { grantId: reused!.details.grantId } });
    expect(JSON.stringify([reused, revoked])).not.toContain(first);
  });
});

describe('refresh edge cases', () => {
  async function connect() {
    const client = await newClient('Refresh client');
    const browser = await signedInBrowser(aliceId);
    const { redirect, codeVerifier } = await authorizeInBrowser(browser, client);
    const tokens = await exchangeAuthorization(subject.baseUrl, {
      metadata,
      clientInformation: client,
      authorizationCode: redirect.searchParams.get('code')!,
      codeVerifier,
      redirectUri: REDIRECT,
      resource,
    });
    return { client, tokens };
  }

  it('remembers consent per user and client: the second connection skips it', async () => {
    const webRedirect = 'https://sheets-app.example/oauth/callback';
    const register = (name: string) =>
      registerClient(subject.baseUrl, {
        metadata,
        clientMetadata: { client_name: name, redirect_uris: [webRedirect] },
      });
    const client = await register('Remembered web app');
    const first = await authorizeInBrowser(await signedInBrowser(aliceId), client, 'allow', webRedirect);
    expect(first.consentShown).toBe(true);
    // A new browser session (another day, another device): the stored grant is reused.
    const second = await authorizeInBrowser(await signedInBrowser(aliceId), client, 'allow', webRedirect);
    expect(second.consentShown).toBe(false);
    expect(second.redirect.searchParams.get('code')).toEqual(expect.any(String));
    // Alice's consent is hers: Dora is asked for the same client...
    const doraId = (
      await createUserLibrary(pool).upsertFromGoogle({ sub: '1010', email: 'dora@example.com' })
    ).id;
    const doraFirst = await authorizeInBrowser(await signedInBrowser(doraId), client, 'allow', webRedirect);
    expect(doraFirst.consentShown).toBe(true);
    expect(doraFirst.redirect.searchParams.get('code')).toEqual(expect.any(String));
    // ...and, once she has allowed it, no longer.
    const doraSecond = await authorizeInBrowser(await signedInBrowser(doraId), client, 'allow', webRedirect);
    expect(doraSecond.consentShown).toBe(false);
    // And it is for that client: Alice is asked again by another one.
    const other = await register('Another web app');
    expect(
      (await authorizeInBrowser(await signedInBrowser(aliceId), other, 'allow', webRedirect)).consentShown,
    ).toBe(true);
  });

  it('always asks a native (loopback) app again: it could be impersonated (RFC 8252 §8.6)', async () => {
    const client = await newClient('Native app');
    expect((await authorizeInBrowser(await signedInBrowser(aliceId), client)).consentShown).toBe(true);
    expect((await authorizeInBrowser(await signedInBrowser(aliceId), client)).consentShown).toBe(true);
  });

  it('survives racing retries of the same refresh: one rotation, the same answer for all', async () => {
    const { client, tokens } = await connect();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        refreshAuthorization(subject.baseUrl, {
          metadata,
          clientInformation: client,
          refreshToken: tokens.refresh_token!,
          resource,
        }),
      ),
    );
    expect(new Set(answers.map((answer) => answer.refresh_token)).size).toBe(1);
    const next = await refreshAuthorization(subject.baseUrl, {
      metadata,
      clientInformation: client,
      refreshToken: answers[0]!.refresh_token!,
      resource,
    });
    expect(next.access_token).toEqual(expect.any(String));
  });

  it('a foreign resource fails without burning the refresh token', async () => {
    const { client, tokens } = await connect();
    const response = await fetch(`${subject.baseUrl}/api/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
        client_id: client.client_id,
        resource: 'https://elsewhere.example/api/mcp',
      }),
    });
    expect(response.status).toBe(400);
    expect((await readJson(response)).error).toBe('invalid_target');
    const refreshed = await refreshAuthorization(subject.baseUrl, {
      metadata,
      clientInformation: client,
      refreshToken: tokens.refresh_token!,
    });
    const { payload } = await verifyAccessToken(refreshed.access_token);
    expect(payload.aud).toBe(resource.href);
  });

  it('answers token requests with Cache-Control: no-store', async () => {
    const { client, tokens } = await connect();
    const response = await fetch(`${subject.baseUrl}/api/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
        client_id: client.client_id,
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('revocation of the refresh token ends the connection', async () => {
    const { client, tokens } = await connect();
    const revoked = await fetch(`${subject.baseUrl}/api/auth/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token!, client_id: client.client_id }),
    });
    expect(revoked.status).toBe(200);
    await expect(
      refreshAuthorization(subject.baseUrl, {
        metadata,
        clientInformation: client,
        refreshToken: tokens.refresh_token!,
        resource,
      }),
    ).rejects.toThrow(INVALID_GRANT);
  });
});

describe('consent', () => {
  it('Deny returns access_denied to the app', async () => {
    const client = await newClient('Denied app');
    const browser = await signedInBrowser(aliceId);
    const { redirect, state } = await authorizeInBrowser(browser, client, 'deny');
    expect(redirect.origin + redirect.pathname).toBe(REDIRECT);
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe(state);
    expect(redirect.searchParams.get('code')).toBeNull();
  });

  it('refuses a consent post without the CSRF token, or from another account', async () => {
    const client = await newClient('CSRF target');
    const browser = await signedInBrowser(aliceId);
    const { authorizationUrl } = await startAuthorization(subject.baseUrl, {
      metadata,
      clientInformation: client,
      redirectUrl: REDIRECT,
      scope: 'sheets:read',
      resource,
    });
    const step = await browser.navigate(authorizationUrl.href, {}, atConsentPage);
    const uid = new URL(step.redirects.at(-1)!).searchParams.get('interaction')!;
    const forged = await browser.submitForm(`${subject.baseUrl}/api/auth/interaction/${uid}/consent`, {
      decision: 'allow',
    });
    expect(forged.status).toBe(403);
    expect(JSON.parse(forged.body).error).toBe('invalid_csrf');
    // A valid token does not help a post from another origin (Origin / Fetch Metadata).
    for (const from of [{ origin: 'http://evil.example' }, { 'sec-fetch-site': 'same-site' }]) {
      const crossOrigin = await browser.request(`${subject.baseUrl}/api/auth/interaction/${uid}/consent`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...from },
        body: new URLSearchParams({ decision: 'allow', csrf: csrf.issue('consent', uid) }).toString(),
      });
      expect(crossOrigin.status).toBe(403);
      expect(JSON.parse(crossOrigin.body).error).toBe('invalid_csrf');
    }

    // Bob's dashboard session in the same browser cannot approve Alice's interaction.
    const bob = await createUserLibrary(pool).upsertFromGoogle({
      sub: '1002',
      email: 'bob@example.com',
      name: 'Bob',
    });
    const bobSession = await createSessionStore(pool).create(bob.id);
    await browser.jar.setCookie(`sg_session=${bobSession.cookieValue}; Path=/; HttpOnly`, subject.baseUrl);
    const crossAccount = await browser.submitForm(`${subject.baseUrl}/api/auth/interaction/${uid}/consent`, {
      decision: 'allow',
      csrf: csrf.issue('consent', uid),
    });
    expect(crossAccount.status).toBe(403);
    expect(JSON.parse(crossAccount.body).error).toBe('access_denied');
  });

  it('an interaction cannot be completed from a browser that did not start it', async () => {
    const client = await newClient('Stolen interaction');
    const browser = await signedInBrowser(aliceId);
    const { authorizationUrl } = await startAuthorization(subject.baseUrl, {
      metadata,
      clientInformation: client,
      redirectUrl: REDIRECT,
      scope: 'sheets:read',
      resource,
    });
    const step = await browser.navigate(authorizationUrl.href, {}, atConsentPage);
    const uid = new URL(step.redirects.at(-1)!).searchParams.get('interaction')!;
    const attacker = await signedInBrowser(aliceId);
    const stolen = await attacker.submitForm(`${subject.baseUrl}/api/auth/interaction/${uid}/consent`, {
      decision: 'allow',
      csrf: csrf.issue('consent', uid),
    });
    expect(stolen.status).toBe(400);
    expect(JSON.parse(stolen.body).error).toBe('interaction_expired');
  });
});

describe('sign-in and sign-out', () => {
  it('sends a browser without a session to /login, and signing out asks again', async () => {
    const client = await newClient('Sign-out app');
    const anonymous = createBrowser();
    const { last } = await authorizeInBrowser(anonymous, client);
    expect(last.pathname).toBe('/login');
    expect(last.searchParams.get('interaction')).toEqual(expect.any(String));

    const browser = await signedInBrowser(aliceId);
    const connected = await authorizeInBrowser(browser, client);
    expect(connected.redirect.searchParams.get('code')).toEqual(expect.any(String));

    const sessionCookie = (await browser.jar.getCookies(subject.baseUrl)).find(
      (cookie) => cookie.key === 'sg_session',
    )!;
    const session = await createSessionStore(pool).findByCookieValue(sessionCookie.value);
    const signedOut = await browser.submitForm(`${subject.baseUrl}/api/auth/sign-out`, {
      csrf: csrf.issue('sign-out', session!.id),
    });
    expect(signedOut.status).toBe(303);
    expect(signedOut.location).toBe(`${subject.baseUrl}/login?signed_out=1`);
    const { rows: signOuts } = await pool.query(
      `SELECT user_id, details FROM audit_events WHERE kind = 'sign_out' AND details->>'sessionId' = $1`,
      [session!.id],
    );
    expect(signOuts).toEqual([
      { user_id: aliceId, details: { sessionId: session!.id, ip: expect.any(String) } },
    ]);
    const afterSignOut = await authorizeInBrowser(browser, client);
    expect(afterSignOut.last.pathname).toBe('/login');
  });

  it.each([
    ['sign-out', '/api/auth/sign-out'],
    ['consent', '/api/auth/interaction/some-interaction/consent'],
  ])('refuses an oversized %s form with 413 and closes the connection', async (_name, path) => {
    const body = `csrf=${'a'.repeat(20_000)}`;
    // node:http rather than fetch, which hides the hop-by-hop Connection header.
    const answer = await new Promise<{ status: number; connection: string | undefined; body: string }>(
      (resolve, reject) => {
        const request = http.request(
          `${subject.baseUrl}${path}`,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              'content-length': Buffer.byteLength(body),
            },
          },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => {
              text += chunk.toString();
            });
            response.on('end', () =>
              resolve({ status: response.statusCode!, connection: response.headers.connection, body: text }),
            );
          },
        );
        request.on('error', reject);
        request.end(body);
      },
    );
    expect(answer.status).toBe(413);
    expect(answer.connection).toBe('close');
    expect(JSON.parse(answer.body)).toEqual({
      error: 'invalid_request',
      error_description: 'form too large',
    });
  });

  it('"Not you? Sign out" on consent continues the app\'s own authorization request as whoever signs in next', async () => {
    const client = await newClient('Switching app');
    const bobId = (await createUserLibrary(pool).upsertFromGoogle({ sub: '1002', email: 'bob@example.com' }))
      .id;
    const browser = await signedInBrowser(aliceId);
    const state = randomBytes(8).toString('hex');
    const { authorizationUrl, codeVerifier } = await startAuthorization(subject.baseUrl, {
      metadata,
      clientInformation: client,
      redirectUrl: REDIRECT,
      scope: 'sheets:read sheets:write',
      state,
      resource,
    });
    const atConsent = await browser.navigate(authorizationUrl.href, {}, atConsentPage);
    const consentUrl = new URL(atConsent.redirects.at(-1)!);
    expect(consentUrl.pathname).toBe('/authorize');
    const uid = consentUrl.searchParams.get('interaction')!;

    const aliceSession = await sessionOfBrowser(browser);
    const signedOut = await browser.submitForm(`${subject.baseUrl}/api/auth/sign-out`, {
      csrf: csrf.issue('sign-out', aliceSession.id),
      interaction: uid,
    });
    expect(signedOut.status).toBe(303);
    const login = new URL(signedOut.location!);
    expect(login.pathname).toBe('/login');
    expect(login.searchParams.get('signed_out')).toBe('1');
    // The way back is the app's request itself: same client, redirect, scopes, state and challenge.
    const continueTo = new URL(login.searchParams.get('return_to')!, subject.baseUrl);
    expect(continueTo.pathname).toBe('/api/auth/oauth2/authorize');
    expect(Object.fromEntries(continueTo.searchParams)).toEqual(
      Object.fromEntries(authorizationUrl.searchParams),
    );

    // Bob signs in (Google sign-in returns to that path), sees consent as himself, and allows it.
    const bobSession = await createSessionStore(pool).create(bobId);
    await browser.jar.setCookie(`sg_session=${bobSession.cookieValue}; Path=/; HttpOnly`, subject.baseUrl);
    const again = await browser.navigate(continueTo.href, {}, atConsentPage);
    const bobConsent = new URL(again.redirects.at(-1)!);
    expect(bobConsent.pathname).toBe('/authorize');
    const bobUid = bobConsent.searchParams.get('interaction')!;
    expect(bobUid).not.toBe(uid);
    const posted = await browser.submitForm(`${subject.baseUrl}/api/auth/interaction/${bobUid}/consent`, {
      decision: 'allow',
      csrf: csrf.issue('consent', bobUid),
    });
    expect(posted.status).toBe(303);
    const back = await browser.navigate(posted.location!, {}, (url) => url.href.startsWith(REDIRECT));
    const redirect = new URL(back.redirects.at(-1) ?? back.url);
    expect(redirect.searchParams.get('state')).toBe(state);
    // The app's own verifier redeems the code, and the tokens are Bob's.
    const tokens = await exchangeAuthorization(subject.baseUrl, {
      metadata,
      clientInformation: client,
      authorizationCode: redirect.searchParams.get('code')!,
      codeVerifier,
      redirectUri: REDIRECT,
      resource,
    });
    expect((await verifyAccessToken(tokens.access_token)).payload.sub).toBe(bobId);
  });

  it("signs out without continuing an interaction that is not the person's, unknown, or malformed", async () => {
    const client = await newClient('Not yours');
    const bob = await signedInBrowser(
      (await createUserLibrary(pool).upsertFromGoogle({ sub: '1003', email: 'carol@example.com' })).id,
    );
    const bobsConsent = await bob.navigate((await authorizationRequestUrl(client)).href, {}, atConsentPage);
    const bobsUid = new URL(bobsConsent.redirects.at(-1)!).searchParams.get('interaction')!;
    for (const interaction of [bobsUid, 'no-such-interaction', '../../dashboard', 'a'.repeat(500)]) {
      const alice = await signedInBrowser(aliceId);
      const session = await sessionOfBrowser(alice);
      const signedOut = await alice.submitForm(`${subject.baseUrl}/api/auth/sign-out`, {
        csrf: csrf.issue('sign-out', session.id),
        interaction,
      });
      expect(signedOut.status, interaction).toBe(303);
      expect(signedOut.location, interaction).toBe(`${subject.baseUrl}/login?signed_out=1`);
    }
  });

  it('refuses a sign-out post without the CSRF token, or from another origin', async () => {
    const browser = await signedInBrowser(aliceId);
    const response = await browser.submitForm(`${subject.baseUrl}/api/auth/sign-out`, {});
    expect(response.status).toBe(403);
    const cookie = (await browser.jar.getCookies(subject.baseUrl)).find(
      (entry) => entry.key === 'sg_session',
    )!;
    const session = await createSessionStore(pool).findByCookieValue(cookie.value);
    const crossOrigin = await browser.request(`${subject.baseUrl}/api/auth/sign-out`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' },
      body: new URLSearchParams({ csrf: csrf.issue('sign-out', session!.id) }).toString(),
    });
    expect(crossOrigin.status).toBe(403);
    expect(await createSessionStore(pool).findByCookieValue(cookie.value)).toBeTruthy();
  });
});

describe('connected apps (AccountService)', () => {
  it('lists the connected app and Disconnect ends its tokens', async () => {
    const { createAccountServiceClient } = await import('@sheetgate/proto');
    const accounts = createAccountServiceClient({
      address: `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`,
      serviceToken: subject.env.INTERNAL_SERVICE_TOKEN!,
    });
    try {
      const dave = await createUserLibrary(pool).upsertFromGoogle({
        sub: '3001',
        email: 'dave@example.com',
        name: 'Dave',
      });
      const session = await createSessionStore(pool).create(dave.id);
      const browser = createBrowser();
      await browser.jar.setCookie(`sg_session=${session.cookieValue}; Path=/; HttpOnly`, subject.baseUrl);
      const client = await newClient('Spreadsheet Helper');
      const { redirect, codeVerifier } = await authorizeInBrowser(browser, client);
      const tokens = await exchangeAuthorization(subject.baseUrl, {
        metadata,
        clientInformation: client,
        authorizationCode: redirect.searchParams.get('code')!,
        codeVerifier,
        redirectUri: REDIRECT,
        resource,
      });
      const { apps } = await accounts.listConnectedApps({ sessionCookie: session.cookieValue });
      expect(apps).toEqual([
        expect.objectContaining({
          clientId: client.client_id,
          clientName: 'Spreadsheet Helper',
          redirectHost: '127.0.0.1:40111',
          scopes: ['sheets:read', 'sheets:write'],
        }),
      ]);
      // Another user sees nothing of Dave's apps and cannot disconnect them.
      const aliceSession = await createSessionStore(pool).create(aliceId);
      expect(
        (
          await accounts.disconnectApp({
            sessionCookie: aliceSession.cookieValue,
            clientId: client.client_id,
          })
        ).disconnected,
      ).toBe(false);

      expect(
        (await accounts.disconnectApp({ sessionCookie: session.cookieValue, clientId: client.client_id }))
          .disconnected,
      ).toBe(true);
      expect((await accounts.listConnectedApps({ sessionCookie: session.cookieValue })).apps).toEqual([]);
      expect(
        await auditRows('grant.revoked', { clientId: client.client_id, reason: 'disconnected' }),
      ).toEqual([{ user_id: dave.id, details: expect.objectContaining({ grantId: expect.any(String) }) }]);
      await expect(
        refreshAuthorization(subject.baseUrl, {
          metadata,
          clientInformation: client,
          refreshToken: tokens.refresh_token!,
          resource,
        }),
      ).rejects.toThrow(INVALID_GRANT);
    } finally {
      accounts.close();
    }
  });
});
