import http from 'node:http';
import type { AccountServiceClientApi } from '@sheetgate/proto';
import { createAccountServiceClient } from '@sheetgate/proto';
import { createBrowser, type Stack, startStack } from '@sheetgate/test-harness';
import fc from 'fast-check';
import { parse } from 'node-html-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationRequest, registerClient } from './support/oauth-app.ts';

// Property-based tests (fast-check) of every form web handles — create a key, revoke a key,
// disconnect an app — on the whole stack, with a person signed in through Google (the emulator):
// whatever the fields, extra fields, body size or content type, the answer is a page (4xx with a
// clear title, or 201 for a valid new key), never a 5xx, and auth's AccountService shows that
// nothing changed unless a valid form asked for exactly that change.

let stack: Stack;
let accounts: AccountServiceClientApi;
let session: string;
/** Web's CSRF token of each form, read from the pages that carry them. */
const csrf: Record<'create' | 'revoke' | 'disconnect', string> = { create: '', revoke: '', disconnect: '' };

const ROUTES = {
  create: '/dashboard/api-keys',
  revoke: '/dashboard/api-keys/revoke',
  disconnect: '/dashboard/apps/disconnect',
} as const;
type Route = keyof typeof ROUTES;

const hiddenCsrf = (body: string, action: string) =>
  parse(body).querySelector(`form[action="${action}"] input[name=csrf]`)?.getAttribute('value') ?? '';

beforeAll(async () => {
  stack = await startStack();
  accounts = createAccountServiceClient({
    address: `127.0.0.1:${stack.ports.AUTH_GRPC_PORT}`,
    serviceToken: stack.serviceToken,
  });
  const browser = createBrowser();
  const chooser = await browser
    .navigate(`${stack.baseUrl}/login`)
    .then(() => browser.navigate(`${stack.baseUrl}/api/auth/google/start?return_to=%2Fdashboard`));
  const chosen = await browser.pressButton(
    { url: chooser.redirects.at(-1) ?? chooser.url, body: chooser.body },
    'alice@example.com',
  );
  const dashboard = await browser.navigate(chosen.location!);
  session = (await browser.jar.getCookies(stack.baseUrl)).find(
    (cookie) => cookie.key === 'sg_session',
  )!.value;
  csrf.create = hiddenCsrf(dashboard.body, ROUTES.create);

  // A key to revoke and an app to disconnect, so the confirmation pages (and their tokens) exist.
  const { key } = await accounts.createApiKey({
    sessionCookie: session,
    name: 'Standing key',
    scopes: ['sheets:read'],
    expiresAt: '',
  });
  const redirectUri = 'http://127.0.0.1:9/callback';
  const clientId = await registerClient(stack.baseUrl, 'Standing app', redirectUri);
  const consent = await browser.navigate(
    authorizationRequest(stack.baseUrl, clientId, redirectUri).url,
    {},
    (url) => url.pathname === '/authorize',
  );
  const consentPage = await browser.request(consent.redirects.at(-1)!);
  const allowed = await browser.pressButton({ url: consentPage.url, body: consentPage.body }, 'Allow');
  await browser.navigate(allowed.location!, {}, (url) => url.href.startsWith(redirectUri));

  const revokePage = await browser.request(`${stack.baseUrl}${ROUTES.revoke}?key=${key!.id}`);
  csrf.revoke = hiddenCsrf(revokePage.body, ROUTES.revoke);
  const disconnectPage = await browser.request(`${stack.baseUrl}${ROUTES.disconnect}?client=${clientId}`);
  csrf.disconnect = hiddenCsrf(disconnectPage.body, ROUTES.disconnect);
  if (!csrf.create || !csrf.revoke || !csrf.disconnect) throw new Error('a form token is missing');
}, 120_000);

afterAll(async () => {
  accounts?.close();
  await stack?.stop();
});

/** What the person has, as auth tells the dashboard. */
async function holdings() {
  const [{ keys }, { apps }] = await Promise.all([
    accounts.listApiKeys({ sessionCookie: session }),
    accounts.listConnectedApps({ sessionCookie: session }),
  ]);
  return {
    keys: keys
      .filter((key) => !key.revokedAt)
      .map((key) => key.id)
      .sort(),
    apps: apps.map((app) => app.clientId).sort(),
  };
}

