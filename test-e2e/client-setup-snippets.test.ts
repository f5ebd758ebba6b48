import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type Stack, startStack } from '@sheetgate/test-harness';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typescriptLegacyClient } from './support/era-clients.ts';
import { signIn } from './support/people.ts';
import {
  authorizeInBrowser,
  chromiumMissing,
  launchBrowser,
  newPerson,
} from './support/person-in-browser.ts';
import { ensurePythonMcp } from './support/python-mcp.ts';

// The dashboard's client setup blocks (issue 21), run as a person pastes them, against the whole
// stack: a key is created on the dashboard over HTTP and the blocks are read from the page that
// shows it, then the TypeScript SDK script (node), the Python SDK script (the pinned `mcp` in
// .tools/python-mcp), the MCP Inspector command (bash), the mcp-remote configuration (as a
// desktop client starts it: the command, args and env of the JSON, spoken to over stdio) and the
// curl command (bash) each list the tools the server serves. The OAuth block for mcp-remote, from
// the dashboard's "Connect a client", holds no key: started as pasted, mcp-remote finds Sheetgate's
// authorization server itself and the person signs in and allows it in Chromium. `npx` in the
// blocks is answered from this folder's installed packages (a shim below), never the registry.

const E2E_DIR = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(E2E_DIR, 'node_modules/.bin');
const CURL = '/usr/bin/curl';

let stack: Stack;
let python: string;
let scratch: string;
/** A folder under node_modules, so that a script there imports this folder's packages. */
let scriptDir: string;
/** A PATH whose `npx` runs the locally installed Inspector and mcp-remote. */
let shimPath: string;
/** The blocks' text as the dashboard showed it with the new key, by block id. */
let blocks: Map<string, string>;
/** The OAuth blocks of the dashboard's "Connect a client", by block id. */
let oauthBlocks: Map<string, string>;
let chromium: Browser | undefined;
const missing = chromiumMissing();
if (missing) console.warn(`the OAuth block's browser sign-in skipped: ${missing}`);
let secret: string;
/** What the official SDK lists with the same key, to compare every snippet's list with. */
let toolNames: string[];

/** The text of an element as a browser reads it (the page escapes with these entities). */
const decode = (markup: string) =>
  markup
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, decimal: string) => String.fromCodePoint(Number(decimal)))
    .replaceAll('&quot;', '"')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

/** Creates a key with the dashboard's form, as a browser without JavaScript does; the page it answers. */
async function createKeyOnDashboard(): Promise<{ dashboard: string; created: string }> {
  const { browser } = await signIn(stack, 'alice@example.com');
  const dashboard = await browser.navigate(`${stack.baseUrl}/dashboard`);
  const form = /<form method="post" action="\/dashboard\/api-keys"[\s\S]*?<\/form>/.exec(dashboard.body)?.[0];
  if (!form) throw new Error('no Create API key form on the dashboard');
  // What the form sends as the page checks it (tokens, the toolset boxes), with a name typed in.
  const fields: Array<[string, string]> = [
    ['name', 'Pasted snippets'],
    ['expires', 'never'],
  ];
  for (const [input] of form.matchAll(/<input\b[^>]*>/g)) {
    const name = /\bname="([^"]*)"/.exec(input)?.[1];
    const type = /\btype="([^"]*)"/.exec(input)?.[1] ?? 'text';
    const value = decode(/\bvalue="([^"]*)"/.exec(input)?.[1] ?? '');
    if (!name || name === 'name' || ((type === 'checkbox' || type === 'radio') && !/\schecked\b/.test(input)))
      continue;
    if (type !== 'date') fields.push([name, value]);
  }
  const created = await browser.request(`${stack.baseUrl}/dashboard/api-keys`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: stack.baseUrl,
      'sec-fetch-site': 'same-origin',
    },
    body: new URLSearchParams(fields).toString(),
  });
  if (created.status !== 201) throw new Error(`creating a key answered ${created.status}`);
  return { dashboard: dashboard.body, created: created.body };
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function runFile(
  file: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string },
): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { ...options, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

/** Tool names a script printed, one a line. */
const printedNames = (stdout: string) => stdout.split('\n').filter(Boolean);

/** A JSON-RPC answer from a JSON body or an SSE stream's data lines. */
const rpcAnswer = (body: string) =>
  JSON.parse(
    body.trimStart().startsWith('{')
      ? body
      : body
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5))
          .join(''),
  );

