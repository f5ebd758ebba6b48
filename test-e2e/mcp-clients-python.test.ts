import { execFile } from 'node:child_process';
import path from 'node:path';
import { repoRoot, type Stack, startStack } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EraClient, typescriptLegacyClient } from './support/era-clients.ts';
import { eraScenario, LEGACY_VERSION, MODERN_VERSION, type ScenarioContext } from './support/era-scenario.ts';
import { connectWithOAuth, RecordingOAuthProvider } from './support/oauth-client.ts';
import { createApiKey, signIn } from './support/people.ts';
import { ensurePythonMcp, pythonClient, runSessionScript } from './support/python-mcp.ts';

// Sheetgate's /api/mcp driven by the Python MCP SDK (`mcp` from PyPI, pinned in
// test-e2e/clients/requirements.txt, installed into .tools/python-mcp by
// scripts/bootstrap-python-mcp.sh) in both protocol eras (issue 16): pinned to 2026-07-28 with an
// API key, and `mode="legacy"` (initialize at 2025-11-25) with an OAuth access token.

const EMAIL = 'alice@example.com';
let stack: Stack;
let python: string;
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
  // A first run on a machine installs the SDK from PyPI: minutes, not the usual hook limit.
  [python, stack] = await Promise.all([ensurePythonMcp(), startStack()]);
  mcpUrl = `${stack.baseUrl}/api/mcp`;
  const { sessionCookie, browser } = await signIn(stack, EMAIL);
  apiKey = (await createApiKey(stack, sessionCookie)).secret;
  const oauth = new RecordingOAuthProvider();
  await (await connectWithOAuth(stack, oauth, { browser, email: EMAIL })).close();
  accessToken = oauth.tokens()!.access_token;
  observer = await typescriptLegacyClient(mcpUrl, { 'x-api-key': apiKey });
}, 600_000);

afterAll(async () => {
  await observer?.close();
  await stack?.stop();
});

eraScenario('Python SDK, 2026-07-28, API key', 'modern', context, () =>
  pythonClient(python, mcpUrl, { apiKey }, 'modern'),
);

eraScenario('Python SDK, mode="legacy" (initialize, 2025-11-25), OAuth access token', 'legacy', context, () =>
  pythonClient(python, mcpUrl, { bearerToken: accessToken }, 'legacy'),
);

describe('Python SDK connecting', () => {
  it('pinned to 2026-07-28: server/discover offers 2026-07-28, and no initialize is sent', async () => {
    const client = await pythonClient(python, mcpUrl, { apiKey }, 'modern');
    try {
      expect(client.connected.protocolVersion).toBe(MODERN_VERSION);
      expect(client.connected.discover?.supportedVersions).toContain(MODERN_VERSION);
      const posts = (await client.requests()).filter((request) => request.httpMethod === 'POST');
      expect(posts.map((request) => request.method)).toEqual(['server/discover']);
    } finally {
      await client.close();
    }
  });

  it('mode="legacy": initialize negotiates 2025-11-25', async () => {
    const client = await pythonClient(python, mcpUrl, { apiKey }, 'legacy');
    try {
      expect(client.connected.protocolVersion).toBe(LEGACY_VERSION);
      expect((await client.requests())[0]!.method).toBe('initialize');
    } finally {
      await client.close();
    }
  });

  it('a refused credential: the session does not open, and the script says why without echoing it', async () => {
    const wrong = `sg_live_${'x'.repeat(40)}`;
    const refused = pythonClient(python, mcpUrl, { apiKey: wrong }, 'modern');
    await expect(refused).rejects.toThrow(/could not connect: .*server\/discover → 401/);
    await expect(refused).rejects.not.toThrow(wrong);
  });
});

describe('mcp_session.py with bad settings: a clear refusal before any request, the credential echoed nowhere', () => {
  it('an unknown era', async () => {
    const run = await runSessionScript(python, {
      SHEETGATE_MCP_URL: mcpUrl,
      SHEETGATE_MCP_ERA: '2025-11-25',
      SHEETGATE_API_KEY: apiKey,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("SHEETGATE_MCP_ERA must be modern or legacy, not '2025-11-25'");
    expect(run.stdout + run.stderr).not.toContain(apiKey);
  });

  it('no credential, and two at once', async () => {
    const none = await runSessionScript(python, { SHEETGATE_MCP_URL: mcpUrl, SHEETGATE_MCP_ERA: 'modern' });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('set exactly one of SHEETGATE_API_KEY and SHEETGATE_BEARER_TOKEN');
    const both = await runSessionScript(python, {
      SHEETGATE_MCP_URL: mcpUrl,
      SHEETGATE_MCP_ERA: 'modern',
      SHEETGATE_API_KEY: apiKey,
      SHEETGATE_BEARER_TOKEN: accessToken,
    });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('set exactly one of SHEETGATE_API_KEY and SHEETGATE_BEARER_TOKEN');
    expect(both.stdout + both.stderr).not.toContain(apiKey);
    expect(both.stdout + both.stderr).not.toContain(accessToken);
  });

  it('a tool that does not exist: the server error reaches the test, and the session goes on', async () => {
    const client = await pythonClient(python, mcpUrl, { apiKey }, 'modern');
    try {
      await expect(client.call('no_such_tool', {})).rejects.toThrow(/-32602.*no_such_tool/);
      expect((await client.listTools()).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});

it('scripts/bootstrap-python-mcp.sh without a usable Python says what to install, and touches no environment', async () => {
  const run = await new Promise<{ code: number; stderr: string }>((resolve) =>
    execFile(
      'bash',
      [path.join(repoRoot, 'scripts/bootstrap-python-mcp.sh')],
      { env: { PATH: process.env.PATH ?? '', PYTHON: '/nonexistent/python3' } },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    ),
  );
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('needs Python >= 3.10 with venv and ensurepip as /nonexistent/python3');
  expect(run.stderr).toContain('apt-get install python3-venv');
  // The environment made in beforeAll is still the one in use.
  expect((await runSessionScript(python, {})).stderr).toContain('set SHEETGATE_MCP_URL to the MCP endpoint');
});
