import { type AccountServiceClientApi, createAccountServiceClient, DEFAULT_TOOLSETS } from '@sheetgate/proto';
import type { Browser } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthTestbed, startOAuthTestbed } from './support/oauth-flow.ts';

// Toolsets chosen per connected app on the consent screen (docs/design.md §11, "Toolsets"): what
// the consent post carries is kept per person and app, shown again on the next consent, listed on
// the dashboard, carried in every access token the app gets (the `toolsets` claim) and forgotten
// on disconnect. Real auth process, real database, the consent form posted as the page posts it.

const REDIRECT = 'http://127.0.0.1:40112/callback';
let testbed: OAuthTestbed;
let accounts: AccountServiceClientApi;

beforeAll(async () => {
  testbed = await startOAuthTestbed({ sub: '7001', email: 'toolsets@example.com' });
  accounts = createAccountServiceClient({
    address: `127.0.0.1:${testbed.subject.env.AUTH_GRPC_PORT}`,
    serviceToken: testbed.subject.env.INTERNAL_SERVICE_TOKEN!,
  });
});
afterAll(async () => {
  accounts?.close();
  await testbed?.stop();
});

async function newClient(): Promise<string> {
  const { status, body } = await testbed.oauth.register({
    client_name: 'Toolsets app',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
  });
  expect(status).toBe(201);
  return body.client_id as string;
}

async function sessionCookieOf(browser: Browser): Promise<string> {
  const cookies = await browser.jar.getCookies(testbed.subject.baseUrl);
  return cookies.find((cookie) => cookie.key === 'sg_session')!.value;
}

/** The consent form's fields as the page posts them with `checked` ticked. */
const offered = (...checked: string[]): Array<[string, string]> => [
  ['toolsets_offered', '1'],
  ...checked.map((name): [string, string] => ['toolsets', name]),
];

/** Authorizes `clientId` with the consent `fields`, exchanges the code; the tokens and the claims. */
async function connect(browser: Browser, clientId: string, fields: Array<[string, string]>) {
  const { params, verifier } = testbed.oauth.codeRequest(clientId, REDIRECT);
  const { redirect } = await testbed.oauth.authorize(browser, params, { consentFields: fields });
  const code = redirect.searchParams.get('code');
  if (!code) throw new Error(`no code: ${redirect.href}`);
  const tokens = await testbed.oauth.token(
    { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT },
    { method: 'none', clientId },
  );
  expect(tokens.status).toBe(200);
  const { payload } = await testbed.oauth.verifyAccessToken(tokens.body.access_token);
  return { tokens: tokens.body, claims: payload };
}

/** Starts an authorization and returns what GetInteraction tells the consent page, and its uid. */
async function consentScreen(browser: Browser, clientId: string) {
  const { params } = testbed.oauth.codeRequest(clientId, REDIRECT);
  const { last } = await testbed.oauth.authorize(browser, params, { stopAtConsent: true });
  const uid = last.searchParams.get('interaction')!;
  const interaction = await accounts.getInteraction({
    interactionUid: uid,
    sessionCookie: await sessionCookieOf(browser),
  });
  return { uid, interaction };
}

