import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcModelQueries } from '../src/oidc/oidc-model-queries.ts';
import { type ClientAuth, type OAuthTestbed, startOAuthTestbed } from './support/oauth-flow.ts';

// Claude's custom connectors (claude.ai, Claude Desktop, Claude mobile), as Anthropic documents
// them in "Building Custom Connectors via Remote MCP Servers", Auth Support
// (https://support.anthropic.com/en/articles/11503834-building-custom-connectors-via-remote-mcp-servers):
// - Claude supports Dynamic Client Registration;
// - an OAuth server signals that a registered client was deleted, and that Claude should register
//   again, by answering the token endpoint with HTTP 401 and `invalid_client` (RFC 6749 §5.2);
// - Claude's callback is https://claude.ai/api/mcp/auth_callback and may become
//   https://claude.com/api/mcp/auth_callback: a server must accept both;
// - its OAuth client name is "Claude"; it supports token expiry and refresh.
// The registration body is not published. It is shaped from what servers report receiving:
// `scope: "claudeai"`, a scope of Claude's own (outline/outline#11484, "Handle invalid `claudeai`
// scope"), which this server drops from a registration rather than refusing it (docs/design.md §3).
// The authorization request carries PKCE S256, `resource` and the scope named by the 401's
// WWW-Authenticate (MCP authorization, 2025-11-25), as every MCP client's does.

const CALLBACKS = ['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback'];

function claudeRegistration(tokenEndpointAuthMethod: 'client_secret_post' | 'none') {
  return {
    client_name: 'Claude',
    redirect_uris: CALLBACKS,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: tokenEndpointAuthMethod,
    scope: 'claudeai',
  };
}

let testbed: OAuthTestbed;
beforeAll(async () => {
  testbed = await startOAuthTestbed({ sub: '7101', email: 'cleo@example.com' });
});
afterAll(() => testbed?.stop());

async function registerClaude(method: 'client_secret_post' | 'none'): Promise<ClientAuth> {
  const { status, body } = await testbed.oauth.register(claudeRegistration(method));
  expect(status).toBe(201);
  return method === 'none'
    ? { method, clientId: body.client_id }
    : { method, clientId: body.client_id, secret: body.client_secret };
}

/** The person allows Claude at `callback`; Claude exchanges the code with `resource`, as sent. */
async function connect(auth: ClientAuth, callback: string) {
  const { oauth, userId } = testbed;
  const { params, verifier } = oauth.codeRequest(auth.clientId, callback);
  const { redirect, consentShown } = await oauth.authorize(await oauth.signedInBrowser(userId), params);
  expect(consentShown).toBe(true);
  expect(redirect.origin + redirect.pathname).toBe(callback);
  expect(redirect.searchParams.get('state')).toBe(params.state);
  expect(redirect.searchParams.get('iss')).toBe(testbed.subject.baseUrl);
  const tokens = await oauth.token(
    {
      grant_type: 'authorization_code',
      code: redirect.searchParams.get('code')!,
      code_verifier: verifier,
      redirect_uri: callback,
      resource: params.resource!,
    },
    auth,
  );
  expect(tokens.status).toBe(200);
  return { tokens: tokens.body, resource: params.resource! };
}

describe('Claude (custom connector)', () => {
  it('registers with both callback URLs and its name; its own `claudeai` scope is dropped', async () => {
    const { status, body } = await testbed.oauth.register(claudeRegistration('client_secret_post'));
    expect(status).toBe(201);
    expect(body).toMatchObject({
      client_name: 'Claude',
      redirect_uris: CALLBACKS,
      token_endpoint_auth_method: 'client_secret_post',
      client_secret: expect.any(String),
    });
    expect(body.scope).toBeUndefined();
  });

  it.each([
    [CALLBACKS[0]!, 'client_secret_post'],
    [CALLBACKS[1]!, 'none'],
  ] as const)(
    'authorizes to %s (%s), and the resource it sent is the audience, refresh after refresh',
    async (callback, method) => {
      const auth = await registerClaude(method);
      const { tokens, resource } = await connect(auth, callback);
      expect(tokens.refresh_token).toEqual(expect.any(String));
      const { payload } = await testbed.oauth.verifyAccessToken(tokens.access_token);
      expect(payload).toMatchObject({
        aud: resource,
        client_id: auth.clientId,
        scope: 'sheets:read sheets:write',
      });

      // Refreshed with the resource again, then without it: the grant's resource both times.
      let refreshToken = tokens.refresh_token as string;
      for (const extra of [{ resource }, {}] as Array<Record<string, string>>) {
        const refreshed = await testbed.oauth.token(
          { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra },
          auth,
        );
        expect(refreshed.status).toBe(200);
        const again = await testbed.oauth.verifyAccessToken(refreshed.body.access_token);
        expect(again.payload).toMatchObject({ aud: resource, scope: 'sheets:read sheets:write' });
        refreshToken = refreshed.body.refresh_token;
      }
    },
  );

  it('never redirects to a callback Claude did not register (another path or host)', async () => {
    const auth = await registerClaude('none');
    for (const other of [
      'https://claude.ai/api/mcp/other_callback',
      'https://claude.ai.evil.example/api/mcp/auth_callback',
    ]) {
      const { params } = testbed.oauth.codeRequest(auth.clientId, other);
      const response = await fetch(`${testbed.oauth.endpoint('authorize')}?${new URLSearchParams(params)}`, {
        redirect: 'manual',
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect((await readJson(response)).error).toBe('invalid_redirect_uri');
    }
  });
});

describe('a client the server does not know answers 401 invalid_client, so Claude registers again', () => {
  it.each([
    ['a code exchange', { grant_type: 'authorization_code', code: 'x', code_verifier: 'y'.repeat(43) }],
    ['a refresh', { grant_type: 'refresh_token', refresh_token: 'x' }],
  ])('%s from a client id never registered', async (_name, form) => {
    const answered = await testbed.oauth.token(
      { ...form, redirect_uri: CALLBACKS[0]! },
      { method: 'none', clientId: 'never-registered' },
    );
    expect(answered).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    // The same with the secret in the Authorization header, which also names the scheme to use.
    const basic = await testbed.oauth.token(
      { ...form, redirect_uri: CALLBACKS[0]! },
      { method: 'client_secret_basic', clientId: 'never-registered', secret: 'whatever' },
    );
    expect(basic).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(basic.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('a refresh from a client deleted since (as migrate:reset-oauth deletes them); registering again connects', async () => {
    const auth = await registerClaude('client_secret_post');
    const { tokens } = await connect(auth, CALLBACKS[0]!);
    await createOidcModelQueries(testbed.pool).destroy('Client', auth.clientId);

    const refused = await testbed.oauth.token(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      auth,
    );
    expect(refused).toMatchObject({ status: 401, body: { error: 'invalid_client' } });

    const again = await registerClaude('client_secret_post');
    expect(again.clientId).not.toBe(auth.clientId);
    const reconnected = await connect(again, CALLBACKS[0]!);
    expect((await testbed.oauth.verifyAccessToken(reconnected.tokens.access_token)).payload.client_id).toBe(
      again.clientId,
    );
  });
});
