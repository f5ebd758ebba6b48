import { type Browser, createBrowser } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabasePool } from '../src/db/pool.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import type { AuthUnderTest } from './support/auth-process.ts';
import { type OAuthTestbed, type OAuthTestClient, startOAuthTestbed } from './support/oauth-flow.ts';

// Sign-out is a state change a third-party page must not be able to cause (login/logout CSRF):
// only a post carrying the token of the session it ends may end it, and anything else leaves
// both sessions and the browser's cookies exactly as they were.

// A web client: the provider answers `prompt=none` for native clients with interaction_required.
const REDIRECT = 'https://forgery-test.example/callback';
let testbed: OAuthTestbed;
let subject: AuthUnderTest;
let pool: DatabasePool;
let oauth: OAuthTestClient;
let userId: string;
let clientId: string;

beforeAll(async () => {
  testbed = await startOAuthTestbed({ sub: '5001', email: 'erin@example.com' });
  ({ subject, pool, oauth, userId } = testbed);
  const registered = await oauth.register({
    client_name: 'Forgery test app',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
  });
  clientId = registered.body.client_id as string;
});
afterAll(() => testbed?.stop());

/** A browser signed in to the dashboard and to the provider (it has connected an app once). */
async function browserWithBothSessions(): Promise<Browser> {
  const browser = await oauth.signedInBrowser(userId);
  const connected = await oauth.authorize(browser, oauth.codeRequest(clientId, REDIRECT).params);
  expect(connected.redirect.searchParams.get('code')).toEqual(expect.any(String));
  return browser;
}

async function cookiesOf(browser: Browser) {
  return Object.fromEntries(
    (await browser.jar.getCookies(subject.baseUrl)).map((cookie) => [cookie.key, cookie.value]),
  );
}

/** Whether the provider still knows this browser: `prompt=none` answers a code only with a session. */
async function providerSessionAlive(cookies: Record<string, string>): Promise<boolean> {
  const probe = createBrowser();
  for (const name of ['sg_oidc_session', 'sg_oidc_session.sig'])
    await probe.jar.setCookie(`${name}=${cookies[name]}; Path=/`, subject.baseUrl);
  const { redirect } = await oauth.authorize(
    probe,
    oauth.codeRequest(clientId, REDIRECT, { prompt: 'none' }).params,
  );
  return redirect.searchParams.has('code');
}

const cookieHeader = (cookies: Record<string, string>, names: string[]) =>
  names.map((name) => `${name}=${cookies[name]}`).join('; ');

describe('sign-out forgery', () => {
  it.each([
    // A cross-site form post: SameSite=Lax keeps every cookie back, and an old browser or a
    // privacy setting may omit Origin.
    ['no cookies, no token', [] as string[], {}],
    ['only the provider session cookies, no token', ['sg_oidc_session', 'sg_oidc_session.sig'], {}],
    ['every cookie, no token', ['sg_session', 'sg_oidc_session', 'sg_oidc_session.sig'], {}],
    [
      'every cookie, a forged token',
      ['sg_session', 'sg_oidc_session', 'sg_oidc_session.sig'],
      { csrf: 'x'.repeat(43) },
    ],
  ])('refuses a sign-out post with %s, and changes nothing', async (_name, sent, form) => {
    const browser = await browserWithBothSessions();
    const cookies = await cookiesOf(browser);
    expect(await providerSessionAlive(cookies)).toBe(true);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (sent.length > 0) headers.cookie = cookieHeader(cookies, sent);
    const response = await fetch(`${subject.baseUrl}/api/auth/sign-out`, {
      method: 'POST',
      headers,
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(await createSessionStore(pool).findByCookieValue(cookies.sg_session)).toBeTruthy();
    expect(await providerSessionAlive(cookies)).toBe(true);
  });

  it("ends both sessions with the session's own token", async () => {
    const browser = await browserWithBothSessions();
    const cookies = await cookiesOf(browser);
    const session = await createSessionStore(pool).findByCookieValue(cookies.sg_session);
    const signedOut = await browser.submitForm(`${subject.baseUrl}/api/auth/sign-out`, {
      csrf: oauth.csrf.issue('sign-out', session!.id),
    });
    expect(signedOut.status).toBe(303);
    expect(await createSessionStore(pool).findByCookieValue(cookies.sg_session)).toBeUndefined();
    expect(await providerSessionAlive(cookies)).toBe(false);
  });
});