describe('toolsets chosen on the consent screen', () => {
  it('offers the defaults to a new app, and carries the choice in every access token, refreshed too', async () => {
    const clientId = await newClient();
    const browser = await testbed.oauth.signedInBrowser(testbed.userId);
    const { interaction } = await consentScreen(browser, clientId);
    expect(interaction.toolsets).toEqual([...DEFAULT_TOOLSETS]);

    // Sent out of order and twice: kept in TOOLSETS order, once each.
    const { tokens, claims } = await connect(
      browser,
      clientId,
      offered('structure', 'core-read', 'structure'),
    );
    expect(claims.toolsets).toEqual(['core-read', 'structure']);
    const refreshed = await testbed.oauth.token(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      { method: 'none', clientId },
    );
    expect(refreshed.status).toBe(200);
    expect((await testbed.oauth.verifyAccessToken(refreshed.body.access_token)).payload.toolsets).toEqual([
      'core-read',
      'structure',
    ]);

    // The dashboard lists it, and the next consent screen for the app starts from it.
    const sessionCookie = await sessionCookieOf(browser);
    const { apps } = await accounts.listConnectedApps({ sessionCookie });
    expect(apps.find((app) => app.clientId === clientId)?.toolsets).toEqual(['core-read', 'structure']);
    expect((await consentScreen(browser, clientId)).interaction.toolsets).toEqual(['core-read', 'structure']);
  });

  it('a re-consent with other boxes replaces the choice in the tokens issued after it', async () => {
    const clientId = await newClient();
    const browser = await testbed.oauth.signedInBrowser(testbed.userId);
    expect((await connect(browser, clientId, offered('core-read'))).claims.toolsets).toEqual(['core-read']);
    // A loopback app is asked again each time (RFC 8252 §8.6): the person checks more.
    const again = await connect(browser, clientId, offered('core-read', 'core-write', 'files'));
    expect(again.claims.toolsets).toEqual(['core-read', 'core-write', 'files']);
  });

  it('a consent post that never showed the boxes leaves no claim: every set, as before toolsets', async () => {
    const clientId = await newClient();
    const browser = await testbed.oauth.signedInBrowser(testbed.userId);
    const { claims } = await connect(browser, clientId, []);
    expect(claims).not.toHaveProperty('toolsets');
    const { apps } = await accounts.listConnectedApps({ sessionCookie: await sessionCookieOf(browser) });
    expect(apps.find((app) => app.clientId === clientId)?.toolsets).toEqual([]);
  });

  it('Allow with no box checked shows the screen again saying so; nothing is granted', async () => {
    const clientId = await newClient();
    const browser = await testbed.oauth.signedInBrowser(testbed.userId);
    const { uid } = await consentScreen(browser, clientId);
    const posted = await browser.submitForm(
      `${testbed.subject.baseUrl}/api/auth/interaction/${uid}/consent`,
      [['decision', 'allow'], ['csrf', testbed.oauth.csrf.issue('consent', uid)], ...offered()],
    );
    expect(posted.status).toBe(303);
    const back = new URL(posted.location!, testbed.subject.baseUrl);
    expect(back.pathname).toBe('/authorize');
    expect(back.searchParams.get('interaction')).toBe(uid);
    expect(back.searchParams.get('problem')).toBe('no-toolsets');
    const { apps } = await accounts.listConnectedApps({ sessionCookie: await sessionCookieOf(browser) });
    expect(apps.map((app) => app.clientId)).not.toContain(clientId);

    // The same interaction can still be answered.
    const allowed = await browser.submitForm(
      `${testbed.subject.baseUrl}/api/auth/interaction/${uid}/consent`,
      [['decision', 'allow'], ['csrf', testbed.oauth.csrf.issue('consent', uid)], ...offered('files')],
    );
    expect(allowed.status).toBe(303);
    expect(new URL(allowed.location!, testbed.subject.baseUrl).pathname).not.toBe('/authorize');
  });

  it.each([
    ['an unknown set', ['admin']],
    ['a known set beside an unknown one', ['core-read', 'core-read ']],
    ['a hostile name', ['__proto__']],
  ])('refuses %s with 400 and stores nothing', async (_case, names) => {
    const clientId = await newClient();
    const browser = await testbed.oauth.signedInBrowser(testbed.userId);
    const { uid } = await consentScreen(browser, clientId);
    const posted = await browser.submitForm(
      `${testbed.subject.baseUrl}/api/auth/interaction/${uid}/consent`,
      [['decision', 'allow'], ['csrf', testbed.oauth.csrf.issue('consent', uid)], ...offered(...names)],
    );
    expect(posted.status).toBe(400);
    expect(posted.body).toContain('toolsets must be names the consent screen offers');
    const { rows } = await testbed.pool.query('SELECT 1 FROM app_toolsets WHERE client_id = $1', [clientId]);
    expect(rows).toEqual([]);
  });

  it('Disconnect forgets the choice: connecting again starts from the defaults', async () => {
    const clientId = await newClient();
    const browser = await testbed.oauth.signedInBrowser(testbed.userId);
    await connect(browser, clientId, offered('files'));
    const sessionCookie = await sessionCookieOf(browser);
    expect((await accounts.disconnectApp({ sessionCookie, clientId })).disconnected).toBe(true);
    expect((await consentScreen(browser, clientId)).interaction.toolsets).toEqual([...DEFAULT_TOOLSETS]);
  });
});
