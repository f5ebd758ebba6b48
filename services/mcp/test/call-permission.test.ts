import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@sheetgate/service-runtime';
import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMcpApp } from '../src/app.ts';
import type { AuthInfo } from '../src/auth/auth-info.ts';
import { createMcpServer } from '../src/protocol/mcp-server.ts';
import { createRequestStateCodec } from '../src/protocol/request-state.ts';
import type { ToolDeps } from '../src/tools/kit/tool-deps.ts';
import { sheetgateTools } from '../src/tools/registry.ts';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

// Whether a tools/call may run is one step (src/protocol/call-permission.ts, docs/design.md §8 and
// §11.5): the tool's scope, then its toolset. Each path a call can arrive by — alone in a legacy
// request, inside a 2025-03-26 batch, alone in a 2026-07-28 request — is refused both ways here,
// over real HTTP against real auth, mcp and Google emulator processes, and nothing reaches Google.

let stack: McpUnderTest;
let userId: string;
let spreadsheetId: string;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  userId = (await stack.signIn('alice@example.com')).userId;
  const [seeded] = await stack.seed('alice@example.com', [{ name: 'Permissions', values: [['a', 'b']] }]);
  spreadsheetId = seeded!;
});
afterAll(async () => {
  await stack?.stop();
});
beforeEach(async () => {
  await fetch(`${stack.emulatorUrl}/__emulator/stats`, { method: 'DELETE' });
});

const metadataUrl = () => `${stack.baseUrl}/.well-known/oauth-protected-resource/api/mcp`;

/** Requests that reached "Google" since the test began. */
async function googleRequests(): Promise<number> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    allMethods: { attempts: number };
  };
  return stats.allMethods.attempts;
}

interface Call {
  name: string;
  arguments: Record<string, unknown>;
}
const CREATE: Call = { name: 'create_spreadsheet', arguments: { title: 'Must not exist' } };
const read = (): Call => ({ name: 'read_range', arguments: { spreadsheetId, range: 'A1:B1' } });

const callBody = (call: Call, id: number, params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: call.name, arguments: call.arguments, ...params },
});

/** The answer to a call as it arrived, and the JSON-RPC reply to its call `id` 1 when there is one. */
type Path = (token: string, call: Call) => Promise<{ response: Response; reply?: Record<string, unknown> }>;

async function withReply(response: Response, pick: (body: unknown) => unknown = (body) => body) {
  if (response.status !== 200) return { response };
  return { response, reply: pick(await readJson(response)) as Record<string, unknown> };
}

