import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTERED_TOOL_COUNT } from './support/registered-tools.ts';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';

// The endpoint in both eras (docs/design.md §14), over real HTTP against real auth, mcp and
// Google emulator processes.

const MODERN = '2026-07-28';
let stack: McpUnderTest;
let token: string;
let spreadsheetId: string;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const { userId } = await stack.signIn('alice@example.com');
  token = await stack.sign({ sub: userId });
  const seeded = await fetch(`${stack.emulatorUrl}/__emulator/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: 'alice@example.com',
      files: [
        {
          name: 'Eras',
          values: [
            ['a', 'b'],
            ['c', 'd'],
          ],
        },
      ],
    }),
  });
  spreadsheetId = ((await seeded.json()) as { files: Array<{ id: string }> }).files[0]!.id;
});
afterAll(async () => {
  await stack?.stop();
});

function modernMeta(extra: Record<string, unknown> = {}) {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'era-test', version: '1.0.0' },
    ...extra,
  };
}

/** A 2026-07-28 request with its mirrored headers, which `headers` may bend. */
function modern(
  method: string,
  params: Record<string, unknown> = {},
  options: { headers?: Record<string, string>; meta?: Record<string, unknown>; id?: number | string } = {},
) {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return postMcp(
    stack.mcpUrl,
    {
      jsonrpc: '2.0',
      id: options.id ?? 1,
      method,
      params: { ...params, _meta: options.meta ?? modernMeta() },
    },
    {
      headers: {
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': MODERN,
        'mcp-method': method,
        ...name,
        ...options.headers,
      },
    },
  );
}

function legacy(body: unknown, version = '2025-11-25') {
  return postMcp(stack.mcpUrl, body, {
    headers: { authorization: `Bearer ${token}`, 'mcp-protocol-version': version },
  });
}

describe('MCP 2026-07-28 requests', () => {
  it('server/discover names the versions, capabilities and server, cacheable', async () => {
    const response = await modern('server/discover');
    expect(response.status).toBe(200);
    const { result } = await readJson(response);
    expect(result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
      capabilities: { tools: { listChanged: false } },
      ttlMs: 3_600_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'sheetgate', version: expect.any(String) } },
    });
    expect(result._meta['io.modelcontextprotocol/serverInfo'].icons[0].src).toBe(`${stack.baseUrl}/icon.svg`);
  });

  it('tools/list carries resultType, caching hints and serverInfo; every tool has a title and icons', async () => {
    const { result } = await readJson(await modern('tools/list'));
    expect(result).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'private' });
    expect(result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('sheetgate');
    expect(result.tools).toHaveLength(REGISTERED_TOOL_COUNT);
    for (const tool of result.tools) {
      expect(tool.title).toEqual(expect.any(String));
      expect(tool.icons).toEqual([
        { src: `${stack.baseUrl}/icon.svg`, mimeType: 'image/svg+xml', sizes: ['any'] },
      ]);
    }
  });

  it('tools/call answers a complete result with the values', async () => {
    const response = await modern('tools/call', {
      name: 'read_range',
      arguments: { spreadsheetId, range: 'Sheet1!A1:B2' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const { result } = await readJson(response);
    expect(result.resultType).toBe('complete');
    expect(result.structuredContent.values).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('a tool name sent base64-encoded in Mcp-Name is decoded before it is compared', async () => {
    const encoded = `=?base64?${Buffer.from('read_range').toString('base64')}?=`;
    const response = await modern(
      'tools/call',
      { name: 'read_range', arguments: { spreadsheetId, range: 'A1' } },
      { headers: { 'mcp-name': encoded } },
    );
    expect(response.status).toBe(200);
    expect((await readJson(response)).result.structuredContent.values).toEqual([['a']]);
  });

  it.each([
    ['no Mcp-Method header', { 'mcp-method': '' }],
    ['an Mcp-Method header naming another method', { 'mcp-method': 'tools/list' }],
    ['no Mcp-Name header', { 'mcp-name': '' }],
    ['an Mcp-Name header naming another tool', { 'mcp-name': 'delete_sheet' }],
    ['a malformed base64 Mcp-Name', { 'mcp-name': '=?base64?###?=' }],
  ])('%s: HTTP 400 and HeaderMismatch (-32020), the tool not run', async (_name, headers) => {
    const response = await modern(
      'tools/call',
      { name: 'read_range', arguments: { spreadsheetId, range: 'A1' } },
      { headers, id: 9 },
    );
    expect(response.status).toBe(400);
    const body = await readJson(response);
    expect(body).toMatchObject({
      id: 9,
      error: { code: -32020, message: expect.stringMatching(/^Header mismatch/) },
    });
  });

  it('a header version that differs from _meta is a HeaderMismatch', async () => {
    const response = await modern(
      'tools/list',
      {},
      { meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }) },
    );
    expect(response.status).toBe(400);
    expect((await readJson(response)).error.code).toBe(-32020);
  });

  it('missing client capabilities or a bad log level in _meta are invalid params', async () => {
    const noCapabilities = modernMeta();
    delete (noCapabilities as Record<string, unknown>)['io.modelcontextprotocol/clientCapabilities'];
    for (const meta of [noCapabilities, modernMeta({ 'io.modelcontextprotocol/logLevel': 'loud' })]) {
      const response = await modern('tools/list', {}, { meta });
      expect(response.status).toBe(400);
      expect((await readJson(response)).error.code).toBe(-32602);
    }
  });

  it('a method this era does not have is HTTP 404 with -32601', async () => {
    for (const method of ['initialize', 'ping', 'resources/list', 'logging/setLevel']) {
      const response = await modern(method);
      expect(response.status).toBe(404);
      expect((await readJson(response)).error.code).toBe(-32601);
    }
  });

  it('an unknown tool is a JSON-RPC -32602 error, not a tool result', async () => {
    const response = await modern('tools/call', { name: 'no_such_tool', arguments: {} }, { id: 'x' });
    const body = await readJson(response);
    expect(body).toMatchObject({
      id: 'x',
      error: { code: -32602, message: expect.stringContaining('no_such_tool') },
    });
    expect(body.result).toBeUndefined();
  });
});

describe('unsupported protocol versions, in the header or in _meta, any method', () => {
  it.each([
    ['a header version', { jsonrpc: '2.0', id: 4, method: 'tools/list' }, '1900-01-01'],
    [
      'an initialize with an unsupported header',
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      },
      '2099-01-01',
    ],
  ])('%s: HTTP 400, -32022 with the supported and requested versions', async (_name, body, version) => {
    const response = await legacy(body, version);
    expect(response.status).toBe(400);
    expect(await readJson(response)).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'], requested: version },
      },
    });
  });

  it('a served header contradicted by an unserved _meta version is a HeaderMismatch, not -32022', async () => {
    const response = await modern(
      'server/discover',
      {},
      {
        meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' }),
      },
    );
    expect(response.status).toBe(400);
    expect((await readJson(response)).error.code).toBe(-32020);
  });

  it('a _meta version that is not served', async () => {
    const response = await modern(
      'tools/list',
      {},
      {
        meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }),
        headers: { 'mcp-protocol-version': '1900-01-01' },
      },
    );
    expect(response.status).toBe(400);
    expect((await readJson(response)).error).toMatchObject({
      code: -32022,
      data: { requested: '1900-01-01' },
    });
  });
});

describe('legacy requests keep working as before', () => {
  it('initialize negotiates a legacy version; tools/list has no 2026 fields', async () => {
    const init = await readJson(
      await legacy({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'old', version: '1' },
        },
      }),
    );
    expect(init.result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'sheetgate' } });
    const initNewer = await readJson(
      await legacy({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2026-07-28',
          capabilities: {},
          clientInfo: { name: 'odd', version: '1' },
        },
      }),
    );
    expect(initNewer.result.protocolVersion).toBe('2025-11-25');
    const list = await readJson(await legacy({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(list.result.tools).toHaveLength(REGISTERED_TOOL_COUNT);
    expect(list.result).not.toHaveProperty('resultType');
    expect(list.result).not.toHaveProperty('ttlMs');
  });

  it('server/discover is a modern method: legacy requests get -32601', async () => {
    const body = await readJson(await legacy({ jsonrpc: '2.0', id: 3, method: 'server/discover' }));
    expect(body.error.code).toBe(-32601);
  });
});

describe('near misses of the endpoint', () => {
  it.each(['/api/mcp/', '/api/mcp/tools'])('POST %s answers a JSON 404 naming the endpoint', async (path) => {
    const response = await fetch(`${stack.mcpUrl.replace('/api/mcp', '')}${path}`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.stringify(await readJson(response))).toContain(`${stack.baseUrl}/api/mcp`);
  });
});

/** The events of an SSE answer, parsed. */
type Json = Awaited<ReturnType<typeof readJson>>;

async function sseEvents(response: Response): Promise<Json[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice('data: '.length)));
}

async function callTool(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) {
  const response = await modern('tools/call', { name, arguments: args }, meta ? { meta } : {});
  return (await readJson(response)).result;
}

describe('progress on a long call, in both eras', () => {
  const search = { spreadsheetId, query: 'c' };
  const findParams = (token: string | number) => ({
    name: 'find_in_spreadsheet',
    arguments: { spreadsheetId, query: 'c' },
    _meta: { progressToken: token },
  });

  it('modern: with a progressToken the answer is an SSE stream of progress ending with the result', async () => {
    const response = await postMcp(
      stack.mcpUrl,
      {
        jsonrpc: '2.0',
        id: 21,
        method: 'tools/call',
        params: { ...findParams('p-1'), _meta: modernMeta({ progressToken: 'p-1' }) },
      },
      {
        headers: {
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'find_in_spreadsheet',
        },
      },
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const events = await sseEvents(response);
    const progress = events.filter((event) => event.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThan(0);
    for (const event of progress) expect(event.params.progressToken).toBe('p-1');
    const values = progress.map((event) => event.params.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    const last = events.at(-1)!;
    expect(last).toMatchObject({ id: 21, result: { resultType: 'complete' } });
    expect(last.result.structuredContent.matches.length).toBeGreaterThan(0);
  });

  it('legacy: the same stream for a 2025-11-25 request with a progressToken', async () => {
    const response = await legacy({ jsonrpc: '2.0', id: 22, method: 'tools/call', params: findParams(7) });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = await sseEvents(response);
    expect(
      events.some((event) => event.method === 'notifications/progress' && event.params.progressToken === 7),
    ).toBe(true);
    expect(events.at(-1)).toMatchObject({ id: 22, result: { structuredContent: expect.any(Object) } });
  });

  it('plain JSON without a progressToken, or when the client does not accept event streams', async () => {
    const plain = await legacy({
      jsonrpc: '2.0',
      id: 23,
      method: 'tools/call',
      params: { name: 'find_in_spreadsheet', arguments: search },
    });
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    const jsonOnly = await postMcp(
      stack.mcpUrl,
      { jsonrpc: '2.0', id: 24, method: 'tools/call', params: findParams('p-2') },
      {
        headers: {
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': '2025-11-25',
          accept: 'application/json',
        },
      },
    );
    expect(jsonOnly.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await readJson(jsonOnly)).id).toBe(24);
  });
});

describe('cancellation', () => {
  it("legacy notifications/cancelled stops the caller's own request, not another person's", async () => {
    await stack.fault({ match: 'sheets.spreadsheets.values.get', latencyMs: 30_000, count: 1 });
    const pending = legacy({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: { name: 'read_range', arguments: { spreadsheetId, range: 'A1' } },
    });
    // Another credential naming the same id cancels nothing of this person's.
    const { userId: bobId } = await stack.signIn('bob@example.com');
    const bobToken = await stack.sign({ sub: bobId });
    const cancel = (bearer: string) =>
      postMcp(
        stack.mcpUrl,
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow', reason: 'test' } },
        { headers: { authorization: `Bearer ${bearer}`, 'mcp-protocol-version': '2025-11-25' } },
      );
    // The request is in flight once the emulator holds its call; cancel until it is answered.
    let answer: Json | undefined;
    const settled = pending.then(async (response) => {
      answer = await readJson(response);
    });
    expect((await cancel(bobToken)).status).toBe(202);
    while (!answer) {
      expect((await cancel(token)).status).toBe(202);
      await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    expect(answer).toMatchObject({ id: 'slow', error: { code: -32603, message: /cancelled/ } });
    await stack.clearFaults();
  });
});

describe('confirm before destroying (2026-07-28 multi round-trip requests)', () => {
  const canElicit = () =>
    modernMeta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } });

  async function newTab(title: string, values: string[][]) {
    const added = await callTool('add_sheet', { spreadsheetId, title });
    await callTool('write_range', { spreadsheetId, range: `'${title}'!A1`, values });
    return added.structuredContent.sheetId as number;
  }

  async function tabTitles(): Promise<string[]> {
    const result = await callTool('get_spreadsheet', { spreadsheetId });
    return result.structuredContent.sheets.map((sheet: { title: string }) => sheet.title);
  }

  it('asks with what would be lost, then deletes once the person accepts', async () => {
    const sheetId = await newTab('Doomed', [
      ['x', 'y'],
      ['z', ''],
    ]);
    const args = { spreadsheetId, sheetId };
    const asked = await callTool('delete_sheet', args, canElicit());
    expect(asked.resultType).toBe('input_required');
    const request = asked.inputRequests.confirm;
    expect(request.method).toBe('elicitation/create');
    expect(request.params.mode).toBe('form');
    expect(request.params.message).toContain('"Doomed"');
    expect(request.params.message).toMatch(/3 non-empty cells/);
    expect(await tabTitles()).toContain('Doomed');

    const done = await readJson(
      await modern(
        'tools/call',
        {
          name: 'delete_sheet',
          arguments: args,
          inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
          requestState: asked.requestState,
        },
        { meta: canElicit(), id: 2 },
      ),
    );
    expect(done.result.resultType).toBe('complete');
    expect(done.result.isError).toBeFalsy();
    expect(await tabTitles()).not.toContain('Doomed');
  });

  it('a dry run of a destructive tool is not asked about: it destroys nothing and says what it would', async () => {
    const sheetId = await newTab('Rehearsed', [['x', 'y']]);
    const answer = await callTool('delete_sheet', { spreadsheetId, sheetId, dryRun: true }, canElicit());
    expect(answer.resultType).not.toBe('input_required');
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ deletedSheetId: sheetId, dryRun: true });
    expect(answer.structuredContent.wouldLose).toMatch(/"Rehearsed".*2 non-empty cells/);
    expect(await tabTitles()).toContain('Rehearsed');
  });

  it('a declined confirmation changes nothing and says so', async () => {
    const sheetId = await newTab('Kept', [['keep me']]);
    const args = { spreadsheetId, sheetId };
    const asked = await callTool('delete_sheet', args, canElicit());
    for (const answer of [{ action: 'decline' }, { action: 'accept', content: { confirm: false } }]) {
      const result = (
        await readJson(
          await modern(
            'tools/call',
            {
              name: 'delete_sheet',
              arguments: args,
              inputResponses: { confirm: answer },
              requestState: asked.requestState,
            },
            { meta: canElicit() },
          ),
        )
      ).result;
      expect(result).toMatchObject({ resultType: 'complete', isError: true });
      expect(result.content[0].text).toMatch(/^Nothing was changed/);
    }
    expect(await tabTitles()).toContain('Kept');
  });

  it('refuses a tampered state, one for other arguments, and one presented by another person', async () => {
    const sheetId = await newTab('Guarded', [['g']]);
    const args = { spreadsheetId, sheetId };
    const asked = await callTool('delete_sheet', args, canElicit());
    const accept = { confirm: { action: 'accept', content: { confirm: true } } };
    const state: string = asked.requestState;
    // One character of the MAC changed (to one it is not: a swap that kept it would prove nothing).
    const at = state.length - 3;
    const tampered = `${state.slice(0, at)}${state[at] === 'A' ? 'B' : 'A'}${state.slice(at + 1)}`;
    expect(tampered).not.toBe(state);
    const { userId: bobId } = await stack.signIn('bob@example.com');
    const bobToken = await stack.sign({ sub: bobId });
    const attempts: Array<[Record<string, unknown>, string, Record<string, string>]> = [
      [args, tampered, {}],
      [{ spreadsheetId, sheetId: sheetId + 1 }, state, {}],
      [args, state, { authorization: `Bearer ${bobToken}` }],
    ];
    for (const [attemptArgs, requestState, headers] of attempts) {
      const body = await readJson(
        await modern(
          'tools/call',
          { name: 'delete_sheet', arguments: attemptArgs, inputResponses: accept, requestState },
          { meta: canElicit(), headers },
        ),
      );
      expect(body.error).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/^requestState refused/),
      });
    }
    expect(await tabTitles()).toContain('Guarded');
  });

  it('asks again when the answer is missing, and answers a malformed one with -32602', async () => {
    const sheetId = await newTab('Asked twice', [['a']]);
    const args = { spreadsheetId, sheetId };
    const asked = await callTool('delete_sheet', args, canElicit());
    const again = (
      await readJson(
        await modern(
          'tools/call',
          { name: 'delete_sheet', arguments: args, requestState: asked.requestState },
          { meta: canElicit() },
        ),
      )
    ).result;
    expect(again.resultType).toBe('input_required');
    const malformed = await readJson(
      await modern(
        'tools/call',
        {
          name: 'delete_sheet',
          arguments: args,
          inputResponses: { confirm: { action: 'maybe' } },
          requestState: asked.requestState,
        },
        { meta: canElicit() },
      ),
    );
    expect(malformed.error.code).toBe(-32602);
    expect(await tabTitles()).toContain('Asked twice');
  });

  it('clients that cannot elicit, and clearing empty cells, are not asked', async () => {
    const sheetId = await newTab('Unasked', [['u']]);
    const cleared = await callTool('clear_range', { spreadsheetId, range: "'Unasked'!D1:E5" }, canElicit());
    expect(cleared.resultType).toBe('complete');
    const deleted = await callTool('delete_sheet', { spreadsheetId, sheetId });
    expect(deleted).toMatchObject({ resultType: 'complete' });
    expect(deleted.isError).toBeFalsy();
    expect(await tabTitles()).not.toContain('Unasked');
  });
});
