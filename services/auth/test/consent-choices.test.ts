import {
  type AccountServiceClientApi,
  type CallConsentClient,
  createAccountServiceClient,
  createCallConsentClient,
  DEFAULT_CREDENTIAL_CHOICES,
  GrpcStatus,
} from '@sheetgate/proto';
import type { Browser } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../src/audit/index.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { type OAuthTestbed, startOAuthTestbed } from './support/oauth-flow.ts';

// A connected app's two choices (docs/design.md §11.10), per person and app: offered on the consent
// screen (GetInteraction.choices), posted with `choices_offered=1` and the checkboxes, replaced by
// each re-consent that showed them, listed and changed on the dashboard (ListConnectedApps,
// SetAppChoices), read by the MCP service (GetCredentialChoices) without reconnecting, and dropped
// on Disconnect. Real auth process and database; the consent form posted as the page posts it.

const REDIRECT = 'http://127.0.0.1:40113/callback';
let testbed: OAuthTestbed;
let accounts: AccountServiceClientApi;
let consent: CallConsentClient;

beforeAll(async () => {
  testbed = await startOAuthTestbed({ sub: '7101', email: 'choices@example.com' });
  const address = `127.0.0.1:${testbed.subject.env.AUTH_GRPC_PORT}`;
  const serviceToken = testbed.subject.env.INTERNAL_SERVICE_TOKEN!;
  accounts = createAccountServiceClient({ address, serviceToken });
  consent = createCallConsentClient({ address, serviceToken });
});
afterAll(async () => {
  accounts?.close();
  consent?.close();
  await testbed?.stop();
});

