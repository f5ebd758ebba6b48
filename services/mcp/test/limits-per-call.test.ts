import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_GOOGLE_WRITE_REQUEST_BYTES,
  DEFAULT_MAX_REQUEST_BYTES,
  MAX_WRITE_CELLS,
  requestBodyCeiling,
} from '../src/settings.ts';
import { piecesOf } from '../src/tools/kit/value-parts.ts';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';
import { type Answer, callTool, callToolOk } from './support/tool-answers.ts';

// Limits are part of the tool (issue 35, item 3): one maximum per call — MCP_MAX_REQUEST_BYTES of
// body and MAX_WRITE_CELLS cells — within which no well-formed call fails below the tool layer,
// and past which the answer is a tool error saying how many rows fit. A write larger than one
// Google request should carry (Google recommends at most 2 MB a request: Sheets API "Usage
// limits") goes in ordered requests, journaled as one change that one undo takes back. Real mcp
// and auth processes, the Google emulator, the MCP SDK client and raw HTTP.

let stack: McpUnderTest;
let userId: string;
let client: Client;
let spreadsheetId: string;

const SPLIT_BYTES = 20_000;
/** A second mcp on the same auth and emulator that sends Google at most SPLIT_BYTES a request. */
let splitting: Client;

const ORIGINAL = Array.from({ length: 600 }, (_, row) =>
  Array.from({ length: 5 }, (_, column) => `was ${row + 1}.${column + 1}`),
);
const TABLE = [
  ['Order', 'Customer', 'Amount', 'Note'],
  ['No. 1', 'Ada', 'seven hundred', 'first'],
  ['No. 2', 'Bob', 'three hundred', 'second'],
];

async function clientFor(mcpUrl: string, name: string): Promise<Client> {
  const token = await stack.sign({ sub: userId });
  const connected = new Client({ name, version: '1.0.0' });
  await connected.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return connected;
}

async function read(range: string, via = client): Promise<unknown[][]> {
  const { structured } = await callToolOk(via, 'read_range', {
    spreadsheetId,
    range,
    valueRenderOption: 'FORMULA',
    limit: 2_000,
  });
  return (structured.values ?? []) as unknown[][];
}

async function attempts(method: string): Promise<number> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number } | undefined>;
  };
  return stats.methods[`sheets.spreadsheets.${method}`]?.attempts ?? 0;
}

/** How many Google requests of `method` `action` made, and its outcome. */
async function requestsDuring<T>(
  method: string,
  action: () => Promise<T>,
): Promise<{ requests: number; outcome: T }> {
  const before = await attempts(method);
  const outcome = await action();
  return { requests: (await attempts(method)) - before, outcome };
}

/** The JSON-RPC body of a tools/call, as a raw client sends it. */
const callBody = (args: Record<string, unknown>, name = 'write_range') =>
  JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name, arguments: args } });

/**
 * A write_range call of exactly `bytes` bytes to `range`: 500 rows × 4 cells of ASCII text
 * (`r12c3yyyy…`), sized so, the last cell padded to the byte.
 */
function callOfSize(bytes: number, range: string): { body: string; values: string[][] } {
  const [rows, width] = [500, 4];
  const cellOf = (row: number, column: number, length: number) => `r${row}c${column}`.padEnd(length, 'y');
  const empty = callBody({
    spreadsheetId,
    range,
    values: Array.from({ length: rows }, () => Array(width).fill('')),
  });
  const room = bytes - Buffer.byteLength(empty);
  const length = Math.floor(room / (rows * width));
  const values = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: width }, (_, column) => cellOf(row, column, length)),
  );
  values[rows - 1]![width - 1] += 'z'.repeat(room - length * rows * width);
  const body = callBody({ spreadsheetId, range, values });
  expect(Buffer.byteLength(body)).toBe(bytes);
  return { body, values };
}

async function postRaw(body: string): Promise<Response> {
  const token = await stack.sign({ sub: userId });
  return postMcp(stack.mcpUrl, body, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });
}

/** A POST to the MCP endpoint declaring `length` bytes of body and sending none: its answer. */
async function declaredOnly(length: number): Promise<{ status: number; body: string }> {
  const token = await stack.sign({ sub: userId });
  return new Promise((resolve, reject) => {
    const request = httpRequest(stack.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'content-length': String(length),
        'mcp-protocol-version': '2025-06-18',
      },
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    request.on('error', reject);
    request.flushHeaders();
  });
}

/**
 * The newest changes of the person, newest first, listed through `via`: list_changes waits for the
 * entries its own MCP process has still to send to auth, not another process's.
 */
