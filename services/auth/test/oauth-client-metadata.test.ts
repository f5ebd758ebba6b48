import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';
import { type OAuthTestClient, oauthTestClient } from './support/oauth-flow.ts';
import { createTestTls, type TestTls } from './support/test-tls.ts';

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25):
// the client_id is an https URL, and the real auth process fetches the document from a real HTTPS
// server in this test. The documents are served on a test host name that the process resolves to
// this machine (support/resolve-test-hosts.ts); other loopback URLs meet auth's SSRF protection,
// as in production (oauth-client-metadata-fetch.test.ts).

const HOST = 'clients.sheetgate.test';
let tls: TestTls;
let server: Server;
let port: number;
const documents = new Map<string, Record<string, unknown>>();
const fetched = new Map<string, number>();
let subject: AuthUnderTest;
let pool: DatabasePool;
let oauth: OAuthTestClient;
let userId: string;

beforeAll(async () => {
  tls = createTestTls([HOST, 'localhost', '127.0.0.1']);
  server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    fetched.set(path, (fetched.get(path) ?? 0) + 1);
    const document = documents.get(path);
    if (!document) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
    res.end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  subject = await startAuthUnderTest({
    NODE_EXTRA_CA_CERTS: tls.caFile,
    NODE_OPTIONS: `--import=${fileURLToPath(new URL('./support/resolve-test-hosts.ts', import.meta.url))}`,
    SHEETGATE_TEST_HOSTS: JSON.stringify([HOST]),
  });
  pool = createDatabasePool(subject.database.url, 2);
  oauth = oauthTestClient(subject, pool);
  userId = (await createUserLibrary(pool).upsertFromGoogle({ sub: '6001', email: 'fay@example.com' })).id;
});
afterAll(async () => {
  await pool?.end();
  await subject?.stop();
  await new Promise((resolve) => server?.close(resolve));
  tls?.remove();
});

/** Publishes `document` at a fresh path (the provider caches documents by URL) and returns the URL. */
function publish(document: (clientId: string) => Record<string, unknown>, host = HOST): string {
  const path = `/oauth/${randomBytes(6).toString('hex')}.json`;
  const clientId = `https://${host}:${port}${path}`;
  documents.set(path, document(clientId));
  return clientId;
}

async function authorizeAt(clientId: string, redirectUri: string) {
  const { params, verifier } = oauth.codeRequest(clientId, redirectUri);
  const result = await oauth.authorize(await oauth.signedInBrowser(userId), params);
  return { ...result, verifier };
}

