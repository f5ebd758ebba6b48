import { createBrowser } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GoogleTestbed,
  pressChooserButton,
  signInWithGoogle,
  startGoogleTestbed,
} from './support/google-testbed.ts';

const SPREADSHEETS = 'https://www.googleapis.com/auth/spreadsheets';
const DRIVE_READONLY = 'https://www.googleapis.com/auth/drive.readonly';
const DRIVE_FILE = 'https://www.googleapis.com/auth/drive.file';

let testbed: GoogleTestbed;
beforeAll(async () => {
  testbed = await startGoogleTestbed();
});
afterAll(async () => {
  await testbed?.close();
});

const sessionCookieOf = async (browser: ReturnType<typeof createBrowser>) =>
  (await browser.jar.getCookies(testbed.baseUrl)).find((cookie) => cookie.key === 'sg_session');

async function userByEmail(email: string) {
  const { rows } = await testbed.pool.query<{ id: string; google_subject: string }>(
    'SELECT id, google_subject FROM users WHERE email = $1',
    [email],
  );
  return rows;
}

describe('Google sign-in (OpenID Connect code flow with PKCE, at the emulator)', () => {
  it('creates the user, an encrypted Google connection and a dashboard session, then returns to return_to', async () => {
    const browser = createBrowser();
    const { googleRedirect, callback, final } = await signInWithGoogle(testbed, browser, {
      account: 'alice@example.com',
      returnTo: '/api/auth/interaction/uid-123',
    });
    expect(new URL(googleRedirect).origin).toBe(testbed.emulatorUrl);
    expect(callback!.status).toBe(303);
    expect(callback!.location).toBe(`${testbed.baseUrl}/api/auth/interaction/uid-123`);
    expect(final.body).toContain('/api/auth/interaction/uid-123');

    const [user] = await userByEmail('alice@example.com');
    expect(user).toBeDefined();

    const connection = await testbed.connections.find(user!.id);
    expect(connection).toMatchObject({
      userId: user!.id,
      googleSubject: user!.google_subject,
      email: 'alice@example.com',
      status: 'connected',
      partial: false,
    });
    expect(connection!.grantedScopes).toEqual(
      expect.arrayContaining([SPREADSHEETS, DRIVE_READONLY, DRIVE_FILE]),
    );

    // The refresh token is stored sealed, and nowhere in the database in the clear.
    const sealed = await testbed.connections.findSealed(user!.id);
    const refreshToken = testbed.connections.unsealRefreshToken(sealed!)!;
    expect(refreshToken.length).toBeGreaterThan(10);
    expect(sealed!.refreshTokenEncrypted).toMatch(/^v1\./);
    const dump = await testbed.pool.query(
      `SELECT (SELECT json_agg(t)::text FROM google_connections t) AS connections,
              (SELECT json_agg(t)::text FROM users t) AS users,
              (SELECT json_agg(t)::text FROM dashboard_sessions t) AS sessions`,
    );
    expect(JSON.stringify(dump.rows)).not.toContain(refreshToken);

    // A session exists for the user, behind the cookie the browser now holds.
    const cookie = await sessionCookieOf(browser);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'lax', path: '/' });
    expect(await testbed.sessions.findByCookieValue(cookie!.value)).toMatchObject({ userId: user!.id });
    // The sign-in is audited, without any credential.
    const [event] = await testbed.audit.recent({ userId: user!.id, kind: 'sign_in' });
    expect(event!.details).toMatchObject({ method: 'google', partialGrant: false, connection: 'connected' });
    expect(JSON.stringify(event)).not.toContain(refreshToken);
    expect(JSON.stringify(event)).not.toContain(cookie!.value);

    // The browser-binding cookie is gone once used.
    const binding = (await browser.jar.getCookies(`${testbed.baseUrl}/api/auth/google/callback`)).find(
      (each) => each.key === 'sg_google_sign_in',
    );
    expect(binding).toBeUndefined();
  });

  it('finds the same user on the next sign-in of the same Google account, and defaults to /dashboard', async () => {
    const [before] = await userByEmail('alice@example.com');
    const browser = createBrowser();
    const { callback } = await signInWithGoogle(testbed, browser, { account: 'alice@example.com' });
    expect(callback!.location).toBe(`${testbed.baseUrl}/dashboard`);
    const after = await userByEmail('alice@example.com');
    expect(after).toHaveLength(1);
    expect(after[0]!.id).toBe(before!.id);
    const cookie = await sessionCookieOf(browser);
    expect(await testbed.sessions.findByCookieValue(cookie!.value)).toMatchObject({ userId: before!.id });
  });

  it('ends the browser’s previous session when it signs in as someone else', async () => {
    const browser = createBrowser();
    await signInWithGoogle(testbed, browser, { account: 'alice@example.com' });
    const aliceCookie = (await sessionCookieOf(browser))!.value;
    await signInWithGoogle(testbed, browser, { account: 'bob@example.com' });
    const bobCookie = (await sessionCookieOf(browser))!.value;
    expect(bobCookie).not.toBe(aliceCookie);
    expect(await testbed.sessions.findByCookieValue(aliceCookie)).toBeUndefined();
    const [bob] = await userByEmail('bob@example.com');
    expect(await testbed.sessions.findByCookieValue(bobCookie)).toMatchObject({ userId: bob!.id });
  });

  it('sends “Cancel” at Google back to the login page with the cancelled error', async () => {
    const browser = createBrowser();
    const { callback, final } = await signInWithGoogle(testbed, browser, {
      account: 'Cancel',
      returnTo: '/api/auth/interaction/uid-9',
    });
    expect(callback!.status).toBe(303);
    expect(callback!.location).toBe(`${testbed.baseUrl}/login?error=google_cancelled&interaction=uid-9`);
    expect(final.body).toContain('/login');
    expect(await sessionCookieOf(browser)).toBeUndefined();
  });

  it('stores a partial grant, marked partial, with the scopes Google granted', async () => {
    // With include_granted_scopes Google adds back what was granted before; start from no grant.
    await testbed.revokeAtGoogle('bob@example.com');
    const browser = createBrowser();
    const { callback } = await signInWithGoogle(testbed, browser, {
      account: 'bob@example.com',
      untick: [DRIVE_READONLY],
    });
    expect(callback!.status).toBe(303);
    const [bob] = await userByEmail('bob@example.com');
    const connection = await testbed.connections.find(bob!.id);
    expect(connection).toMatchObject({ partial: true, status: 'connected' });
    expect(connection!.grantedScopes).toEqual(expect.arrayContaining([SPREADSHEETS, DRIVE_FILE]));
    expect(connection!.grantedScopes).not.toContain(DRIVE_READONLY);
  });
});