beforeAll(async () => {
  [stack, python, scratch, scriptDir] = await Promise.all([
    startStack(),
    ensurePythonMcp(),
    mkdtemp(path.join(os.tmpdir(), 'sheetgate-client-setup-')),
    mkdtemp(path.join(E2E_DIR, 'node_modules', '.client-setup-')),
  ]);
  const { dashboard, created: page } = await createKeyOnDashboard();
  const preBlocks = (markup: string, prefix: string) =>
    new Map(
      [...markup.matchAll(new RegExp(`<pre id="${prefix}-([\\w-]+)"[^>]*>([\\s\\S]*?)</pre>`, 'g'))].map(
        (match) => [match[1]!, decode(match[2]!)],
      ),
    );
  blocks = preBlocks(page, 'new-key');
  oauthBlocks = preBlocks(dashboard, 'setup-oauth');
  if (!missing) chromium = await launchBrowser();
  secret = decode(/data-testid="new-api-key">([^<]+)</.exec(page)![1]!);
  expect(secret).toMatch(/^sg_live_/);

  const shims = path.join(scratch, 'bin');
  await mkdir(shims);
  await writeFile(
    path.join(shims, 'npx'),
    `#!/bin/sh
case "$1" in
  @modelcontextprotocol/inspector) shift; exec "${BIN}/inspector" "$@" ;;
  mcp-remote) shift; exec "${BIN}/mcp-remote" "$@" ;;
  *) echo "npx shim: no local package $1" >&2; exit 127 ;;
esac
`,
  );
  await chmod(path.join(shims, 'npx'), 0o755);
  shimPath = `${shims}:${process.env.PATH}`;

  const reference = await typescriptLegacyClient(`${stack.baseUrl}/api/mcp`, { 'x-api-key': secret });
  toolNames = (await reference.listTools()).map((tool) => tool.name);
  await reference.close();
  expect(toolNames).toEqual(expect.arrayContaining(['list_spreadsheets', 'read_range', 'write_range']));
}, 600_000);

afterAll(async () => {
  await chromium?.close();
  await stack?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
  if (scriptDir) await rm(scriptDir, { recursive: true, force: true });
});

