import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';
import { type ClientAuth, type OAuthTestClient, oauthTestClient } from './support/oauth-flow.ts';
import { createTestTls, type TestTls } from './support/test-tls.ts';

// ChatGPT's connectors (apps), from the authorization server's side, as OpenAI documents them in
// the Apps SDK's "Authentication" (https://developers.openai.com/apps-sdk/build/auth, and
// https://developers.openai.com/plugins/build/auth.md for ChatGPT and Codex):
// - the client is ChatGPT acting for the user; it supports Client ID Metadata Documents (CIMD),
//   dynamic client registration (DCR), predefined clients, and PKCE;
// - the server publishes OAuth metadata from its authorization server, and the token endpoint
//   authentication methods it accepts; PKCE support must be advertised;
// - the resource parameter is echoed throughout the flow: ChatGPT sends the protected-resource
//   metadata's `resource` verbatim as `resource` (that discovery step, on the MCP service, is
//   test-e2e/chatgpt-connector.test.ts).
// MCP's client registration order (modelcontextprotocol.io, authorization / client registration):
// a CIMD when the server metadata says `client_id_metadata_document_supported`, DCR otherwise.
// Redirect URIs are not listed by OpenAI: https://chatgpt.com/connector_platform_oauth_redirect is
// the one its authorization requests carry (community.openai.com/t/1366784, which also shows a
// reconnect asking with no `scope` at all), and per-connector https://chatgpt.com/connector/oauth/<id>
// ones are reported by servers that allow-list them (makeplane/plane-mcp-server#165). The
// registration and document bodies are not published; they are shaped from that metadata.

const CHATGPT_HOST = 'chatgpt.com';
const REDIRECTS = [
  'https://chatgpt.com/connector_platform_oauth_redirect',
  `https://chatgpt.com/connector/oauth/${randomBytes(6).toString('base64url')}`,
];

let tls: TestTls;
let server: Server;
let port: number;
/** The CIMD documents ChatGPT serves, by path; a path missing from it answers 404. */
const documents = new Map<string, Record<string, unknown>>();
let subject: AuthUnderTest;
let pool: DatabasePool;
let oauth: OAuthTestClient;
let userId: string;

beforeAll(async () => {
  tls = createTestTls([CHATGPT_HOST]);
  server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const document = documents.get(new URL(req.url ?? '/', 'https://x').pathname);
    if (!document) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  subject = await startAuthUnderTest({
    NODE_EXTRA_CA_CERTS: tls.caFile,
    NODE_OPTIONS: `--import=${fileURLToPath(new URL('./support/resolve-test-hosts.ts', import.meta.url))}`,
    SHEETGATE_TEST_HOSTS: JSON.stringify([CHATGPT_HOST]),
  });
  pool = createDatabasePool(subject.database.url, 2);
  oauth = oauthTestClient(subject, pool);
  userId = (await createUserLibrary(pool).upsertFromGoogle({ sub: '7201', email: 'gale@example.com' })).id;
});
afterAll(async () => {
  await pool?.end();
  await subject?.stop();
  await new Promise((resolve) => server?.close(resolve));
  tls?.remove();
});

/** Authorizes as ChatGPT does, exchanges the code with `resource`, and returns the tokens. */
async function connect(auth: ClientAuth, redirectUri: string, extra: Record<string, string> = {}) {
  const { params, verifier } = oauth.codeRequest(auth.clientId, redirectUri, extra);
  if (extra.scope === '') delete params.scope;
  const { redirect } = await oauth.authorize(await oauth.signedInBrowser(userId), params);
  expect(redirect.origin + redirect.pathname).toBe(redirectUri);
  expect(redirect.searchParams.get('state')).toBe(params.state);
  const code = redirect.searchParams.get('code');
  expect(code).toEqual(expect.any(String));
  const exchanged = await oauth.token(
    {
      grant_type: 'authorization_code',
      code: code!,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      resource: params.resource!,
    },
    auth,
  );
  expect(exchanged.status).toBe(200);
  return exchanged.body;
}

