import type { AccountServiceClientApi, CredentialChoices } from '@sheetgate/proto';
import { createAccountServiceClient } from '@sheetgate/proto';
import { type Browser, createBrowser, type Stack, startStack } from '@sheetgate/test-harness';
import { parse } from 'node-html-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationRequest, registerClient } from './support/oauth-app.ts';

// The forms that set a credential's two choices (docs/design.md §11.10) over HTTP on the whole
// stack, two people signed in through the Google emulator: the dashboard rows' forms
// (POST /dashboard/api-keys/choices, /dashboard/apps/choices) and the Create API key form's boxes.
// A valid post stores exactly what was ticked; a forged, malformed, oversized or someone else's
// one changes nothing, and auth's AccountService shows it.

const KEY_CHOICES = '/dashboard/api-keys/choices';
const APP_CHOICES = '/dashboard/apps/choices';
const CREATE_KEY = '/dashboard/api-keys';
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

interface Signed {
  browser: Browser;
  session: string;
  keyId: string;
  clientId: string;
  /** Web's CSRF token of each dashboard form, by its action. */
  csrf: Record<string, string>;
}

let stack: Stack;
let accounts: AccountServiceClientApi;
let alice: Signed;
let bob: Signed;

/** Signs in over HTTP, makes a key and connects an app (Allow as the consent screen stands). */
async function signIn(email: string): Promise<Signed> {
  const browser = createBrowser();
  await browser.navigate(`${stack.baseUrl}/login`);
  const chooser = await browser.navigate(`${stack.baseUrl}/api/auth/google/start?return_to=%2Fdashboard`);
  const chosen = await browser.pressButton(
    { url: chooser.redirects.at(-1) ?? chooser.url, body: chooser.body },
    email,
  );
  await browser.navigate(chosen.location!);
  const session = (await browser.jar.getCookies(stack.baseUrl)).find(
    (cookie) => cookie.key === 'sg_session',
  )!.value;
  const { key } = await accounts.createApiKey({
    sessionCookie: session,
    name: `${email} key`,
    scopes: ['sheets:read'],
    expiresAt: '',
  });
  const clientId = await registerClient(stack.baseUrl, `${email} app`, REDIRECT_URI);
  const consent = await browser.navigate(
    authorizationRequest(stack.baseUrl, clientId, REDIRECT_URI).url,
    {},
    (url) => url.pathname === '/authorize',
  );
  const consentPage = await browser.request(consent.redirects.at(-1)!);
  const allowed = await browser.pressButton({ url: consentPage.url, body: consentPage.body }, 'Allow');
  await browser.navigate(allowed.location!, {}, (url) => url.href.startsWith(REDIRECT_URI));
  const dashboard = parse((await browser.request(`${stack.baseUrl}/dashboard`)).body);
  const csrf: Record<string, string> = {};
  for (const action of [KEY_CHOICES, APP_CHOICES, CREATE_KEY]) {
    csrf[action] =
      dashboard.querySelector(`form[action="${action}"] input[name=csrf]`)?.getAttribute('value') ?? '';
    if (!csrf[action]) throw new Error(`no CSRF token for ${action} on ${email}'s dashboard`);
  }
  return { browser, session, keyId: key!.id, clientId, csrf };
}

beforeAll(async () => {
  stack = await startStack();
  accounts = createAccountServiceClient({
    address: `127.0.0.1:${stack.ports.AUTH_GRPC_PORT}`,
    serviceToken: stack.serviceToken,
  });
  alice = await signIn('alice@example.com');
  bob = await signIn('bob@example.com');
}, 120_000);

afterAll(async () => {
  accounts?.close();
  await stack?.stop();
});

/** Every choice both people hold, as auth tells their dashboards. */
async function allChoices() {
  const of = async (person: Signed) => {
    const [{ keys }, { apps }] = await Promise.all([
      accounts.listApiKeys({ sessionCookie: person.session }),
      accounts.listConnectedApps({ sessionCookie: person.session }),
    ]);
    return {
      keys: Object.fromEntries(keys.map((key) => [key.id, key.choices])),
      apps: Object.fromEntries(apps.map((app) => [app.clientId, app.choices])),
    };
  };
  return { alice: await of(alice), bob: await of(bob) };
}

async function keyChoices(person: Signed, keyId: string): Promise<CredentialChoices | undefined> {
  const { keys } = await accounts.listApiKeys({ sessionCookie: person.session });
  return keys.find((key) => key.id === keyId)?.choices;
}

async function appChoices(person: Signed, clientId: string): Promise<CredentialChoices | undefined> {
  const { apps } = await accounts.listConnectedApps({ sessionCookie: person.session });
  return apps.find((app) => app.clientId === clientId)?.choices;
}