const PATHS: Array<[string, Path]> = [
  [
    'a single legacy call',
    async (token, call) =>
      withReply(
        await postMcp(stack.mcpUrl, callBody(call, 1), {
          headers: { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' },
        }),
      ),
  ],
  [
    'a call in a 2025-03-26 batch beside one it may make',
    async (token, call) => {
      const response = await postMcp(stack.mcpUrl, [callBody(read(), 2), callBody(call, 1)], {
        headers: { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-03-26' },
      });
      return withReply(response, (replies) => {
        const [first, second] = replies as Array<Record<string, unknown>>;
        // The call it may make ran beside it: answered, with the cells.
        expect(first).toMatchObject({ id: 2, result: { structuredContent: { values: [['a', 'b']] } } });
        return second;
      });
    },
  ],
  [
    'a 2026-07-28 call',
    async (token, call) =>
      withReply(
        await postMcp(
          stack.mcpUrl,
          callBody(call, 1, {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          }),
          {
            headers: {
              authorization: `Bearer ${token}`,
              'mcp-protocol-version': '2026-07-28',
              'mcp-method': 'tools/call',
              'mcp-name': call.name,
            },
          },
        ),
      ),
  ],
];

describe.each(PATHS)('%s', (_path, send) => {
  it('without the tool’s scope: 403 insufficient_scope naming it, before anything runs', async () => {
    const readOnly = await stack.sign({ sub: userId, scope: 'sheets:read' });
    const { response } = await send(readOnly, CREATE);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="sheets:write", resource_metadata="${metadataUrl()}"`,
    );
    expect(await readJson(response)).toMatchObject({ error: 'insufficient_scope' });
    // Not even the batch's read ran: a 403 never follows a half-run body.
    expect(await googleRequests()).toBe(0);
  });

  it('outside the credential’s toolsets: -32602 naming the set and where to enable it', async () => {
    const readingOnly = await stack.sign({ sub: userId, toolsets: ['core-read'] });
    const { response, reply } = await send(readingOnly, CREATE);
    expect(response.status).toBe(200);
    expect(reply).toMatchObject({ id: 1, error: { code: -32602 } });
    const { message } = (reply as { error: { message: string } }).error;
    expect(message).toContain('tool "create_spreadsheet" is in the toolset "files" (Files)');
    expect(message).toContain(`disconnect the app at ${stack.baseUrl}/dashboard`);
    // Nothing was created: the only request Google saw is the batch's read.
    expect(await googleRequests()).toBe(_path.includes('batch') ? 1 : 0);
  });

  it('with both its scope and its set, the call runs', async () => {
    const token = await stack.sign({ sub: userId, toolsets: ['core-read'] });
    const { response, reply } = await send(token, read());
    expect(response.status).toBe(200);
    expect(reply).toMatchObject({ id: 1, result: { structuredContent: { values: [['a', 'b']] } } });
  });
});

it('a body with a call refused by scope and another by toolset is refused whole by scope', async () => {
  const token = await stack.sign({ sub: userId, scope: 'sheets:read', toolsets: ['core-read'] });
  const response = await postMcp(
    stack.mcpUrl,
    [callBody({ name: 'add_sheet', arguments: { spreadsheetId, title: 'x' } }, 1), callBody(CREATE, 2)],
    { headers: { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-03-26' } },
  );
  expect(response.status).toBe(403);
  expect(await googleRequests()).toBe(0);
});

describe('a 2025-03-26 batch is judged whole before any of its calls runs', () => {
  // In one process, with a Google that only records who asked: a call that starts running asks
  // Google within the same turn of the event loop, so a call that ran before the 403 was answered
  // has been recorded by the time the client reads it (over the network, a later turn).
  const asked: string[] = [];
  const deps = {
    sheets: {},
    drive: {},
    callGoogle: (userId: string) => {
      asked.push(userId);
      return Promise.reject(new Error('no Google in this test'));
    },
  } as unknown as ToolDeps;
  const logger = createLogger({ level: 'silent', service: 'call-permission-test' });
  const baseUrl = 'http://127.0.0.1';
  const readOnly: AuthInfo = { userId: 'u', scopes: new Set(['sheets:read']), credential: 'api_key' };
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    const mcp = createMcpServer({
      tools: sheetgateTools(deps),
      logger,
      baseUrl,
      states: createRequestStateCodec('x'.repeat(32)),
    });
    server = http.createServer(createMcpApp({ logger, baseUrl, mcp, authenticate: async () => readOnly }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/mcp`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a read before a write it may not make never runs', async () => {
    const response = await postMcp(
      url,
      [
        callBody({ name: 'read_range', arguments: { spreadsheetId: 'a-spreadsheet-id', range: 'A1' } }, 1),
        callBody(CREATE, 2),
      ],
      { headers: { 'mcp-protocol-version': '2025-03-26' } },
    );
    expect(response.status).toBe(403);
    expect(asked).toEqual([]);
    // The same read alone runs (and asks Google): what the 403 held back.
    const alone = await postMcp(
      url,
      [callBody({ name: 'read_range', arguments: { spreadsheetId: 'a-spreadsheet-id', range: 'A1' } }, 1)],
      {
        headers: { 'mcp-protocol-version': '2025-03-26' },
      },
    );
    expect(alone.status).toBe(200);
    expect(asked).toEqual(['u']);
  });
});
