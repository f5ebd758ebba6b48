import { type Stack, startStack } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EraClient, typescriptLegacyClient, typescriptModernClient } from './support/era-clients.ts';
import { eraScenario, MODERN_VERSION, type ScenarioContext } from './support/era-scenario.ts';
import { connectWithOAuth, RecordingOAuthProvider } from './support/oauth-client.ts';
import { createApiKey, signIn } from './support/people.ts';

// Sheetgate's /api/mcp driven by the official TypeScript MCP clients in both protocol eras
// (issue 16): SDK v2 (@modelcontextprotocol/client) pinned to 2026-07-28 — no initialize,
// _meta on every request, confirmations through elicitation — with an OAuth access token, and
// SDK 1.x (@modelcontextprotocol/sdk) with initialize at 2025-11-25 and an API key.

const EMAIL = 'alice@example.com';
let stack: Stack;
let mcpUrl: string;
let apiKey: string;
let accessToken: string;
/** An SDK 1.x client, not under test, that reads which tabs a workbook has. */
let observer: EraClient;

const context = (): ScenarioContext => ({
  stack,
  email: EMAIL,
  async tabTitles(spreadsheetId) {
    const { result } = await observer.call('get_spreadsheet', { spreadsheetId });
    const sheets = result.structuredContent?.sheets as Array<{ title: string; sheetId: number }>;
    return new Map(sheets.map((sheet) => [sheet.title, sheet.sheetId]));
  },
});

beforeAll(async () => {
  stack = await startStack();
  mcpUrl = `${stack.baseUrl}/api/mcp`;
  const { sessionCookie, browser } = await signIn(stack, EMAIL);
  apiKey = (await createApiKey(stack, sessionCookie)).secret;
  const oauth = new RecordingOAuthProvider();
  await (await connectWithOAuth(stack, oauth, { browser, email: EMAIL })).close();
  accessToken = oauth.tokens()!.access_token;
  observer = await typescriptLegacyClient(mcpUrl, { 'x-api-key': apiKey });
}, 120_000);

afterAll(async () => {
  await observer?.close();
  await stack?.stop();
});

eraScenario('TypeScript SDK v2, 2026-07-28, OAuth access token', 'modern', context, () =>
  typescriptModernClient(mcpUrl, { authorization: `Bearer ${accessToken}` }),
);

eraScenario('TypeScript SDK 1.x, 2025-11-25 (initialize), API key', 'legacy', context, () =>
  typescriptLegacyClient(mcpUrl, { 'x-api-key': apiKey }),
);

describe('TypeScript SDK v2 connecting', () => {
  it('pinned to 2026-07-28, it connects through server/discover alone', async () => {
    const client = await typescriptModernClient(mcpUrl, { 'x-api-key': apiKey });
    try {
      const posts = (await client.requests()).filter((request) => request.httpMethod === 'POST');
      expect(posts.map((request) => request.method)).toEqual(['server/discover']);
      expect(posts[0]!.protocolVersionHeader).toBe(MODERN_VERSION);
    } finally {
      await client.close();
    }
  });
});