/** Posts as our own page would (same origin, the session cookie), with any body and content type. */
async function post(
  route: Route,
  body: string | Uint8Array,
  contentType = 'application/x-www-form-urlencoded',
) {
  const response = await fetch(`${stack.baseUrl}${ROUTES[route]}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': contentType,
      origin: stack.baseUrl,
      'sec-fetch-site': 'same-origin',
      cookie: `sg_session=${session}`,
    },
    body,
  });
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    location: response.headers.get('location'),
    setCookie: response.headers.get('set-cookie'),
    body: await response.text(),
  };
}

/** A refusal a person can read: a 4xx HTML page whose heading says what happened. */
function expectClearRefusal(
  answer: Awaited<ReturnType<typeof post>>,
  status: number,
  heading: string | RegExp,
) {
  expect(answer.status).toBe(status);
  expect(answer.type).toContain('text/html');
  expect(parse(answer.body).querySelector('h1')?.text.trim()).toMatch(heading);
}

/** Field values that reach for the edges: any text, very long, control and bidi characters, markup. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 120 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u202Eevil',
    '<script>alert(1)</script>',
    '%zz',
    '&&&',
    'x'.repeat(2_000),
  ),
);
const fieldNames = fc.oneof(
  fc.constantFrom('name', 'expires', 'expiry_date', 'access', 'nonce', 'key', 'client', 'csrf', '__proto__'),
  fc.string({ maxLength: 12 }),
);
const extraFields = fc.array(fc.tuple(fieldNames, anyText), { maxLength: 6 });

const formBody = (fields: Array<[string, string]>) => new URLSearchParams(fields).toString();
const routes = fc.constantFrom<Route>('create', 'revoke', 'disconnect');

describe('every dashboard form, whatever it is sent', { timeout: 120_000 }, () => {
  it('without its valid CSRF token: a 403 page and nothing changes', async () => {
    const before = await holdings();
    await fc.assert(
      fc.asyncProperty(routes, extraFields, fc.option(anyText), async (route, fields, token) => {
        const sent: Array<[string, string]> = [
          ...fields.filter(([name]) => name !== 'csrf'),
          ...(token === null ? [] : ([['csrf', token]] as Array<[string, string]>)),
        ];
        fc.pre(!sent.some(([, value]) => value === csrf[route]));
        expectClearRefusal(await post(route, formBody(sent)), 403, 'This form has expired');
      }),
      { numRuns: 60 },
    );
    expect(await holdings()).toEqual(before);
  });

  it('"Create API key" with its token and any values: a new key exactly as asked, or a 400 form saying why', async () => {
    const expires = fc.oneof(fc.constantFrom('never', '30', '90', '365', 'date', ''), anyText);
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const expiryDate = fc.oneof(fc.integer({ min: -400, max: 4_000 }).map(day), anyText);
    const name = fc.oneof(anyText, fc.constantFrom('Deploy', '  padded  ', 'n'.repeat(100), 'n'.repeat(101)));
    const outcomes = { created: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(
        name,
        expires,
        expiryDate,
        fc.option(fc.constantFrom('read', 'write', 'admin', '')),
        extraFields,
        async (keyName, expiry, date, access, extra) => {
          const before = await holdings();
          const fields: Array<[string, string]> = [
            ['csrf', csrf.create],
            ['name', keyName],
            ['expires', expiry],
            ['expiry_date', date],
            ...(access === null ? [] : ([['access', access]] as Array<[string, string]>)),
            ...extra.filter(
              ([field]) => !['csrf', 'name', 'expires', 'expiry_date', 'access'].includes(field),
            ),
          ];
          const sentAt = Date.now();
          const answer = await post('create', formBody(fields));
          const after = await holdings();
          expect([201, 400]).toContain(answer.status);
          expect(answer.type).toContain('text/html');
          if (answer.status === 400) {
            expect(parse(answer.body).querySelector('#create-key-error')?.text.trim()).toBeTruthy();
            expect(after).toEqual(before);
            outcomes.refused++;
            return;
          }
          outcomes.created++;
          const added = after.keys.filter((id) => !before.keys.includes(id));
          expect(added).toHaveLength(1);
          const { keys } = await accounts.listApiKeys({ sessionCookie: session });
          const stored = keys.find((key) => key.id === added[0])!;
          // What the form sent, as the browser encoded it (a lone surrogate becomes U+FFFD).
          const sentName = new URLSearchParams(formBody([['name', keyName]])).get('name')!;
          expect(stored.name).toBe(sentName.trim());
          expect(stored.scopes).toEqual(
            access === 'read' ? ['sheets:read'] : ['sheets:read', 'sheets:write'],
          );
          if (expiry === 'never' || expiry === '') expect(stored.expiresAt).toBe('');
          else if (expiry === 'date') expect(stored.expiresAt).toBe(`${date}T00:00:00.000Z`);
          else {
            expect(['30', '90', '365']).toContain(expiry);
            const days = Number(expiry) * 86_400_000;
            expect(Date.parse(stored.expiresAt)).toBeGreaterThanOrEqual(sentAt + days);
            expect(Date.parse(stored.expiresAt)).toBeLessThanOrEqual(Date.now() + days);
          }
          expect(parse(answer.body).querySelector('[data-testid="new-api-key"]')?.text).toMatch(/^sg_live_/);
          await accounts.revokeApiKey({ sessionCookie: session, keyId: stored.id });
        },
      ),
      { numRuns: 80 },
    );
    // Both branches ran: the values reach valid forms as well as refused ones.
    expect(outcomes.created).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  });

  it('Revoke and Disconnect with their tokens and any ids: "nothing to do", and nothing changes', async () => {
    const before = await holdings();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Route>('revoke', 'disconnect'),
        fc.option(anyText),
        extraFields,
        async (route, id, extra) => {
          const idField = route === 'revoke' ? 'key' : 'client';
          fc.pre(id === null || ![...before.keys, ...before.apps].includes(id));
          const answer = await post(
            route,
            formBody([
              ['csrf', csrf[route]],
              ...(id === null ? [] : ([[idField, id]] as Array<[string, string]>)),
              ...extra.filter(([field]) => field !== 'csrf' && field !== idField),
            ]),
          );
          expect(answer.status).toBe(303);
          expect(answer.location).toBe(
            `/dashboard?notice=${route === 'revoke' ? 'nothing_to_revoke' : 'nothing_to_disconnect'}`,
          );
        },
      ),
      {
        numRuns: 60,
        // A NUL (PostgreSQL refuses it in text) in an id, every run: alone, and after a real id.
        examples: [
          ['revoke', '\u0000', []],
          ['disconnect', `${before.apps[0]}\u0000`, []],
        ],
      },
    );
    expect(await holdings()).toEqual(before);
  });

  it('a re-send nonce with a NUL: the key is created, without a re-send cookie naming it', async () => {
    const answer = await post(
      'create',
      formBody([
        ['csrf', csrf.create],
        ['nonce', 'a\u0000.b'],
        ['name', 'NUL nonce'],
        ['expires', 'never'],
      ]),
    );
    expect(answer.status).toBe(201);
    expect(parse(answer.body).querySelector('[data-testid="new-api-key"]')?.text).toMatch(/^sg_live_/);
    expect(answer.setCookie).toBeNull();
  });

  it('an oversized body: a 413 page, and nothing changes', async () => {
    const before = await holdings();
    await fc.assert(
      fc.asyncProperty(routes, fc.integer({ min: 16 * 1024 + 1, max: 256 * 1024 }), async (route, size) => {
        const fields = `csrf=${encodeURIComponent(csrf[route])}&name=big&key=x&client=x&pad=`;
        const body = `${fields}${'a'.repeat(size - fields.length)}`;
        expectClearRefusal(await post(route, body), 413, 'Request refused');
      }),
      { numRuns: 20 },
    );
    expect(await holdings()).toEqual(before);
  });

  it("an oversized body on web's own port: 413 with Connection: close (the rest may be unread)", async () => {
    // node:http rather than fetch, which hides the hop-by-hop Connection header; web's own port,
    // since the gateway in front answers its clients with its own connection handling.
    const body = `csrf=${encodeURIComponent(csrf.create)}&pad=${'a'.repeat(20_000)}`;
    const answer = await new Promise<{ status: number; connection: string | undefined }>(
      (resolve, reject) => {
        const request = http.request(
          `http://127.0.0.1:${stack.ports.WEB_PORT}${ROUTES.create}`,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              'content-length': Buffer.byteLength(body),
              origin: stack.baseUrl,
              'sec-fetch-site': 'same-origin',
              cookie: `sg_session=${session}`,
            },
          },
          (response) => {
            response.resume();
            response.on('end', () =>
              resolve({ status: response.statusCode!, connection: response.headers.connection }),
            );
          },
        );
        request.on('error', reject);
        request.end(body);
      },
    );
    expect(answer).toEqual({ status: 413, connection: 'close' });
  });

  it('a body that is not a form: a 415 page, and nothing changes', async () => {
    const before = await holdings();
    const contentTypes = fc.oneof(
      fc.constantFrom(
        'application/json',
        'multipart/form-data; boundary=x',
        'text/plain',
        'application/xml',
        '',
      ),
      fc
        .string({ unit: 'grapheme-ascii', maxLength: 30 })
        .filter((type) => !/x-www-form-urlencoded/i.test(type)),
    );
    await fc.assert(
      fc.asyncProperty(routes, contentTypes, async (route, contentType) => {
        const body = formBody([
          ['csrf', csrf[route]],
          ['name', 'not a form'],
          ['key', 'x'],
          ['client', 'x'],
        ]);
        const answer = await post(route, body, contentType);
        expect(answer.status).toBe(415);
        expectClearRefusal(answer, 415, 'Request refused');
      }),
      { numRuns: 30 },
    );
    expect(await holdings()).toEqual(before);
  });
});
