import { html, type SafeHtml } from './html.ts';

/**
 * Ready-to-paste setup for the MCP clients people use, filled with this deployment's `/api/mcp`
 * URL: with a new API key (shown once, with the key), with a placeholder where a key goes, or
 * for OAuth (no key: the client finds Sheetgate's authorization server through the endpoint's
 * protected-resource metadata and asks the person in their browser).
 *
 * Every block is built as text and only then escaped by the page's `html` tag. Values go in
 * through the quoting of the language the block is in, because the base URL is configuration:
 * JSON blocks are `JSON.stringify`, Python and JavaScript string literals are JSON strings (valid
 * literals in both), shell words are single-quoted when they hold anything beyond plain URL
 * characters. The key itself is URL-safe base64 behind a prefix.
 */

/** What stands where a key goes, when no key is on the page. */
export const API_KEY_PLACEHOLDER = 'YOUR_SHEETGATE_API_KEY';

/** The server's name in every client configuration. */
const SERVER_NAME = 'sheetgate';

/** mcp-remote's header, its value filled in by mcp-remote itself from the block's `env`. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote's own ${VAR} substitution, as its README writes it
const MCP_REMOTE_KEY_HEADER = 'x-api-key:${SHEETGATE_API_KEY}';

/** VS Code's prompt for the key (its `inputs`), used by the placeholder variant. */
const VSCODE_KEY_INPUT = 'sheetgate-api-key';

/** A handshake-era revision: a lone `tools/list` needs no `initialize` and no `_meta` there. */
const CURL_PROTOCOL_VERSION = '2025-11-25';

export type ClientSetupCredential =
  /** A key just created: it is written into every block. */
  | { apiKey: string }
  /** Blocks for a key the person has: a placeholder (VS Code prompts for it instead). */
  | 'api-key-placeholder'
  /** No key: the client signs in with OAuth. Scripts (SDKs, curl) have no OAuth block. */
  | 'oauth';

export type ClientSetupLanguage = 'shell' | 'json' | 'python' | 'javascript';

export interface ClientSetupBlock {
  /** Stable per client: `claude-code`, `vscode`, `cursor`, `mcp-remote`, `inspector`, `python`, `typescript`, `curl`. */
  id: string;
  /** The client as people call it, for the block's heading and its Copy button's name. */
  client: string;
  language: ClientSetupLanguage;
  /** Where the text goes ("Run in a terminal", "In `~/.cursor/mcp.json`"). */
  where: string;
  /** The Copy button's accessible name ("Copy Claude Code command"). */
  copyLabel: string;
  text: string;
  note?: string;
}

