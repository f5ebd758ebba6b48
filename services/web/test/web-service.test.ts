import { randomBytes } from 'node:crypto';
import type { ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import {
  type AccountServiceServer,
  type ApiKey,
  accountService,
  type GetInteractionResponse,
  GrpcStatus,
  type RunningGrpcServer,
  startGrpcServer,
} from '@sheetgate/proto';
import { freePort, type RunningService, readJson, startServiceProcess } from '@sheetgate/test-harness';
import { parse } from 'node-html-parser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// The web service as a real process in front of a real gRPC AccountService whose answers each
// test sets: the pages, their headers and the dashboard's form handling, without the whole stack.

const SESSION = 'session-cookie-value';
const serviceToken = randomBytes(32).toString('base64url');
const HOSTILE = `<script>alert(1)</script>\u202Eevil${'x'.repeat(3_000)}`;

interface AuthState {
  keys: ApiKey[];
  created: Array<{ name: string; scopes: string[]; expiresAt: string; expires?: string | undefined }>;
  createError?: { code: number; details: string };
  listError?: { code: number; details: string };
  interaction?: Partial<GetInteractionResponse>;
}
let auth: AuthState;

const sampleKey = (overrides: Partial<ApiKey> = {}): ApiKey => ({
  id: 'key-1',
  name: HOSTILE,
  displayPrefix: 'sg_live_ab12',
  scopes: ['sheets:read'],
  createdAt: '2026-01-02T03:04:05.000Z',
  lastUsedAt: '',
  expiresAt: '',
  revokedAt: '',
  ...overrides,
});

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
    email: 'alice@gmail.example',
    grantedScopes: ['openid', 'email', 'https://www.googleapis.com/auth/spreadsheets'],
    partial: true,
  })),
  listApiKeys: answer(() => {
    if (auth.listError) throw auth.listError;
    return { keys: auth.keys };
  }),
  createApiKey: answer((request) => {
    if (auth.createError) throw auth.createError;
    auth.created.push({
      name: request.name,
      scopes: request.scopes,
      expiresAt: request.expiresAt,
      expires: request.expires,
    });
    const key = sampleKey({
      id: `key-${auth.created.length + 1}`,
      name: request.name,
      scopes: request.scopes,
    });
    auth.keys.push(key);
    return { key, secret: `sg_live_${randomBytes(16).toString('base64url')}` };
  }),
  revokeApiKey: answer((request) => ({ revoked: request.keyId === 'key-1' })),
  listConnectedApps: answer(() => ({
    apps: [
      {
        clientId: 'client-1',
        clientName: HOSTILE,
        redirectHost: '127.0.0.1:3000',
        scopes: ['sheets:read'],
        firstUsedAt: '',
        lastUsedAt: '',
      },
    ],
    appsResetAt: '',
  })),
  disconnectApp: answer(() => ({ disconnected: true })),
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
      ...(call.request.interactionUid === 'uid-1' ? auth.interaction : {}),
    }),
};

let grpc: RunningGrpcServer;
let web: RunningService;

beforeAll(async () => {
  grpc = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    serviceToken,
    services: [accountService(handlers)],
  });
  const port = await freePort();
  web = await startServiceProcess(
    'web',
    {
      WEB_PORT: String(port),
      // The service's own address stands in for the public origin, so Origin checks line up.
      BASE_URL: `http://127.0.0.1:${port}`,
      INTERNAL_SERVICE_TOKEN: serviceToken,
      AUTH_GRPC_ADDRESS: `127.0.0.1:${grpc.port}`,
    },
    port,
  );
});
afterAll(async () => {
  await web?.stop();
  await grpc?.close(100);
});
beforeEach(() => {
  auth = { keys: [sampleKey()], created: [] };
});