/** Posts as `person`'s own page would (same origin, their session cookie), unless told otherwise. */
async function post(
  path: string,
  body: string | Array<[string, string]>,
  options: { person?: Signed; headers?: Record<string, string> } = {},
) {
  const person = options.person ?? alice;
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: stack.baseUrl,
      'sec-fetch-site': 'same-origin',
      cookie: `sg_session=${person.session}`,
      ...options.headers,
    },
    body: typeof body === 'string' ? body : new URLSearchParams(body).toString(),
  });
  return {
    status: response.status,
    location: response.headers.get('location'),
    heading: parse(await response.text())
      .querySelector('h1')
      ?.text.trim(),
  };
}

describe('a dashboard row sets its key or app choices', { timeout: 120_000 }, () => {
  it("stores exactly the boxes ticked, for the person's own key, and says so", async () => {
    for (const ticked of [
      { may_act_outbound: true, may_destroy_unasked: false },
      { may_act_outbound: false, may_destroy_unasked: false },
      { may_act_outbound: true, may_destroy_unasked: true },
    ]) {
      const fields: Array<[string, string]> = [
        ['csrf', alice.csrf[KEY_CHOICES]!],
        ['key', alice.keyId],
        ...Object.entries(ticked)
          .filter(([, on]) => on)
          .map(([field]) => [field, 'on'] as [string, string]),
      ];
      const answer = await post(KEY_CHOICES, fields);
      expect(answer.status).toBe(303);
      expect(answer.location).toBe('/dashboard?notice=key_choices_saved');
      expect(await keyChoices(alice, alice.keyId)).toEqual({
        mayActOutbound: ticked.may_act_outbound,
        mayDestroyUnasked: ticked.may_destroy_unasked,
      });
    }
  });

  it("stores an app's choices for this person, without reconnecting it", async () => {
    const answer = await post(APP_CHOICES, [
      ['csrf', alice.csrf[APP_CHOICES]!],
      ['client', alice.clientId],
      ['may_act_outbound', 'on'],
    ]);
    expect(answer).toMatchObject({ status: 303, location: '/dashboard?notice=app_choices_saved' });
    expect(await appChoices(alice, alice.clientId)).toEqual({
      mayActOutbound: true,
      mayDestroyUnasked: false,
    });
  });

  it("another person's key or app: nothing changes, for either of them", async () => {
    const before = await allChoices();
    const key = await post(KEY_CHOICES, [
      ['csrf', alice.csrf[KEY_CHOICES]!],
      ['key', bob.keyId],
      ['may_act_outbound', 'on'],
    ]);
    expect(key).toMatchObject({ status: 303, location: '/dashboard?notice=key_choices_not_saved' });
    const app = await post(APP_CHOICES, [
      ['csrf', alice.csrf[APP_CHOICES]!],
      ['client', bob.clientId],
      ['may_act_outbound', 'on'],
    ]);
    expect(app).toMatchObject({ status: 303, location: '/dashboard?notice=app_choices_not_saved' });
    expect(await allChoices()).toEqual(before);
  });

  it('a missing, unknown or malformed id: "nothing was changed"', async () => {
    const before = await allChoices();
    for (const [path, field, notice] of [
      [KEY_CHOICES, 'key', 'key_choices_not_saved'],
      [APP_CHOICES, 'client', 'app_choices_not_saved'],
    ] as const) {
      for (const id of [
        undefined,
        '',
        'not-a-key',
        '00000000-0000-4000-8000-000000000000',
        'a\u0000b',
        'x'.repeat(3_000),
      ]) {
        const answer = await post(path, [
          ['csrf', alice.csrf[path]!],
          ...(id === undefined ? [] : ([[field, id]] as Array<[string, string]>)),
          ['may_act_outbound', 'on'],
        ]);
        expect(answer, `${path} ${JSON.stringify(id?.slice(0, 20))}`).toMatchObject({
          status: 303,
          location: `/dashboard?notice=${notice}`,
        });
      }
    }
    expect(await allChoices()).toEqual(before);
  });

  it('a box sent with another value than "on", or twice, or an id twice: a 400 page, nothing changes', async () => {
    const before = await allChoices();
    for (const fields of [
      [['may_act_outbound', 'yes']],
      [['may_destroy_unasked', '']],
      [
        ['may_act_outbound', 'on'],
        ['may_act_outbound', 'on'],
      ],
      [['key', alice.keyId]],
    ] as Array<Array<[string, string]>>) {
      const answer = await post(KEY_CHOICES, [
        ['csrf', alice.csrf[KEY_CHOICES]!],
        ['key', alice.keyId],
        ...fields,
      ]);
      expect(answer, JSON.stringify(fields)).toMatchObject({ status: 400, heading: 'Request refused' });
    }
    expect(await allChoices()).toEqual(before);
  });

  it("without a valid CSRF token (none, another form's, another person's): a 403 page, nothing changes", async () => {
    const before = await allChoices();
    const attempts: Array<{ path: string; csrf?: string; person?: Signed }> = [
      { path: KEY_CHOICES },
      { path: APP_CHOICES },
      { path: KEY_CHOICES, csrf: alice.csrf[APP_CHOICES] },
      { path: APP_CHOICES, csrf: alice.csrf[KEY_CHOICES] },
      { path: KEY_CHOICES, csrf: alice.csrf[CREATE_KEY] },
      { path: KEY_CHOICES, csrf: bob.csrf[KEY_CHOICES] },
      { path: KEY_CHOICES, csrf: 'forged' },
    ];
    for (const attempt of attempts) {
      const answer = await post(attempt.path, [
        ...(attempt.csrf === undefined ? [] : ([['csrf', attempt.csrf]] as Array<[string, string]>)),
        ['key', alice.keyId],
        ['client', alice.clientId],
        ['may_act_outbound', 'on'],
        ['may_destroy_unasked', 'on'],
      ]);
      expect(answer, JSON.stringify(attempt)).toMatchObject({
        status: 403,
        heading: 'This form has expired',
      });
    }
    expect(await allChoices()).toEqual(before);
  });

  it('from another site, or with no session: refused or sent to sign in, nothing changes', async () => {
    const before = await allChoices();
    const fields: Array<[string, string]> = [
      ['csrf', alice.csrf[KEY_CHOICES]!],
      ['key', alice.keyId],
      ['may_act_outbound', 'on'],
      ['may_destroy_unasked', 'on'],
    ];
    const crossSite = await post(KEY_CHOICES, fields, {
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite).toMatchObject({ status: 403, heading: 'This form has expired' });
    const signedOut = await post(KEY_CHOICES, fields, { headers: { cookie: '' } });
    expect(signedOut).toMatchObject({ status: 303, location: '/login' });
    expect(await allChoices()).toEqual(before);
  });

  it('an oversized body: a 413 page, nothing changes', async () => {
    const before = await allChoices();
    for (const path of [KEY_CHOICES, APP_CHOICES]) {
      const fields = `csrf=${encodeURIComponent(alice.csrf[path]!)}&key=${alice.keyId}&client=${encodeURIComponent(alice.clientId)}&may_act_outbound=on&pad=`;
      const answer = await post(path, `${fields}${'a'.repeat(40_000)}`);
      expect(answer).toMatchObject({ status: 413, heading: 'Request refused' });
    }
    expect(await allChoices()).toEqual(before);
  });
});

describe('the Create API key form sends its choices to CreateApiKey', { timeout: 120_000 }, () => {
  async function create(name: string, extra: Array<[string, string]>) {
    const answer = await post(CREATE_KEY, [
      ['csrf', alice.csrf[CREATE_KEY]!],
      ['name', name],
      ['expires', 'never'],
      ['access', 'read'],
      ...extra,
    ]);
    const { keys } = await accounts.listApiKeys({ sessionCookie: alice.session });
    return { answer, stored: keys.find((key) => key.name === name) };
  }

  it('the boxes as ticked when the form offered them; the defaults when it did not', async () => {
    const both = await create('Both ticked', [
      ['choices_offered', '1'],
      ['may_act_outbound', 'on'],
      ['may_destroy_unasked', 'on'],
    ]);
    expect(both.answer.status).toBe(201);
    expect(both.stored?.choices).toEqual({ mayActOutbound: true, mayDestroyUnasked: true });

    const none = await create('None ticked', [['choices_offered', '1']]);
    expect(none.answer.status).toBe(201);
    expect(none.stored?.choices).toEqual({ mayActOutbound: false, mayDestroyUnasked: false });

    const notOffered = await create('Not offered', []);
    expect(notOffered.answer.status).toBe(201);
    expect(notOffered.stored?.choices).toEqual({ mayActOutbound: false, mayDestroyUnasked: true });
  });

  it('a box with another value than "on": a 400 page, and no key', async () => {
    const refused = await create('Odd box', [
      ['choices_offered', '1'],
      ['may_act_outbound', 'true'],
    ]);
    expect(refused.answer).toMatchObject({ status: 400, heading: 'Request refused' });
    expect(refused.stored).toBeUndefined();
  });
});
