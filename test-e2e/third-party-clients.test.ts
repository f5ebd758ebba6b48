import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { freePort, type Stack, startStack } from '@sheetgate/test-harness';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFiles } from './support/google-emulator.ts';
import { accountService, createApiKey, signIn } from './support/people.ts';
import {
  authorizeInBrowser,
  chromiumMissing,
  launchBrowser,
  newPerson,
} from './support/person-in-browser.ts';

// MCP clients Sheetgate did not write, run as their users run them, against the whole stack:
// the MCP Inspector's CLI with an API key header, and mcp-remote (the stdio bridge desktop
// clients use) doing the OAuth flow itself, its browser hand-off played by Chromium on the real
// pages. Both are the npm packages as published (devDependencies of this folder).

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'node_modules/.bin');
const missing = chromiumMissing();
if (missing) console.warn(`mcp-remote's browser hand-off skipped: ${missing}`);

let stack: Stack;
let mcpUrl: string;
let chromium: Browser | undefined;
let scratch: string;
let budgetId: string;
/** What the official SDK client sees, to compare the third-party clients' view with. */
let toolNames: string[];

beforeAll(async () => {
  [stack, chromium, scratch] = await Promise.all([
    startStack(),
    missing ? undefined : launchBrowser(),
    mkdtemp(path.join(os.tmpdir(), 'sheetgate-third-party-')),
  ]);
  mcpUrl = `${stack.baseUrl}/api/mcp`;
  const seeded = await seedFiles(stack, 'alice@example.com', [
    {
      name: 'Household budget',
      sheets: [
        {
          title: 'Plan',
          values: [
            ['Item', 'Cost'],
            ['Rent', 1200],
          ],
        },
      ],
    },
  ]);
  budgetId = seeded[0]!;
  const { sessionCookie } = await signIn(stack, 'alice@example.com');
  const probe = new Client({ name: 'sheetgate-e2e', version: '1.0.0' });
  await probe.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { 'x-api-key': (await createApiKey(stack, sessionCookie)).secret } },
    }),
  );
  toolNames = (await probe.listTools()).tools.map((tool) => tool.name);
  await probe.close();
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await stack?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `mcp-inspector --cli` in one-shot JSON mode, with its own HOME and catalog so it reads and
 * writes nothing of the machine's. `--stored-auth-only` keeps it from starting an interactive
 * OAuth sign-in when the server refuses the key: it must fail instead.
 */
function inspector(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      path.join(BIN, 'mcp-inspector'),
      ['--cli', mcpUrl, '--transport', 'http', '--format', 'json', '--stored-auth-only', ...args],
      {
        env: {
          PATH: process.env.PATH,
          HOME: scratch,
          MCP_CATALOG_PATH: path.join(scratch, 'inspector-catalog.json'),
          MCP_CLIENT_CONFIG_PATH: path.join(scratch, 'inspector-client.json'),
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the MCP Inspector CLI with an API key made on the dashboard', { timeout: 60_000 }, () => {
  let key: { id: string; secret: string };
  beforeAll(async () => {
    const { sessionCookie } = await signIn(stack, 'alice@example.com');
    const created = await createApiKey(stack, sessionCookie);
    key = { id: created.key!.id, secret: created.secret };
  });

  it('tools/list: exits 0 and lists the tools the server serves, each with its schemas', async () => {
    const run = await inspector(['--header', `x-api-key: ${key.secret}`, '--method', 'tools/list']);
    expect(run.code, run.stderr).toBe(0);
    const { result } = JSON.parse(run.stdout);
    expect(result.tools.map((tool: { name: string }) => tool.name)).toEqual(toolNames);
    expect(toolNames).toEqual(expect.arrayContaining(['list_spreadsheets', 'read_range', 'write_range']));
    for (const tool of result.tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema.type).toBe('object');
    }
  });

  it('tools/list --strict: no tool schema has a portability problem (nullable types, schemas that accept anything)', async () => {
    const run = await inspector([
      '--header',
      `x-api-key: ${key.secret}`,
      '--method',
      'tools/list',
      '--strict',
    ]);
    // It reports each problem on stderr (and exits 6 for an error-severity one).
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.trim()).toBe('');
    expect(JSON.parse(run.stdout).result.tools.map((tool: { name: string }) => tool.name)).toEqual(toolNames);
  });

  it('tools/call list_spreadsheets: exits 0 with the seeded spreadsheet', async () => {
    const run = await inspector([
      '--header',
      `x-api-key: ${key.secret}`,
      '--method',
      'tools/call',
      '--tool-name',
      'list_spreadsheets',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const { result } = JSON.parse(run.stdout);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.spreadsheets).toEqual([
      expect.objectContaining({ spreadsheetId: budgetId, name: 'Household budget' }),
    ]);
    expect(result.content[0].text).toContain('Household budget');
  });

  it('tools/call with arguments: read_range returns the cells', async () => {
    const run = await inspector([
      '--header',
      `x-api-key: ${key.secret}`,
      '--method',
      'tools/call',
      '--tool-name',
      'read_range',
      '--tool-args-json',
      JSON.stringify({ spreadsheetId: budgetId, range: 'Plan!A1:B2' }),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).result.structuredContent.values).toEqual([
      ['Item', 'Cost'],
      ['Rent', '1200'],
    ]);
  });

  it('an unknown key and a revoked key: exits non-zero with auth_required, the key echoed nowhere', async () => {
    const unknown = `sg_live_${'x'.repeat(40)}`;
    const refused = await inspector(['--header', `x-api-key: ${unknown}`, '--method', 'tools/list']);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(JSON.parse(refused.stderr).error.code).toBe('auth_required');
    expect(refused.stderr).not.toContain(unknown);

    const { sessionCookie } = await signIn(stack, 'alice@example.com');
    const revoked = await createApiKey(stack, sessionCookie);
    const accounts = accountService(stack);
    await accounts.revokeApiKey({ sessionCookie, keyId: revoked.key!.id });
    accounts.close();
    const afterRevoke = await inspector([
      '--header',
      `x-api-key: ${revoked.secret}`,
      '--method',
      'tools/list',
    ]);
    expect(afterRevoke.code).not.toBe(0);
    expect(JSON.parse(afterRevoke.stderr).error.code).toBe('auth_required');
    expect(afterRevoke.stderr).not.toContain(revoked.secret);
  });
});

