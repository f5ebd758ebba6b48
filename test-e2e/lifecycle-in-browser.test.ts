import { createHash } from 'node:crypto';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { freePort, readJson, type Stack, startStack } from '@sheetgate/test-harness';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeGoogleGrant, seedFiles } from './support/google-emulator.ts';
import { postToolsList } from './support/mcp-http.ts';
import { RecordingOAuthProvider } from './support/oauth-client.ts';
import {
  chromiumMissing,
  confirmRowAction,
  connectThroughBrowser,
  createKeyInDashboard,
  launchBrowser,
  newPerson,
  type Person,
} from './support/person-in-browser.ts';

// The specification's lifecycle behaviours (docs/design.md §12), one test per row, with the
// official MCP SDK client doing OAuth (discovery, registration, PKCE, code exchange, refresh)
// against the whole stack, and a person in Debian's Chromium on the real pages: /login, the Google
// emulator's account chooser, /authorize and /dashboard. Access tokens live 10 s here (the least
// auth allows) so that expiry is observed, by polling until the endpoint refuses a token.

const missing = chromiumMissing();
if (missing) console.warn(`lifecycle browser tests skipped: ${missing}`);

// Apps whose redirect URIs nothing listens on: the browser answers for them (newPerson).
const BUDGET_APP = 'https://budget-assistant.example';
const NOTEBOOK_APP = 'https://notebook.example';

let stack: Stack;
let chromium: Browser;
let mcpUrl: string;
let alice: Person & { email: string };
let desktopRedirect: string;

/** Every HTTP answer an SDK client got: path, status and, for token requests, the grant type. */
interface Answer {
  path: string;
  status: number;
  grantType?: string;
}
const answers: Answer[] = [];
const watched: FetchLike = async (url, init) => {
  const response = await fetch(url, init);
  const path = new URL(url).pathname;
  const grantType = path.endsWith('/token')
    ? new URLSearchParams(String(init?.body)).get('grant_type')
    : null;
  answers.push({ path, status: response.status, ...(grantType ? { grantType } : {}) });
  return response;
};

beforeAll(async () => {
  if (missing) return;
  let desktopPort: number;
  [stack, chromium, desktopPort] = await Promise.all([
    startStack({ ACCESS_TOKEN_TTL_SECONDS: '10' }),
    launchBrowser(),
    freePort(),
  ]);
  mcpUrl = `${stack.baseUrl}/api/mcp`;
  desktopRedirect = `http://127.0.0.1:${desktopPort}/callback`;
  await seedFiles(stack, 'alice@example.com', [
    { name: 'Alice household plan', sheets: [{ title: 'Plan', values: [['Rent', 1200]] }] },
  ]);
  await seedFiles(stack, 'bob@example.com', [
    { name: 'Bob workshop ledger', sheets: [{ title: 'Ledger', values: [['Saw', 80]] }] },
  ]);
  alice = {
    ...(await newPerson(chromium, [BUDGET_APP, NOTEBOOK_APP, new URL(desktopRedirect).origin])),
    email: 'alice@example.com',
  };
}, 120_000);

afterAll(async () => {
  for (const client of Object.values(clients)) await client.close();
  await chromium?.close();
  await stack?.stop();
});

const budget = new RecordingOAuthProvider({
  redirectUrl: `${BUDGET_APP}/oauth/callback`,
  clientName: 'Budget Assistant',
});
const notebook = new RecordingOAuthProvider({
  redirectUrl: `${NOTEBOOK_APP}/oauth/callback`,
  clientName: 'Notebook',
});
let desktop: RecordingOAuthProvider;
const clients: Record<string, Client> = {};

const listSpreadsheets = async (client: Client) =>
  (await client.callTool({ name: 'list_spreadsheets', arguments: {} })) as CallToolResult;
const names = (result: CallToolResult) =>
  (result.structuredContent as { spreadsheets: Array<{ name: string }> }).spreadsheets.map(
    (sheet) => sheet.name,
  );
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

function decodeJwt(token: string) {
  const [header, payload] = token
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
  return { header, payload };
}

/** Until the MCP endpoint refuses this access token (its lifetime plus the 5 s clock tolerance). */
async function untilRefused(accessToken: string): Promise<void> {
  await expect
    .poll(
      async () => (await postToolsList(stack.baseUrl, { authorization: `Bearer ${accessToken}` })).status,
      {
        timeout: 30_000,
        interval: 500,
      },
    )
    .toBe(401);
}