async function latestChanges(
  count: number,
  via: Client = client,
): Promise<Array<{ changeId: string; tool: string }>> {
  const { structured } = await callToolOk(via, 'list_changes', { pageSize: count });
  return structured.changes as Array<{ changeId: string; tool: string }>;
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  ({ userId } = await stack.signIn('alice@example.com'));
  [spreadsheetId] = (await stack.seed('alice@example.com', [
    {
      name: 'Limits',
      sheets: [
        { title: 'Big', values: [['']] },
        { title: 'Exact', values: [['']] },
        { title: 'Over', values: [['']] },
        { title: 'Cells', values: [['']] },
        { title: 'Split', values: ORIGINAL },
        { title: 'Ranges', values: ORIGINAL },
        { title: 'Appended', values: [...TABLE, [], ['Footer']] },
        { title: 'Failing', values: ORIGINAL },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'limits-per-call');
  const second = await stack.startMcp({ GOOGLE_WRITE_REQUEST_BYTES: String(SPLIT_BYTES) });
  splitting = await clientFor(second.mcpUrl, 'limits-per-call (splitting)');
});
afterAll(async () => {
  await splitting?.close();
  await client?.close();
  await stack?.stop();
});

describe('within the maximum, every well-formed call is answered by its tool', () => {
  it("the issue's reproduction: 3,000 × 10 short strings (1.2 MB of JSON) are written", async () => {
    const values = Array.from({ length: 3_000 }, (_, row) =>
      Array.from({ length: 10 }, (_, column) => `Order ${row + 1} line ${column + 1}: a short text here`),
    );
    const size = Buffer.byteLength(callBody({ spreadsheetId, range: 'Big!A1', values }));
    // Over the old 1 MiB body limit, which answered HTTP 413 below the tool.
    expect(size).toBeGreaterThan(1.1 * 1024 * 1024);
    const written = await callToolOk(client, 'write_range', { spreadsheetId, range: 'Big!A1', values });
    expect(written.structured).toMatchObject({ updatedRange: 'Big!A1:J3000', updatedCells: 30_000 });
    expect(await read('Big!A2999:J3000')).toEqual(values.slice(2_998));
  });

  it(`a call of exactly MCP_MAX_REQUEST_BYTES (${DEFAULT_MAX_REQUEST_BYTES} bytes) is written, in the requests Google should carry`, async () => {
    const { body, values } = callOfSize(DEFAULT_MAX_REQUEST_BYTES, 'Exact!A1');
    const pieces = piecesOf([{ range: 'Exact!A1', values }], DEFAULT_GOOGLE_WRITE_REQUEST_BYTES);
    expect(pieces.length).toBeGreaterThan(1);
    const { requests, outcome: response } = await requestsDuring('values.update', () => postRaw(body));
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as {
      result: { isError?: boolean; structuredContent: unknown };
    };
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ updatedRange: 'Exact!A1:D500', updatedCells: 2_000 });
    expect(requests).toBe(pieces.length);
    expect(await read('Exact!A499:D500')).toEqual(values.slice(498));
  });

  it(`a write of exactly ${MAX_WRITE_CELLS.toLocaleString('en-US')} cells is written`, async () => {
    const values = Array.from({ length: MAX_WRITE_CELLS / 10 }, (_, row) =>
      Array.from({ length: 10 }, (_, column) => row * 10 + column),
    );
    const written = await callToolOk(client, 'write_range', { spreadsheetId, range: 'Cells!A1', values });
    expect(written.structured).toMatchObject({
      updatedRange: 'Cells!A1:J10000',
      updatedCells: MAX_WRITE_CELLS,
    });
  });
});

describe('past the maximum, a tool error that says how many rows fit (never a transport error)', () => {
  it('one byte past MCP_MAX_REQUEST_BYTES: the rows of this width that fit, and nothing written', async () => {
    const { body } = callOfSize(DEFAULT_MAX_REQUEST_BYTES + 1, 'Over!A1');
    const response = await postRaw(body);
    expect(response.status).toBe(200);
    const reply = (await response.json()) as {
      id: number;
      result: { isError: boolean; content: Array<{ text: string }> };
    };
    expect(reply.id).toBe(9);
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0]!.text).toMatch(
      /^Nothing was done: this call is 4,194,305 bytes, over the 4 MiB \(4,194,304 bytes\) one call may carry\. At this width \(4 columns, about 8,3\d\d bytes a row\) about 49\d rows fit per call: send the 500 rows in calls of at most that many/,
    );
    expect(await read('Over!A1:D500')).toEqual([]);
  });

  it('through the MCP SDK client, as the agent saw it: a tool result with isError, not a thrown transport error', async () => {
    const values = Array.from({ length: 5_000 }, (_, row) =>
      Array.from({ length: 10 }, (_, column) => `Order ${row + 1} line ${column + 1} ${'x'.repeat(80)}`),
    );
    const refused = await callTool(client, 'write_range', { spreadsheetId, range: 'Over!A1', values });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/over the 4 MiB .* about [\d,]+ rows fit per call: send the 5,000 rows/);
    expect(await read('Over!A1:J5000')).toEqual([]);
  });

  it(`${(MAX_WRITE_CELLS + 10).toLocaleString('en-US')} cells: refused by the schema, naming the rows of this width that fit`, async () => {
    const values = Array.from({ length: MAX_WRITE_CELLS / 10 + 1 }, () => Array(10).fill(1));
    const refused = await callTool(client, 'write_range', { spreadsheetId, range: 'Over!A1', values });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain(
      '100,010 cells in 10,001 rows: one call writes at most 100,000. At 10 columns, 10,000 rows fit per call',
    );
    const twoBlocks = [
      { range: 'Over!A1', values: Array.from({ length: 6_000 }, () => Array(10).fill(1)) },
      { range: 'Over!M1', values: Array.from({ length: 6_000 }, () => Array(10).fill(1)) },
    ];
    const inAll = await callTool(client, 'write_ranges', { spreadsheetId, data: twoBlocks });
    expect(inAll.isError).toBe(true);
    expect(inAll.text).toContain('the ranges hold 120,000 cells in all: one call writes at most 100,000');
    expect(await read('Over!A1:Z6000')).toEqual([]);
  });

  it('any other request past the limit is a JSON-RPC error naming the limit; past the ceiling, 413 unread', async () => {
    const padded = JSON.stringify({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/list',
      params: { _meta: { pad: 'p'.repeat(DEFAULT_MAX_REQUEST_BYTES) } },
    });
    const list = await postRaw(padded);
    expect(list.status).toBe(413);
    expect(await list.json()).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: {
        code: -32600,
        message: `the body is ${Buffer.byteLength(padded).toLocaleString('en-US')} bytes, over the 4 MiB one request may carry`,
      },
    });
    // Past the ceiling the body is never read: the answer comes from the declared length alone.
    // Only the headers are sent — a client still writing a body the server will not read may see
    // its socket closed (EPIPE) before the answer, whichever comes first on the machine.
    const ceiling = requestBodyCeiling(DEFAULT_MAX_REQUEST_BYTES);
    const huge = await declaredOnly(ceiling + 1);
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.body)).toEqual({
      error: 'payload_too_large',
      error_description: 'the body is over 8 MiB; one request may carry 4 MiB',
    });
  });
});