describe('Client ID Metadata Documents', () => {
  it('advertises support in the authorization server metadata', async () => {
    const metadata = (await (
      await fetch(`${subject.baseUrl}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
  });

  it.each([
    [
      // Claude Code's published document: portless loopback redirects, no application_type.
      'Claude Code',
      (clientId: string) => ({
        client_id: clientId,
        client_name: 'Claude Code',
        client_uri: 'https://claude.ai',
        redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
      `http://127.0.0.1:${40_000 + Math.floor(Math.random() * 20_000)}/callback`,
    ],
    [
      // VS Code's published document: native, a fixed loopback port and a claimed https redirect.
      'VS Code',
      (clientId: string) => ({
        client_id: clientId,
        client_name: 'Visual Studio Code',
        client_uri: 'https://vscode.dev/product',
        redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
        grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      }),
      `http://127.0.0.1:${40_000 + Math.floor(Math.random() * 20_000)}/`,
    ],
  ])(
    '%s: document → authorize on a random loopback port → token → refresh',
    async (_name, document, redirectUri) => {
      const clientId = publish(document);
      const { redirect, consentShown, verifier } = await authorizeAt(clientId, redirectUri);
      expect(consentShown).toBe(true);
      expect(redirect.origin + redirect.pathname).toBe(redirectUri);
      const code = redirect.searchParams.get('code');
      expect(code).toEqual(expect.any(String));

      const auth = { method: 'none', clientId } as const;
      const exchanged = await oauth.token(
        { grant_type: 'authorization_code', code: code!, code_verifier: verifier, redirect_uri: redirectUri },
        auth,
      );
      expect(exchanged.status).toBe(200);
      const { payload } = await oauth.verifyAccessToken(exchanged.body.access_token);
      expect(payload).toMatchObject({ client_id: clientId, sub: userId, scope: 'sheets:read sheets:write' });

      const refreshed = await oauth.token(
        { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token },
        auth,
      );
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.refresh_token).not.toBe(exchanged.body.refresh_token);
      // The document was fetched, and is not stored as a registered client.
      expect(fetched.get(new URL(clientId).pathname)).toBeGreaterThan(0);
      const { rows } = await pool.query("SELECT 1 FROM oidc_models WHERE model = 'Client' AND id = $1", [
        clientId,
      ]);
      expect(rows).toEqual([]);
    },
  );

  it('matches a web client’s https redirect exactly, and no other path or host', async () => {
    const clientId = publish((id) => ({
      client_id: id,
      client_name: 'Sheets web app',
      redirect_uris: ['https://sheets-app.example/oauth/callback'],
      token_endpoint_auth_method: 'none',
    }));
    const allowed = await authorizeAt(clientId, 'https://sheets-app.example/oauth/callback');
    expect(allowed.redirect.searchParams.get('code')).toEqual(expect.any(String));
    for (const other of ['https://sheets-app.example/oauth/other', 'https://evil.example/oauth/callback']) {
      const { params } = oauth.codeRequest(clientId, other);
      const refused = await fetch(`${oauth.endpoint('authorize')}?${new URLSearchParams(params)}`, {
        redirect: 'manual',
      });
      expect(refused.status).toBe(400);
      expect(refused.headers.get('location')).toBeNull();
      expect(((await refused.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    }
  });

  const refusals: Array<[string, (clientId: string) => Record<string, unknown>, string]> = [
    [
      'a document naming another client_id',
      () => ({
        client_id: `https://${HOST}:${port}/oauth/someone-else.json`,
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
      }),
      'http://127.0.0.1:50000/callback',
    ],
    [
      'a plain-http redirect to a non-loopback host',
      (clientId) => ({
        client_id: clientId,
        redirect_uris: ['http://app.example/callback'],
        token_endpoint_auth_method: 'none',
      }),
      'http://app.example/callback',
    ],
    [
      'user information in a redirect',
      (clientId) => ({
        client_id: clientId,
        redirect_uris: ['http://evil@127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
      }),
      'http://evil@127.0.0.1:50000/callback',
    ],
    [
      'a fragment in a redirect',
      (clientId) => ({
        client_id: clientId,
        redirect_uris: ['https://app.example/callback#x'],
        token_endpoint_auth_method: 'none',
      }),
      'https://app.example/callback',
    ],
    [
      'a client secret',
      (clientId) => ({
        client_id: clientId,
        client_secret: 'published-to-the-world',
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
      }),
      'http://127.0.0.1:50000/callback',
    ],
    [
      'a shared-secret authentication method',
      (clientId) => ({
        client_id: clientId,
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'client_secret_post',
      }),
      'http://127.0.0.1:50000/callback',
    ],
  ];

  it.each(refusals)('refuses %s, without redirecting anywhere', async (_name, document, redirectUri) => {
    const clientId = publish(document);
    const { params } = oauth.codeRequest(clientId, redirectUri);
    const response = await fetch(`${oauth.endpoint('authorize')}?${new URLSearchParams(params)}`, {
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    const { error } = (await response.json()) as { error: string };
    expect(['invalid_client', 'invalid_client_metadata', 'invalid_redirect_uri']).toContain(error);
    // It was refused after reading the document, not for want of it.
    expect(fetched.get(new URL(clientId).pathname)).toBeGreaterThan(0);
  });

  it.each(['127.0.0.1', 'localhost', 'localhost.'])(
    'never fetches a document from this machine (https://%s:…), whatever its certificate',
    async (host) => {
      const clientId = publish(
        (id) => ({
          client_id: id,
          redirect_uris: ['http://127.0.0.1/callback'],
          token_endpoint_auth_method: 'none',
        }),
        host,
      );
      const path = new URL(clientId).pathname;
      const { params } = oauth.codeRequest(clientId, 'http://127.0.0.1:50000/callback');
      const response = await fetch(`${oauth.endpoint('authorize')}?${new URLSearchParams(params)}`, {
        redirect: 'manual',
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
      // Refused before any request reached the server.
      expect(fetched.get(path) ?? 0).toBe(0);
    },
  );
});
