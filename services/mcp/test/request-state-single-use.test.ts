import { createRequestStateClient, requestStateService, startGrpcServer } from '@sheetgate/proto';
import { freePort, readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consentToCall } from '../src/protocol/call-consent.ts';
import { NO_CALL_CONSENTS } from '../src/protocol/call-consents.ts';
import { createRequestStateCodec } from '../src/protocol/request-state.ts';
import { grpcRequestStateClaims } from '../src/protocol/request-state-claims.ts';
import type { ToolContext, ToolDefinition } from '../src/tools/kit/tool-definition.ts';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

// A confirmed requestState runs its call once (MCP 2026-07-28 multi round-trip requests; docs/
// design.md §15): auth records each state's id when its call runs, so a replay of the same
// confirmed retry, to the same MCP replica or another, writes nothing to Google. Real auth, two
// mcp processes on it, and the Google emulator, whose stats count Google's write requests.

const MODERN = '2026-07-28';
const WRITE_METHODS = [
  'sheets.spreadsheets.values.update',
  'sheets.spreadsheets.values.batchUpdate',
  'sheets.spreadsheets.values.append',
  'sheets.spreadsheets.values.clear',
  'sheets.spreadsheets.batchUpdate',
];
const ACCEPT = { confirm: { action: 'accept', content: { confirm: true } } };

let stack: McpUnderTest;
/** A second MCP replica on the same auth. */
let otherMcpUrl: string;
let token: string;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  otherMcpUrl = (await stack.startMcp()).mcpUrl;
  const { userId } = await stack.signIn('alice@example.com');
  token = await stack.sign({ sub: userId });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

/** A 2026-07-28 tools/call from a client that can elicit forms; `extra` adds the MRTR members. */
async function call(mcpUrl: string, name: string, args: Record<string, unknown>, extra = {}) {
  const response = await postMcp(
    mcpUrl,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        ...extra,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
          'io.modelcontextprotocol/clientInfo': { name: 'single-use-test', version: '1.0.0' },
        },
      },
    },
    {
      headers: {
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
    },
  );
  expect(response.status).toBe(200);
  return readJson(response);
}

/** Google's write requests so far, by method. */
async function googleWrites(): Promise<Record<string, number>> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return Object.fromEntries(WRITE_METHODS.map((name) => [name, stats.methods[name]?.attempts ?? 0]));
}

/**
 * A spreadsheet whose tab holds six identical rows: deleting its first two rows leaves a tab whose
 * first two rows look exactly as before, so a replayed confirmation would pass every other check.
 */
async function repeatingTab(title: string) {
  const [spreadsheetId] = await stack.seed('alice@example.com', [
    { name: title, sheets: [{ title, values: Array.from({ length: 6 }, () => ['same', 'row']) }] },
  ]);
  const described = await call(stack.mcpUrl, 'get_spreadsheet', { spreadsheetId });
  const sheetId: number = described.result.structuredContent.sheets[0].sheetId;
  const rows = async () =>
    ((await call(stack.mcpUrl, 'read_range', { spreadsheetId, range: `'${title}'!A1:B10` })).result
      .structuredContent.values ?? []) as unknown[][];
  return { args: { spreadsheetId, sheetId, dimension: 'ROWS', startIndex: 0, endIndex: 2 }, rows };
}