async function newClient(): Promise<string> {
  const { status, body } = await testbed.oauth.register({
    client_name: 'Choices app',
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

/** The consent form's fields as the page posts them, with the boxes named in `checked` ticked. */
const offered = (...checked: Array<'may_act_outbound' | 'may_destroy_unasked'>): Array<[string, string]> => [
  ['choices_offered', '1'],
  ...checked.map((name): [string, string] => [name, 'on']),
];

/** Authorizes `clientId` with the consent `fields` (a loopback app is asked every time). */
async function connect(browser: Browser, clientId: string, fields: Array<[string, string]>) {
  const { params } = testbed.oauth.codeRequest(clientId, REDIRECT);
  const { redirect } = await testbed.oauth.authorize(browser, params, { consentFields: fields });
  expect(redirect.searchParams.get('code')).toBeTruthy();
}

/** Stops at the consent screen: its interaction uid and what GetInteraction tells the page. */
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

const appChoices = async (clientId: string, userId = testbed.userId) =>
  (await consent.getCredentialChoices({ credential: { userId, clientId } })).choices;

const storedRows = async (clientId: string) =>
  (await testbed.pool.query('SELECT * FROM app_choices WHERE client_id = $1', [clientId])).rows;

describe('choices on the consent screen', () => {
  it('offers the defaults to a new app, keeps what Allow posted, and offers it again', async () => {
    const clientId = await newClient();
    const browser = await testbed.oauth.signedInBrowser(testbed.userId);
    expect((await consentScreen(browser, clientId)).interaction.choices).toEqual(DEFAULT_CREDENTIAL_CHOICES);
    await connect(browser, clientId, offered('may_act_outbound', 'may_destroy_unasked'));
    const chosen = { mayActOutbound: true, mayDestroyUnasked: true };
    expect(await appChoices(clientId)).toEqual(chosen);
    expect((await consentScreen(browser, clientId)).interaction.choices).toEqual(chosen);
    const { apps } = await accounts.listConnectedApps({ sessionCookie: await sessionCookieOf(browser) });
    expect(apps.find((app) => app.clientId === clientId)?.choices).toEqual(chosen);
    const [event] = await createAuditLog(testbed.pool).recent({ kind: 'app.choices_changed', limit: 1 });
    expect(event?.details).toEqual({
      clientId,
      mayActOutbound: true,
      mayDestroyUnasked: true,
      via: 'consent',
    });
  });

  it('a box left unticked is no, and a re-consent replaces the choices', async () => {
    const clientId = await newClient();
    const browser = await testbed.oauth.signedInBrowser(testbed.userId);
    await connect(browser, clientId, offered());
    expect(await appChoices(clientId)).toEqual({ mayActOutbound: false, mayDestroyUnasked: false });
    await connect(browser, clientId, offered('may_act_outbound'));
    expect(await appChoices(clientId)).toEqual({ mayActOutbound: true, mayDestroyUnasked: false });
  });

  it('a consent post without choices_offered (a page from before) leaves the stored choices as they are', async () => {
    const clientId = await newClient();
    const browser = await testbed.oauth.signedInBrowser(testbed.userId);
    await connect(browser, clientId, []);
    expect(await storedRows(clientId)).toEqual([]);
    expect(await appChoices(clientId)).toEqual(DEFAULT_CREDENTIAL_CHOICES);
    await connect(browser, clientId, offered('may_act_outbound'));
    // Boxes without the marker are not read: nothing changes.
    await connect(browser, clientId, [['may_destroy_unasked', 'on']]);
    expect(await appChoices(clientId)).toEqual({ mayActOutbound: true, mayDestroyUnasked: false });
  });

  it('Deny keeps nothing', async () => {
    const clientId = await newClient();
    const browser = await testbed.oauth.signedInBrowser(testbed.userId);
    const { params } = testbed.oauth.codeRequest(clientId, REDIRECT);
    const { redirect } = await testbed.oauth.authorize(browser, params, {
      decision: 'deny',
      consentFields: offered('may_act_outbound'),
    });
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(await storedRows(clientId)).toEqual([]);
  });

  it.each([
    ['a box with another value', [...offered(), ['may_act_outbound', 'true']]],
    ['a box sent twice', offered('may_act_outbound', 'may_act_outbound')],
    [
      'another marker',
      [
        ['choices_offered', 'yes'],
        ['may_act_outbound', 'on'],
      ],
    ],
  ] as Array<[string, Array<[string, string]>]>)(
    'refuses %s with 400 and keeps nothing',
    async (_case, fields) => {
      const clientId = await newClient();
      const browser = await testbed.oauth.signedInBrowser(testbed.userId);
      const { uid } = await consentScreen(browser, clientId);
      const posted = await browser.submitForm(
        `${testbed.subject.baseUrl}/api/auth/interaction/${uid}/consent`,
        [['decision', 'allow'], ['csrf', testbed.oauth.csrf.issue('consent', uid)], ...fields],
      );
      expect(posted.status).toBe(400);
      expect(await storedRows(clientId)).toEqual([]);
    },
  );
});

describe('SetAppChoices', () => {
  it('changes a connected app on the dashboard; the next GetCredentialChoices answers it, no reconnecting', async () => {
    const clientId = await newClient();
    const browser = await testbed.oauth.signedInBrowser(testbed.userId);
    await connect(browser, clientId, []);
    const sessionCookie = await sessionCookieOf(browser);
    const choices = { mayActOutbound: true, mayDestroyUnasked: false };
    expect(await accounts.setAppChoices({ sessionCookie, clientId, choices })).toEqual({ choices });
    expect(await appChoices(clientId)).toEqual(choices);
    const { apps } = await accounts.listConnectedApps({ sessionCookie });
    expect(apps.find((app) => app.clientId === clientId)?.choices).toEqual(choices);
    const [event] = await createAuditLog(testbed.pool).recent({ kind: 'app.choices_changed', limit: 1 });
    expect(event?.details).toEqual({ clientId, ...choices, via: 'dashboard' });
  });

  it('is NOT_FOUND for an app the person never connected (another person connected it), storing nothing', async () => {
    const clientId = await newClient();
    await connect(await testbed.oauth.signedInBrowser(testbed.userId), clientId, offered());
    const otherId = (
      await createUserLibrary(testbed.pool).upsertFromGoogle({ sub: '7102', email: 'o@example.com' })
    ).id;
    const other = (await createSessionStore(testbed.pool).create(otherId)).cookieValue;
    for (const id of [clientId, 'never-registered', '', 'c'.repeat(3000), 'app\u0000']) {
      await expect(
        accounts.setAppChoices({
          sessionCookie: other,
          clientId: id,
          choices: { mayActOutbound: true, mayDestroyUnasked: true },
        }),
      ).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
    }
    expect(await appChoices(clientId, otherId)).toEqual(DEFAULT_CREDENTIAL_CHOICES);
    expect(await appChoices(clientId)).toEqual({ mayActOutbound: false, mayDestroyUnasked: false });
  });

  it('refuses a request without choices or without a session', async () => {
    const clientId = await newClient();
    const browser = await testbed.oauth.signedInBrowser(testbed.userId);
    await connect(browser, clientId, []);
    await expect(
      accounts.setAppChoices({ sessionCookie: await sessionCookieOf(browser), clientId }),
    ).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    await expect(
      accounts.setAppChoices({
        sessionCookie: 'x'.repeat(43),
        clientId,
        choices: { mayActOutbound: true, mayDestroyUnasked: true },
      }),
    ).rejects.toMatchObject({ code: GrpcStatus.PERMISSION_DENIED });
    expect(await storedRows(clientId)).toEqual([]);
  });
});

describe('Disconnect', () => {
  it('drops the choices: the app answers the defaults, and connecting again offers them', async () => {
    const clientId = await newClient();
    const browser = await testbed.oauth.signedInBrowser(testbed.userId);
    await connect(browser, clientId, offered('may_act_outbound'));
    const sessionCookie = await sessionCookieOf(browser);
    expect((await accounts.disconnectApp({ sessionCookie, clientId })).disconnected).toBe(true);
    expect(await storedRows(clientId)).toEqual([]);
    expect(await appChoices(clientId)).toEqual(DEFAULT_CREDENTIAL_CHOICES);
    expect((await consentScreen(browser, clientId)).interaction.choices).toEqual(DEFAULT_CREDENTIAL_CHOICES);
    await expect(
      accounts.setAppChoices({
        sessionCookie,
        clientId,
        choices: { mayActOutbound: true, mayDestroyUnasked: true },
      }),
    ).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
  });
});