const signedIn = { cookie: `sg_session=${SESSION}` };
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${web.url}${path}`, { redirect: 'manual', headers });

/** Posts a form as our own page would (same-origin Fetch Metadata), unless `headers` says otherwise. */
function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${web.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: web.url,
      'sec-fetch-site': 'same-origin',
      ...signedIn,
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
}

async function dashboardForm() {
  const page = parse(await (await get('/dashboard', signedIn)).text());
  const form = page.querySelector('form[action="/dashboard/api-keys"]')!;
  return {
    csrf: form.querySelector('input[name=csrf]')!.getAttribute('value')!,
    nonce: form.querySelector('input[name=nonce]')!.getAttribute('value')!,
  };
}

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
  ])('explains error=%s', async (error, text) => {
    const body = await (await get(`/login?error=${encodeURIComponent(error)}`)).text();
    expect(body).toContain(text);
    expect(body).not.toContain('<b>made-up</b>');
  });

  it('names the app of a login interaction, inertly, and returns to the interaction', async () => {
    auth.interaction = {
      found: true,
      prompt: 'INTERACTION_PROMPT_LOGIN',
      clientId: 'c1',
      clientName: HOSTILE,
      redirectHost: 'app.example',
      unverifiedClient: true,
    };
    const response = await get('/login?interaction=uid-1');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.text();
    expect(body).not.toContain('<script>alert(1)</script>');
    expect(body).not.toContain('\u202E');
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;\uFFFDevil');
    expect(body).toContain('href="/api/auth/google/start?return_to=%2Fapi%2Fauth%2Finteraction%2Fuid-1"');
  });

  it('sends a consent interaction to /authorize', async () => {
    auth.interaction = { found: true, prompt: 'INTERACTION_PROMPT_CONSENT', clientId: 'c1' };
    const response = await get('/login?interaction=uid-1', signedIn);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/authorize?interaction=uid-1');
  });
});

describe('/authorize', () => {
  const consent: Partial<GetInteractionResponse> = {
    found: true,
    prompt: 'INTERACTION_PROMPT_CONSENT',
    clientId: 'c1',
    clientName: 'Helper',
    redirectHost: '127.0.0.1:4000',
    loopbackRedirect: true,
    unverifiedClient: true,
    requestedScopes: ['offline_access', 'sheets:write', 'sheets:read', 'custom:thing'],
    account: { id: 'u1', email: 'alice@example.com', name: 'Alice' },
    consentCsrfToken: 'auth-consent-token',
  };

  it('posts Allow / Deny to auth with its CSRF token, and lets the form reach the app', async () => {
    auth.interaction = consent;
    const response = await get('/authorize?interaction=uid-1', signedIn);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toContain(
      "form-action 'self' http://127.0.0.1:4000;",
    );
    const page = parse(await response.text());
    const form = page.querySelector('form[action="/api/auth/interaction/uid-1/consent"]')!;
    expect(form.getAttribute('method')).toBe('post');
    expect(form.querySelector('input[name=csrf]')!.getAttribute('value')).toBe('auth-consent-token');
    const buttons = form
      .querySelectorAll('button')
      .map((button) => [button.text, button.getAttribute('value')]);
    expect(buttons).toEqual([
      ['Allow', 'allow'],
      ['Deny', 'deny'],
    ]);
    const signOut = page.querySelector('form[action="/api/auth/sign-out"]')!;
    expect(signOut.querySelector('input[name=csrf]')!.getAttribute('value')).toBe('auth-sign-out-token');
    const scopes = page.querySelectorAll('ul.scopes li').map((item) => item.text);
    expect(scopes[0]).toMatch(/^See your spreadsheets/);
    expect(scopes[1]).toMatch(/^Create, change and delete/);
    expect(scopes.at(-1)).toContain('custom:thing');
    expect(page.querySelector('main')!.text).toContain('on this computer');
  });

  it('adds https for a non-loopback redirect and nothing for an odd host', async () => {
    auth.interaction = { ...consent, redirectHost: 'app.example', loopbackRedirect: false };
    let csp = (await get('/authorize?interaction=uid-1', signedIn)).headers.get('content-security-policy')!;
    expect(csp).toContain("form-action 'self' https://app.example;");
    auth.interaction = { ...consent, redirectHost: "x; script-src 'unsafe-inline'", loopbackRedirect: false };
    csp = (await get('/authorize?interaction=uid-1', signedIn)).headers.get('content-security-policy')!;
    expect(csp).toContain("form-action 'self';");
    expect(csp).not.toContain('unsafe-inline');
  });

  it('sends a login interaction to /login and explains a missing one', async () => {
    auth.interaction = { found: true, prompt: 'INTERACTION_PROMPT_LOGIN' };
    const login = await get('/authorize?interaction=uid-1');
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/login?interaction=uid-1');
    for (const path of ['/authorize?interaction=gone', '/authorize', '/authorize?interaction=%3Cx%3E']) {
      const missing = await get(path, signedIn);
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

  it('shows keys, apps, a partial Google grant and the sign-out form, escaped and never cached', async () => {
    const response = await get('/dashboard', signedIn);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.text();
    expect(body).not.toContain('<script>alert(1)</script>');
    expect(body).not.toContain('\u202E');
    const page = parse(body);
    expect(page.querySelector('main')!.text).toContain('Connected as alice@gmail.example');
    expect(page.querySelector('main')!.text).toContain('only part of the access it needs');
    expect(page.querySelector('main')!.text).toContain(
      'Missing: list and read files in your Drive; create and convert files',
    );
    expect(
      page.querySelector('form[action="/api/auth/sign-out"] input[name=csrf]')!.getAttribute('value'),
    ).toBe('auth-sign-out-token');
    const row = page.querySelector('tr[data-key-id="key-1"]')!;
    expect(row.text).toContain('sg_live_ab12');
    expect(row.text).toContain('Read only');
    expect(row.querySelector('button')!.text).toBe('Revoke');
    expect(page.querySelector('tr[data-client-id="client-1"] button')!.text).toBe('Disconnect');
  });

  it('hides revoked keys', async () => {
    auth.keys = [sampleKey({ revokedAt: '2026-01-03T00:00:00.000Z' })];
    const page = parse(await (await get('/dashboard', signedIn)).text());
    expect(page.querySelector('tr[data-key-id="key-1"]')).toBeNull();
  });

  it('sends the browser to sign in when auth says the session ended mid-way', async () => {
    auth.listError = { code: GrpcStatus.PERMISSION_DENIED, details: 'no signed-in session' };
    const response = await get('/dashboard', signedIn);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login?return_to=%2Fdashboard');
  });

  it('shows a 503 page when auth is unavailable, leaking nothing', async () => {
    auth.listError = { code: GrpcStatus.UNAVAILABLE, details: 'database at 10.0.0.5 down' };
    const response = await get('/dashboard', signedIn);
    expect(response.status).toBe(503);
    const body = await response.text();
    expect(body).toContain('Sheetgate is unavailable');
    expect(body).not.toContain('10.0.0.5');
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
    const config = JSON.parse(page.querySelector('#mcp-config')!.text);
    expect(config.mcpServers.sheetgate).toEqual({
      type: 'http',
      url: `${web.url}/api/mcp`,
      headers: { 'x-api-key': secret },
    });
    expect(page.querySelector('#curl-example')!.text).toContain('x-api-key: $SHEETGATE_API_KEY');
    expect(page.querySelector('script[src^="/assets/copy."]')).not.toBeNull();
    expect(auth.created).toHaveLength(1);
    // As typed: auth trims the name and turns "30" into a time (create-key-form.test.ts).
    expect(auth.created[0]).toMatchObject({ name: ' Deploy ', scopes: ['sheets:read'], expires: '30' });
  });

  it('turns a re-sent form (reload after create) into a plain dashboard, not a second key', async () => {
    const { csrf, nonce } = await dashboardForm();
    const fields = { csrf, nonce, name: 'Once', expires: 'never', access: 'write' };
    const first = await post('/dashboard/api-keys', fields);
    expect(first.status).toBe(201);
    const remembered = first.headers.get('set-cookie')!.split(';')[0]!;
    expect(remembered).toContain(nonce);
    const again = await post('/dashboard/api-keys', fields, {
      cookie: `sg_session=${SESSION}; ${remembered}`,
    });
    expect(again.status).toBe(200);
    const body = await again.text();
    expect(body).not.toContain('data-testid="new-api-key"');
    expect(body).toContain('That form was already sent');
    expect(auth.created).toEqual([
      { name: 'Once', scopes: ['sheets:read', 'sheets:write'], expiresAt: '', expires: 'never' },
    ]);
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
      await post('/dashboard/api-keys', { ...fields, csrf }, { cookie: 'sg_session=another-session' }),
    ];
    for (const response of refusals) {
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('This form has expired');
    }
    expect(auth.created).toEqual([]);
  });

  // The rules themselves (name, expiry) are auth's: their messages reaching the person are
  // checked against the real auth in create-key-form.test.ts.

  it('shows what auth refused, escaped', async () => {
    auth.createError = {
      code: GrpcStatus.INVALID_ARGUMENT,
      details: 'Name must not contain <control> characters.',
    };
    const { csrf, nonce } = await dashboardForm();
    const response = await post('/dashboard/api-keys', { csrf, nonce, name: 'x', expires: 'never' });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Name must not contain &lt;control&gt; characters.');
  });

  it('forwards the date of an "On a date" expiry as picked (auth stores it as midnight UTC)', async () => {
    const { csrf, nonce } = await dashboardForm();
    const date = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    await post('/dashboard/api-keys', { csrf, nonce, name: 'dated', expires: 'date', expiry_date: date });
    expect(auth.created[0]).toMatchObject({ expires: 'date', expiresAt: date });
  });
});

describe('revoking a key and disconnecting an app', () => {
  it('confirms on a page of its own, then revokes with web’s token', async () => {
    const confirm = await get('/dashboard/api-keys/revoke?key=key-1', signedIn);
    expect(confirm.status).toBe(200);
    const page = parse(await confirm.text());
    const form = page.querySelector('form[action="/dashboard/api-keys/revoke"]')!;
    expect(form.querySelector('button')!.text).toBe('Revoke');
    const csrf = form.querySelector('input[name=csrf]')!.getAttribute('value')!;
    const refused = await post('/dashboard/api-keys/revoke', { key: 'key-1' });
    expect(refused.status).toBe(403);
    const revoked = await post('/dashboard/api-keys/revoke', { key: 'key-1', csrf });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe('/dashboard?notice=key_revoked');
    const unknown = await get('/dashboard/api-keys/revoke?key=nope', signedIn);
    expect(unknown.headers.get('location')).toBe('/dashboard?notice=nothing_to_revoke');
  });

  it('confirms and disconnects an app', async () => {
    const page = parse(await (await get('/dashboard/apps/disconnect?client=client-1', signedIn)).text());
    const form = page.querySelector('form[action="/dashboard/apps/disconnect"]')!;
    const csrf = form.querySelector('input[name=csrf]')!.getAttribute('value')!;
    expect((await post('/dashboard/apps/disconnect', { client: 'client-1', csrf: 'x' })).status).toBe(403);
    const done = await post('/dashboard/apps/disconnect', { client: 'client-1', csrf });
    expect(done.headers.get('location')).toBe('/dashboard?notice=app_disconnected');
  });
});

describe('behind an https origin', () => {
  it('marks the re-sent-form cookie Secure although the request reached web over http', async () => {
    const port = await freePort();
    const secureWeb = await startServiceProcess(
      'web',
      {
        WEB_PORT: String(port),
        BASE_URL: 'https://sheetgate.example',
        INTERNAL_SERVICE_TOKEN: serviceToken,
        AUTH_GRPC_ADDRESS: `127.0.0.1:${grpc.port}`,
      },
      port,
    );
    try {
      const page = parse(await (await fetch(`${secureWeb.url}/dashboard`, { headers: signedIn })).text());
      const csrf = page
        .querySelector('form[action="/dashboard/api-keys"] input[name=csrf]')!
        .getAttribute('value')!;
      const created = await fetch(`${secureWeb.url}/dashboard/api-keys`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'https://sheetgate.example',
          ...signedIn,
        },
        body: new URLSearchParams({ csrf, nonce: 'n1', name: 'k', expires: 'never' }).toString(),
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('set-cookie')).toMatch(/; secure/i);
      const foreign = await fetch(`${secureWeb.url}/dashboard/api-keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: secureWeb.url, ...signedIn },
        body: new URLSearchParams({ csrf, nonce: 'n2', name: 'k', expires: 'never' }).toString(),
      });
      expect(foreign.status).toBe(403);
    } finally {
      await secureWeb.stop();
    }
  });
});
