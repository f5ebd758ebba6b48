import type { GoogleAccessTokenResult } from '@sheetgate/proto';
import { createTokenBrokerClient, type TokenBrokerClient } from '@sheetgate/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerGoogleAccessTokens } from '../src/auth/broker-clients.ts';
import { edgeGoogleAccessTokens } from '../src/google/edge-google-tokens.ts';
import type { GoogleAccessTokens } from '../src/google/google-access.ts';
import { googlePersons } from '../src/google/google-person.ts';
import { isOutside } from '../src/tools/guards/outside-account.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// Who the person is at Google reaches the MCP service with their access token (issue 37): auth's
// GetGoogleAccessToken answers the account's email and Workspace domain (the verified ID token's
// `hd`), and a replica that keeps the token keeps them with it; the outbound guard judges
// recipients by it. Real auth, mcp and Google emulator processes (the mcp under an operator's
// ceiling that lets shares reach only the person's own domain and partner.example); people signed
// in through the emulator as a browser does it.

let stack: McpUnderTest;
let client: TokenBrokerClient;
let alice: string;
let erin: string;
beforeAll(async () => {
  stack = await startMcpUnderTest({ OUTBOUND_SHARING_DOMAINS: 'partner.example' });
  client = createTokenBrokerClient({ address: stack.grpcAddress, serviceToken: stack.serviceToken });
  ({ userId: alice } = await stack.signIn('alice@example.com'));
  ({ userId: erin } = await stack.signIn('erin@gmail.com'));
});
afterAll(async () => {
  client?.close();
  await stack?.stop();
});

/** The broker, counting its calls. */
function countedBroker(): GoogleAccessTokens & { calls: number } {
  const broker = brokerGoogleAccessTokens(client);
  const counted = {
    calls: 0,
    get(userId: string, options?: { forceRefresh?: boolean }): Promise<GoogleAccessTokenResult> {
      counted.calls += 1;
      return broker.get(userId, options);
    },
  };
  return counted;
}

describe('GetGoogleAccessToken names the Google account', () => {
  it('a Workspace account with its domain, a personal account without one', async () => {
    const broker = countedBroker();
    expect(await broker.get(alice)).toMatchObject({
      ok: true,
      email: 'alice@example.com',
      hostedDomain: 'example.com',
    });
    expect(await broker.get(erin)).toMatchObject({ ok: true, email: 'erin@gmail.com', hostedDomain: '' });
  });
});

describe('googlePersons: the person as the guards read them', () => {
  it('is kept with the token: a replica that keeps it does not ask auth again', async () => {
    const broker = countedBroker();
    const stream = { isCurrent: () => true, onEvent() {}, onResync() {} };
    const tokens = edgeGoogleAccessTokens({ broker, stream });
    const personOf = googlePersons(tokens);
    expect(await personOf(alice)).toEqual({ email: 'alice@example.com', hostedDomain: 'example.com' });
    expect(await personOf(alice)).toEqual({ email: 'alice@example.com', hostedDomain: 'example.com' });
    await tokens.get(alice); // the tool's own Google call
    expect(broker.calls).toBe(1);
    expect(await personOf(erin)).toEqual({ email: 'erin@gmail.com' });
  });

  it('gives isOutside both readings of "outside"', async () => {
    const personOf = googlePersons(countedBroker());
    const workspace = (await personOf(alice))!;
    const personal = (await personOf(erin))!;
    expect(isOutside(workspace, 'bob@example.com')).toBe(false);
    expect(isOutside(workspace, 'erin@gmail.com')).toBe(true);
    expect(isOutside(personal, 'bob@example.com')).toBe(true);
    expect(isOutside(personal, 'Erin@gmail.com')).toBe(false);
  });

  it('is unknown for someone without a Google connection', async () => {
    const personOf = googlePersons(countedBroker());
    expect(await personOf('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });
});

describe('the outbound guard reads the person from their token', () => {
  async function share(userId: string, emailAddress: string) {
    const client = await stack.connectClient(userId, 'person');
    try {
      const created = await client.callTool({ name: 'create_spreadsheet', arguments: { title: 'Plan' } });
      const { spreadsheetId } = created.structuredContent as { spreadsheetId: string };
      const shared = await client.callTool({
        name: 'share_file',
        arguments: { fileId: spreadsheetId, type: 'user', emailAddress, role: 'reader' },
      });
      return { isError: Boolean(shared.isError), text: (shared.content as Array<{ text: string }>)[0]!.text };
    } finally {
      await client.close();
    }
  }

  it('a Workspace person shares within their domain, which the ceiling leaves alone', async () => {
    const shared = await share(alice, 'bob@example.com');
    expect(shared.isError, shared.text).toBe(false);
  });

  it('a personal account sharing with that same address is outbound, beyond the ceiling', async () => {
    const shared = await share(erin, 'bob@example.com');
    expect(shared.isError).toBe(true);
    expect(shared.text).toContain('OUTBOUND_SHARING_DOMAINS');
  });
});
