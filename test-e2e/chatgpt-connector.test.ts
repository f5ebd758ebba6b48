import { createHash, randomBytes } from 'node:crypto';
import { createBrowser, readJson, type Stack, startStack } from '@sheetgate/test-harness';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postToolsList } from './support/mcp-http.ts';
import { authorizeAsPerson } from './support/oauth-client.ts';

// What ChatGPT's connector does when it is given `{BASE_URL}/api/mcp`, step by step over plain
// HTTP against the whole stack, as OpenAI's Apps SDK "Authentication" describes it
// (https://developers.openai.com/apps-sdk/build/auth; https://developers.openai.com/plugins/build/auth.md):
// the MCP server hosts protected resource metadata, found at its well-known URL or from the
// WWW-Authenticate header of a 401; its `resource` is sent verbatim as `resource` throughout the
// OAuth flow; the authorization server publishes its metadata (PKCE support advertised, the token
// endpoint authentication methods it accepts); ChatGPT identifies itself with a Client ID Metadata
// Document or registers dynamically, and uses PKCE. The redirect is the one ChatGPT's
// authorization requests carry (community.openai.com/t/1366784). Each step is a test, in order;
// a later one uses what an earlier one found, as the connector does.
// services/auth/test/chatgpt-connector.test.ts pins the authorization server's side in detail
// (a CIMD declaring `none`, reconnecting without scope, refresh).

const REDIRECT = 'https://chatgpt.com/connector_platform_oauth_redirect';

let stack: Stack;
let mcpUrl: string;
const found: {
  resourceMetadataUrl?: string;
  scope?: string;
  resource?: string;
  issuer?: string;
  metadata?: Record<string, string>;
  clientId?: string;
  accessToken?: string;
} = {};

beforeAll(async () => {
  stack = await startStack();
  mcpUrl = `${stack.baseUrl}/api/mcp`;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

describe('ChatGPT connects to the MCP endpoint', () => {
  it('1. is answered 401 with the resource metadata URL and the scopes', async () => {
    const response = await postToolsList(stack.baseUrl, {});
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    const resourceMetadata = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    const scope = /scope="([^"]+)"/.exec(challenge)?.[1];
    expect(resourceMetadata).toBe(`${stack.baseUrl}/.well-known/oauth-protected-resource/api/mcp`);
    expect(scope).toBe('sheets:read sheets:write');
    found.resourceMetadataUrl = resourceMetadata;
    found.scope = scope;
  });

  it('2. reads the protected resource metadata there (and at the bare well-known URL)', async () => {
    for (const url of [found.resourceMetadataUrl!, `${stack.baseUrl}/.well-known/oauth-protected-resource`]) {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      const metadata = await readJson(response);
      expect(metadata).toMatchObject({
        resource: mcpUrl,
        authorization_servers: [stack.baseUrl],
        bearer_methods_supported: ['header'],
      });
      expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['sheets:read', 'sheets:write']));
      found.resource = metadata.resource;
      found.issuer = metadata.authorization_servers[0];
    }
  });

  it('3. reads the authorization server metadata (RFC 8414): S256, CIMD and DCR, its auth methods', async () => {
    const response = await fetch(`${found.issuer}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const metadata = await readJson(response);
    expect(metadata).toMatchObject({
      issuer: found.issuer,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      registration_endpoint: expect.stringMatching(/^http/),
      authorization_endpoint: expect.stringMatching(/^http/),
      token_endpoint: expect.stringMatching(/^http/),
    });
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['none']));
    found.metadata = metadata;
  });

  it('4. registers dynamically with its redirect', async () => {
    const response = await fetch(found.metadata!.registration_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'ChatGPT',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(response.status).toBe(201);
    const client = await readJson(response);
    expect(client.redirect_uris).toEqual([REDIRECT]);
    found.clientId = client.client_id;
  });

  it('5. sends the person to authorize with PKCE S256, the scopes and the resource; exchanges the code with the resource', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(8).toString('hex');
    const authorizationUrl = new URL(found.metadata!.authorization_endpoint!);
    for (const [key, value] of Object.entries({
      response_type: 'code',
      client_id: found.clientId!,
      redirect_uri: REDIRECT,
      state,
      scope: found.scope!,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: found.resource!,
    }))
      authorizationUrl.searchParams.set(key, value);
    const redirect = await authorizeAsPerson(stack, createBrowser(), authorizationUrl, {
      email: 'alice@example.com',
    });
    expect(redirect.searchParams.get('state')).toBe(state);
    const response = await fetch(found.metadata!.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: redirect.searchParams.get('code')!,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: found.clientId!,
        resource: found.resource!,
      }),
    });
    expect(response.status).toBe(200);
    const tokens = await readJson(response);
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'sheets:read sheets:write' });
    const { payload } = await jwtVerify(
      tokens.access_token,
      createRemoteJWKSet(new URL(found.metadata!.jwks_uri!)),
      { issuer: found.issuer!, typ: 'at+jwt' },
    );
    expect(payload.aud).toBe(found.resource);
    found.accessToken = tokens.access_token;
  });

  it('6. lists the tools with the token', async () => {
    const response = await postToolsList(stack.baseUrl, { authorization: `Bearer ${found.accessToken}` });
    expect(response.status).toBe(200);
    const text = await response.text();
    const body = JSON.parse(text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!);
    expect(body.result.tools.map((tool: { name: string }) => tool.name)).toContain('read_range');
  });
});
