import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type BetterAuthDatabase,
  type Browser,
  createBetterAuthDatabase,
  createBrowser,
  createTestDatabase,
  readJson,
  repoRoot,
  type Stack,
  startStack,
  type TestDatabase,
} from '@sheetgate/test-harness';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postToolsList } from './support/mcp-http.ts';
import { RecordingOAuthProvider } from './support/oauth-client.ts';
import { accountService } from './support/people.ts';

// docs/design.md §4.5 "Provider migration" and the lifecycle row "OAuth security migration" (§12):
// a team moves from a Better Auth deployment to Sheetgate. People, Google connections, sessions
// and API keys carry over; OAuth clients and tokens of the retired provider stop working, and
// clients register again, once. Then an operator advances the OAuth generation: the same split
// again. The whole stack runs as `pnpm start` runs it; the commands run as an operator runs them.

const GOOGLE_CLIENT_ID = 'sheetgate-local.apps.googleusercontent.com'; // the local stack's
const SPREADSHEETS = 'https://www.googleapis.com/auth/spreadsheets';
const FULL = [
  'openid',
  'email',
  'profile',
  SPREADSHEETS,
  'https://www.googleapis.com/auth/drive.readonly',
  'https://www.googleapis.com/auth/drive.file',
];
const REDIRECT = 'http://127.0.0.1:43999/callback'; // RecordingOAuthProvider's
const DAY_MS = 86_400_000;
const execFileAsync = promisify(execFile);

let database: TestDatabase;
let dataDir: string;
let stack: Stack;
let legacy: BetterAuthDatabase;
const old = {
  aliceKey: '',
  aliceRevokedKey: '',
  aliceExpiredKey: '',
  bobKey: '',
  aliceCookie: '',
  bobCookie: '',
  opaqueAccessToken: '',
  jwtAccessToken: '',
};

const emulator = (pathname: string, body: unknown) =>
  fetch(`${stack.emulatorUrl}/__emulator${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(readJson);

/** An auth command, run as an operator runs it next to the service: same database and key ring. */
async function authCommand(script: string, args: string[], extraEnv: Record<string, string> = {}) {
  const secrets = JSON.parse(await readFile(path.join(dataDir, 'local-secrets.json'), 'utf8'));
  // Asynchronous: an embedded test database is served from this very process.
  return execFileAsync(process.execPath, [`src/provider-migration/${script}`, ...args], {
    cwd: path.join(repoRoot, 'services/auth'),
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: database.url,
      AUTH_ENCRYPTION_KEYS: secrets.AUTH_ENCRYPTION_KEYS,
      LOG_LEVEL: 'warn',
      ...extraEnv,
    },
  });
}

const importFromBetterAuth = (...args: string[]) =>
  authCommand('import-cli.ts', ['--json', ...args], {
    IMPORT_SOURCE_DATABASE_URL: legacy.url,
    BETTER_AUTH_SECRET: legacy.secret,
  }).then(({ stdout }) => JSON.parse(stdout));

async function tableCounts(): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const counts: Record<string, number> = {};
    for (const table of ['users', 'google_connections', 'api_keys', 'legacy_sessions', 'legacy_imports']) {
      counts[table] = Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
    }
    return counts;
  } finally {
    await client.end();
  }
}

const listTools = (headers: Record<string, string>) => postToolsList(stack.baseUrl, headers);

async function keyClient(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'migration-e2e-script', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/api/mcp`), {
      requestInit: { headers: { 'x-api-key': apiKey } },
    }),
  );
  return client;
}

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/**
 * The MCP SDK client connecting over OAuth, with a person whose browser is already signed in (by
 * a carried-over session): no Google sign-in, only the consent step. Returns the connected client.
 */
