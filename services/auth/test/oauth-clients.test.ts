import { createHash, randomBytes } from 'node:crypto';
import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthUnderTest } from './support/auth-process.ts';
import {
  type ClientAuth,
  type OAuthTestbed,
  type OAuthTestClient,
  startOAuthTestbed,
} from './support/oauth-flow.ts';

let testbed: OAuthTestbed;
let subject: AuthUnderTest;
let oauth: OAuthTestClient;
let userId: string;
beforeAll(async () => {
  testbed = await startOAuthTestbed({ sub: '4001', email: 'gus@example.com' });
  ({ subject, oauth, userId } = testbed);
});
afterAll(() => testbed?.stop());

const register = (metadata: Record<string, unknown>) => oauth.register(metadata);

/** A loopback port nobody registered, as a native app gets from its OS at each sign-in. */
const anyPort = () => 20_000 + Math.floor(Math.random() * 40_000);

type AuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';
// Registration bodies as the real clients send them (captured from their source and traffic),
// with the redirect each uses at authorization time.
const realClients: Array<[string, Record<string, unknown>, AuthMethod, () => string]> = [
  [
    'Claude Code',
    {
      client_name: 'Claude Code (sheetgate)',
      redirect_uris: ['http://localhost:54545/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    'none',
    () => `http://localhost:${anyPort()}/callback`,
  ],
  [
    'VS Code',
    {
      client_name: 'Visual Studio Code',
      // Portless loopback URIs for servers that match exactly, the fixed port, and the web redirects.
      redirect_uris: [
        'https://insiders.vscode.dev/redirect',
        'https://vscode.dev/redirect',
        'http://localhost/',
        'http://127.0.0.1/',
        'http://localhost:33418/',
        'http://127.0.0.1:33418/',
      ],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    'none',
    () => `http://127.0.0.1:${anyPort()}/`,
  ],
  [
    'Cursor',
    {
      client_name: 'Cursor',
      redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/user-sheetgate/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    'none',
    () => 'cursor://anysphere.cursor-retrieval/oauth/user-sheetgate/callback',
  ],
  [
    'MCP Inspector',
    {
      client_name: 'MCP Inspector',
      client_uri: 'https://github.com/modelcontextprotocol/inspector',
      redirect_uris: ['http://localhost:6274/oauth/callback/debug', 'http://localhost:6274/oauth/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'sheets:read sheets:write',
    },
    'none',
    () => `http://localhost:${anyPort()}/oauth/callback`,
  ],
  [
    'mcp-remote',
    {
      client_name: 'MCP CLI Proxy',
      client_uri: 'https://github.com/modelcontextprotocol/mcp-cli',
      redirect_uris: ['http://localhost:3334/oauth/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
      software_id: '2e6dc280-f3c3-4e01-99a7-8181dbd1d23d',
      software_version: '0.1.29',
    },
    'client_secret_post',
    () => `http://localhost:${anyPort()}/oauth/callback`,
  ],
  [
    'a confidential web client',
    { client_name: 'Sheets bot', redirect_uris: ['https://bot.example/oauth/callback'] },
    'client_secret_basic',
    () => 'https://bot.example/oauth/callback',
  ],
];

describe('each real client end to end: register → authorize → token → refresh', () => {
  it.each(realClients)('%s', async (_name, metadata, method, redirectAt) => {
    const { status, body: client } = await register(metadata);
    expect(status).toBe(201);
    const auth: ClientAuth =
      method === 'none'
        ? { method, clientId: client.client_id }
        : { method, clientId: client.client_id, secret: client.client_secret };

    const redirectUri = redirectAt();
    const { params, verifier } = oauth.codeRequest(client.client_id, redirectUri);
    const { redirect, consentShown } = await oauth.authorize(await oauth.signedInBrowser(userId), params);
    expect(consentShown).toBe(true);
    expect(redirect.href.startsWith(redirectUri)).toBe(true);
    expect(redirect.searchParams.get('state')).toBe(params.state);
    expect(redirect.searchParams.get('iss')).toBe(subject.baseUrl);
    const code = redirect.searchParams.get('code')!;
    const exchange = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
    };

    if (method !== 'none') {
      // A confidential client must prove its secret: none at all, or a wrong one, fails. (The
      // provider takes the secret by either method, basic or post: both carry the same secret.)
      const noSecret = await oauth.token(exchange, { method: 'none', clientId: client.client_id });
      expect(noSecret).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
      const wrongSecret = await oauth.token(exchange, {
        method,
        clientId: client.client_id,
        secret: `${client.client_secret}x`,
      });
      expect(wrongSecret).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    }
    const tokens = await oauth.token(exchange, auth);
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', refresh_token: expect.any(String) });
    const { payload } = await oauth.verifyAccessToken(tokens.body.access_token);
    expect(payload).toMatchObject({
      client_id: client.client_id,
      sub: userId,
      scope: 'sheets:read sheets:write',
    });

    const refreshed = await oauth.token(
      { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token },
      auth,
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(tokens.body.refresh_token);
    await oauth.verifyAccessToken(refreshed.body.access_token);
  });
});

describe('dynamic client registration (RFC 7591) with real clients’ shapes', () => {
  it.each(realClients)('registers %s', async (_name, metadata, method) => {
    const { status, body } = await register(metadata);
    expect(status).toBe(201);
    expect(body.client_id).toEqual(expect.any(String));
    expect(body.redirect_uris).toEqual(metadata.redirect_uris);
    expect(body.token_endpoint_auth_method).toBe(method);
    if (method === 'none') expect(body.client_secret).toBeUndefined();
    else expect(body.client_secret).toEqual(expect.any(String));
  });

  it('keeps only known scopes from a registration scope', async () => {
    const { status, body } = await register({
      redirect_uris: ['http://localhost:9999/cb'],
      token_endpoint_auth_method: 'none',
      scope: 'openid sheets:read mcp:tools unknown',
    });
    expect(status).toBe(201);
    expect(body.scope).toBe('openid sheets:read');
  });

  it.each([
    ['plain http on a public host', 'http://evil.example/callback'],
    ['user information in the URL', 'https://user:pass@app.example/callback'],
    ['a fragment', 'https://app.example/callback#frag'],
    ['a javascript: URI', 'javascript:alert(1)'],
    ['a relative URI', '/callback'],
  ])('refuses %s', async (_name, redirectUri) => {
    const { status, body } = await register({
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
    });
    expect(status).toBe(400);
    expect(['invalid_redirect_uri', 'invalid_client_metadata']).toContain(body.error);
  });

  it.each([
    ['not JSON', '{"redirect_uris":'],
    ['an array', '[]'],
    [
      'a huge body',
      JSON.stringify({ redirect_uris: ['https://a.example/cb'], client_name: 'x'.repeat(200_000) }),
    ],
  ])('refuses %s with a JSON error', async (_name, body) => {
    const response = await fetch(`${subject.baseUrl}/api/auth/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect([400, 413]).toContain(response.status);
    expect((await readJson(response)).error).toEqual(expect.any(String));
  });

  it.each([
    ['in an unknown member', (deep: string) => `{"redirect_uris":["https://a.example/cb"],"x":${deep}}`],
    ['in a known member', (deep: string) => `{"redirect_uris":["https://a.example/cb"],"contacts":${deep}}`],
  ])('refuses a body nested 10,000 levels deep %s with 400 invalid_client_metadata', async (_name, body) => {
    const response = await fetch(`${subject.baseUrl}/api/auth/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body(`${'['.repeat(10_000)}${']'.repeat(10_000)}`),
    });
    expect(response.status).toBe(400);
    expect(await readJson(response)).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: expect.stringContaining('nested deeper than'),
    });
  });
});

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function authorize(params: Record<string, string>) {
  const url = new URL(`${subject.baseUrl}/api/auth/oauth2/authorize`);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  const response = await fetch(url, { redirect: 'manual' });
  return {
    status: response.status,
    location: response.headers.get('location') ?? '',
    body: await response.text(),
  };
}

describe('authorization requests', () => {
  let clientId: string;
  beforeAll(async () => {
    const { body } = await register({
      client_name: 'Loopback app',
      redirect_uris: ['http://127.0.0.1:40000/callback', 'http://localhost/cb'],
      token_endpoint_auth_method: 'none',
    });
    clientId = body.client_id;
  });

  const base = () => ({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: 'http://127.0.0.1:40000/callback',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    state: 'state-123',
    resource: `${subject.baseUrl}/api/mcp`,
  });

  it('accepts a valid request and hands the browser to the sign-in interaction', async () => {
    const { status, location } = await authorize(base());
    expect(status).toBe(303);
    expect(location).toMatch(/^\/api\/auth\/interaction\/[\w-]+$/);
  });

  it.each([
    ['another port (RFC 8252 §7.3)', 'http://127.0.0.1:51234/callback'],
    ['a port where none was registered', 'http://localhost:8123/cb'],
  ])('accepts a loopback redirect on %s', async (_name, redirectUri) => {
    const { status, location } = await authorize({ ...base(), redirect_uri: redirectUri });
    expect(status).toBe(303);
    expect(location).toMatch(/^\/api\/auth\/interaction\//);
  });

  it('accepts a trailing-slash resource and no resource at all', async () => {
    for (const resource of [`${subject.baseUrl}/api/mcp/`, undefined]) {
      const params: Record<string, string> = base();
      if (resource) params.resource = resource;
      else delete params.resource;
      const { status, location } = await authorize(params);
      expect(status).toBe(303);
      expect(location).toMatch(/^\/api\/auth\/interaction\//);
    }
  });

  it.each([
    ['another host', 'http://evil.example:40000/callback'],
    ['another path', 'http://127.0.0.1:40000/other'],
    ['a longer path', 'http://127.0.0.1:40000/callback/more'],
    ['an added query', 'http://127.0.0.1:40000/callback?next=https://evil.example'],
    ['https instead of http', 'https://127.0.0.1:40000/callback'],
    ['a fragment', 'http://127.0.0.1:40000/callback#frag'],
    ['user information before the loopback host', 'http://evil@127.0.0.1:40000/callback'],
    ['a host that only starts like loopback', 'http://127.0.0.1.evil.example:40000/callback'],
    ['another loopback name than registered', 'http://[::1]:40000/callback'],
    ['localhost where 127.0.0.1 was registered', 'http://localhost:40000/callback'],
  ])('never redirects to %s', async (_name, redirectUri) => {
    const { status, location, body } = await authorize({ ...base(), redirect_uri: redirectUri });
    expect(status).toBe(400);
    expect(location).toBe('');
    expect(JSON.parse(body).error).toBe('invalid_redirect_uri');
  });

  describe('for a client with an https redirect', () => {
    let webClientId: string;
    beforeAll(async () => {
      const { body } = await register({
        client_name: 'Web and loopback app',
        redirect_uris: ['https://app.example/oauth/callback', 'http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
      });
      webClientId = body.client_id;
    });

    it('redirects to it exactly', async () => {
      const { status, location } = await authorize({
        ...base(),
        client_id: webClientId,
        redirect_uri: 'https://app.example/oauth/callback',
      });
      expect(status).toBe(303);
      expect(location).toMatch(/^\/api\/auth\/interaction\//);
    });

    it.each([
      ['http where https was registered', 'http://app.example/oauth/callback'],
      ['another host', 'https://evil.example/oauth/callback'],
      ['a host ending like it', 'https://app.example.evil.example/oauth/callback'],
      ['another path', 'https://app.example/oauth/other'],
      ['a dot-segment path', 'https://app.example/oauth/callback/../../evil'],
      ['another port', 'https://app.example:8443/oauth/callback'],
      ['a fragment', 'https://app.example/oauth/callback#access_token=x'],
      ['user information', 'https://evil@app.example/oauth/callback'],
      ['user information hiding the host', 'https://app.example@evil.example/oauth/callback'],
      ['upper-case host spelling', 'https://APP.example/oauth/callback'],
    ])('never redirects to %s', async (_name, redirectUri) => {
      const { status, location, body } = await authorize({
        ...base(),
        client_id: webClientId,
        redirect_uri: redirectUri,
      });
      expect(status).toBe(400);
      expect(location).toBe('');
      expect(JSON.parse(body).error).toBe('invalid_redirect_uri');
    });
  });

  it('requires PKCE', async () => {
    const params: Record<string, string> = base();
    delete params.code_challenge;
    delete params.code_challenge_method;
    const { status, location } = await authorize(params);
    expect(status).toBe(303);
    const redirect = new URL(location);
    expect(redirect.origin + redirect.pathname).toBe('http://127.0.0.1:40000/callback');
    expect(redirect.searchParams.get('error')).toBe('invalid_request');
    expect(redirect.searchParams.get('error_description')).toMatch(/PKCE/);
    expect(redirect.searchParams.get('iss')).toBe(subject.baseUrl);
    expect(redirect.searchParams.get('state')).toBe('state-123');
  });

  it('refuses PKCE plain', async () => {
    const { location } = await authorize({ ...base(), code_challenge_method: 'plain' });
    expect(new URL(location).searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses a resource that is not ours', async () => {
    const { location } = await authorize({ ...base(), resource: 'https://other.example/api/mcp' });
    expect(new URL(location).searchParams.get('error')).toBe('invalid_target');
  });

  it('refuses response types other than code', async () => {
    const { location } = await authorize({ ...base(), response_type: 'token' });
    // An implicit-style request gets its error in the fragment, as RFC 6749 §4.2.2.1 says.
    const redirect = new URL(location);
    const error =
      redirect.searchParams.get('error') ?? new URLSearchParams(redirect.hash.slice(1)).get('error');
    expect(error).toBe('unsupported_response_type');
  });

  it('refuses an unknown client without redirecting', async () => {
    const { status, location } = await authorize({ ...base(), client_id: 'no-such-client' });
    expect(status).toBe(400);
    expect(location).toBe('');
  });
});

describe('resource (RFC 8707) and the default scope through a whole connection', () => {
  const REDIRECT = 'http://127.0.0.1:41999/callback';
  let auth: ClientAuth;
  beforeAll(async () => {
    const { body } = await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    auth = { method: 'none', clientId: body.client_id };
  });

  it('authorization without scope and with a trailing-slash resource; exchange and refresh with one too', async () => {
    const trailing = `${subject.baseUrl}/api/mcp/`;
    const { params, verifier } = oauth.codeRequest(auth.clientId, REDIRECT, { resource: trailing });
    delete params.scope;
    const { redirect } = await oauth.authorize(await oauth.signedInBrowser(userId), params);
    const code = redirect.searchParams.get('code');
    expect(code).toEqual(expect.any(String));
    const exchanged = await oauth.token(
      {
        grant_type: 'authorization_code',
        code: code!,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        resource: trailing,
      },
      auth,
    );
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.scope).toBe('sheets:read sheets:write');
    const { payload } = await oauth.verifyAccessToken(exchanged.body.access_token);
    expect(payload).toMatchObject({ aud: oauth.resource, scope: 'sheets:read sheets:write' });

    const refreshed = await oauth.token(
      { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token, resource: trailing },
      auth,
    );
    expect(refreshed.status).toBe(200);
    expect((await oauth.verifyAccessToken(refreshed.body.access_token)).payload.aud).toBe(oauth.resource);
  });

  it('answers authorization requests by GET only, so none escapes the resource and scope rules', async () => {
    const { params } = oauth.codeRequest(auth.clientId, REDIRECT, {
      resource: 'https://other.example/api/mcp',
    });
    const response = await fetch(oauth.endpoint('authorize'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params),
      redirect: 'manual',
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('location')).toBeNull();
  });

  it('has no pushed authorization request endpoint (no MCP client uses one)', async () => {
    const metadata = await readJson(await fetch(`${subject.baseUrl}/.well-known/oauth-authorization-server`));
    expect(metadata.pushed_authorization_request_endpoint).toBeUndefined();
    const response = await fetch(`${subject.baseUrl}/api/auth/oauth2/par`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: auth.clientId, response_type: 'code', redirect_uri: REDIRECT }),
    });
    expect(response.status).toBe(404);
  });
});

describe('token endpoint before anything is rotated', () => {
  it('refuses a foreign resource with invalid_target', async () => {
    const response = await fetch(`${subject.baseUrl}/api/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: 'whatever',
        client_id: 'x',
        resource: 'https://other.example/api/mcp',
      }),
    });
    expect(response.status).toBe(400);
    expect(await readJson(response)).toEqual({
      error: 'invalid_target',
      error_description: 'the resource is not served by this authorization server',
    });
  });
});
