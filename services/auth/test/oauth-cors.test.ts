import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthUnderTest } from './support/auth-process.ts';
import { type OAuthTestbed, type OAuthTestClient, startOAuthTestbed } from './support/oauth-flow.ts';

// CORS where browser-based MCP clients (the MCP Inspector's web UI, web apps) need it: discovery,
// JWKS, registration, token and revocation, preflight and the request itself, on the real process.

const ORIGIN = 'https://inspector.example';
const REDIRECT = 'https://inspector.example/oauth/callback';

let testbed: OAuthTestbed;
let subject: AuthUnderTest;
let oauth: OAuthTestClient;
let userId: string;

beforeAll(async () => {
  testbed = await startOAuthTestbed({ sub: '5001', email: 'erin@example.com' });
  ({ subject, oauth, userId } = testbed);
});
afterAll(() => testbed?.stop());

async function preflight(path: string, method: string, headers = 'content-type') {
  return fetch(`${subject.baseUrl}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin: ORIGIN,
      'access-control-request-method': method,
      'access-control-request-headers': headers,
    },
  });
}

function expectReadableBy(response: Response, origin = ORIGIN) {
  expect(response.headers.get('access-control-allow-origin')).toBe(origin);
  expect(response.headers.get('vary') ?? '').toMatch(/origin/i);
}

describe('CORS for browser-based clients', () => {
  it.each([
    '/.well-known/oauth-authorization-server',
    '/.well-known/oauth-authorization-server/api/mcp',
    '/.well-known/openid-configuration',
    '/api/auth/jwks',
  ])('GET %s: preflight and request', async (path) => {
    const answer = await preflight(path, 'GET');
    expect(answer.status).toBe(204);
    expectReadableBy(answer);
    expect(answer.headers.get('access-control-allow-methods')).toContain('GET');

    const response = await fetch(`${subject.baseUrl}${path}`, { headers: { origin: ORIGIN } });
    expect(response.status).toBe(200);
    expectReadableBy(response);
  });

  it('registration: preflight with a JSON body and a bearer header, then the POST', async () => {
    const answer = await preflight('/api/auth/oauth2/register', 'POST', 'content-type, authorization');
    expect(answer.status).toBe(204);
    expectReadableBy(answer);
    expect(answer.headers.get('access-control-allow-methods')).toBe('POST');
    const allowed = (answer.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    expect(allowed).toContain('content-type');
    expect(allowed).toContain('authorization');
    expect(Number(answer.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    // No credentials: nothing here depends on cookies.
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();

    const registered = await fetch(`${subject.baseUrl}/api/auth/oauth2/register`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    expectReadableBy(registered);

    // A refused registration is readable too, so the client can show why.
    const refused = await fetch(`${subject.baseUrl}/api/auth/oauth2/register`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://evil.example/cb'] }),
    });
    expect(refused.status).toBe(400);
    expectReadableBy(refused);
  });

  it('token and revocation: preflights, then a code exchange, a refresh and a revocation', async () => {
    for (const path of ['/api/auth/oauth2/token', '/api/auth/oauth2/revoke']) {
      const answer = await preflight(path, 'POST');
      expect(answer.status).toBe(204);
      expectReadableBy(answer);
      expect(answer.headers.get('access-control-allow-methods')).toContain('POST');
    }

    const { body: client } = await oauth.register({
      client_name: 'Browser client',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    const auth = { method: 'none', clientId: client.client_id } as const;
    const { params, verifier } = oauth.codeRequest(client.client_id, REDIRECT);
    const { redirect } = await oauth.authorize(await oauth.signedInBrowser(userId), params);
    const exchanged = await oauth.token(
      {
        grant_type: 'authorization_code',
        code: redirect.searchParams.get('code')!,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
      },
      auth,
      { origin: ORIGIN },
    );
    expect(exchanged.status).toBe(200);
    expect(exchanged.headers.get('access-control-allow-origin')).toBe(ORIGIN);

    const refreshed = await oauth.token(
      { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token },
      auth,
      { origin: ORIGIN },
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.get('access-control-allow-origin')).toBe(ORIGIN);

    const revoked = await fetch(`${subject.baseUrl}/api/auth/oauth2/revoke`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshed.body.refresh_token, client_id: client.client_id }),
    });
    expect(revoked.status).toBe(200);
    expectReadableBy(revoked);
  });

  it('a rate-limited token request is readable cross-origin, with its Retry-After', async () => {
    // The test connects over the loopback, a trusted proxy by default: the forwarded address
    // stands for one client behind it.
    const headers = { origin: ORIGIN, 'x-forwarded-for': '198.51.100.7' };
    let refused: Response | undefined;
    for (let attempt = 0; attempt < 200 && !refused; attempt++) {
      const response = await fetch(`${subject.baseUrl}/api/auth/oauth2/token`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=refresh_token&refresh_token=x&client_id=x',
      });
      if (response.status === 429) refused = response;
      else await response.arrayBuffer();
    }
    expect(refused).toBeDefined();
    expectReadableBy(refused!);
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused!.headers.get('access-control-expose-headers')).toMatch(/retry-after/i);
  });

  it('the provider’s pages (sign-in, interactions) stay same-origin', async () => {
    // Each page is really there (a 404 would have no CORS headers either): it answers its redirect.
    const signIn = await fetch(`${subject.baseUrl}/api/auth/google/start?return_to=/dashboard`, {
      redirect: 'manual',
      headers: { origin: ORIGIN },
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toContain('client_id=test-client.apps.googleusercontent.com');
    expect(signIn.headers.get('access-control-allow-origin')).toBeNull();

    const { body: client } = await oauth.register({
      client_name: 'Same-origin pages',
      redirect_uris: [REDIRECT],
    });
    const { params } = oauth.codeRequest(client.client_id as string, REDIRECT);
    const authorize = await fetch(`${oauth.endpoint('authorize')}?${new URLSearchParams(params)}`, {
      redirect: 'manual',
      headers: { origin: ORIGIN },
    });
    expect(authorize.status).toBe(303);
    const interactionUrl = new URL(authorize.headers.get('location')!, subject.baseUrl);
    expect(interactionUrl.pathname).toMatch(/^\/api\/auth\/interaction\/[\w-]+$/);
    expect(authorize.headers.get('access-control-allow-origin')).toBeNull();

    const cookie = authorize.headers
      .getSetCookie()
      .map((line) => line.split(';', 1)[0])
      .join('; ');
    const interaction = await fetch(interactionUrl, {
      redirect: 'manual',
      headers: { origin: ORIGIN, cookie },
    });
    expect(interaction.status).toBe(303);
    expect(interaction.headers.get('location')).toMatch(/^\/login\?interaction=/);
    expect(interaction.headers.get('access-control-allow-origin')).toBeNull();
    const interactionPreflight = await preflight(interactionUrl.pathname, 'GET');
    expect(interactionPreflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});
