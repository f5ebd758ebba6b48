import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createBrowser, type Stack, startStack } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectWithOAuth, RecordingOAuthProvider } from './support/oauth-client.ts';
import { accountService } from './support/people.ts';

// The seed's observable lifecycle with an interactive MCP client: the official SDK client doing
// OAuth (discovery, registration, PKCE, refresh) against the whole stack, a person in a browser
// signing in with Google at the emulator. Access tokens live 10 s here so expiry is observable
// (waits are 16 s: the lifetime plus the resource server's 5 s clock tolerance).

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ ACCESS_TOKEN_TTL_SECONDS: '10' });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('an MCP client connecting with OAuth', () => {
  const provider = new RecordingOAuthProvider();
  const person = { browser: createBrowser(), email: 'alice@example.com' };

  it('first connection: sign-in with Google, consent, PKCE, a resource-bound JWT and a refresh token', async () => {
    const client = await connectWithOAuth(stack, provider, person);
    expect(provider.redirects).toBe(1);
    expect(provider.tokens()?.refresh_token).toEqual(expect.any(String));
    const created = (await client.callTool({
      name: 'create_spreadsheet',
      arguments: { title: 'Alice via OAuth' },
    })) as CallToolResult;
    expect(created.isError).toBeFalsy();
    await client.close();
  });

  it('access-token expiry: the client refreshes by itself and keeps working', async () => {
    const before = provider.tokens()!.access_token;
    await new Promise((resolve) => setTimeout(resolve, 16_000));
    const client = await connectWithOAuth(stack, provider, person);
    const listed = (await client.callTool({ name: 'list_spreadsheets', arguments: {} })) as CallToolResult;
    expect(text(listed)).toContain('Alice via OAuth');
    expect(provider.tokens()!.access_token).not.toBe(before);
    expect(provider.redirects).toBe(1); // no new browser visit
    await client.close();
  }, 30_000);

  it('disconnected in the dashboard: the refresh fails and the client must connect again', async () => {
    const session = (await person.browser.jar.getCookies(stack.baseUrl)).find(
      (cookie) => cookie.key === 'sg_session',
    )!;
    const accounts = accountService(stack);
    const { apps } = await accounts.listConnectedApps({ sessionCookie: session.value });
    expect(apps.map((app) => app.clientName)).toContain('E2E desktop client');
    for (const app of apps)
      await accounts.disconnectApp({ sessionCookie: session.value, clientId: app.clientId });
    accounts.close();
    await new Promise((resolve) => setTimeout(resolve, 16_000));
    const client = await connectWithOAuth(stack, provider, person);
    expect(provider.redirects).toBe(2); // back to the browser once
    expect(
      ((await client.callTool({ name: 'list_spreadsheets', arguments: {} })) as CallToolResult).isError,
    ).toBeFalsy();
    await client.close();
  }, 40_000);

  it('account switch: sign out, connect as someone else, see only their files', async () => {
    const session = (await person.browser.jar.getCookies(stack.baseUrl)).find(
      (cookie) => cookie.key === 'sg_session',
    )!;
    const accounts = accountService(stack);
    const { signOutCsrfToken } = await accounts.getSession({ sessionCookie: session.value });
    accounts.close();
    const signedOut = await person.browser.submitForm(`${stack.baseUrl}/api/auth/sign-out`, {
      csrf: signOutCsrfToken,
    });
    expect(signedOut.status).toBe(303);

    const bobProvider = new RecordingOAuthProvider();
    const bob = await connectWithOAuth(stack, bobProvider, {
      browser: person.browser,
      email: 'bob@example.com',
    });
    const listed = (await bob.callTool({ name: 'list_spreadsheets', arguments: {} })) as CallToolResult;
    expect(listed.isError).toBeFalsy();
    expect(text(listed)).not.toContain('Alice via OAuth');
    await bob.close();
  });
});
