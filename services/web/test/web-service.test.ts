import { randomBytes, randomUUID } from 'node:crypto';
import type { ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import {
  type AccountServiceClientApi,
  type AccountServiceServer,
  accountService,
  changeUndoService,
  createAccountServiceClient,
  type GetInteractionResponse,
  GrpcStatus,
  type RunningGrpcServer,
  startGrpcServer,
  type UndoChangeResponse,
} from '@sheetgate/proto';
import {
  type Browser,
  createBrowser,
  type FreezableRelay,
  type RunningService,
  readJson,
  type Stack,
  startFreezableRelay,
  startServiceProcess,
  startStack,
  withFreePorts,
} from '@sheetgate/test-harness';
import { parse } from 'node-html-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFormTokens } from '../src/forms/form-tokens.ts';
import { authorizationRequest, registerClient } from './support/oauth-app.ts';

// The web service as a real process in front of a real auth: the whole stack (`pnpm start`), people
// signed in through the Google emulator, their keys and apps made as the dashboard makes them.
// Tested over HTTP as a browser sees it: the pages, their headers and the dashboard's form handling.
// Web under test reaches auth's AccountService through a freezable relay, so a test can hold a call
// (auth not answering; a session that ends between two calls of one page). A stub AccountService
// is left only for answers real auth never gives (the last describe says which, and why).

const HOSTILE = `<script>alert(1)</script>\u202Eevil${'x'.repeat(3_000)}`;
// Auth refuses key names over 100 characters or with control or bidirectional characters, so a
// key's hostile name is markup only; apps take the whole of HOSTILE as their name.
const MARKUP_KEY_NAME = '<script>alert(1)</script> key';
const LOOPBACK_REDIRECT = 'http://127.0.0.1:4000/callback';
const WEB_REDIRECT = 'https://app.example/callback';
const GOOGLE = 'https://www.googleapis.com/auth/';

interface Person {
  email: string;
  browser: Browser;
  session: string;
}

let stack: Stack;
let accounts: AccountServiceClientApi;
let relay: FreezableRelay;
let web: RunningService;
/** Signed in with Drive unticked at Google: a partial grant. */
let alice: Person;
let bob: Person;
let aliceKey: { id: string; displayPrefix: string };
let aliceAppId: string;

/** Signs in through auth's Google start and the emulator's chooser, unticking `untick` scopes. */
async function signIn(email: string, untick: string[] = []): Promise<Person> {
  const browser = createBrowser();
  const chooser = await browser.navigate(`${stack.baseUrl}/api/auth/google/start?return_to=%2Fdashboard`);
  const chosen = await browser.pressButton(
    { url: chooser.redirects.at(-1) ?? chooser.url, body: chooser.body },
    email,
    { untick },
  );
  await browser.navigate(chosen.location!, {}, (url) => url.pathname === '/dashboard');
  const cookie = (await browser.jar.getCookies(stack.baseUrl)).find((entry) => entry.key === 'sg_session');
  if (!cookie) throw new Error(`${email}: no dashboard session after signing in`);
  return { email, browser, session: cookie.value };
}

/** An app's authorization request, asking for `scope`. */
function authorizationUrl(clientId: string, redirectUri: string, scope?: string) {
  const url = new URL(authorizationRequest(stack.baseUrl, clientId, redirectUri).url);
  if (scope) url.searchParams.set('scope', scope);
  return url.href;
}

/** The uid of the interaction auth sends `browser` to web's page `pathname` for. */
async function interactionAt(browser: Browser, url: string, pathname: '/login' | '/authorize') {
  const step = await browser.navigate(url, {}, (next) => next.pathname === pathname);
  const last = new URL(step.redirects.at(-1) ?? step.url);
  const uid = last.searchParams.get('interaction');
  if (last.pathname !== pathname || !uid) throw new Error(`no ${pathname} interaction: ${step.redirects}`);
  return uid;
}

/** A person connects an app: auth's consent, Allow, and the code at the app's redirect URI. */
async function connectApp(person: Person, clientName: string): Promise<string> {
  const clientId = await registerClient(stack.baseUrl, clientName, LOOPBACK_REDIRECT);
  const uid = await interactionAt(
    person.browser,
    authorizationUrl(clientId, LOOPBACK_REDIRECT),
    '/authorize',
  );
  const page = await person.browser.request(`${stack.baseUrl}/authorize?interaction=${uid}`);
  const allowed = await person.browser.pressButton(page, 'Allow');
  const back = await person.browser.navigate(allowed.location!, {}, (url) =>
    url.href.startsWith(LOOPBACK_REDIRECT),
  );
  if (!new URL(back.redirects.at(-1)!).searchParams.get('code')) throw new Error('the app got no code');
  return clientId;
}

async function createKey(person: Person, name: string, scopes = ['sheets:read']) {
  const { key } = await accounts.createApiKey({ sessionCookie: person.session, name, scopes, expiresAt: '' });
  return key!;
}

/** The person's keys as auth holds them, by name. */
async function keysNamed(person: Person, name: string) {
  const { keys } = await accounts.listApiKeys({ sessionCookie: person.session });
  return keys.filter((key) => key.name === name);
}

async function keyCount(person: Person) {
  return (await accounts.listApiKeys({ sessionCookie: person.session })).keys.length;
}

async function startWeb(
  authAddress: string,
  serviceToken: string,
  baseUrl?: string,
  env: Record<string, string> = {},
) {
  return withFreePorts(1, ([port]) =>
    startServiceProcess(
      'web',
      {
        WEB_PORT: String(port),
        // The service's own address stands in for the public origin, so Origin checks line up.
        BASE_URL: baseUrl ?? `http://127.0.0.1:${port}`,
        INTERNAL_SERVICE_TOKEN: serviceToken,
        AUTH_GRPC_ADDRESS: authAddress,
        ...env,
      },
      port!,
    ),
  );
}

beforeAll(async () => {
  // carol@gmail.com: a personal Google account, which Google names no Workspace domain for.
  stack = await startStack({ GOOGLE_EMULATOR_ACCOUNTS: 'alice@example.com,bob@example.com,carol@gmail.com' });
  accounts = createAccountServiceClient({
    address: `127.0.0.1:${stack.ports.AUTH_GRPC_PORT}`,
    serviceToken: stack.serviceToken,
  });
  relay = await startFreezableRelay({ host: '127.0.0.1', port: stack.ports.AUTH_GRPC_PORT! });
  web = await startWeb(relay.address, stack.serviceToken);
  alice = await signIn('alice@example.com', [`${GOOGLE}drive.readonly`, `${GOOGLE}drive.file`]);
  bob = await signIn('bob@example.com');
  aliceKey = await createKey(alice, MARKUP_KEY_NAME);
  aliceAppId = await connectApp(alice, HOSTILE);
}, 120_000);
afterAll(async () => {
  relay?.thaw();
  accounts?.close();
  await web?.stop();
  await relay?.close();
  await stack?.stop();
});

const signedIn = (person: Person) => ({ cookie: `sg_session=${person.session}` });
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${web.url}${path}`, { redirect: 'manual', headers });

/** Posts a form as our own page would (same-origin Fetch Metadata), unless `headers` says otherwise. */
function post(
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
  person: Person = alice,
) {
  return fetch(`${web.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: web.url,
      'sec-fetch-site': 'same-origin',
      ...signedIn(person),
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
}

async function dashboardForm(person: Person = alice) {
  const page = parse(await (await get('/dashboard', signedIn(person))).text());
  const form = page.querySelector('form[action="/dashboard/api-keys"]')!;
  return {
    csrf: form.querySelector('input[name=csrf]')!.getAttribute('value')!,
    nonce: form.querySelector('input[name=nonce]')!.getAttribute('value')!,
  };
}

const signOutToken = (body: string) =>
  parse(body).querySelector('form[action="/api/auth/sign-out"] input[name=csrf]')?.getAttribute('value');

describe('headers and static files', () => {
  it('serves the home page with a strict CSP, no framing and no cross-site referrer', async () => {
    const response = await get('/');
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(`${web.url}/api/mcp`);
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
  });

  it('serves the stylesheet and script under hashed URLs with a year of caching', async () => {
    const page = parse(await (await get('/login')).text());
    const css = page.querySelector('link[rel=stylesheet]')!.getAttribute('href')!;
    expect(css).toMatch(/^\/assets\/app\.[\w-]{12}\.css$/);
    const response = await get(css);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/css');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await response.text()).toContain('prefers-color-scheme: dark');
    expect((await get('/assets/app.css')).status).toBe(404);
  });

  it('answers unknown /.well-known documents with a JSON 404 and unknown pages with an HTML 404', async () => {
    const wellKnown = await get('/.well-known/security-policy');
    expect(wellKnown.status).toBe(404);
    expect(await readJson(wellKnown)).toEqual({
      error: 'not_found',
      error_description: 'no such metadata document',
    });
    const page = await get('/nowhere');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
  });
});

describe('/login', () => {
  it('links "Sign in with Google" to auth, returning only to a path of this site', async () => {
    for (const [query, returnTo] of [
      ['', '/dashboard'],
      ['?return_to=%2Fdashboard%3Fnotice%3Dx', '/dashboard?notice=x'],
      ['?return_to=%2F%2Fevil.example', '/dashboard'],
      ['?return_to=https%3A%2F%2Fevil.example', '/dashboard'],
      ['?return_to=%2F%5Cevil.example', '/dashboard'],
    ] as const) {
      const page = parse(await (await get(`/login${query}`)).text());
      const link = page.querySelectorAll('a').find((anchor) => anchor.text === 'Sign in with Google')!;
      expect(link.getAttribute('href')).toBe(
        `/api/auth/google/start?return_to=${encodeURIComponent(returnTo)}`,
      );
    }
  });

  it.each([
    ['google_cancelled', 'You cancelled signing in with Google.'],
    ['google_failed', 'Google did not complete the sign-in.'],
    ['<b>made-up</b>', 'Signing in did not complete.'],
    ['constructor', 'Signing in did not complete.'],
    ['__proto__', 'Signing in did not complete.'],
    ['toString', 'Signing in did not complete.'],
  ])('explains error=%s', async (error, text) => {
    const body = await (await get(`/login?error=${encodeURIComponent(error)}`)).text();
    expect(body).toContain(text);
    expect(body).not.toContain('<b>made-up</b>');
  });

  it('names the app of a login interaction, inertly, and returns to the interaction', async () => {
    const clientId = await registerClient(stack.baseUrl, HOSTILE, WEB_REDIRECT);
    const uid = await interactionAt(createBrowser(), authorizationUrl(clientId, WEB_REDIRECT), '/login');
    const response = await get(`/login?interaction=${uid}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.text();
    expect(body).not.toContain('<script>alert(1)</script>');
    expect(body).not.toContain('\u202E');
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;\uFFFDevil');
    expect(body).toContain(
      `href="/api/auth/google/start?return_to=${encodeURIComponent(`/api/auth/interaction/${uid}`)}"`,
    );
  });

  it('sends a consent interaction to /authorize', async () => {
    const clientId = await registerClient(stack.baseUrl, 'Consent app', WEB_REDIRECT);
    const uid = await interactionAt(alice.browser, authorizationUrl(clientId, WEB_REDIRECT), '/authorize');
    const response = await get(`/login?interaction=${uid}`, signedIn(alice));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(`/authorize?interaction=${uid}`);
  });
});

describe('/authorize', () => {
  it('posts Allow / Deny to auth with its CSRF token, and lets the form reach the app', async () => {
    const clientId = await registerClient(stack.baseUrl, 'Helper', LOOPBACK_REDIRECT);
    const uid = await interactionAt(
      alice.browser,
      authorizationUrl(clientId, LOOPBACK_REDIRECT, 'offline_access sheets:write sheets:read'),
      '/authorize',
    );
    const response = await get(`/authorize?interaction=${uid}`, signedIn(alice));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toContain(
      "form-action 'self' http://127.0.0.1:4000;",
    );
    const body = await response.text();
    const page = parse(body);
    const form = page.querySelector(`form[action="/api/auth/interaction/${uid}/consent"]`)!;
    expect(form.getAttribute('method')).toBe('post');
    const csrf = form.querySelector('input[name=csrf]')!.getAttribute('value')!;
    expect(csrf).toMatch(/^\S{16,}$/);
    const buttons = form
      .querySelectorAll('button')
      .map((button) => [button.text, button.getAttribute('value')]);
    expect(buttons).toEqual([
      ['Allow', 'allow'],
      ['Deny', 'deny'],
    ]);
    expect(signOutToken(body)).toMatch(/^\S{16,}$/);
    const scopes = page.querySelectorAll('ul.scopes li').map((item) => item.text);
    expect(scopes[0]).toMatch(/^See your spreadsheets/);
    expect(scopes[1]).toMatch(/^Create, change and delete/);
    expect(page.querySelector('main')!.text).toContain('on this computer');
    // The token is auth's own: Allow, posted with it, sends the code to the app.
    const allowed = await alice.browser.submitForm(`${stack.baseUrl}/api/auth/interaction/${uid}/consent`, {
      decision: 'allow',
      csrf,
    });
    expect(allowed.status).toBe(303);
    const back = await alice.browser.navigate(allowed.location!, {}, (url) =>
      url.href.startsWith(LOOPBACK_REDIRECT),
    );
    expect(new URL(back.redirects.at(-1)!).searchParams.get('code')).toEqual(expect.any(String));
  });

  it('adds https for a non-loopback redirect', async () => {
    const clientId = await registerClient(stack.baseUrl, 'Web app', WEB_REDIRECT);
    const uid = await interactionAt(alice.browser, authorizationUrl(clientId, WEB_REDIRECT), '/authorize');
    const response = await get(`/authorize?interaction=${uid}`, signedIn(alice));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain(
      "form-action 'self' https://app.example;",
    );
  });

  it('sends a login interaction to /login and explains a missing one', async () => {
    const clientId = await registerClient(stack.baseUrl, 'Login app', WEB_REDIRECT);
    const uid = await interactionAt(createBrowser(), authorizationUrl(clientId, WEB_REDIRECT), '/login');
    const login = await get(`/authorize?interaction=${uid}`);
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe(`/login?interaction=${uid}`);
    for (const path of ['/authorize?interaction=gone', '/authorize', '/authorize?interaction=%3Cx%3E']) {
      const missing = await get(path, signedIn(alice));
      expect(missing.status).toBe(400);
      expect(await missing.text()).toContain('This request has expired');
    }
  });
});

describe('/dashboard', () => {
  it('sends a browser without a session to /login', async () => {
    for (const headers of [{}, { cookie: 'sg_session=ended' }] as Record<string, string>[]) {
      const response = await get('/dashboard', headers);
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/login');
    }
  });

  it('names a personal Google account as such, where a Workspace account shows its domain', async () => {
    const carol = await signIn('carol@gmail.com');
    const main = parse(await (await get('/dashboard', signedIn(carol))).text()).querySelector('main')!;
    expect(main.text).toContain('Connected as carol@gmail.com (personal Google account).');
    expect(main.text).not.toContain('Workspace domain');
    const bobs = parse(await (await get('/dashboard', signedIn(bob))).text()).querySelector('main')!;
    expect(bobs.text).toContain('Connected as bob@example.com (Workspace domain example.com).');
  });

  it('shows keys, apps, a partial Google grant and the sign-out form, escaped and never cached', async () => {
    const response = await get('/dashboard', signedIn(alice));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.text();
    expect(body).not.toContain('<script>alert(1)</script>');
    expect(body).not.toContain('\u202E');
    const page = parse(body);
    expect(page.querySelector('main')!.text).toContain(
      'Connected as alice@example.com (Workspace domain example.com).',
    );
    expect(page.querySelector('main')!.text).toContain('only part of the access it needs');
    expect(page.querySelector('main')!.text).toContain(
      'Missing: list and read files in your Drive; create and convert files',
    );
    expect(signOutToken(body)).toMatch(/^\S{16,}$/);
    const row = page.querySelector(`tr[data-key-id="${aliceKey.id}"]`)!;
    expect(row.text).toContain(aliceKey.displayPrefix);
    expect(row.text).toContain('Read only');
    expect(row.querySelector('td[data-label="Action"] button')!.text).toBe('Revoke');
    expect(
      page.querySelector(`tr[data-client-id="${aliceAppId}"] td[data-label="Action"] button`)!.text,
    ).toBe('Disconnect');
  });

  it('shows only its own notices, never a member every object inherits', async () => {
    const known = parse(await (await get('/dashboard?notice=key_revoked', signedIn(alice))).text());
    expect(known.querySelector('.notice[role=status]')!.text).toContain('The API key was revoked.');
    for (const notice of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const response = await get(`/dashboard?notice=${notice}`, signedIn(alice));
      expect(response.status).toBe(200);
      const body = await response.text();
      expect(parse(body).querySelector('.notice[role=status]')?.text ?? null, notice).toBeNull();
      expect(body).not.toContain('[native code]');
    }
  });

  it('hides revoked keys', async () => {
    const revoked = await createKey(alice, 'Revoked before the page');
    await accounts.revokeApiKey({ sessionCookie: alice.session, keyId: revoked.id });
    const response = await get('/dashboard', signedIn(alice));
    // The dashboard itself, with the keys still in force: not an error page without any rows.
    expect(response.status).toBe(200);
    const page = parse(await response.text());
    expect(page.querySelector(`tr[data-key-id="${aliceKey.id}"]`)).not.toBeNull();
    expect(page.querySelector(`tr[data-key-id="${revoked.id}"]`)).toBeNull();
  });

  it('sends the browser to sign in when auth says the session ended mid-way', async () => {
    const person = await signIn('bob@example.com');
    const signOutCsrf = signOutToken(await (await get('/dashboard', signedIn(person))).text())!;
    // The page's GetSession passes; its next calls (keys, apps, Google) are held while the person
    // signs out in another tab, and reach auth after the session has ended.
    const held = relay.freezeWhenSent(person.session, 2);
    const answer = get('/dashboard', signedIn(person));
    await held;
    const signedOut = await person.browser.submitForm(`${stack.baseUrl}/api/auth/sign-out`, {
      csrf: signOutCsrf,
    });
    relay.thaw();
    expect(signedOut.status).toBe(303);
    const response = await answer;
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login?return_to=%2Fdashboard');
  });

  it('shows a 503 page when auth is unavailable, leaking nothing', async () => {
    // GetSession passes; the page's next calls are held past web's deadline for them.
    const held = relay.freezeWhenSent(alice.session, 2);
    const answer = get('/dashboard', signedIn(alice));
    await held;
    const response = await answer;
    relay.thaw();
    expect(response.status).toBe(503);
    const body = await response.text();
    expect(body).toContain('Sheetgate is unavailable');
    // grpc-js's message names the address it waited for: none of it reaches the page.
    expect(body).not.toContain(String(relay.port));
    expect(body).not.toMatch(/deadline/i);
  });
});

describe('creating an API key', () => {
  it('creates it and shows the secret once, in the POST response, never cached', async () => {
    const { csrf, nonce } = await dashboardForm();
    const response = await post('/dashboard/api-keys', {
      csrf,
      nonce,
      name: ' Deploy ',
      expires: '30',
      access: 'read',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('location')).toBeNull();
    const page = parse(await response.text());
    const secret = page.querySelector('[data-testid="new-api-key"]')!.text;
    expect(secret).toMatch(/^sg_live_/);
    // The client setup blocks are this deployment's, filled with the new key (client-setup.test.ts
    // checks each block's format; client-setup-in-browser.test.ts the page around them).
    const config = JSON.parse(page.querySelector('#new-key-vscode')!.text);
    expect(config.servers.sheetgate).toEqual({
      type: 'http',
      url: `${web.url}/api/mcp`,
      headers: { 'x-api-key': secret },
    });
    expect(page.querySelector('#new-key-curl')!.text).toContain(`x-api-key: ${secret}`);
    expect(page.querySelector('script[src^="/assets/copy."]')).not.toBeNull();
    const created = await keysNamed(alice, 'Deploy');
    expect(created).toHaveLength(1);
    expect(created[0]!.scopes).toEqual(['sheets:read']);
    const days = (new Date(created[0]!.expiresAt).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
  });

  it('turns a re-sent form (reload after create) into a plain dashboard, not a second key', async () => {
    const { csrf, nonce } = await dashboardForm();
    const fields = { csrf, nonce, name: 'Once', expires: 'never', access: 'write' };
    const first = await post('/dashboard/api-keys', fields);
    expect(first.status).toBe(201);
    const remembered = first.headers.get('set-cookie')!.split(';')[0]!;
    expect(remembered).toContain(nonce);
    const again = await post('/dashboard/api-keys', fields, {
      cookie: `sg_session=${alice.session}; ${remembered}`,
    });
    expect(again.status).toBe(200);
    const body = await again.text();
    expect(body).not.toContain('data-testid="new-api-key"');
    expect(body).toContain('That form was already sent');
    expect(
      (await keysNamed(alice, 'Once')).map((key) => ({ scopes: key.scopes, expiresAt: key.expiresAt })),
    ).toEqual([{ scopes: ['sheets:read', 'sheets:write'], expiresAt: '' }]);
  });

  it('refuses a post without the token, with another session’s token, or from another origin', async () => {
    const { csrf, nonce } = await dashboardForm();
    const fields = { nonce, name: 'Planted', expires: 'never', access: 'write' };
    const refusals = [
      await post('/dashboard/api-keys', fields),
      await post('/dashboard/api-keys', { ...fields, csrf: 'forged' }),
      await post('/dashboard/api-keys', { ...fields, csrf }, { origin: 'http://localhost:1' }),
      await post('/dashboard/api-keys', { ...fields, csrf }, { origin: 'null' }),
      await post('/dashboard/api-keys', { ...fields, csrf }, { origin: '', 'sec-fetch-site': 'same-site' }),
      // Alice's token in Bob's signed-in browser.
      await post('/dashboard/api-keys', { ...fields, csrf }, {}, bob),
    ];
    for (const response of refusals) {
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('This form has expired');
    }
    expect(await keysNamed(alice, 'Planted')).toEqual([]);
    expect(await keysNamed(bob, 'Planted')).toEqual([]);
  });

  // The rules are auth's alone (web forwards what was typed): its reason reaches the person on
  // the re-shown form, which keeps what they typed.
  it.each([
    [{ name: '   ' }, 'Give the key a name.'],
    [{ name: 'n'.repeat(101) }, 'at most 100 characters'],
    [{ name: 'tab\there' }, 'must not contain control characters'],
    [{ expires: 'date', expiry_date: '2001-01-01' }, 'must be in the future'],
    [{ expires: 'date', expiry_date: '' }, 'Choose the expiry date'],
    [{ expires: 'date', expiry_date: '2099-02-31' }, 'Choose the expiry date'],
    [{ expires: 'forever' }, 'Choose when the key expires.'],
  ])('re-shows the form with auth’s reason for %o, keeping the input', async (fields, error) => {
    const before = await keyCount(alice);
    const { csrf, nonce } = await dashboardForm();
    const sent = { name: 'ok', expires: 'never', access: 'read', ...fields };
    const response = await post('/dashboard/api-keys', { csrf, nonce, ...sent });
    expect(response.status).toBe(400);
    const page = parse(await response.text());
    expect(page.querySelector('#create-key-error')!.text).toContain(error);
    expect(page.querySelector('#key-name')!.getAttribute('value')).toBe(sent.name);
    expect(page.querySelector('input[name=access][value=read]')!.hasAttribute('checked')).toBe(true);
    expect(await keyCount(alice)).toBe(before);
  });

  it('keeps the date of an "On a date" expiry', async () => {
    const { csrf, nonce } = await dashboardForm();
    const date = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    await post('/dashboard/api-keys', { csrf, nonce, name: 'dated', expires: 'date', expiry_date: date });
    expect((await keysNamed(alice, 'dated'))[0]!.expiresAt).toBe(`${date}T00:00:00.000Z`);
  });
});

describe('revoking a key and disconnecting an app', () => {
  it('confirms on a page of its own, then revokes with web’s token', async () => {
    const key = await createKey(alice, 'To revoke');
    const confirm = await get(`/dashboard/api-keys/revoke?key=${key.id}`, signedIn(alice));
    expect(confirm.status).toBe(200);
    const page = parse(await confirm.text());
    const form = page.querySelector('form[action="/dashboard/api-keys/revoke"]')!;
    expect(form.querySelector('button')!.text).toBe('Revoke');
    const csrf = form.querySelector('input[name=csrf]')!.getAttribute('value')!;
    const refused = await post('/dashboard/api-keys/revoke', { key: key.id });
    expect(refused.status).toBe(403);
    expect((await keysNamed(alice, 'To revoke'))[0]!.revokedAt).toBe('');
    const revoked = await post('/dashboard/api-keys/revoke', { key: key.id, csrf });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe('/dashboard?notice=key_revoked');
    expect((await keysNamed(alice, 'To revoke'))[0]!.revokedAt).not.toBe('');
    const unknown = await get('/dashboard/api-keys/revoke?key=nope', signedIn(alice));
    expect(unknown.headers.get('location')).toBe('/dashboard?notice=nothing_to_revoke');
  });

  it('confirms and disconnects an app', async () => {
    const clientId = await connectApp(alice, 'To disconnect');
    const page = parse(
      await (await get(`/dashboard/apps/disconnect?client=${clientId}`, signedIn(alice))).text(),
    );
    const form = page.querySelector('form[action="/dashboard/apps/disconnect"]')!;
    const csrf = form.querySelector('input[name=csrf]')!.getAttribute('value')!;
    expect((await post('/dashboard/apps/disconnect', { client: clientId, csrf: 'x' })).status).toBe(403);
    const connected = async () =>
      (await accounts.listConnectedApps({ sessionCookie: alice.session })).apps.map((app) => app.clientId);
    expect(await connected()).toContain(clientId);
    const done = await post('/dashboard/apps/disconnect', { client: clientId, csrf });
    expect(done.headers.get('location')).toBe('/dashboard?notice=app_disconnected');
    expect(await connected()).not.toContain(clientId);
    expect(await connected()).toContain(aliceAppId);
  });
});

describe('behind an https origin', () => {
  it('marks the re-sent-form cookie Secure although the request reached web over http', async () => {
    const secureWeb = await startWeb(
      `127.0.0.1:${stack.ports.AUTH_GRPC_PORT}`,
      stack.serviceToken,
      'https://sheetgate.example',
    );
    try {
      const page = parse(
        await (await fetch(`${secureWeb.url}/dashboard`, { headers: signedIn(alice) })).text(),
      );
      const csrf = page
        .querySelector('form[action="/dashboard/api-keys"] input[name=csrf]')!
        .getAttribute('value')!;
      const created = await fetch(`${secureWeb.url}/dashboard/api-keys`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'https://sheetgate.example',
          ...signedIn(alice),
        },
        body: new URLSearchParams({ csrf, nonce: 'n1', name: 'k', expires: 'never' }).toString(),
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('set-cookie')).toMatch(/; secure/i);
      const foreign = await fetch(`${secureWeb.url}/dashboard/api-keys`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: secureWeb.url,
          ...signedIn(alice),
        },
        body: new URLSearchParams({ csrf, nonce: 'n2', name: 'k', expires: 'never' }).toString(),
      });
      expect(foreign.status).toBe(403);
    } finally {
      await secureWeb.stop();
    }
  });
});

// Answers real auth never gives, from a stub AccountService in front of a web of their own:
// - a scope auth does not know, on the consent page (auth drops unknown scopes from the request);
// - a redirect "host" that is not one (auth registers only URL redirect URIs);
// - a refusal whose message holds markup (auth's messages are fixed text).
describe("the Activity page's Undo, against a stub ChangeUndoService", () => {
  // mcp's every answer (and its absence), each as the page must say it; the real undo is tested in
  // activity-in-browser.test.ts and services/mcp/test/change-undo-service.test.ts.
  const CHANGE = '4f7c2d9e-1b3a-4c5d-8e6f-0a1b2c3d4e5f';
  let answerNext: UndoChangeResponse | { code: number; details: string } = { notFound: {} };
  const asked: Array<{ sessionCookie: string; changeId: string; force: boolean }> = [];
  let undoStub: RunningGrpcServer;
  let undoWeb: RunningService;
  let csrf: string;

  beforeAll(async () => {
    undoStub = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      serviceToken: stack.serviceToken,
      services: [
        changeUndoService({
          undoChange: (call, callback) => {
            asked.push(call.request);
            if ('code' in answerNext) callback(answerNext);
            else callback(null, answerNext);
          },
        }),
      ],
    });
    undoWeb = await startWeb(relay.address, stack.serviceToken, undefined, {
      MCP_GRPC_ADDRESS: `127.0.0.1:${undoStub.port}`,
    });
    // The token web's Activity page renders into its Undo forms (alice has no change to undo here).
    csrf = createFormTokens(stack.serviceToken).issue('undo-change', alice.session);
  });
  afterAll(async () => {
    await undoWeb?.stop();
    undoStub?.forceShutdown();
  });

  const undo = (fields: Record<string, string>) =>
    fetch(`${undoWeb.url}/dashboard/activity/undo`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: undoWeb.url,
        'sec-fetch-site': 'same-origin',
        ...signedIn(alice),
      },
      body: new URLSearchParams({ csrf, change: CHANGE, ...fields }).toString(),
    });
  const alertOf = async (response: Response) =>
    parse(await response.text())
      .querySelector('[role=alert]')
      ?.textContent.replace(/\s+/g, ' ')
      .trim();

  it("sends mcp the session cookie, the change and force; undone redirects to Activity's notice", async () => {
    answerNext = {
      undone: {
        undoChangeId: randomUUID(),
        restored: ['Sheet1!A1'],
        replacedChangedCells: [],
        summary: 'Undid.',
      },
    };
    asked.length = 0;
    const response = await undo({ spreadsheet: 'sheet-1' });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(
      `/dashboard/activity?spreadsheet=sheet-1&notice=undone&change=${CHANGE}`,
    );
    expect(asked).toEqual([{ sessionCookie: alice.session, changeId: CHANGE, force: false }]);
    await undo({ force: 'yes' });
    expect(asked[1]!.force).toBe(true);
  });

  it('shows a refusal naming the cells changed since, with Undo anyway carrying force', async () => {
    const cells = Array.from({ length: 20 }, (_, index) => `Sheet1!B${index + 1}`);
    answerNext = { changedSince: { cells, total: 23 } };
    const response = await undo({});
    expect(response.status).toBe(409);
    const page = parse(await response.text());
    const alert = page.querySelector('[role=alert]')!;
    expect(alert.textContent.replace(/\s+/g, ' ')).toContain(
      `These 23 cells were changed since change ${CHANGE}: ${cells.join(', ')} and 3 more.`,
    );
    const again = alert.querySelector('form[action="/dashboard/activity/undo"]')!;
    expect(again.querySelector('input[name=force]')?.getAttribute('value')).toBe('yes');
    expect(again.querySelector('input[name=change]')?.getAttribute('value')).toBe(CHANGE);
    expect(again.querySelector('input[name=csrf]')?.getAttribute('value')).toBeTruthy();
    expect(again.querySelector('button')?.textContent).toBe('Undo anyway');
  });

  it('words a deleted tab whose name is taken since as changed, not as a cell', async () => {
    answerNext = { changedSince: { cells: ['the tab name "Q3" (a tab of that name exists now)'], total: 1 } };
    const response = await undo({});
    expect(response.status).toBe(409);
    const alert = parse(await response.text()).querySelector('[role=alert]')!;
    const text = alert.textContent.replace(/\s+/g, ' ');
    expect(text).toContain(
      `Changed since change ${CHANGE}: the tab name "Q3" (a tab of that name exists now).`,
    );
    expect(text).toContain('Undo anyway puts back what the change replaced');
    expect(text).not.toContain('cell');
  });

  it('says not found, not possible, reconnect Google and Google’s failure, each as an alert', async () => {
    answerNext = { notFound: {} };
    const notFound = await undo({});
    expect(notFound.status).toBe(303);
    expect(notFound.headers.get('location')).toBe('/dashboard/activity?notice=undo_not_found');
    answerNext = { notPossible: { message: 'This change was undone already.' } };
    const notPossible = await undo({});
    expect(notPossible.status).toBe(409);
    expect(await alertOf(notPossible)).toBe('Not undone. This change was undone already.');
    answerNext = { googleReconnectNeeded: {} };
    const reconnect = await undo({});
    expect(reconnect.status).toBe(409);
    expect(await alertOf(reconnect)).toContain('Reconnect Google on your dashboard');
    answerNext = { failed: { message: 'Google says <b>the spreadsheet is gone</b>.' } };
    const failed = await undo({});
    expect(failed.status).toBe(502);
    const text = await failed.text();
    expect(text).toContain('Google says &lt;b&gt;the spreadsheet is gone&lt;/b&gt;.');
  });

  it('sends a browser whose session mcp does not accept to sign in, and says so when mcp is out of reach', async () => {
    answerNext = { code: GrpcStatus.PERMISSION_DENIED, details: 'no signed-in session' };
    const signedOut = await undo({});
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toBe('/login');
    // A change id that is no change is not found without asking mcp.
    asked.length = 0;
    const malformed = await undo({ change: '../../etc' });
    expect(malformed.headers.get('location')).toBe('/dashboard/activity?notice=undo_not_found');
    expect(asked).toEqual([]);

    undoStub.forceShutdown();
    const unreachable = await undo({});
    expect(unreachable.status).toBe(503);
    expect(await alertOf(unreachable)).toBe(
      'Not undone. Undo is unavailable right now: Sheetgate could not reach its MCP service. Nothing was changed; try again in a moment.',
    );
  });
});

describe('answers only a stub can give', () => {
  const SESSION = 'stub-session-cookie';
  let stubInteraction: Partial<GetInteractionResponse> = {};
  let stubHostedDomain: string | undefined = 'example.com';
  let createError: { code: number; details: string } | undefined;
  let stub: RunningGrpcServer;
  let stubWeb: RunningService;

  type Handler<Request, Response> = (
    call: ServerUnaryCall<Request, Response>,
    callback: sendUnaryData<Response>,
  ) => void;
  function answer<Request extends { sessionCookie: string }, Response>(
    run: (request: Request) => Response,
  ): Handler<Request, Response> {
    return (call, callback) => {
      if (call.request.sessionCookie !== SESSION) {
        callback({ code: GrpcStatus.PERMISSION_DENIED, details: 'no signed-in session' });
        return;
      }
      try {
        callback(null, run(call.request));
      } catch (error) {
        callback(error as { code: number; details: string });
      }
    };
  }
  const handlers: Partial<AccountServiceServer> = {
    getSession: (call, callback) =>
      callback(
        null,
        call.request.sessionCookie === SESSION
          ? {
              user: { id: 'u1', email: 'alice@example.com', name: 'Alice' },
              signOutCsrfToken: 'auth-sign-out-token',
            }
          : { user: undefined, signOutCsrfToken: '' },
      ),
    getGoogleConnection: answer(() => ({
      status: 'GOOGLE_CONNECTION_STATUS_CONNECTED' as const,
      email: 'alice@example.com',
      grantedScopes: [],
      partial: false,
      scopeMode: 'standard',
      ...(stubHostedDomain === undefined ? {} : { hostedDomain: stubHostedDomain }),
    })),
    listApiKeys: answer(() => ({ keys: [] })),
    listConnectedApps: answer(() => ({ apps: [], appsResetAt: '' })),
    createApiKey: answer(() => {
      throw createError;
    }),
    getInteraction: (call, callback) =>
      callback(null, {
        found: false,
        prompt: 'INTERACTION_PROMPT_UNSPECIFIED',
        clientId: '',
        clientName: '',
        redirectHost: '',
        loopbackRedirect: false,
        unverifiedClient: false,
        requestedScopes: [],
        account: undefined,
        consentCsrfToken: '',
        redirectScheme: '',
        toolsets: [],
        ...(call.request.interactionUid === 'uid-1' ? stubInteraction : {}),
      }),
  };
  const consent: Partial<GetInteractionResponse> = {
    found: true,
    prompt: 'INTERACTION_PROMPT_CONSENT',
    clientId: 'c1',
    clientName: 'Helper',
    redirectHost: '127.0.0.1:4000',
    loopbackRedirect: true,
    redirectScheme: 'http',
    unverifiedClient: true,
    requestedScopes: ['offline_access', 'sheets:write', 'sheets:read', 'custom:thing'],
    account: { id: 'u1', email: 'alice@example.com', name: 'Alice' },
    consentCsrfToken: 'auth-consent-token',
  };
  const stubSession = { cookie: `sg_session=${SESSION}` };
  const stubGet = (path: string) =>
    fetch(`${stubWeb.url}${path}`, { redirect: 'manual', headers: stubSession });

  beforeAll(async () => {
    const token = randomBytes(32).toString('base64url');
    stub = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      serviceToken: token,
      services: [accountService(handlers)],
    });
    stubWeb = await startWeb(`127.0.0.1:${stub.port}`, token);
  });
  afterAll(async () => {
    await stubWeb?.stop();
    await stub?.close(100);
  });

  it('says nothing of the account’s domain while auth does not know it (no sign-in since it was kept)', async () => {
    const connectedAs = async () =>
      parse(await (await stubGet('/dashboard')).text())
        .querySelectorAll('p')
        .map((paragraph) => paragraph.text)
        .find((text) => text.startsWith('Connected as'));
    stubHostedDomain = undefined;
    expect(await connectedAs()).toBe('Connected as alice@example.com.');
    stubHostedDomain = '';
    expect(await connectedAs()).toBe('Connected as alice@example.com (personal Google account).');
    stubHostedDomain = 'example.com';
    expect(await connectedAs()).toBe('Connected as alice@example.com (Workspace domain example.com).');
  });

  it('lists a scope auth did not describe, as it is', async () => {
    stubInteraction = consent;
    const page = parse(await (await stubGet('/authorize?interaction=uid-1')).text());
    const scopes = page.querySelectorAll('ul.scopes li').map((item) => item.text);
    expect(scopes[0]).toMatch(/^See your spreadsheets/);
    expect(scopes.at(-1)).toContain('custom:thing');
  });

  it('says a private-use scheme opens an app on this computer, and lets the form reach that scheme only', async () => {
    // Cursor's redirect, cursor://anysphere.cursor-retrieval/oauth/callback: no web host.
    stubInteraction = {
      ...consent,
      redirectHost: 'anysphere.cursor-retrieval',
      loopbackRedirect: false,
      redirectScheme: 'cursor',
    };
    const response = await stubGet('/authorize?interaction=uid-1');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("form-action 'self' cursor:;");
    const where = parse(await response.text())
      .querySelector('section[aria-labelledby=where]')!
      .text.replace(/\s+/g, ' ');
    expect(where).toContain('opens the app that handles cursor: links on this computer');
    expect(where).not.toContain('anysphere.cursor-retrieval');
  });

  it.each([
    ['javascript', 'x'],
    ['data', 'x'],
    ['https', "x; script-src 'unsafe-inline'"],
    ["x; script-src 'unsafe-inline'", ''],
  ])('lets the consent form reach no scheme %s with host %s', async (redirectScheme, redirectHost) => {
    stubInteraction = { ...consent, redirectHost, loopbackRedirect: false, redirectScheme };
    const csp = (await stubGet('/authorize?interaction=uid-1')).headers.get('content-security-policy')!;
    expect(csp).toContain("form-action 'self';");
  });

  it('lets the consent form reach no odd host', async () => {
    stubInteraction = { ...consent, redirectHost: "x; script-src 'unsafe-inline'", loopbackRedirect: false };
    const csp = (await stubGet('/authorize?interaction=uid-1')).headers.get('content-security-policy')!;
    expect(csp).toContain("form-action 'self';");
    expect(csp).not.toContain('unsafe-inline');
  });

  it('shows what auth refused, escaped', async () => {
    createError = {
      code: GrpcStatus.INVALID_ARGUMENT,
      details: 'Name must not contain <control> characters.',
    };
    const form = parse(await (await stubGet('/dashboard')).text()).querySelector(
      'form[action="/dashboard/api-keys"]',
    )!;
    const response = await fetch(`${stubWeb.url}/dashboard/api-keys`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: stubWeb.url,
        'sec-fetch-site': 'same-origin',
        ...stubSession,
      },
      body: new URLSearchParams({
        csrf: form.querySelector('input[name=csrf]')!.getAttribute('value')!,
        nonce: form.querySelector('input[name=nonce]')!.getAttribute('value')!,
        name: 'x',
        expires: 'never',
      }).toString(),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Name must not contain &lt;control&gt; characters.');
  });
});