describe('ChatGPT reads the authorization server metadata', () => {
  it.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])(
    '%s: S256 PKCE, both ways to identify itself, its auth methods, the scopes',
    async (path) => {
      const metadata = await readJson(await fetch(`${subject.baseUrl}${path}`));
      expect(metadata).toMatchObject({
        issuer: subject.baseUrl,
        code_challenge_methods_supported: ['S256'],
        client_id_metadata_document_supported: true,
        registration_endpoint: `${subject.baseUrl}/api/auth/oauth2/register`,
        response_types_supported: ['code'],
        grant_types_supported: expect.arrayContaining(['authorization_code', 'refresh_token']),
      });
      expect(metadata.token_endpoint_auth_methods_supported).toEqual(
        expect.arrayContaining(['none', 'client_secret_post', 'client_secret_basic']),
      );
      expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['sheets:read', 'sheets:write']));
    },
  );
});

describe('ChatGPT with dynamic client registration', () => {
  let auth: ClientAuth;
  beforeAll(async () => {
    const { status, body } = await oauth.register({
      client_name: 'ChatGPT',
      redirect_uris: REDIRECTS,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(status).toBe(201);
    expect(body.redirect_uris).toEqual(REDIRECTS);
    auth = { method: 'client_secret_post', clientId: body.client_id, secret: body.client_secret };
  });

  it.each(REDIRECTS.map((redirect) => [redirect]))(
    'connects at %s; the resource it sent is the audience, and a refresh keeps it',
    async (redirectUri) => {
      const tokens = await connect(auth, redirectUri);
      const { payload } = await oauth.verifyAccessToken(tokens.access_token);
      expect(payload).toMatchObject({ aud: oauth.resource, scope: 'sheets:read sheets:write' });
      const refreshed = await oauth.token(
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, resource: oauth.resource },
        auth,
      );
      expect(refreshed.status).toBe(200);
      expect((await oauth.verifyAccessToken(refreshed.body.access_token)).payload).toMatchObject({
        aud: oauth.resource,
        scope: 'sheets:read sheets:write',
      });
    },
  );

  it('reconnects with no scope at all and still gets the resource scopes', async () => {
    const tokens = await connect(auth, REDIRECTS[0]!, { scope: '' });
    expect(tokens.scope).toBe('sheets:read sheets:write');
    expect((await oauth.verifyAccessToken(tokens.access_token)).payload.aud).toBe(oauth.resource);
  });

  it('is refused PKCE plain, without a code', async () => {
    const { params } = oauth.codeRequest(auth.clientId, REDIRECTS[0]!, { code_challenge_method: 'plain' });
    const response = await fetch(`${oauth.endpoint('authorize')}?${new URLSearchParams(params)}`, {
      redirect: 'manual',
    });
    const location = new URL(response.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('code')).toBeNull();
  });
});

describe('ChatGPT with a Client ID Metadata Document declaring `none`', () => {
  function publish(): string {
    const path = `/oauth/${randomBytes(6).toString('hex')}/client.json`;
    const clientId = `https://${CHATGPT_HOST}:${port}${path}`;
    documents.set(path, {
      client_id: clientId,
      client_name: 'ChatGPT',
      client_uri: 'https://chatgpt.com',
      redirect_uris: REDIRECTS,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    return clientId;
  }

  it('authorizes, exchanges without a secret, refreshes; the document is not stored as a client', async () => {
    const clientId = publish();
    const auth: ClientAuth = { method: 'none', clientId };
    const tokens = await connect(auth, REDIRECTS[1]!);
    expect((await oauth.verifyAccessToken(tokens.access_token)).payload).toMatchObject({
      aud: oauth.resource,
      client_id: clientId,
    });
    const refreshed = await oauth.token(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      auth,
    );
    expect(refreshed.status).toBe(200);
    expect((await oauth.verifyAccessToken(refreshed.body.access_token)).payload.aud).toBe(oauth.resource);
    const { rows } = await pool.query("SELECT 1 FROM oidc_models WHERE model = 'Client' AND id = $1", [
      clientId,
    ]);
    expect(rows).toEqual([]);
  });

  it('a token or revocation request naming a document that is not there answers 401 invalid_client', async () => {
    const clientId = `https://${CHATGPT_HOST}:${port}/oauth/${randomBytes(6).toString('hex')}/gone.json`;
    const answered = await oauth.token(
      { grant_type: 'refresh_token', refresh_token: 'x' },
      { method: 'none', clientId },
    );
    expect(answered).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const revoked = await fetch(oauth.endpoint('revoke'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'x', client_id: clientId }),
    });
    expect(revoked.status).toBe(401);
    expect((await readJson(revoked)).error).toBe('invalid_client');
  });
});