describe('a confirmed requestState', () => {
  it('runs its call once: the same confirmed retry again is refused and Google sees no second write', async () => {
    const tab = await repeatingTab('Replayed');
    const asked = (await call(stack.mcpUrl, 'delete_dimension', tab.args)).result;
    expect(asked.resultType).toBe('input_required');
    const retry = { inputResponses: ACCEPT, requestState: asked.requestState };

    const done = (await call(stack.mcpUrl, 'delete_dimension', tab.args, retry)).result;
    expect(done).toMatchObject({ resultType: 'complete', structuredContent: { deleted: 2 } });
    expect(done.isError).toBeFalsy();
    expect(await tab.rows()).toHaveLength(4);
    // What the call would destroy now reads exactly as what the person confirmed: only single use
    // stands between a replay and two more rows.
    const askedNow = (await call(stack.mcpUrl, 'delete_dimension', tab.args)).result;
    expect(askedNow.inputRequests.confirm.params.message).toBe(asked.inputRequests.confirm.params.message);

    const writesBefore = await googleWrites();
    const replayed = await call(stack.mcpUrl, 'delete_dimension', tab.args, retry);
    expect(replayed.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^requestState refused: already used/),
    });
    expect(await googleWrites()).toEqual(writesBefore);
    expect(await tab.rows()).toHaveLength(4);
  });

  it('is single use across MCP replicas: confirmed on one, replayed on either, raced on both', async () => {
    const tab = await repeatingTab('Across replicas');
    // Asked by one replica, confirmed through the other: any replica checks any replica's state.
    const asked = (await call(stack.mcpUrl, 'delete_dimension', tab.args)).result;
    const retry = { inputResponses: ACCEPT, requestState: asked.requestState };
    const done = (await call(otherMcpUrl, 'delete_dimension', tab.args, retry)).result;
    expect(done).toMatchObject({ resultType: 'complete', structuredContent: { deleted: 2 } });
    expect(await tab.rows()).toHaveLength(4);

    const writesBefore = await googleWrites();
    for (const mcpUrl of [stack.mcpUrl, otherMcpUrl]) {
      const replayed = await call(mcpUrl, 'delete_dimension', tab.args, retry);
      expect(replayed.error?.message).toMatch(/^requestState refused: already used/);
    }
    expect(await googleWrites()).toEqual(writesBefore);
    expect(await tab.rows()).toHaveLength(4);

    // The same confirmed retry sent to both replicas at once runs on exactly one of them.
    const again = (await call(stack.mcpUrl, 'delete_dimension', tab.args)).result;
    const raced = { inputResponses: ACCEPT, requestState: again.requestState };
    const answers = await Promise.all(
      [stack.mcpUrl, otherMcpUrl].map((mcpUrl) => call(mcpUrl, 'delete_dimension', tab.args, raced)),
    );
    expect(answers.filter((answer) => answer.result?.structuredContent?.deleted === 2)).toHaveLength(1);
    expect(answers.filter((answer) => /already used/.test(answer.error?.message ?? ''))).toHaveLength(1);
    expect(await tab.rows()).toHaveLength(2);
  });
});

describe('a confirmed retry while auth cannot record its state', () => {
  // The confirmation step alone, with the claim sent over real gRPC: to a port nobody listens on,
  // then to the stack's auth. The tool is a stand-in: only its loss sentence matters here.
  const tool = {
    name: 'stand_in_delete',
    describeLoss: async () => 'the tab "Kept" (1 row × 1 column, 1 non-empty cell)',
  } as unknown as ToolDefinition;
  const context: ToolContext = {
    auth: { userId: 'user-1', scopes: new Set(['sheets:write']), credential: 'api_key', apiKeyId: 'key-1' },
    signal: new AbortController().signal,
    progress: () => {},
  };
  const confirm = (states: ReturnType<typeof createRequestStateCodec>, params: Record<string, unknown>) =>
    consentToCall({
      tool,
      input: {},
      args: { sheetId: 7 },
      params,
      shape: 'form',
      context,
      states,
      // A form client's destructive call needs no choice of auth's.
      consents: NO_CALL_CONSENTS,
      dashboardUrl: 'http://sheetgate.test/dashboard',
    });

  it('does not run, says to try again, and leaves the state good for when auth answers', async () => {
    // Nobody listening, and an auth of an earlier release (the service without its method).
    const older = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      serviceToken: stack.serviceToken,
      services: [requestStateService({})],
    });
    const clients = [
      createRequestStateClient({
        address: `127.0.0.1:${await freePort()}`,
        serviceToken: stack.serviceToken,
      }),
      createRequestStateClient({ address: `127.0.0.1:${older.port}`, serviceToken: stack.serviceToken }),
    ];
    const reachable = createRequestStateClient({
      address: stack.grpcAddress,
      serviceToken: stack.serviceToken,
    });
    try {
      const up = createRequestStateCodec(stack.serviceToken, { claims: grpcRequestStateClaims(reachable) });
      const asked = await confirm(up, {});
      if (asked.proceed) throw new Error('expected the person to be asked first');
      const retry = { inputResponses: ACCEPT, requestState: asked.result.requestState };

      for (const client of clients) {
        const down = createRequestStateCodec(stack.serviceToken, { claims: grpcRequestStateClaims(client) });
        await expect(confirm(down, retry)).rejects.toThrow(
          /^Nothing was changed: .*temporarily unavailable.*try again in 5 seconds/,
        );
      }
      expect(await confirm(up, retry)).toEqual({ proceed: true });
      await expect(confirm(up, retry)).rejects.toThrow(/^requestState refused: already used/);
    } finally {
      for (const client of [...clients, reachable]) client.close();
      await older.close();
    }
  });
});