async function reconnect(provider: RecordingOAuthProvider, browser: Browser): Promise<Client> {
  const url = new URL(`${stack.baseUrl}/api/mcp`);
  const first = new Client({ name: 'migration-e2e-app', version: '1.0.0' });
  await expect(
    first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider })),
  ).rejects.toThrow(/Unauthorized/);
  const stop = (at: URL) =>
    at.href.startsWith(REDIRECT) || at.pathname === '/login' || at.pathname === '/authorize';
  const landedAt = async (href: string) => {
    const step = await browser.navigate(href, {}, stop);
    return new URL(step.redirects.at(-1) ?? step.url);
  };
  let at = await landedAt(provider.authorizationUrl!.href);
  if (at.pathname === '/login') {
    // The browser has no Sheetgate session yet: /login exchanges the retired provider's cookie for
    // one. Back at the interaction, auth finds that session: no sign-in with Google is asked for.
    expect(await sessionCookie(browser)).toBeUndefined();
    await browser.navigate(at.href);
    expect(await sessionCookie(browser)).toEqual(expect.any(String));
    at = await landedAt(`${stack.baseUrl}/api/auth/interaction/${at.searchParams.get('interaction')}`);
  }
  expect(at.pathname).toBe('/authorize');
  const uid = at.searchParams.get('interaction')!;
  const accounts = accountService(stack);
  const interaction = await accounts
    .getInteraction({ interactionUid: uid, sessionCookie: (await sessionCookie(browser)) ?? '' })
    .finally(() => accounts.close());
  const posted = await browser.submitForm(`${stack.baseUrl}/api/auth/interaction/${uid}/consent`, {
    decision: 'allow',
    csrf: interaction.consentCsrfToken,
  });
  at = await landedAt(posted.location!);
  const code = at.searchParams.get('code');
  expect(code, at.href).toEqual(expect.any(String));
  await new StreamableHTTPClientTransport(url, { authProvider: provider }).finishAuth(code!);
  const client = new Client({ name: 'migration-e2e-app', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return client;
}

async function sessionCookie(browser: Browser): Promise<string | undefined> {
  return (await browser.jar.getCookies(stack.baseUrl)).find((cookie) => cookie.key === 'sg_session')?.value;
}

async function browserWithLegacyCookie(cookie: string): Promise<Browser> {
  const browser = createBrowser();
  await browser.jar.setCookie(
    `better-auth.session_token=${cookie}; Path=/; HttpOnly; SameSite=Lax`,
    stack.baseUrl,
  );
  return browser;
}

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-migration-'));
  stack = await startStack({ DATABASE_URL: database.url, DATA_DIR: dataDir });

  // The retired deployment used the same Google OAuth client, so the refresh tokens it stored are
  // grants Google (the emulator) still honours. Bob left a Drive box unticked: a partial grant.
  const aliceGrant = await emulator('/grants', {
    email: 'alice@example.com',
    clientId: GOOGLE_CLIENT_ID,
    scopes: FULL,
  });
  const bobGrant = await emulator('/grants', {
    email: 'bob@example.com',
    clientId: GOOGLE_CLIENT_ID,
    scopes: ['openid', 'email', 'profile', SPREADSHEETS],
  });
  await emulator('/seed', {
    email: 'alice@example.com',
    files: [{ name: 'Budget kept across the move', sheets: [{ title: 'Q1', values: [['rent', 1200]] }] }],
  });

  legacy = await createBetterAuthDatabase();
  const alice = await legacy.addUser({
    email: 'alice@example.com',
    name: 'Alice',
    // Better Auth with account.encryptOAuthTokens: its own code encrypted the token.
    google: { sub: aliceGrant.sub, refreshToken: aliceGrant.refresh_token, scopes: FULL, encrypted: true },
  });
  const bob = await legacy.addUser({
    email: 'bob@example.com',
    name: 'Bob',
    google: { sub: bobGrant.sub, refreshToken: bobGrant.refresh_token, scopes: bobGrant.scope.split(' ') },
  });
  await legacy.addUser({ email: 'carol@example.com', name: 'Carol', password: true });
  old.aliceKey = (await legacy.addApiKey(alice, { name: 'nightly export' })).key;
  old.aliceRevokedKey = (await legacy.addApiKey(alice, { name: 'old laptop', enabled: false })).key;
  old.aliceExpiredKey = (
    await legacy.addApiKey(alice, { name: 'trial', expiresAt: new Date(Date.now() - DAY_MS) })
  ).key;
  old.bobKey = (await legacy.addApiKey(bob, { name: 'reporting', permissions: { sheets: ['read'] } })).key;
  old.aliceCookie = (await legacy.addSession(alice)).cookie;
  old.bobCookie = (await legacy.addSession(bob)).cookie;
  old.opaqueAccessToken = (await legacy.addOAuthClient(alice, REDIRECT)).accessToken;
  // Better Auth's JWT plugin signed access tokens for the same origin with keys of its own.
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const kid = `better-auth-${(await exportJWK(publicKey)).x?.slice(0, 8)}`;
  old.jwtAccessToken = await new SignJWT({ scope: 'sheets:read sheets:write', client_id: 'old-client' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
    .setIssuer(stack.baseUrl)
    .setAudience(`${stack.baseUrl}/api/mcp`)
    .setSubject(alice)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await legacy?.close();
  await database?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('moving from Better Auth (migrate:import)', () => {
  it('a dry run reports what would move, and nothing moves', async () => {
    const before = await tableCounts();
    const report = await importFromBetterAuth('--dry-run');
    expect(report).toMatchObject({
      dryRun: true,
      users: { imported: 2 },
      googleConnections: { imported: 2 },
      sessions: { imported: 2 },
      apiKeys: { imported: 4 },
      oauthNotImported: { clients: 1, tokens: 1, consents: 1 },
    });
    expect(await tableCounts()).toEqual(before);
    expect((await listTools({ 'x-api-key': old.aliceKey })).status).toBe(401);
  });

  it('keys keep working with their old secrets, and reach the Google account the old deployment held', async () => {
    const report = await importFromBetterAuth();
    expect(report.users).toMatchObject({
      imported: 2,
      skipped: { 'no Google account (Google is the only way to sign in to Sheetgate)': 1 },
    });
    const client = await keyClient(old.aliceKey);
    const listed = (await client.callTool({ name: 'list_spreadsheets', arguments: {} })) as CallToolResult;
    expect(listed.isError).toBeFalsy();
    expect(text(listed)).toContain('Budget kept across the move');
    await client.close();
  });

  it('revoked and expired keys stay refused; a read-only key stays read-only', async () => {
    for (const key of [old.aliceRevokedKey, old.aliceExpiredKey]) {
      const refused = await listTools({ 'x-api-key': key });
      expect(refused.status).toBe(401);
      const body = await refused.text();
      expect(body).not.toContain(key);
    }
    expect((await listTools({ 'x-api-key': old.bobKey })).status).toBe(200);
    const write = await fetch(`${stack.baseUrl}/api/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        'x-api-key': old.bobKey,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'create_spreadsheet', arguments: { title: 'not allowed' } },
      }),
    });
    expect(write.status).toBe(403);
    expect(write.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  it('tokens of the retired provider get the normal 401, pointing clients at registering again', async () => {
    for (const token of [old.opaqueAccessToken, old.jwtAccessToken]) {
      const refused = await listTools({ authorization: `Bearer ${token}` });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain(
        `resource_metadata="${stack.baseUrl}/.well-known/oauth-protected-resource/api/mcp"`,
      );
    }
  });

  it('a person signed in before the move stays signed in, and their app reconnects once', async () => {
    const browser = await browserWithLegacyCookie(old.aliceCookie);
    const provider = new RecordingOAuthProvider();
    const client = await reconnect(provider, browser);
    expect(provider.redirects).toBe(1);
    const listed = (await client.callTool({ name: 'list_spreadsheets', arguments: {} })) as CallToolResult;
    expect(text(listed)).toContain('Budget kept across the move');
    await client.close();
    aliceApp.provider = provider;
    aliceApp.browser = browser;
  });

  it('the dashboard keeps its person signed in once, and explains that apps must be added again', async () => {
    const browser = await browserWithLegacyCookie(old.bobCookie);
    const page = await browser.navigate(`${stack.baseUrl}/dashboard`);
    expect(new URL(page.redirects.at(-1) ?? page.url).pathname).toBe('/dashboard');
    expect(page.body).toContain('bob@example.com');
    expect(page.body).toContain('Apps connected before the upgrade need to be added again');
    expect(page.body).toContain('reporting'); // the imported key, by its name
    expect(await browser.jar.getCookies(stack.baseUrl)).not.toContainEqual(
      expect.objectContaining({ key: 'better-auth.session_token' }),
    );
    // The same old cookie in another browser: spent, so it signs nobody in.
    const replay = await (await browserWithLegacyCookie(old.bobCookie)).navigate(
      `${stack.baseUrl}/dashboard`,
    );
    expect(new URL(replay.redirects.at(-1) ?? replay.url).pathname).toBe('/login');
    // A spent cookie the page cannot clear (a `__Secure-` one over plain http) is not a loop: the
    // request goes on as one without a session.
    const kept = await fetch(`${stack.baseUrl}/dashboard`, {
      redirect: 'manual',
      headers: { cookie: `__Secure-better-auth.session_token=${old.bobCookie}` },
    });
    expect(kept.status).toBe(303);
    expect(kept.headers.get('location')).toMatch(/^\/login/);
    bobBrowser.browser = browser;
  });

  it('a second import changes nothing', async () => {
    const before = await tableCounts();
    const report = await importFromBetterAuth();
    for (const kind of ['users', 'googleConnections', 'sessions', 'apiKeys'] as const) {
      expect(report[kind].imported, kind).toBe(0);
    }
    expect(report.apiKeys.alreadyImported).toBe(4);
    expect(await tableCounts()).toEqual(before);
  });
});

const aliceApp: { provider?: RecordingOAuthProvider; browser?: Browser } = {};
const bobBrowser: { browser?: Browser } = {};

describe('advancing the OAuth generation (migrate:reset-oauth)', () => {
  it('ends every OAuth client and token at once and keeps people, Google connections, sessions and keys', async () => {
    const { provider, browser } = aliceApp as Required<typeof aliceApp>;
    const before = await tableCounts();
    const oldTokens = provider.tokens()!;
    const oldClientId = provider.clientInformation()!.client_id;

    const { stdout } = await authCommand('reset-oauth-cli.ts', ['--yes', '--reason', 'e2e drill', '--json']);
    expect(JSON.parse(stdout)).toMatchObject({ dryRun: false, generation: 2, signingKeys: 'replaced' });

    // At once: the refresh token and the client are gone.
    const refreshed = await fetch(`${stack.baseUrl}/api/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: oldTokens.refresh_token!,
        client_id: oldClientId,
      }),
    });
    expect(refreshed.status).toBeGreaterThanOrEqual(400);
    expect((await readJson(refreshed)).error).toMatch(/invalid_(grant|client)/);
    // Keys, Google connections and dashboard sessions carried over.
    const client = await keyClient(old.aliceKey);
    expect(
      text((await client.callTool({ name: 'list_spreadsheets', arguments: {} })) as CallToolResult),
    ).toContain('Budget kept across the move');
    await client.close();
    const dashboard = await bobBrowser.browser!.navigate(`${stack.baseUrl}/dashboard`);
    expect(new URL(dashboard.redirects.at(-1) ?? dashboard.url).pathname).toBe('/dashboard');
    const aliceDashboard = await browser.navigate(`${stack.baseUrl}/dashboard`);
    expect(aliceDashboard.body).toContain('Apps connected before the upgrade need to be added again');
    expect(await tableCounts()).toEqual(before);

    // As the command says: restart auth (here the whole local stack, on the same origin and data).
    const ports = stack.ports;
    await stack.stop();
    stack = await startStack({ DATABASE_URL: database.url, DATA_DIR: dataDir }, ports);

    // The access token signed with the replaced key is refused like any bad token.
    const refused = await listTools({ authorization: `Bearer ${oldTokens.access_token}` });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The person is still signed in; the app registers again and connects, once.
    const again = await reconnect(provider, browser);
    expect(provider.redirects).toBe(2);
    expect(provider.clientInformation()!.client_id).not.toBe(oldClientId);
    expect((await again.listTools()).tools.length).toBeGreaterThan(0);
    await again.close();
    expect((await listTools({ 'x-api-key': old.aliceKey })).status).toBe(200);
  }, 180_000);
});
