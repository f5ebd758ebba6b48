import { createHash, randomBytes } from 'node:crypto';
import { type Browser, createBrowser, readJson } from '@sheetgate/test-harness';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { expect } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../../src/db/pool.ts';
import { createCsrfTokens } from '../../src/interactions/csrf.ts';
import { createSessionStore } from '../../src/sessions/index.ts';
import { createUserLibrary } from '../../src/users/index.ts';
import { type AuthUnderTest, startAuthUnderTest } from './auth-process.ts';

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export type ClientAuth =
  | { method: 'none'; clientId: string }
  | { method: 'client_secret_basic' | 'client_secret_post'; clientId: string; secret: string };

/**
 * The parts of an OAuth client and a person's browser that tests drive by hand against a real auth
 * process: registration, the browser's authorization round trip (with a dashboard session standing
 * in for Google sign-in, proven in the sign-in tests), and token requests with each client
 * authentication method.
 */
export function oauthTestClient(subject: AuthUnderTest, pool: DatabasePool) {
  const csrf = createCsrfTokens(subject.env.AUTH_COOKIE_KEYS!.split(',')[0]!);
  const endpoint = (name: string) => `${subject.baseUrl}/api/auth/oauth2/${name}`;
  const resource = `${subject.baseUrl}/api/mcp`;

  async function signedInBrowser(userId: string): Promise<Browser> {
    const browser = createBrowser();
    const session = await createSessionStore(pool).create(userId);
    await browser.jar.setCookie(`sg_session=${session.cookieValue}; Path=/; HttpOnly`, subject.baseUrl);
    return browser;
  }

  async function register(metadata: Record<string, unknown>) {
    const response = await fetch(endpoint('register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(metadata),
    });
    return { status: response.status, body: await readJson(response) };
  }

  /**
   * The browser part of an authorization: the request, the consent page's decision when it is
   * asked, and the redirect back to `params.redirect_uri` (never followed).
   */
  async function authorize(
    browser: Browser,
    params: Record<string, string>,
    options: {
      decision?: 'allow' | 'deny';
      /** More fields for the consent post (the toolset boxes). */
      consentFields?: Array<[string, string]>;
      /** Stop on the consent page, unanswered (`last` is its URL). */
      stopAtConsent?: boolean;
    } = {},
  ) {
    const redirectUri = params.redirect_uri!;
    const atRedirect = (url: URL) => url.href.startsWith(redirectUri);
    const atPage = (url: URL) =>
      url.origin === subject.baseUrl && (url.pathname === '/authorize' || url.pathname === '/login');
    let step = await browser.navigate(
      `${endpoint('authorize')}?${new URLSearchParams(params)}`,
      {},
      (url) => atRedirect(url) || atPage(url),
    );
    const last = new URL(step.redirects.at(-1) ?? step.url);
    let consentShown = false;
    if (last.origin === subject.baseUrl && last.pathname === '/authorize') {
      consentShown = true;
      if (options.stopAtConsent)
        return { redirect: last, consentShown, last, status: step.status, body: step.body };
      const uid = last.searchParams.get('interaction')!;
      const posted = await browser.submitForm(`${subject.baseUrl}/api/auth/interaction/${uid}/consent`, [
        ['decision', options.decision ?? 'allow'],
        ['csrf', csrf.issue('consent', uid)],
        ...(options.consentFields ?? []),
      ]);
      expect(posted.status).toBe(303);
      step = await browser.navigate(posted.location!, {}, atRedirect);
    }
    const final = step.redirects.at(-1) ?? step.url;
    return { redirect: new URL(final), consentShown, last, status: step.status, body: step.body };
  }

  /** Authorization parameters for a code flow with PKCE S256; returns them and the verifier. */
  function codeRequest(clientId: string, redirectUri: string, extra: Record<string, string> = {}) {
    const { verifier, challenge } = pkcePair();
    const params: Record<string, string> = {
      client_id: clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: randomBytes(8).toString('hex'),
      scope: 'sheets:read sheets:write',
      resource,
      ...extra,
    };
    return { params, verifier };
  }

  /** A token request authenticated the way `auth` says (RFC 6749 §2.3.1, RFC 7591 `none`). */
  async function token(form: Record<string, string>, auth: ClientAuth, headers: Record<string, string> = {}) {
    const body = new URLSearchParams(form);
    const requestHeaders: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    };
    if (auth.method === 'client_secret_basic') {
      const encode = (value: string) => encodeURIComponent(value);
      requestHeaders.authorization = `Basic ${Buffer.from(
        `${encode(auth.clientId)}:${encode(auth.secret)}`,
      ).toString('base64')}`;
    } else {
      body.set('client_id', auth.clientId);
      if (auth.method === 'client_secret_post') body.set('client_secret', auth.secret);
    }
    const response = await fetch(endpoint('token'), { method: 'POST', headers: requestHeaders, body });
    return { status: response.status, headers: response.headers, body: await readJson(response) };
  }

  async function verifyAccessToken(accessToken: string) {
    const jwks = createRemoteJWKSet(new URL(`${subject.baseUrl}/api/auth/jwks`));
    return jwtVerify(accessToken, jwks, { issuer: subject.baseUrl, audience: resource, typ: 'at+jwt' });
  }

  return {
    csrf,
    resource,
    endpoint,
    signedInBrowser,
    register,
    authorize,
    codeRequest,
    token,
    verifyAccessToken,
  };
}

export type OAuthTestClient = ReturnType<typeof oauthTestClient>;

/** A real auth process, a pool on its database, an OAuth test client, and one person who signed in. */
export interface OAuthTestbed {
  subject: AuthUnderTest;
  pool: DatabasePool;
  oauth: OAuthTestClient;
  userId: string;
  stop(): Promise<void>;
}

/** Starts what most OAuth tests share (`person` as Google would describe them). */
export async function startOAuthTestbed(person: { sub: string; email: string }): Promise<OAuthTestbed> {
  const subject = await startAuthUnderTest();
  const pool = createDatabasePool(subject.database.url, 2);
  const oauth = oauthTestClient(subject, pool);
  const userId = (await createUserLibrary(pool).upsertFromGoogle(person)).id;
  return {
    subject,
    pool,
    oauth,
    userId,
    async stop() {
      await pool.end();
      await subject.stop();
    },
  };
}