describe('the blocks the dashboard shows with a new key, run as pasted', { timeout: 90_000 }, () => {
  it('the page has every block, each with the key', () => {
    expect([...blocks.keys()]).toEqual([
      'claude-code',
      'vscode',
      'cursor',
      'mcp-remote',
      'inspector',
      'python',
      'typescript',
      'curl',
    ]);
    for (const [id, text] of blocks) expect(text, id).toContain(secret);
  });

  it('TypeScript SDK: the script, run with node, prints every tool', async () => {
    const file = path.join(scriptDir, 'list-tools.mjs');
    await writeFile(file, blocks.get('typescript')!);
    const run = await runFile(process.execPath, [file], { env: { PATH: process.env.PATH } });
    expect(run.code, run.stderr).toBe(0);
    expect(printedNames(run.stdout)).toEqual(toolNames);
  });

  it('Python SDK: the script, run with the pinned mcp package, prints every tool', async () => {
    const file = path.join(scratch, 'list_tools.py');
    await writeFile(file, blocks.get('python')!);
    const run = await runFile(python, [file], { env: { PATH: process.env.PATH } });
    expect(run.code, run.stderr).toBe(0);
    expect(printedNames(run.stdout)).toEqual(toolNames);
  });

  it('MCP Inspector: the command, run in bash, exits 0 and lists every tool', async () => {
    const home = await mkdtemp(path.join(scratch, 'inspector-'));
    const run = await runFile('bash', ['-c', blocks.get('inspector')!], {
      env: {
        PATH: shimPath,
        HOME: home,
        MCP_CATALOG_PATH: path.join(home, 'catalog.json'),
        MCP_CLIENT_CONFIG_PATH: path.join(home, 'client.json'),
        BROWSER: '/bin/true',
      },
    });
    expect(run.code, run.stderr).toBe(0);
    for (const name of toolNames) expect(run.stdout).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it('mcp-remote: the configuration, started as a desktop client starts it, serves every tool over stdio', async () => {
    const server = JSON.parse(blocks.get('mcp-remote')!).mcpServers.sheetgate as {
      command: string;
      args: string[];
      env: Record<string, string>;
    };
    expect(server.command).toBe('npx');
    const home = await mkdtemp(path.join(scratch, 'mcp-remote-'));
    const transport = new StdioClientTransport({
      command: path.join(scratch, 'bin', server.command),
      args: server.args,
      env: {
        ...server.env,
        PATH: shimPath,
        HOME: home,
        MCP_REMOTE_CONFIG_DIR: home,
        // Were the key refused, mcp-remote would start OAuth: nothing opens (see askedForOAuth).
        BROWSER: '/bin/true',
      },
      stderr: 'pipe',
    });
    const log: string[] = [];
    // A refused key shows as mcp-remote asking for OAuth: fail then, not at the test's timeout.
    const askedForOAuth = new Promise<never>((_, reject) =>
      transport.stderr?.on('data', (chunk: Buffer) => {
        log.push(chunk.toString());
        if (log.join('').includes('Please authorize this client'))
          reject(new Error(`mcp-remote fell back to OAuth:\n${log.join('')}`));
      }),
    );
    askedForOAuth.catch(() => {});
    const client = new Client({ name: 'sheetgate-e2e-desktop', version: '1.0.0' });
    try {
      await Promise.race([client.connect(transport), askedForOAuth]);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(toolNames);
      expect(log.join('')).not.toContain('Please authorize this client');
      expect(log.join('')).not.toContain(secret);
    } finally {
      await client.close();
    }
  });

  it.skipIf(!existsSync(CURL))(
    'curl: the command, run in bash, answers tools/list with every tool',
    async () => {
      const run = await runFile('bash', ['-c', blocks.get('curl')!], { env: { PATH: process.env.PATH } });
      expect(run.code, run.stderr).toBe(0);
      const answer = rpcAnswer(run.stdout);
      expect((answer.result.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(toolNames);
    },
  );
});

describe.skipIf(Boolean(missing))(
  'the OAuth block for mcp-remote, run as pasted',
  { timeout: 90_000 },
  () => {
    it('no key in it; mcp-remote signs in through the browser (Sheetgate’s OAuth discovery) and serves every tool', async () => {
      const server = JSON.parse(oauthBlocks.get('mcp-remote')!).mcpServers.sheetgate as {
        command: string;
        args: string[];
        env?: Record<string, string>;
      };
      expect(server).toEqual({ command: 'npx', args: ['mcp-remote', `${stack.baseUrl}/api/mcp`] });
      const home = await mkdtemp(path.join(scratch, 'mcp-remote-oauth-'));
      const transport = new StdioClientTransport({
        command: path.join(scratch, 'bin', server.command),
        args: server.args,
        // Its opener hands the URL to $BROWSER: /bin/true opens nothing; Chromium follows the URL it prints.
        env: { PATH: shimPath, HOME: home, MCP_REMOTE_CONFIG_DIR: home, BROWSER: '/bin/true' },
        stderr: 'pipe',
      });
      const log: string[] = [];
      const authorizationUrl = new Promise<URL>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no authorization URL:\n${log.join('')}`)), 30_000);
        transport.stderr?.on('data', (chunk: Buffer) => {
          log.push(chunk.toString());
          const match = /Please authorize this client by visiting:\s*(\S+)/.exec(log.join(''));
          if (match) {
            clearTimeout(timer);
            resolve(new URL(match[1]!));
          }
        });
      });
      authorizationUrl.catch(() => {});
      const client = new Client({ name: 'sheetgate-e2e-desktop', version: '1.0.0' });
      const connected = client.connect(transport);
      connected.catch(() => {});
      const person = await newPerson(chromium!);
      try {
        const authorization = await authorizeInBrowser(person, await authorizationUrl, {
          email: 'alice@example.com',
        });
        expect(authorization.redirect.searchParams.get('code')).toBeTruthy();
        await connected;
        // The consent screen's default toolsets are the key form's: the same tools as the key's.
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(toolNames);
      } finally {
        await client.close();
        await person.context.close();
      }
    });
  },
);
