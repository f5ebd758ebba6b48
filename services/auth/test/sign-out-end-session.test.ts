import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabasePool } from '../src/db/pool.ts';
import type { AuthUnderTest } from './support/auth-process.ts';
import { type OAuthTestbed, type OAuthTestClient, startOAuthTestbed } from './support/oauth-flow.ts';

// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0) at /api/auth/oauth2/end-session.
// An anonymous request must store nothing (each one used to leave a 14-day Session row behind),
// and the pages the provider renders — the logout confirmation, the signed-out page, form_post
// responses — carry the same CSP and anti-framing headers as every other page and load nothing
// from another site.

const WEB_REDIRECT = 'https://end-session-test.example/callback';
const LOGGED_OUT = 'https://end-session-test.example/logged-out';
let testbed: OAuthTestbed;
let subject: AuthUnderTest;
let pool: DatabasePool;
let oauth: OAuthTestClient;
let userId: string;
let clientId: string;

beforeAll(async () => {
  testbed = await startOAuthTestbed({ sub: '5101', email: 'gus@example.com' });
  ({ subject, pool, oauth, userId } = testbed);
  const registered = await oauth.register({
    client_name: 'End-session test app',
    application_type: 'web',
    redirect_uris: [WEB_REDIRECT],
    post_logout_redirect_uris: [LOGGED_OUT],
    token_endpoint_auth_method: 'none',
  });
  expect(registered.status).toBe(201);
  clientId = registered.body.client_id as string;
});
afterAll(() => testbed?.stop());

const endSession = `/api/auth/oauth2/end-session`;
const storedSessions = async () =>
  Number((await pool.query(`SELECT count(*) AS n FROM oidc_models WHERE model = 'Session'`)).rows[0].n);

/** The headers every HTML page of Sheetgate's carries (services/web/src/security-headers.ts). */
function expectPageHeaders(response: Response, body: string) {
  const csp = response.headers.get('content-security-policy') ?? '';
  expect(csp).toMatch(/default-src 'none'/);
  expect(csp).toMatch(/frame-ancestors 'none'/);
  expect(csp).toMatch(/base-uri 'none'/);
  expect(csp).not.toMatch(/unsafe-inline/);
  expect(response.headers.get('x-frame-options')).toBe('DENY');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('referrer-policy')).toBe('same-origin');
  // Nothing from another site: no fonts, styles or scripts by URL.
  expect(body).not.toMatch(/@import|<link\b|<script\b[^>]*\bsrc=/);
  // Any URL is this site's own, or the app's (a form's target).
  const others = body.replaceAll(subject.baseUrl, '').replaceAll('https://end-session-test.example/', '');
  expect(others).not.toMatch(/https?:\/\//);
}

describe('end-session without a provider session', () => {
  it('a cookieless request stores no Session, however many come', async () => {
    const before = await storedSessions();
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${subject.baseUrl}${endSession}`, { redirect: 'manual' });
      expect(response.status, await response.text()).toBeLessThan(400);
      expect(response.headers.getSetCookie().join()).not.toMatch(/sg_oidc_session/);
    }
    expect(await storedSessions()).toBe(before);
  });

  it('tells the person they are signed out', async () => {
    const response = await fetch(`${subject.baseUrl}${endSession}`, { redirect: 'follow' });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).toMatch(/signed out/i);
    expectPageHeaders(response, body);
  });

  it("returns to the app's registered post-logout redirect, with its state, and nowhere else", async () => {
    const back = await fetch(
      `${subject.baseUrl}${endSession}?${new URLSearchParams({
        client_id: clientId,
        post_logout_redirect_uri: LOGGED_OUT,
        state: 'xyz',
      })}`,
      { redirect: 'manual' },
    );
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`${LOGGED_OUT}?state=xyz`);
    const elsewhere = await fetch(
      `${subject.baseUrl}${endSession}?${new URLSearchParams({
        client_id: clientId,
        post_logout_redirect_uri: 'https://evil.example/',
      })}`,
      { redirect: 'manual' },
    );
    expect(elsewhere.headers.get('location') ?? '').not.toMatch(/evil\.example/);
  });
});

describe('pages the provider renders', () => {
  it('the logout confirmation of a signed-in browser', async () => {
    const browser = await oauth.signedInBrowser(userId);
    const connected = await oauth.authorize(browser, oauth.codeRequest(clientId, WEB_REDIRECT).params);
    expect(connected.redirect.searchParams.get('code')).toEqual(expect.any(String));
    const cookies = (await browser.jar.getCookies(subject.baseUrl)).map((c) => `${c.key}=${c.value}`);
    const response = await fetch(
      `${subject.baseUrl}${endSession}?${new URLSearchParams({
        client_id: clientId,
        post_logout_redirect_uri: LOGGED_OUT,
      })}`,
      { headers: { cookie: cookies.join('; ') } },
    );
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).toMatch(/<form[^>]*end-session\/confirm/);
    expectPageHeaders(response, body);
    // The confirmation redirects to the app: Chromium checks form-action on that redirect too.
    expect(response.headers.get('content-security-policy')).toMatch(
      /form-action 'self' https:\/\/end-session-test\.example(;|$)/,
    );
  });

  it('"Yes, sign me out" ends the provider session and returns to the app', async () => {
    const browser = await oauth.signedInBrowser(userId);
    await oauth.authorize(browser, oauth.codeRequest(clientId, WEB_REDIRECT).params);
    const before = await storedSessions();
    const confirmation = await browser.navigate(
      `${subject.baseUrl}${endSession}?${new URLSearchParams({
        client_id: clientId,
        post_logout_redirect_uri: LOGGED_OUT,
        state: 'abc',
      })}`,
    );
    const confirmed = await browser.pressButton(confirmation, 'Yes, sign me out');
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe(`${LOGGED_OUT}?state=abc`);
    expect(await storedSessions()).toBe(before - 1);
  });

  it('the signed-out page', async () => {
    const response = await fetch(`${subject.baseUrl}${endSession}/success?client_id=${clientId}`);
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).toMatch(/signed out/i);
    expectPageHeaders(response, body);
  });

  it('a form_post authorization response: its inline script by hash, its form to the app only', async () => {
    const browser = await oauth.signedInBrowser(userId);
    const { params } = oauth.codeRequest(clientId, WEB_REDIRECT, { response_mode: 'form_post' });
    // By hand, to see the last answer's headers: the browser's cookies, each redirect in turn.
    const visit = async (url: string) => {
      const response = await fetch(url, {
        headers: { cookie: await browser.jar.getCookieString(url) },
        redirect: 'manual',
      });
      for (const cookie of response.headers.getSetCookie()) await browser.jar.setCookie(cookie, url);
      return response;
    };
    let response = await visit(`${oauth.endpoint('authorize')}?${new URLSearchParams(params)}`);
    for (let hops = 0; response.status === 303 || response.status === 302; hops++) {
      const next = new URL(response.headers.get('location')!, subject.baseUrl);
      if (next.pathname === '/authorize') {
        const uid = next.searchParams.get('interaction')!;
        const posted = await browser.submitForm(`${subject.baseUrl}/api/auth/interaction/${uid}/consent`, {
          decision: 'allow',
          csrf: oauth.csrf.issue('consent', uid),
        });
        response = await visit(posted.location!);
      } else {
        response = await visit(next.href);
      }
      if (hops > 10) throw new Error('too many redirects');
    }
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).toMatch(/<form method="post" action="https:\/\/end-session-test\.example\/callback"/);
    expectPageHeaders(response, body);
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).toMatch(/form-action 'self' https:\/\/end-session-test\.example(;|$)/);
  });
});
