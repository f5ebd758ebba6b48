import { randomBytes } from 'node:crypto';
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
import { createLogger } from '@sheetgate/service-runtime';
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
    const client = await registerClient(subject.baseUrl, {
      metadata,
      clientMetadata: { client_name: 'Remembered web app', redirect_uris: [webRedirect] },
    });
    const first = await authorizeInBrowser(await signedInBrowser(aliceId), client, 'allow', webRedirect);
    expect(first.consentShown).toBe(true);
    // A new browser session (another day, another device): the stored grant is reused.
    const second = await authorizeInBrowser(await signedInBrowser(aliceId), client, 'allow', webRedirect);
    expect(second.consentShown).toBe(false);
    expect(second.redirect.searchParams.get('code')).toEqual(expect.any(String));
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
    const afterSignOut = await authorizeInBrowser(browser, client);
    expect(afterSignOut.last.pathname).toBe('/login');
  });

  it('refuses a sign-out post without the CSRF token', async () => {
    const browser = await signedInBrowser(aliceId);
    const response = await browser.submitForm(`${subject.baseUrl}/api/auth/sign-out`, {});
    expect(response.status).toBe(403);
  });
});

void createLogger;

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
