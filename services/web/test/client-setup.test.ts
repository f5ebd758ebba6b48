import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parse } from 'node-html-parser';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_PLACEHOLDER,
  type ClientSetupCredential,
  clientSetupBlocks,
  clientSetupList,
} from '../src/html/client-setup.ts';

// The client setup blocks as text (services/web/src/html/client-setup.ts): each client's format,
// the key (or placeholder, or nothing for OAuth) where it goes, and a base URL that is
// configuration kept intact through JSON, Python, JavaScript and shell quoting and HTML escaping.
// test-e2e/client-setup-snippets.test.ts runs the blocks against a stack; this file checks their
// shape without one.

const run = promisify(execFile);
const ENDPOINT = 'https://sheets.example.com/api/mcp';
const KEY = `sg_live_${'A1b2-_'.repeat(7)}`;
const byId = (credential: ClientSetupCredential, endpoint = ENDPOINT) =>
  new Map(clientSetupBlocks({ endpoint, credential }).map((block) => [block.id, block]));

/** The argv bash makes of a shell block, with the command swapped for a printer of its arguments. */
async function shellArgv(command: string, program: string): Promise<string[]> {
  expect(command.startsWith(`${program} `)).toBe(true);
  const { stdout } = await run('bash', [
    '-c',
    `argv() { printf '%s\\0' "$@"; }; argv ${command.slice(program.length + 1)}`,
  ]);
  return stdout.split('\0').slice(0, -1);
}