/** A shell word: as is when it holds only characters no shell treats specially, else single-quoted. */
export function shellWord(value: string): string {
  if (/^[\w./:@%+=,-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** mcp-remote refuses plain http except on localhost and 127.0.0.1 unless told it is meant. */
function mcpRemoteNeedsAllowHttp(endpoint: string): boolean {
  const url = new URL(endpoint);
  return url.protocol === 'http:' && url.hostname !== 'localhost' && url.hostname !== '127.0.0.1';
}

function keyOf(credential: ClientSetupCredential): string | undefined {
  if (credential === 'oauth') return undefined;
  return credential === 'api-key-placeholder' ? API_KEY_PLACEHOLDER : credential.apiKey;
}

/** The blocks for one way of signing in, in the order the page shows them. */
export function clientSetupBlocks(options: {
  endpoint: string;
  credential: ClientSetupCredential;
}): ClientSetupBlock[] {
  const { endpoint, credential } = options;
  const key = keyOf(credential);
  const header = key === undefined ? undefined : `x-api-key: ${key}`;
  const blocks: ClientSetupBlock[] = [];

  blocks.push({
    id: 'claude-code',
    client: 'Claude Code',
    language: 'shell',
    where: 'Run in a terminal.',
    copyLabel: 'Copy Claude Code command',
    text: [
      'claude mcp add --transport http',
      SERVER_NAME,
      shellWord(endpoint),
      ...(header ? ['--header', shellWord(header)] : []),
    ].join(' '),
    note: header
      ? 'Add --scope user to have Sheetgate in every project; claude mcp list shows it connected.'
      : 'Then run /mcp in Claude Code and choose Authenticate: your browser opens Sheetgate to sign in and allow it.',
  });

  let vscode: unknown;
  if (key === undefined) {
    vscode = { servers: { [SERVER_NAME]: { type: 'http', url: endpoint } } };
  } else if (credential === 'api-key-placeholder') {
    vscode = {
      inputs: [
        { type: 'promptString', id: VSCODE_KEY_INPUT, description: 'Sheetgate API key', password: true },
      ],
      servers: {
        [SERVER_NAME]: {
          type: 'http',
          url: endpoint,
          headers: { 'x-api-key': `\${input:${VSCODE_KEY_INPUT}}` },
        },
      },
    };
  } else {
    vscode = { servers: { [SERVER_NAME]: { type: 'http', url: endpoint, headers: { 'x-api-key': key } } } };
  }
  blocks.push({
    id: 'vscode',
    client: 'VS Code',
    language: 'json',
    where:
      'In .vscode/mcp.json in your workspace, or in your user mcp.json (command "MCP: Open User Configuration").',
    copyLabel: 'Copy VS Code configuration',
    text: json(vscode),
    ...(credential === 'api-key-placeholder'
      ? {
          note: 'VS Code asks for the key when it first starts the server and keeps it in its secret storage.',
        }
      : key === undefined
        ? {
            note: 'Start the server from the file or the MCP view: VS Code opens Sheetgate in your browser to sign in.',
          }
        : {}),
  });

  blocks.push({
    id: 'cursor',
    client: 'Cursor',
    language: 'json',
    where: 'In ~/.cursor/mcp.json (every project) or .cursor/mcp.json in a project.',
    copyLabel: 'Copy Cursor configuration',
    text: json({
      mcpServers: {
        [SERVER_NAME]:
          key === undefined ? { url: endpoint } : { url: endpoint, headers: { 'x-api-key': key } },
      },
    }),
    ...(key === undefined
      ? {
          note: 'When Cursor first connects it asks you to sign in: Sheetgate opens in your browser.',
        }
      : {}),
  });

  const allowHttp = mcpRemoteNeedsAllowHttp(endpoint) ? ['--allow-http'] : [];
  blocks.push({
    id: 'mcp-remote',
    client: 'mcp-remote',
    language: 'json',
    where:
      'For clients that only start local servers, such as Claude Desktop (claude_desktop_config.json): mcp-remote runs on your computer and forwards to Sheetgate.',
    copyLabel: 'Copy mcp-remote configuration',
    // The header's value comes from `env`: mcp-remote fills in ${SHEETGATE_API_KEY} itself, and
    // "Name:value" without a space survives clients that split args on spaces (its README).
    text: json({
      mcpServers: {
        [SERVER_NAME]:
          key === undefined
            ? { command: 'npx', args: ['mcp-remote', endpoint, ...allowHttp] }
            : {
                command: 'npx',
                args: ['mcp-remote', endpoint, ...allowHttp, '--header', MCP_REMOTE_KEY_HEADER],
                env: { SHEETGATE_API_KEY: key },
              },
      },
    }),
    note:
      key === undefined
        ? 'On first start mcp-remote opens your browser to sign in to Sheetgate and keeps the tokens in ~/.mcp-auth.'
        : 'Needs Node.js (npx).',
  });

  blocks.push({
    id: 'inspector',
    client: 'MCP Inspector',
    language: 'shell',
    where: 'Run in a terminal: lists Sheetgate’s tools.',
    copyLabel: 'Copy MCP Inspector command',
    text: [
      'npx @modelcontextprotocol/inspector --cli',
      shellWord(endpoint),
      '--transport http',
      ...(header ? ['--header', shellWord(header)] : []),
      '--method tools/list',
    ].join(' '),
    note:
      key === undefined
        ? 'The Inspector opens your browser to sign in. Without --cli it starts its web interface.'
        : 'Without --cli it starts its web interface; --method tools/call --tool-name list_spreadsheets calls a tool.',
  });

  if (key === undefined) return blocks;

  blocks.push({
    id: 'python',
    client: 'Python SDK',
    language: 'python',
    where: 'With the MCP Python SDK 2 (pip install "mcp>=2"), as list_tools.py.',
    copyLabel: 'Copy Python SDK script',
    text: [
      'import asyncio',
      '',
      'import httpx2',
      'from mcp import Client',
      'from mcp.client.streamable_http import streamable_http_client',
      '',
      `URL = ${JSON.stringify(endpoint)}`,
      `API_KEY = ${JSON.stringify(key)}`,
      '',
      '',
      'async def main() -> None:',
      '    headers = {"x-api-key": API_KEY}',
      '    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http:',
      '        async with Client(streamable_http_client(URL, http_client=http)) as client:',
      '            result = await client.list_tools()',
      '            for tool in result.tools:',
      '                print(tool.name)',
      '',
      '',
      'asyncio.run(main())',
    ].join('\n'),
  });

  blocks.push({
    id: 'typescript',
    client: 'TypeScript SDK',
    language: 'javascript',
    where: 'With the MCP TypeScript SDK 2 (npm install @modelcontextprotocol/client), as list-tools.mjs.',
    copyLabel: 'Copy TypeScript SDK script',
    text: [
      'import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";',
      '',
      `const url = new URL(${JSON.stringify(endpoint)});`,
      `const headers = { "x-api-key": ${JSON.stringify(key)} };`,
      '',
      'const client = new Client({ name: "my-script", version: "1.0.0" });',
      'await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));',
      'const { tools } = await client.listTools();',
      'for (const tool of tools) console.log(tool.name);',
      'await client.close();',
    ].join('\n'),
  });

  blocks.push({
    id: 'curl',
    client: 'curl',
    language: 'shell',
    where: 'Run in a terminal: one tools/list request.',
    copyLabel: 'Copy curl command',
    text: [
      `curl ${shellWord(endpoint)} \\`,
      `  -H 'content-type: application/json' \\`,
      `  -H 'accept: application/json, text/event-stream' \\`,
      `  -H 'mcp-protocol-version: ${CURL_PROTOCOL_VERSION}' \\`,
      `  -H ${shellWord(header!)} \\`,
      `  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'`,
    ].join('\n'),
  });

  return blocks;
}

/**
 * The blocks as the page shows them: one disclosure per client, its text in a `<pre>` named
 * `<idPrefix>-<block id>`, and a Copy button (assets/copy.js; hidden without JavaScript, when the
 * text is still there to select). `nameSuffix` tells apart the same client's buttons in two lists.
 */
export function clientSetupList(blocks: ClientSetupBlock[], idPrefix: string, nameSuffix = ''): SafeHtml {
  return html`<div class="client-setup">
${blocks.map((block) => {
  const target = `${idPrefix}-${block.id}`;
  return html`<details data-client="${block.id}">
<summary>${block.client}</summary>
<p class="hint">${block.where}</p>
<pre id="${target}" data-language="${block.language}">${block.text}</pre>
<p><button type="button" data-copy="${target}" data-status="${`${target}-status`}" aria-label="${`${block.copyLabel}${nameSuffix}`}" hidden>Copy</button>
<span id="${`${target}-status`}" role="status" class="muted"></span></p>
${block.note ? html`<p class="hint">${block.note}</p>` : ''}
</details>`;
})}
</div>`;
}