describe('a write larger than one Google request should carry: ordered requests, one change, one undo', () => {
  const NEW = ORIGINAL.map((row, index) =>
    row.map((_, column) => `now ${index + 1}.${column + 1} ${'n'.repeat(8)}`),
  );

  /** A call through the splitting mcp, with the progress it reported. */
  async function splitCall(name: string, args: Record<string, unknown>) {
    const reports: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await splitting.callTool({ name, arguments: { spreadsheetId, ...args } }, undefined, {
      onprogress: (report) => reports.push(report),
    });
    const answer: Answer = {
      isError: result.isError === true,
      text: (result.content as Array<{ text: string }>)[0]!.text,
      structured: (result.structuredContent ?? {}) as Record<string, unknown>,
    };
    return { answer, reports };
  }

  async function expectOneChangeUndone(answer: Answer, tool: string, range: string, before: unknown[][]) {
    expect(answer.isError, answer.text).toBe(false);
    const [newest, previous] = await latestChanges(2, splitting);
    expect(newest).toMatchObject({ changeId: answer.structured.changeId, tool });
    expect(previous?.changeId).not.toBe(answer.structured.changeId);
    const undone = await callTool(client, 'undo_change', { changeId: answer.structured.changeId });
    expect(undone.isError, undone.text).toBe(false);
    expect(await read(range)).toEqual(before);
  }

  it('write_range: every part written in order with progress after each, journaled as one change that one undo restores', async () => {
    const pieces = piecesOf([{ range: 'Split!A1', values: NEW }], SPLIT_BYTES);
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    const { requests, outcome } = await requestsDuring('values.update', () =>
      splitCall('write_range', { range: 'Split!A1', values: NEW }),
    );
    const { answer, reports } = outcome;
    expect(answer.structured).toMatchObject({
      updatedRange: 'Split!A1:E600',
      updatedRows: 600,
      updatedCells: 3_000,
    });
    expect(requests).toBe(pieces.length);
    expect(reports).toEqual([
      { progress: 0, total: pieces.length, message: `Writing 3,000 cells in ${pieces.length} requests` },
      ...pieces.map((_, index) => ({
        progress: index + 1,
        total: pieces.length,
        message: `Wrote ${index + 1} of ${pieces.length} requests`,
      })),
    ]);
    expect(await read('Split!A1:E600')).toEqual(NEW);
    await expectOneChangeUndone(answer, 'write_range', 'Split!A1:E600', ORIGINAL);
  });

  it('write_ranges: blocks cut and grouped into requests, answered per block, one change', async () => {
    const data = [
      { range: 'Ranges!A1', values: NEW.slice(0, 300) },
      { range: 'Ranges!A301', values: NEW.slice(300) },
    ];
    const { requests, outcome } = await requestsDuring('values.batchUpdate', () =>
      splitCall('write_ranges', { data }),
    );
    const { answer } = outcome;
    expect(requests).toBeGreaterThanOrEqual(3);
    expect(answer.structured).toMatchObject({
      totalUpdatedCells: 3_000,
      responses: [
        { updatedRange: 'Ranges!A1:E300', updatedCells: 1_500 },
        { updatedRange: 'Ranges!A301:E600', updatedCells: 1_500 },
      ],
    });
    expect(await read('Ranges!A1:E600')).toEqual(NEW);
    await expectOneChangeUndone(answer, 'write_ranges', 'Ranges!A1:E600', ORIGINAL);
  });

  it('append_rows: the rows go after the table in order, blank rows and leading blanks included, and one undo removes them', async () => {
    const rows = Array.from({ length: 400 }, (_, index) =>
      index % 97 === 96
        ? ['', '', '', '']
        : index % 50 === 0
          ? ['', `lead ${index}`, 'x', 'y']
          : [`No. ${index + 3}`, `Name ${index}`, `sum ${index * 10}`, 'n'.repeat(100)],
    );
    const before = await read('Appended!A1:D500');
    const { answer, reports } = await splitCall('append_rows', { range: 'Appended!A1', values: rows });
    expect(answer.isError, answer.text).toBe(false);
    expect(answer.structured).toMatchObject({
      updatedRange: 'Appended!A4:D403',
      updatedRows: 400,
      tableRange: 'Appended!A1:D3',
    });
    expect(reports.length).toBeGreaterThan(2);
    const after = await read('Appended!A1:D410');
    expect(after.slice(0, 3)).toEqual(TABLE);
    expect(after.slice(3, 403)).toEqual(rows.map((row) => (row.every((cell) => cell === '') ? [] : row)));
    // What was below the table moved down by the rows inserted, as one INSERT_ROWS append moves it.
    expect(after.slice(403)).toEqual([[], ['Footer']]);
    await expectOneChangeUndone(answer, 'append_rows', 'Appended!A1:D500', before);
  });

  it('a part Google refuses: what was written is said, journaled and undone; the rest is not written', async () => {
    const pieces = piecesOf([{ range: 'Failing!A1', values: NEW }], SPLIT_BYTES);
    const second = pieces[1]!;
    const firstRow = second.offset + 1;
    await stack.fault({ match: `^/v4/spreadsheets/[^/]+/values/[^:]*A${firstRow}(%3A|:)`, status: 403 });
    try {
      const { answer } = await splitCall('write_range', { range: 'Failing!A1', values: NEW });
      expect(answer.isError).toBe(true);
      expect(answer.text).toMatch(
        new RegExp(
          `^Wrote ${second.offset} rows of 600 \\(Failing!A1:E${second.offset}\\) before Google failed; the rest was not written: .+\\. Change (\\S+) \\(undo_change can undo it\\)\\.$`,
        ),
      );
      const changeId = /Change (\S+) \(undo_change/.exec(answer.text)![1]!;
      expect(await read('Failing!A1:E600')).toEqual([
        ...NEW.slice(0, second.offset),
        ...ORIGINAL.slice(second.offset),
      ]);
      const [newest] = await latestChanges(1, splitting);
      expect(newest).toMatchObject({ changeId, tool: 'write_range' });
      const undone = await callTool(client, 'undo_change', { changeId });
      expect(undone.isError, undone.text).toBe(false);
      expect(await read('Failing!A1:E600')).toEqual(ORIGINAL);
    } finally {
      await stack.clearFaults();
    }
  });
});