/** mcp-remote as a desktop client starts it: a stdio server the SDK client talks to. */
function mcpRemote(configDir: string, callbackPort: number) {
  const transport = new StdioClientTransport({
    command: path.join(BIN, 'mcp-remote'),
    args: [mcpUrl, String(callbackPort)],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: configDir,
      MCP_REMOTE_CONFIG_DIR: configDir,
      // Its opener (xdg-open) hands the URL to $BROWSER: /bin/true opens nothing, and the test's
      // Chromium follows the URL mcp-remote prints instead.
      BROWSER: '/bin/true',
    },
    stderr: 'pipe',
  });
  const log: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  /** The authorization URL mcp-remote asks its user to visit. */
  const authorizationUrl = new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no authorization URL:\n${log.join('')}`)), 30_000);
    transport.stderr?.on('data', () => {
      const match = /Please authorize this client by visiting:\s*(\S+)/.exec(log.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(new URL(match[1]!));
      }
    });
  });
  authorizationUrl.catch(() => {});
  return { transport, log, authorizationUrl };
}

describe.skipIf(Boolean(missing))('mcp-remote completing OAuth itself', { timeout: 90_000 }, () => {
  let configDir: string;
  let callbackPort: number;
  beforeAll(async () => {
    configDir = await mkdtemp(path.join(scratch, 'mcp-remote-'));
    callbackPort = await freePort();
  });

  it('registers, sends the person to sign in and consent, gets its code on its loopback port, and calls tools over stdio', async () => {
    const remote = mcpRemote(configDir, callbackPort);
    const client = new Client({ name: 'sheetgate-e2e-desktop', version: '1.0.0' });
    const connected = client.connect(remote.transport);
    connected.catch(() => {});
    const person = await newPerson(chromium!);
    try {
      const authorizationUrl = await remote.authorizationUrl;
      expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(
        `${stack.baseUrl}/api/auth/oauth2/authorize`,
      );
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl);
      const redirectUri = new URL(authorizationUrl.searchParams.get('redirect_uri')!);
      expect(redirectUri.port).toBe(String(callbackPort));

      // Every toolset checked on the consent screen: the proxy then lists every tool.
      const authorization = await authorizeInBrowser(person, authorizationUrl, {
        email: 'alice@example.com',
        toolsets: 'every',
      });
      expect(authorization.signInAsked).toBe(true);
      // mcp-remote registers as "MCP CLI Proxy"; consent names it and its loopback callback.
      expect(authorization.consentAsked).toContain('MCP CLI Proxy wants to access your Google Sheets');
      expect(authorization.consentAsked).toContain(`your browser goes to localhost:${callbackPort}`);
      expect(authorization.redirect.searchParams.get('code')).toBeTruthy();
      await connected;

      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(toolNames);
      const listed = (await client.callTool({ name: 'list_spreadsheets', arguments: {} })) as CallToolResult;
      expect(listed.isError).toBeFalsy();
      expect(listed.structuredContent).toEqual(
        expect.objectContaining({
          spreadsheets: [expect.objectContaining({ spreadsheetId: budgetId, name: 'Household budget' })],
        }),
      );

      // Auth lists it among alice's apps, with mcp-remote's loopback redirect host.
      const accounts = accountService(stack);
      const { sessionCookie } = await signIn(stack, 'alice@example.com');
      const { apps } = await accounts.listConnectedApps({ sessionCookie });
      accounts.close();
      expect(apps.map((app) => app.redirectHost)).toContain(`localhost:${callbackPort}`);
    } finally {
      await client.close();
      await person.context.close();
    }
  });

  it('started again, it reuses its stored tokens: no sign-in, tools work', async () => {
    const remote = mcpRemote(configDir, callbackPort);
    const client = new Client({ name: 'sheetgate-e2e-desktop', version: '1.0.0' });
    try {
      await client.connect(remote.transport);
      const read = (await client.callTool({
        name: 'read_range',
        arguments: { spreadsheetId: budgetId, range: 'Plan!A2:B2' },
      })) as CallToolResult;
      expect(read.isError).toBeFalsy();
      expect(read.structuredContent).toEqual(expect.objectContaining({ values: [['Rent', '1200']] }));
      expect(remote.log.join('')).not.toContain('Please authorize this client');
    } finally {
      await client.close();
    }
  });
});