describe('client setup blocks with a new key', () => {
  const blocks = byId({ apiKey: KEY });

  it('has a block per client, the key in every one, a Copy label naming the client', () => {
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
    for (const block of blocks.values()) {
      expect(block.text, block.id).toContain(KEY);
      expect(block.text, block.id).toContain(ENDPOINT);
      expect(block.copyLabel).toMatch(new RegExp(`^Copy ${block.client} `));
    }
  });

  it('Claude Code: claude mcp add --transport http sheetgate <url> --header "x-api-key: <key>"', async () => {
    expect(await shellArgv(blocks.get('claude-code')!.text, 'claude')).toEqual([
      'mcp',
      'add',
      '--transport',
      'http',
      'sheetgate',
      ENDPOINT,
      '--header',
      `x-api-key: ${KEY}`,
    ]);
  });

  it('VS Code: "servers" with type http and the header; Cursor: "mcpServers" with url and the header', () => {
    expect(JSON.parse(blocks.get('vscode')!.text)).toEqual({
      servers: { sheetgate: { type: 'http', url: ENDPOINT, headers: { 'x-api-key': KEY } } },
    });
    expect(JSON.parse(blocks.get('cursor')!.text)).toEqual({
      mcpServers: { sheetgate: { url: ENDPOINT, headers: { 'x-api-key': KEY } } },
    });
  });

  it('mcp-remote: npx mcp-remote <url> --header naming an env variable, the key in that env', () => {
    expect(JSON.parse(blocks.get('mcp-remote')!.text)).toEqual({
      mcpServers: {
        sheetgate: {
          command: 'npx',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote substitutes it from env
          args: ['mcp-remote', ENDPOINT, '--header', 'x-api-key:${SHEETGATE_API_KEY}'],
          env: { SHEETGATE_API_KEY: KEY },
        },
      },
    });
  });

  it('mcp-remote is told --allow-http for plain http beyond localhost, as it requires', () => {
    const args = (endpoint: string) =>
      JSON.parse(byId({ apiKey: KEY }, endpoint).get('mcp-remote')!.text).mcpServers.sheetgate.args;
    expect(args('http://sheets.internal:8080/api/mcp')).toContain('--allow-http');
    expect(args('http://localhost:8080/api/mcp')).not.toContain('--allow-http');
    expect(args('http://127.0.0.1:8080/api/mcp')).not.toContain('--allow-http');
    expect(args(ENDPOINT)).not.toContain('--allow-http');
  });

  it('MCP Inspector: --cli <url> --transport http --header "x-api-key: <key>" --method tools/list', async () => {
    expect(await shellArgv(blocks.get('inspector')!.text, 'npx')).toEqual([
      '@modelcontextprotocol/inspector',
      '--cli',
      ENDPOINT,
      '--transport',
      'http',
      '--header',
      `x-api-key: ${KEY}`,
      '--method',
      'tools/list',
    ]);
  });

  it('curl: a tools/list POST with the MCP headers and the key', async () => {
    const argv = await shellArgv(blocks.get('curl')!.text, 'curl');
    expect(argv[0]).toBe(ENDPOINT);
    expect(argv.slice(1)).toEqual([
      '-H',
      'content-type: application/json',
      '-H',
      'accept: application/json, text/event-stream',
      '-H',
      'mcp-protocol-version: 2025-11-25',
      '-H',
      `x-api-key: ${KEY}`,
      '-d',
      '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    ]);
  });

  it('the SDK scripts hold the URL and key as string literals', () => {
    const python = blocks.get('python')!.text;
    expect(python).toContain(`URL = "${ENDPOINT}"`);
    expect(python).toContain(`API_KEY = "${KEY}"`);
    expect(python).toContain('from mcp import Client');
    const typescript = blocks.get('typescript')!.text;
    expect(typescript).toContain(`new URL("${ENDPOINT}")`);
    expect(typescript).toContain(`"x-api-key": "${KEY}"`);
    expect(typescript).toContain('from "@modelcontextprotocol/client"');
  });
});

describe('client setup blocks without a key', () => {
  it('placeholder: every block has the placeholder where the key goes, but VS Code prompts for it', () => {
    const blocks = byId('api-key-placeholder');
    expect(blocks.size).toBe(8);
    for (const block of blocks.values()) {
      expect(block.text, block.id).not.toMatch(/sg_live_/);
      if (block.id !== 'vscode') expect(block.text, block.id).toContain(API_KEY_PLACEHOLDER);
    }
    expect(JSON.parse(blocks.get('vscode')!.text)).toEqual({
      inputs: [
        { type: 'promptString', id: 'sheetgate-api-key', description: 'Sheetgate API key', password: true },
      ],
      servers: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code substitutes its input
        sheetgate: { type: 'http', url: ENDPOINT, headers: { 'x-api-key': '${input:sheetgate-api-key}' } },
      },
    });
  });

  it('OAuth: the clients that sign in themselves, with the URL and no key or header at all', async () => {
    const blocks = byId('oauth');
    expect([...blocks.keys()]).toEqual(['claude-code', 'vscode', 'cursor', 'mcp-remote', 'inspector']);
    for (const block of blocks.values()) {
      expect(block.text, block.id).toContain(ENDPOINT);
      expect(block.text.toLowerCase(), block.id).not.toContain('x-api-key');
      expect(block.text, block.id).not.toContain(API_KEY_PLACEHOLDER);
    }
    expect(JSON.parse(blocks.get('vscode')!.text)).toEqual({
      servers: { sheetgate: { type: 'http', url: ENDPOINT } },
    });
    expect(JSON.parse(blocks.get('cursor')!.text)).toEqual({ mcpServers: { sheetgate: { url: ENDPOINT } } });
    expect(JSON.parse(blocks.get('mcp-remote')!.text)).toEqual({
      mcpServers: { sheetgate: { command: 'npx', args: ['mcp-remote', ENDPOINT] } },
    });
    expect(await shellArgv(blocks.get('claude-code')!.text, 'claude')).toEqual([
      'mcp',
      'add',
      '--transport',
      'http',
      'sheetgate',
      ENDPOINT,
    ]);
  });
});

describe('a base URL with characters that mean something to JSON, shells, Python and HTML', () => {
  // BASE_URL is configuration: nothing in it may break out of any block's quoting.
  const endpoint = `https://example.com/x'y"z$(touch /tmp/pwned)\`id\`<b>&amp;\\/api/mcp`;
  const blocks = byId({ apiKey: KEY }, endpoint);

  it('JSON blocks parse to the URL as given', () => {
    expect(JSON.parse(blocks.get('vscode')!.text).servers.sheetgate.url).toBe(endpoint);
    expect(JSON.parse(blocks.get('cursor')!.text).mcpServers.sheetgate.url).toBe(endpoint);
    expect(JSON.parse(blocks.get('mcp-remote')!.text).mcpServers.sheetgate.args[1]).toBe(endpoint);
  });

  it('shell blocks pass the URL as one word, run nothing', async () => {
    expect((await shellArgv(blocks.get('claude-code')!.text, 'claude'))[5]).toBe(endpoint);
    expect((await shellArgv(blocks.get('inspector')!.text, 'npx'))[2]).toBe(endpoint);
    expect((await shellArgv(blocks.get('curl')!.text, 'curl'))[0]).toBe(endpoint);
  });

  it('the Python and JavaScript string literals evaluate to the URL', async () => {
    const python = blocks
      .get('python')!
      .text.split('\n')
      .find((line) => line.startsWith('URL = '))!;
    const { stdout } = await run('python3', ['-c', `${python}\nprint(URL, end="")`]);
    expect(stdout).toBe(endpoint);
    const javascript = blocks
      .get('typescript')!
      .text.split('\n')
      .find((line) => line.startsWith('const url'))!;
    expect(new Function(`${javascript.replace('new URL(', 'String(')} return url;`)()).toBe(endpoint);
  });

  it('the page markup escapes it: each <pre> reads back as the block text', () => {
    const page = parse(clientSetupList([...blocks.values()], 'test').toString());
    expect(page.querySelectorAll('b')).toHaveLength(0);
    for (const block of blocks.values())
      expect(page.querySelector(`#test-${block.id}`)!.text).toBe(block.text);
    const button = page.querySelector('button[data-copy="test-curl"]')!;
    expect(button.getAttribute('aria-label')).toBe('Copy curl command');
    expect(button.getAttribute('data-status')).toBe('test-curl-status');
  });
});
