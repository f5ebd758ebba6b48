import { createHash, randomBytes } from 'node:crypto';
import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';

let subject: AuthUnderTest;
beforeAll(async () => {
  subject = await startAuthUnderTest();
});
afterAll(async () => {
  await subject?.stop();
});

async function register(metadata: Record<string, unknown>) {
  const response = await fetch(`${subject.baseUrl}/api/auth/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  return { status: response.status, body: await readJson(response) };
}

// Registration bodies as the real clients send them (captured from their source and traffic).
const realClients: Array<
  [string, Record<string, unknown>, 'none' | 'client_secret_basic' | 'client_secret_post']
> = [
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
  ],
  [
    'VS Code',
    {
      client_name: 'Visual Studio Code',
      redirect_uris: ['http://127.0.0.1:33418', 'https://vscode.dev/redirect'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    'none',
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
  ],
  [
    'a confidential web client',
    { client_name: 'Sheets bot', redirect_uris: ['https://bot.example/oauth/callback'] },
    'client_secret_basic',
  ],
];

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
    ['https instead of http', 'https://127.0.0.1:40000/callback'],
  ])('never redirects to %s', async (_name, redirectUri) => {
    const { status, location, body } = await authorize({ ...base(), redirect_uri: redirectUri });
    expect(status).toBe(400);
    expect(location).toBe('');
    expect(JSON.parse(body).error).toBe('invalid_redirect_uri');
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
