import { type Browser, createBrowser } from '@sheetgate/test-harness';
import { decodeJwt, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { type AuthWithGoogle, startAuthWithGoogle } from './support/auth-with-google.ts';
import { pressChooserButton, signInWithGoogle } from './support/google-testbed.ts';
import { type OAuthTestClient, oauthTestClient } from './support/oauth-flow.ts';

// OpenID Connect Core §3.1.2.1: `prompt=login` and `max_age` ask the authorization server to
// authenticate the person again, and the ID token's `auth_time` says when they did. Sheetgate
// authenticates people at Google: with a live dashboard session, such a request must still go to
// Google (the emulator's chooser) before any code is issued, and `auth_time` is the time of the
// Google sign-in.

const REDIRECT = 'http://127.0.0.1:40117/callback';
let subject: AuthWithGoogle;
let pool: DatabasePool;
let oauth: OAuthTestClient;
let clientId: string;

beforeAll(async () => {
  subject = await startAuthWithGoogle({
    RATE_LIMIT_OVERRIDES: JSON.stringify({
      register: { points: 500, durationSeconds: 3600 },
      signIn: { points: 100, durationSeconds: 600 },
    }),
  });
  pool = createDatabasePool(subject.database.url, 2);
  oauth = oauthTestClient(subject, pool);
  const registered = await oauth.register({
    client_name: 'Reauthentication test app',
    redirect_uris: [REDIRECT],
    // auth_time in every ID token, not only those whose request has max_age (OIDC Registration §2).
    require_auth_time: true,
    token_endpoint_auth_method: 'none',
  });
  clientId = registered.body.client_id as string;
});
afterAll(async () => {
  await pool?.end();
  await subject?.stop();
});

/**
 * One authorization in `browser`, as a person would go through it: the web login page's Google
 * button when auth sends the browser to /login, `account` at Google's chooser whenever the
 * browser is sent there, Allow on the consent page. Returns the ID token's claims and when (if at
 * all) the person signed in at Google.
 */
async function authorize(browser: Browser, extra: Record<string, string> = {}) {
  const { params, verifier } = oauth.codeRequest(clientId, REDIRECT, {
    scope: 'openid sheets:read',
    ...extra,
  });
  const stop = (url: URL) =>
    url.href.startsWith(REDIRECT) ||
    (url.origin === subject.baseUrl && (url.pathname === '/login' || url.pathname === '/authorize'));
  let step = await browser.navigate(
    `${oauth.endpoint('authorize')}?${new URLSearchParams(params)}`,
    {},
    stop,
  );
  const googleRequests: URL[] = [];
  let signedIn: SignInWindow | undefined;
  for (let hops = 0; ; hops++) {
    if (hops > 10) throw new Error('the authorization went round in circles');
    const at = new URL(step.redirects.at(-1) ?? step.url);
    if (at.href.startsWith(REDIRECT)) {
      const code = at.searchParams.get('code');
      if (!code) throw new Error(`no code: ${at.href}`);
      const tokens = await oauth.token(
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
        { method: 'none', clientId },
      );
      expect(tokens.status).toBe(200);
      return { idToken: decodeJwt(tokens.body.id_token as string), googleRequests, signedIn };
    }
    if (at.origin === new URL(subject.emulator.url).origin) {
      // Google's chooser: where the person signs in again.
      googleRequests.push(new URL(step.redirects.find((url) => url.includes('/o/oauth2/')) ?? at.href));
      const from = Date.now();
      const pressed = await pressChooserButton(
        browser,
        { url: at.href, body: step.body },
        'alice@example.com',
      );
      step = await browser.navigate(pressed.location!, {}, stop);
      signedIn = { from, to: Date.now() };
    } else if (at.pathname === '/login') {
      const uid = at.searchParams.get('interaction')!;
      step = await browser.navigate(
        `${subject.baseUrl}/api/auth/google/start?return_to=${encodeURIComponent(`/api/auth/interaction/${uid}`)}`,
        {},
        stop,
      );
    } else if (at.pathname === '/authorize') {
      const uid = at.searchParams.get('interaction')!;
      const posted = await browser.submitForm(`${subject.baseUrl}/api/auth/interaction/${uid}/consent`, {
        decision: 'allow',
        csrf: oauth.csrf.issue('consent', uid),
      });
      step = await browser.navigate(posted.location!, {}, stop);
    } else {
      throw new Error(`unexpected stop at ${at.href} (${step.status}): ${step.body.slice(0, 300)}`);
    }
  }
}

interface SignInWindow {
  /** Just before the account was chosen at Google, and just after Google's redirect back (ms). */
  from: number;
  to: number;
}

/** The ID token's auth_time is the Google sign-in that happened within `window`, to the second. */
function expectAuthTime(idToken: JWTPayload, window: SignInWindow | undefined) {
  expect(window).toBeDefined();
  expect(idToken.auth_time).toBeGreaterThanOrEqual(Math.floor(window!.from / 1000));
  expect(idToken.auth_time).toBeLessThanOrEqual(Math.ceil(window!.to / 1000));
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('re-authentication at Google (prompt=login, max_age)', () => {
  it('auth_time is the Google sign-in, not the moment an app connects', async () => {
    const browser = createBrowser();
    // Signed in to the dashboard first; an app connects later, from the live session.
    const from = Date.now();
    await signInWithGoogle(subject, browser, { account: 'alice@example.com', returnTo: '/dashboard' });
    const signedIn = { from, to: Date.now() };
    await pause(2100);
    const connected = await authorize(browser);
    expect(connected.googleRequests).toHaveLength(0);
    expectAuthTime(connected.idToken, signedIn);

    // Again later, from the provider session: still the same authentication.
    await pause(1100);
    const reused = await authorize(browser);
    expect(reused.googleRequests).toHaveLength(0);
    expect(reused.idToken.auth_time).toBe(connected.idToken.auth_time);
  });

  it.each([
    ['prompt=login', { prompt: 'login' }],
    ['max_age=0', { max_age: '0' }],
  ])(
    '%s with a live session goes to Google again before a code, and auth_time follows',
    async (_name, extra) => {
      const browser = createBrowser();
      const first = await authorize(browser);
      await pause(1100);
      const again = await authorize(browser, extra);
      expect(again.googleRequests).toHaveLength(1);
      // Google is asked to authenticate the person again, not to reuse its own session.
      expect(again.googleRequests[0]!.searchParams.get('max_age')).toBe('0');
      expect(again.googleRequests[0]!.searchParams.get('prompt')?.split(' ')).toContain('select_account');
      expectAuthTime(again.idToken, again.signedIn);
      expect(again.idToken.auth_time).toBeGreaterThan(first.idToken.auth_time as number);
    },
  );

  it('max_age longer than the session is old reuses it; shorter goes to Google with that max_age', async () => {
    const browser = createBrowser();
    const first = await authorize(browser);
    expectAuthTime(first.idToken, first.signedIn);
    await pause(2100);
    const within = await authorize(browser, { max_age: '3600' });
    expect(within.googleRequests).toHaveLength(0);
    expect(within.idToken.auth_time).toBe(first.idToken.auth_time);
    const beyond = await authorize(browser, { max_age: '1' });
    expect(beyond.googleRequests).toHaveLength(1);
    expect(beyond.googleRequests[0]!.searchParams.get('max_age')).toBe('1');
    expectAuthTime(beyond.idToken, beyond.signedIn);
  });
});