describe('Google sign-in refuses', () => {
  /** Starts a sign-in and picks the account, but stops before the callback. */
  async function upToCallback(browser = createBrowser()) {
    const chooser = await browser.navigate(`${testbed.baseUrl}/api/auth/google/start`);
    const pressed = await pressChooserButton(browser, chooser, 'alice@example.com');
    const callbackUrl = new URL(pressed.location!);
    expect(callbackUrl.pathname).toBe('/api/auth/google/callback');
    const binding = (await browser.jar.getCookies(callbackUrl.toString())).find(
      (cookie) => cookie.key === 'sg_google_sign_in',
    );
    return { browser, callbackUrl, binding: binding!.value };
  }

  it('a tampered state', async () => {
    const { browser, callbackUrl } = await upToCallback();
    const state = callbackUrl.searchParams.get('state')!;
    callbackUrl.searchParams.set('state', (state[0] === 'A' ? 'B' : 'A') + state.slice(1));
    const answer = await browser.request(callbackUrl.toString());
    expect(answer.status).toBe(400);
    expect(await sessionCookieOf(browser)).toBeUndefined();
  });

  it('a callback without the browser-binding cookie (another browser, login CSRF)', async () => {
    const { callbackUrl } = await upToCallback();
    const victim = createBrowser();
    const answer = await victim.request(callbackUrl.toString());
    expect(answer.status).toBe(400);
    expect(await sessionCookieOf(victim)).toBeUndefined();
  });

  it('a callback with another sign-in’s browser-binding cookie', async () => {
    const { callbackUrl } = await upToCallback();
    // The attacker's own browser, with its own pending sign-in (and binding cookie).
    const { browser: attacker } = await upToCallback();
    const answer = await attacker.request(callbackUrl.toString());
    expect(answer.status).toBe(400);
    expect(await sessionCookieOf(attacker)).toBeUndefined();
  });

  it('a replayed state', async () => {
    const { browser, callbackUrl, binding } = await upToCallback();
    const first = await browser.request(callbackUrl.toString());
    expect(first.status).toBe(303);
    // The whole request again, binding cookie included, as a replaying attacker would send it.
    const replay = await fetch(callbackUrl, {
      redirect: 'manual',
      headers: { cookie: `sg_google_sign_in=${binding}` },
    });
    expect(replay.status).toBe(400);
  });

  it('more sign-ins of one Google account than the signIn limit allows', async () => {
    await signInWithGoogle(testbed, createBrowser(), { account: 'carol@example.com' });
    const [carol] = await userByEmail('carol@example.com');
    // Carol's one sign-in plus these use up the limit exactly.
    for (let i = 1; i < testbed.signInLimiter.rule.points; i++)
      await testbed.signInLimiter.consume(`google:${carol!.google_subject}`);
    const browser = createBrowser();
    const chooser = await browser.navigate(`${testbed.baseUrl}/api/auth/google/start`);
    const pressed = await pressChooserButton(browser, chooser, 'carol@example.com');
    const cookies = await browser.jar.getCookieString(pressed.location!);
    const answer = await fetch(pressed.location!, { redirect: 'manual', headers: { cookie: cookies } });
    expect(answer.status).toBe(429);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(answer.headers.get('set-cookie') ?? '').not.toContain('sg_session');
    const [hit] = await testbed.audit.recent({ userId: carol!.id, kind: 'rate_limit.hit' });
    expect(hit!.details).toMatchObject({ limit: 'signIn' });
  });

  it.each(['//evil.example', 'https://evil.example', '/\\evil'])(
    'an open-redirect return_to %j',
    async (returnTo) => {
      const browser = createBrowser();
      const answer = await browser.request(
        `${testbed.baseUrl}/api/auth/google/start?return_to=${encodeURIComponent(returnTo)}`,
      );
      expect(answer.status).toBe(400);
      expect(answer.location).toBeUndefined();
    },
  );
});