describe.skipIf(Boolean(missing))(
  'the specification’s lifecycle, with the MCP SDK client and a person in Chromium',
  () => {
    it('first OAuth connection: sign-in with Google, consent, PKCE exchange, a resource-bound JWT and a refresh token', async () => {
      const { client, authorization } = await connectThroughBrowser(mcpUrl, budget, alice, watched);
      clients.budget = client;
      expect(authorization?.signInAsked).toBe(true);
      expect(authorization?.consentAsked).toContain('Budget Assistant wants to access your Google Sheets');
      expect(authorization?.consentAsked).toContain('alice@example.com');

      // PKCE: the S256 challenge the browser carried matches the verifier the code was redeemed with.
      const request = budget.authorizationUrl!;
      expect(request.searchParams.get('code_challenge_method')).toBe('S256');
      expect(request.searchParams.get('code_challenge')).toBe(
        createHash('sha256').update(budget.codeVerifier()).digest('base64url'),
      );
      expect(request.searchParams.get('resource')).toBe(mcpUrl);
      expect(answers).toContainEqual({
        path: '/api/auth/oauth2/token',
        status: 200,
        grantType: 'authorization_code',
      });

      const tokens = budget.tokens()!;
      expect(tokens.refresh_token).toEqual(expect.any(String));
      const { header, payload } = decodeJwt(tokens.access_token);
      expect(header).toMatchObject({ typ: 'at+jwt', alg: 'ES256' });
      expect(payload.iss).toBe(stack.baseUrl);
      expect([payload.aud].flat()).toContain(mcpUrl);
      expect(payload.scope.split(' ')).toEqual(expect.arrayContaining(['sheets:read', 'sheets:write']));
      expect(payload.client_id).toBe(budget.clientInformation()!.client_id);

      expect(names(await listSpreadsheets(client))).toEqual(['Alice household plan']);
    });

    it('normal reconnect: a restarted client reuses its tokens, and authorizing again reuses the stored consent', async () => {
      const restarted = await connectThroughBrowser(mcpUrl, budget, alice, watched);
      expect(restarted.authorization).toBeUndefined();
      expect(budget.redirects).toBe(1);
      expect(names(await listSpreadsheets(restarted.client))).toEqual(['Alice household plan']);
      await restarted.client.close();

      // Its tokens are lost (the registration kept): the browser goes straight back to the app.
      budget.invalidateCredentials('tokens');
      const again = await connectThroughBrowser(mcpUrl, budget, alice, watched);
      expect(again.authorization).toMatchObject({ signInAsked: false, consentAsked: undefined });
      expect(again.authorization?.redirect.searchParams.get('code')).toBeTruthy();
      expect(budget.redirects).toBe(2);
      expect(names(await listSpreadsheets(again.client))).toEqual(['Alice household plan']);
      await again.client.close();
    });

    it('normal reconnect, the documented exception: a native client on a loopback redirect is asked to consent every time (RFC 8252 §8.6)', async () => {
      desktop = new RecordingOAuthProvider({ redirectUrl: desktopRedirect, clientName: 'Desktop Assistant' });
      const first = await connectThroughBrowser(mcpUrl, desktop, alice);
      expect(first.authorization?.signInAsked).toBe(false);
      expect(first.authorization?.consentAsked).toContain(
        'Desktop Assistant wants to access your Google Sheets',
      );
      await first.client.close();

      desktop.invalidateCredentials('tokens');
      const again = await connectThroughBrowser(mcpUrl, desktop, alice);
      expect(again.authorization?.consentAsked).toContain(
        'Desktop Assistant wants to access your Google Sheets',
      );
      clients.desktop = again.client;
      expect(names(await listSpreadsheets(again.client))).toEqual(['Alice household plan']);

      clients.notebook = (await connectThroughBrowser(mcpUrl, notebook, alice)).client;
    });

    it('API key revoked on the dashboard: that key stops on the next request; another key and an OAuth client keep working', async () => {
      const keyClient = async (secret: string) => {
        const client = new Client({ name: 'sheetgate-e2e-script', version: '1.0.0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(mcpUrl), {
            requestInit: { headers: { 'x-api-key': secret } },
          }),
        );
        return client;
      };
      const laptopKey = await createKeyInDashboard(alice.page, stack.baseUrl, 'Laptop script');
      const serverKey = await createKeyInDashboard(alice.page, stack.baseUrl, 'Server script');
      clients.laptop = await keyClient(laptopKey);
      clients.server = await keyClient(serverKey);
      expect(names(await listSpreadsheets(clients.laptop))).toEqual(['Alice household plan']);
      expect(names(await listSpreadsheets(clients.server))).toEqual(['Alice household plan']);

      expect(await confirmRowAction(alice.page, stack.baseUrl, 'Laptop script', 'Revoke')).toBe(
        'key_revoked',
      );

      await expect(listSpreadsheets(clients.laptop)).rejects.toMatchObject({ code: 401 });
      const refused = await postToolsList(stack.baseUrl, { 'x-api-key': laptopKey });
      expect(refused.status).toBe(401);
      expect(await refused.text()).not.toContain(laptopKey);
      expect(names(await listSpreadsheets(clients.server))).toEqual(['Alice household plan']);
      expect(names(await listSpreadsheets(clients.budget!))).toEqual(['Alice household plan']);
    });

    it('OAuth client disconnected on the dashboard, or its token revoked at the revocation endpoint: the client must connect again', async () => {
      expect(await confirmRowAction(alice.page, stack.baseUrl, 'Desktop Assistant', 'Disconnect')).toBe(
        'app_disconnected',
      );
      const metadata = await readJson(await fetch(`${stack.baseUrl}/.well-known/oauth-authorization-server`));
      const revoked = await fetch(metadata.revocation_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: notebook.tokens()!.refresh_token!,
          token_type_hint: 'refresh_token',
          client_id: notebook.clientInformation()!.client_id,
        }),
      });
      expect(revoked.status).toBe(200);

      // Access tokens are JWTs the MCP service checks on its own: they live out their short
      // lifetime, and then the refresh that would replace them is refused.
      for (const { name, provider, client } of [
        { name: 'Desktop Assistant', provider: desktop, client: clients.desktop! },
        { name: 'Notebook', provider: notebook, client: clients.notebook! },
      ]) {
        await untilRefused(provider.tokens()!.access_token);
        const redirects = provider.redirects;
        await expect(listSpreadsheets(client)).rejects.toThrow(UnauthorizedError);
        expect(provider.redirects, name).toBe(redirects + 1);
        expect(provider.tokens(), name).toBeUndefined();

        const again = await connectThroughBrowser(mcpUrl, provider, alice);
        expect(again.authorization?.consentAsked, name).toContain(
          `${name} wants to access your Google Sheets`,
        );
        expect(names(await listSpreadsheets(again.client))).toEqual(['Alice household plan']);
        await again.client.close();
      }
    });

    it('access token expires: the client uses its refresh token for a fresh one, without the browser', async () => {
      const before = budget.tokens()!;
      const redirects = budget.redirects;
      await untilRefused(before.access_token);
      answers.length = 0;

      expect(names(await listSpreadsheets(clients.budget!))).toEqual(['Alice household plan']);
      expect(answers).toContainEqual({
        path: '/api/auth/oauth2/token',
        status: 200,
        grantType: 'refresh_token',
      });
      expect(answers.at(-1)).toEqual({ path: '/api/mcp', status: 200 });
      const after = budget.tokens()!;
      expect(after.access_token).not.toBe(before.access_token);
      expect(after.refresh_token).not.toBe(before.refresh_token); // rotated
      expect(budget.redirects).toBe(redirects);
    });

    it('Google refresh token revoked: tools answer authentication required naming the dashboard; "Reconnect Google" there makes them work again', async () => {
      await revokeGoogleGrant(stack, 'alice@example.com');
      answers.length = 0;
      const refused = await listSpreadsheets(clients.budget!);
      expect(answers.at(-1)).toEqual({ path: '/api/mcp', status: 200 });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/authentication required/i);
      expect(text(refused)).toContain(`${stack.baseUrl}/dashboard`);

      const { page } = alice;
      await page.goto(`${stack.baseUrl}/dashboard`);
      const google = page.getByRole('region', { name: 'Google connection' });
      expect(await google.getByText("Google no longer accepts Sheetgate's access").count()).toBe(1);
      await google.getByRole('link', { name: 'Reconnect Google' }).click();
      await page.getByRole('button', { name: 'alice@example.com' }).click();
      await page.waitForURL(`${stack.baseUrl}/dashboard`);
      expect(await google.getByText('Connected as alice@example.com').count()).toBe(1);

      answers.length = 0;
      const restored = await listSpreadsheets(clients.budget!);
      expect(answers.at(-1)).toEqual({ path: '/api/mcp', status: 200 });
      expect(restored.isError).toBeFalsy();
      expect(names(restored)).toEqual(['Alice household plan']);
    });

    it('account switch: sign out on the dashboard, reconnect as the other account, see only their files', async () => {
      const { page } = alice;
      await page.goto(`${stack.baseUrl}/dashboard`);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(/\/login\?signed_out=1/);

      // The same app installed afresh, in the same browser: Sheetgate asks who signs in.
      const bobsApp = new RecordingOAuthProvider({
        redirectUrl: `${BUDGET_APP}/oauth/callback`,
        clientName: 'Budget Assistant',
      });
      const bob = await connectThroughBrowser(mcpUrl, bobsApp, { ...alice, email: 'bob@example.com' });
      expect(bob.authorization?.signInAsked).toBe(true);
      expect(bob.authorization?.consentAsked).toContain('bob@example.com');
      expect(bob.authorization?.consentAsked).not.toContain('alice@example.com');
      const listed = await listSpreadsheets(bob.client);
      expect(names(listed)).toEqual(['Bob workshop ledger']);
      expect(text(listed)).not.toContain('Alice household plan');
      await bob.client.close();

      await page.goto(`${stack.baseUrl}/dashboard`);
      expect(await page.getByText('Connected as bob@example.com').count()).toBe(1);
      expect(await page.locator('tr', { hasText: 'Server script' }).count()).toBe(0);
    });
  },
);
