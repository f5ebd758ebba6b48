import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createTokenBrokerClient, type TokenBrokerClient } from '@sheetgate/proto';
import { type Stack, startStack } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredTools } from '../services/mcp/src/tools/registry.ts';
import { accountService, createApiKey, signIn } from './support/people.ts';

/** One key through the broker's `ResolveApiKeys`, as the MCP service sends it. */
async function resolveOne(broker: TokenBrokerClient, apiKey: string) {
  return (await broker.resolveApiKeys({ apiKeys: [apiKey], clientAddresses: [] })).results[0]!;
}

// Every tool of docs/design.md §11 through the real MCP SDK client, with an API key made on the
// dashboard's AccountService, against the whole stack and the Google emulator.

/** The tools the stack must list, in tools/list order: the registry's, read from the definitions. */
const REGISTERED_TOOLS = registeredTools().map((tool) => tool.name);

let stack: Stack;
let alice: Client;
let aliceKey: string;

async function mcpClient(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'sheetgate-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/api/mcp`), {
      requestInit: { headers: { 'x-api-key': apiKey } },
    }),
  );
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function structured<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

beforeAll(async () => {
  stack = await startStack();
  const { sessionCookie } = await signIn(stack, 'alice@example.com');
  aliceKey = (await createApiKey(stack, sessionCookie)).secret;
  alice = await mcpClient(aliceKey);
}, 120_000);

afterAll(async () => {
  await alice?.close();
  await stack?.stop();
});

describe('tools over MCP with an API key', () => {
  let spreadsheetId: string;
  let sheetId: number;

  it('lists exactly the registered tools, each with schemas and annotations', async () => {
    const { tools } = await alice.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(REGISTERED_TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toMatchObject({
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
      });
    }
  });

  it('creates a spreadsheet with tabs and starting values', async () => {
    const created = structured<{ spreadsheetId: string; sheets: string[] }>(
      await call(alice, 'create_spreadsheet', {
        title: 'E2E budget',
        sheetTitles: ['My tab', "It's Q1"],
        values: [['Item', 'Qty', 'Price', 'Total']],
      }),
    );
    expect(created.spreadsheetId).toEqual(expect.any(String));
    expect(created.sheets).toEqual(['My tab', "It's Q1"]);
    spreadsheetId = created.spreadsheetId;
    const described = structured<{ sheets: Array<{ sheetId: number; title: string }> }>(
      await call(alice, 'get_spreadsheet', { spreadsheetId }),
    );
    sheetId = described.sheets.find((sheet) => sheet.title === 'My tab')!.sheetId;
  });

  it('writes with USER_ENTERED parsing and formulas, then reads formatted, unformatted and formulas', async () => {
    const written = structured<{ updatedCells: number }>(
      await call(alice, 'write_range', {
        spreadsheetId,
        range: 'My tab!A2:D3',
        values: [
          ['Pens', '3', '1.50', '=B2*C2'],
          ['Paper', '2', '4', '=B3*C3'],
        ],
      }),
    );
    expect(written.updatedCells).toBe(8);
    const formatted = structured<{ values: unknown[][] }>(
      await call(alice, 'read_range', { spreadsheetId, range: "'My tab'!A1:D3" }),
    );
    expect(formatted.values[1]).toEqual(['Pens', '3', '1.5', '4.5']);
    const formulas = structured<{ values: unknown[][] }>(
      await call(alice, 'read_range', { spreadsheetId, range: 'My tab!D2:D3', valueRenderOption: 'FORMULA' }),
    );
    expect(formulas.values).toEqual([['=B2*C2'], ['=B3*C3']]);
    const raw = structured<{ values: unknown[][] }>(
      await call(alice, 'read_range', {
        spreadsheetId,
        range: 'My tab!B2:D2',
        valueRenderOption: 'UNFORMATTED_VALUE',
      }),
    );
    expect(raw.values).toEqual([[3, 1.5, 4.5]]);
  });

  it('queries the table as records, then notes a cell and reads its details', async () => {
    const found = structured<{ records: unknown[]; columns: string[]; nextOffset: number | null }>(
      await call(alice, 'read_records', {
        spreadsheetId,
        range: 'My tab',
        columns: ['Item', 'Total'],
        filters: ['Total > 5'],
        valueRenderOption: 'UNFORMATTED_VALUE',
      }),
    );
    expect(found).toMatchObject({
      records: [{ Item: 'Paper', Total: 8 }],
      columns: ['Item', 'Total'],
      nextOffset: null,
    });
    const unknown = await call(alice, 'read_records', { spreadsheetId, range: 'My tab', columns: ['Cost'] });
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toContain('there is no column \\"Cost\\"');

    structured(
      await call(alice, 'set_notes', { spreadsheetId, notes: [{ range: 'My tab!A2', note: 'best seller' }] }),
    );
    const details = structured<{ cells: unknown[] }>(
      await call(alice, 'read_cell_details', {
        spreadsheetId,
        range: 'My tab!A1:D3',
        fields: ['notes', 'formulas'],
      }),
    );
    expect(details.cells).toEqual([
      { range: "'My tab'!A2", cell: 'A2', note: 'best seller' },
      { range: "'My tab'!D2", cell: 'D2', formula: '=B2*C2' },
      { range: "'My tab'!D3", cell: 'D3', formula: '=B3*C3' },
    ]);
    structured(
      await call(alice, 'set_notes', { spreadsheetId, notes: [{ range: 'My tab!A2', note: null }] }),
    );
    const cleared = structured<{ cells: unknown[] }>(
      await call(alice, 'read_cell_details', { spreadsheetId, range: 'My tab!A1:D3', fields: ['notes'] }),
    );
    expect(cleared.cells).toEqual([]);
  });

  it('appends rows, inserting them, and pages large reads', async () => {
    const rows = Array.from({ length: 30 }, (_, index) => [
      `Row ${index}`,
      index,
      1,
      `=B${index + 4}*C${index + 4}`,
    ]);
    const appended = structured<{ updatedRows: number }>(
      await call(alice, 'append_rows', { spreadsheetId, range: 'My tab!A:D', values: rows }),
    );
    expect(appended.updatedRows).toBe(30);
    const page = await call(alice, 'read_range', { spreadsheetId, range: 'My tab!A1:D40', limit: 10 });
    const first = structured<{ values: unknown[][]; nextOffset: number | null; totalRows: number }>(page);
    expect(first.values).toHaveLength(10);
    expect(first.totalRows).toBe(33);
    expect(first.nextOffset).toBe(10);
    expect((page.content[0] as { text: string }).text).toContain('offset=10');
    const last = structured<{ values: unknown[][]; nextOffset: number | null }>(
      await call(alice, 'read_range', { spreadsheetId, range: 'My tab!A1:D40', offset: 30, limit: 10 }),
    );
    expect(last.values).toHaveLength(3);
    expect(last.nextOffset).toBeNull();
  });

  it('reads several ranges and finds values across tabs, quoting tab names', async () => {
    await call(alice, 'write_range', { spreadsheetId, range: "It's Q1!A1", values: [['Pens again']] });
    const both = structured<{ valueRanges: Array<{ range: string; values: unknown[][] }> }>(
      await call(alice, 'read_ranges', { spreadsheetId, ranges: ['My tab!A1:A2', "It's Q1!A1"] }),
    );
    expect(both.valueRanges.map((range) => range.values)).toEqual([[['Item'], ['Pens']], [['Pens again']]]);
    const found = structured<{ matches: Array<{ range: string; value: string }> }>(
      await call(alice, 'find_in_spreadsheet', { spreadsheetId, query: 'pens' }),
    );
    expect(found.matches.map((match) => match.value)).toEqual(['Pens', 'Pens again']);
    expect(found.matches[1]!.range).toBe("'It''s Q1'!A1");
  });

  it('edits structure: insert and delete rows, add, rename, duplicate and delete tabs, format, batch update', async () => {
    expect(
      structured(
        await call(alice, 'insert_dimension', {
          spreadsheetId,
          sheetId,
          dimension: 'ROWS',
          startIndex: 1,
          count: 2,
        }),
      ),
    ).toEqual({
      inserted: 2,
      // Every write names its journal entry (docs/design.md §11.8), a UUID.
      changeId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
    });
    const shifted = structured<{ values: unknown[][] }>(
      await call(alice, 'read_range', { spreadsheetId, range: 'My tab!A1:A4' }),
    );
    expect(shifted.values).toEqual([['Item'], [], [], ['Pens']]);
    await call(alice, 'delete_dimension', {
      spreadsheetId,
      sheetId,
      dimension: 'ROWS',
      startIndex: 1,
      endIndex: 3,
    });
    const restored = structured<{ values: unknown[][] }>(
      await call(alice, 'read_range', { spreadsheetId, range: 'My tab!A1:A2' }),
    );
    expect(restored.values).toEqual([['Item'], ['Pens']]);

    const added = structured<{ sheetId: number }>(
      await call(alice, 'add_sheet', { spreadsheetId, title: 'Scratch' }),
    );
    await call(alice, 'rename_sheet', { spreadsheetId, sheetId: added.sheetId, title: 'Scratch pad' });
    const copy = structured<{ sheetId: number; title: string }>(
      await call(alice, 'duplicate_sheet', { spreadsheetId, sheetId, newTitle: 'My tab (copy)' }),
    );
    expect(copy.title).toBe('My tab (copy)');
    await call(alice, 'delete_sheet', { spreadsheetId, sheetId: added.sheetId });
    const tabs = structured<{ sheets: Array<{ title: string }> }>(
      await call(alice, 'get_spreadsheet', { spreadsheetId }),
    );
    expect(tabs.sheets.map((sheet) => sheet.title).sort()).toEqual(["It's Q1", 'My tab', 'My tab (copy)']);

    expect(
      (
        await call(alice, 'format_range', {
          spreadsheetId,
          range: 'My tab!A1:D1',
          bold: true,
          backgroundColor: '#1a73e8',
        })
      ).isError,
    ).toBeFalsy();
    const replaced = await call(alice, 'batch_update', {
      spreadsheetId,
      requests: [{ findReplace: { find: 'Paper', replacement: 'Card', allSheets: true } }],
    });
    expect(replaced.isError).toBeFalsy();
    const card = structured<{ values: unknown[][] }>(
      await call(alice, 'read_range', { spreadsheetId, range: 'My tab!A3' }),
    );
    expect(card.values).toEqual([['Card']]);
    const refused = await call(alice, 'batch_update', {
      spreadsheetId,
      requests: [{ deleteSpreadsheet: {} }],
    });
    expect(refused.isError).toBe(true);
  });

  it('filters and tables: a basic filter and a filter view shown by list_filters, a typed table, hostile arguments refused', async () => {
    const filter = structured<{ range: string; criteria: unknown[] }>(
      await call(alice, 'set_basic_filter', {
        spreadsheetId,
        range: 'My tab!A1:D3',
        sort: [{ column: 'A' }],
        criteria: [{ column: 'A', condition: 'TEXT_CONTAINS', values: ['Pen'] }],
      }),
    );
    expect(filter.range).toBe("'My tab'!A1:D3");
    const view = structured<{ filterViewId: number }>(
      await call(alice, 'add_filter_view', {
        spreadsheetId,
        title: 'No cards',
        range: 'My tab!A1:D3',
        criteria: [{ column: 'A', hiddenValues: ['Card'] }],
      }),
    );
    const listed = structured<{
      basicFilters: Array<{ range: string }>;
      filterViews: Array<{ title: string }>;
    }>(await call(alice, 'list_filters', { spreadsheetId }));
    expect(listed.basicFilters.map((each) => each.range)).toEqual(["'My tab'!A1:D3"]);
    expect(listed.filterViews.map((each) => each.title)).toEqual(['No cards']);
    await call(alice, 'update_filter_view', {
      spreadsheetId,
      filterViewId: view.filterViewId,
      title: 'Pens only',
    });
    const missing = await call(alice, 'delete_filter_view', {
      spreadsheetId,
      filterViewId: view.filterViewId + 1,
    });
    expect(missing.isError).toBe(true);
    expect(JSON.stringify(missing.content)).toContain(`there is no filter view ${view.filterViewId + 1}`);
    expect(
      (await call(alice, 'delete_filter_view', { spreadsheetId, filterViewId: view.filterViewId })).isError,
    ).toBeFalsy();
    expect((await call(alice, 'clear_basic_filter', { spreadsheetId, sheetId })).isError).toBeFalsy();

    const table = structured<{ tableId: string; columns: Array<{ name: string; type: string | null }> }>(
      await call(alice, 'add_table', {
        spreadsheetId,
        name: 'Stock',
        range: 'My tab!A1:D2',
        columns: [{}, { type: 'DOUBLE' }, { type: 'CURRENCY' }],
      }),
    );
    expect(table.columns.map((column) => [column.name, column.type])).toEqual([
      ['Item', null],
      ['Qty', 'DOUBLE'],
      ['Price', 'CURRENCY'],
      ['Total', null],
    ]);
    const overlap = await call(alice, 'add_table', { spreadsheetId, name: 'Other', range: 'My tab!B2:C3' });
    expect(overlap.isError).toBe(true);
    expect(JSON.stringify(overlap.content)).toContain('overlaps the table \\"Stock\\"');
    for (const hostile of [
      { name: 'x'.repeat(100_000), range: 'My tab!F1:G2' },
      { name: 'T', range: "My tab!A1:B2:C3'; DROP" },
      { name: 'T', range: 'My tab!A1:ZZZ2' },
      { name: '\u0000', range: 'My tab!F1:G2' },
    ]) {
      const result = await call(alice, 'add_table', { spreadsheetId, ...hostile });
      expect(result.isError, JSON.stringify(result.content).slice(0, 200)).toBe(true);
    }
    const tables = structured<{ tables: Array<{ name: string }> }>(
      await call(alice, 'list_tables', { spreadsheetId }),
    );
    expect(tables.tables.map((each) => each.name)).toEqual(['Stock']);
    await call(alice, 'update_table', { spreadsheetId, table: 'Stock', newName: 'Inventory' });
    expect((await call(alice, 'delete_table', { spreadsheetId, table: table.tableId })).isError).toBeFalsy();
    const header = structured<{ values: unknown[][] }>(
      await call(alice, 'read_range', { spreadsheetId, range: 'My tab!A1:D1' }),
    );
    expect(header.values).toEqual([['Item', 'Qty', 'Price', 'Total']]);
  });

  it('writes never silently replace formulas, check ifRevision, and a dry run changes nothing', async () => {
    const refused = await call(alice, 'write_range', {
      spreadsheetId,
      range: 'My tab!C2:D2',
      values: [[2, 0]],
    });
    expect(refused.isError).toBe(true);
    expect((refused.content as Array<{ text: string }>)[0]!.text).toContain("a formula ('My tab'!D2)");
    const read = structured<{ revision: string }>(
      await call(alice, 'read_range', { spreadsheetId, range: 'My tab!D2:D3', valueRenderOption: 'FORMULA' }),
    );
    const rehearsed = await call(alice, 'write_range', {
      spreadsheetId,
      range: 'My tab!D2:D3',
      values: [[1], [2]],
      overwriteFormulas: true,
      ifRevision: read.revision,
      dryRun: true,
    });
    expect(structured(rehearsed)).toEqual({
      updatedRange: "'My tab'!D2:D3",
      updatedRows: 2,
      updatedColumns: 1,
      updatedCells: 2,
      dryRun: true,
    });
    const after = structured<{ values: unknown[][]; revision: string }>(
      await call(alice, 'read_range', { spreadsheetId, range: 'My tab!D2:D3', valueRenderOption: 'FORMULA' }),
    );
    expect(after).toMatchObject({ values: [['=B2*C2'], ['=B3*C3']], revision: read.revision });
  });

  it('writes several ranges and clears one', async () => {
    const written = structured<{ totalUpdatedCells: number }>(
      await call(alice, 'write_ranges', {
        spreadsheetId,
        data: [
          { range: 'My tab (copy)!F1', values: [['x']] },
          { range: 'My tab (copy)!G1:G2', values: [['y'], ['z']] },
        ],
      }),
    );
    expect(written.totalUpdatedCells).toBe(3);
    await call(alice, 'clear_range', { spreadsheetId, range: 'My tab (copy)!F1:G2' });
    const cleared = structured<{ values: unknown[][] }>(
      await call(alice, 'read_range', { spreadsheetId, range: 'My tab (copy)!F1:G2' }),
    );
    expect(cleared.values).toEqual([]);
  });

  it('lists the spreadsheet and converts it to xlsx and back', async () => {
    const listed = structured<{ spreadsheets: Array<{ spreadsheetId: string; name: string }> }>(
      await call(alice, 'list_spreadsheets', { nameContains: 'E2E' }),
    );
    expect(listed.spreadsheets).toEqual([expect.objectContaining({ spreadsheetId, name: 'E2E budget' })]);
    const xlsx = structured<{ fileId: string; mimeType: string }>(
      await call(alice, 'convert_file', { fileId: spreadsheetId, to: 'xlsx' }),
    );
    expect(xlsx.mimeType).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const back = structured<{ fileId: string; mimeType: string }>(
      await call(alice, 'convert_file', { fileId: xlsx.fileId, to: 'spreadsheet', name: 'E2E round trip' }),
    );
    expect(back.mimeType).toBe('application/vnd.google-apps.spreadsheet');
    const values = structured<{ values: unknown[][] }>(
      await call(alice, 'read_range', { spreadsheetId: back.fileId, range: 'My tab!A1:B2' }),
    );
    expect(values.values).toEqual([
      ['Item', 'Qty'],
      ['Pens', '3'],
    ]);
  });

  it('returns clear tool errors for bad input and unknown spreadsheets', async () => {
    const invalid = await call(alice, 'read_range', { spreadsheetId: 'x', range: 'A1' });
    expect(invalid.isError).toBe(true);
    const missing = await call(alice, 'read_range', { spreadsheetId: 'doesnotexist12345', range: 'A1' });
    expect(missing.isError).toBe(true);
    expect((missing.content[0] as { text: string }).text).toMatch(/not found/i);
  });

  it('retries Google 429s honouring Retry-After, and reports a 5xx storm clearly, within bounded attempts', async () => {
    const method = 'sheets.spreadsheets.values.get';
    let before = attempts(await emulatorStats(), method);
    await fault({ match: method, status: 429, retryAfterSeconds: 1, count: 2 });
    const started = Date.now();
    const retried = structured<{ values: unknown[][] }>(
      await call(alice, 'read_range', { spreadsheetId, range: 'My tab!A1' }),
    );
    expect(retried.values).toEqual([['Item']]);
    expect(attempts(await emulatorStats(), method)).toBe(before + 3);
    // Each retry waited the second Google asked for (its own back-off would total under 1 s).
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * RETRY_AFTER_MS);
    before = attempts(await emulatorStats(), method);
    await fault({ match: method, status: 503, count: 10 });
    const failed = await call(alice, 'read_range', { spreadsheetId, range: 'My tab!A1' });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toMatch(/Google is not answering/);
    // Four attempts in all, then the error: a storm is not hammered.
    expect(attempts(await emulatorStats(), method)).toBe(before + 4);
    await clearFaults();
  });
});

describe('credentials and people', () => {
  it('a read-only key may read but a write is refused with 403 insufficient_scope', async () => {
    const { sessionCookie } = await signIn(stack, 'alice@example.com');
    const readOnly = await mcpClient((await createApiKey(stack, sessionCookie, ['sheets:read'])).secret);
    expect((await readOnly.listTools()).tools).toHaveLength(REGISTERED_TOOLS.length);
    await expect(call(readOnly, 'create_spreadsheet', { title: 'nope' })).rejects.toThrow(
      /403|insufficient_scope|Forbidden/i,
    );
    await readOnly.close();
  });

  it('a revoked key stops on the next request; other keys keep working', async () => {
    const { sessionCookie } = await signIn(stack, 'alice@example.com');
    const created = await createApiKey(stack, sessionCookie);
    const client = await mcpClient(created.secret);
    expect((await client.listTools()).tools).toHaveLength(REGISTERED_TOOLS.length);
    const accounts = accountService(stack);
    await accounts.revokeApiKey({ sessionCookie, keyId: created.key!.id });
    accounts.close();
    const response = await fetch(`${stack.baseUrl}/api/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': created.secret,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect((await alice.listTools()).tools).toHaveLength(REGISTERED_TOOLS.length);
  });

  it('one person never sees another person’s spreadsheets', async () => {
    const { sessionCookie } = await signIn(stack, 'bob@example.com');
    const bob = await mcpClient((await createApiKey(stack, sessionCookie)).secret);
    const mine = structured<{ spreadsheetId: string }>(
      await call(alice, 'create_spreadsheet', { title: 'Alice private' }),
    );
    const bobsList = structured<{ spreadsheets: Array<{ name: string }> }>(
      await call(bob, 'list_spreadsheets', {}),
    );
    expect(bobsList.spreadsheets.map((sheet) => sheet.name)).not.toContain('Alice private');
    const peek = await call(bob, 'read_range', { spreadsheetId: mine.spreadsheetId, range: 'A1' });
    expect(peek.isError).toBe(true);
    await bob.close();
  });

  it('Google revoking the grant makes tools say authentication is required, naming the dashboard', async () => {
    const { sessionCookie } = await signIn(stack, 'bob@example.com');
    const bob = await mcpClient((await createApiKey(stack, sessionCookie)).secret);
    expect((await call(bob, 'list_spreadsheets', {})).isError).toBeFalsy();
    await fetch(`${stack.emulatorUrl}/__emulator/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bob@example.com' }),
    });
    const refused = await call(bob, 'list_spreadsheets', {});
    expect(refused.isError).toBe(true);
    expect((refused.content[0] as { text: string }).text).toContain(`${stack.baseUrl}/dashboard`);
    expect((refused.content[0] as { text: string }).text).toMatch(/Authentication required/);
    // Reconnecting Google (signing in again) restores the tools.
    await signIn(stack, 'bob@example.com');
    expect((await call(bob, 'list_spreadsheets', {})).isError).toBeFalsy();
    await bob.close();
  });
});

function text(result: CallToolResult): string {
  return (result.content[0] as { text: string }).text;
}

/**
 * A one-second Retry-After, less a little: a timer may fire a millisecond early. The jittered
 * back-off used without a Retry-After waits at most 0.3 s for a first retry and 0.9 s for two.
 */
const RETRY_AFTER_MS = 990;

async function fault(body: Record<string, unknown>) {
  const response = await fetch(`${stack.emulatorUrl}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`fault refused: ${await response.text()}`);
}
const clearFaults = () => fetch(`${stack.emulatorUrl}/__emulator/faults`, { method: 'DELETE' });

interface EmulatorStats {
  methods: Record<string, { attempts: number; responses: Record<string, number> }>;
  tokenGrants: Record<string, { attempts: number; responses: Record<string, number> }>;
}
async function emulatorStats(): Promise<EmulatorStats> {
  return (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as EmulatorStats;
}
const refreshGrants = (stats: EmulatorStats) => stats.tokenGrants.refresh_token?.responses['200'] ?? 0;
const attempts = (stats: EmulatorStats, method: string) => stats.methods[method]?.attempts ?? 0;

/** The user behind an API key and their Google access token, as the broker hands them out. */
async function googleTokenOf(apiKey: string): Promise<string | undefined> {
  const broker = createTokenBrokerClient({
    address: `127.0.0.1:${stack.ports.AUTH_GRPC_PORT}`,
    serviceToken: stack.serviceToken,
  });
  try {
    const { resolved } = await resolveOne(broker, apiKey);
    return (await broker.getGoogleAccessToken({ userId: resolved!.userId, forceRefresh: false })).token
      ?.accessToken;
  } finally {
    broker.close();
  }
}

describe('Google error paths, for every tool family', () => {
  let spreadsheetId: string;
  /** The spreadsheet convert_file exports: nothing writes into it, so no owners read is made of it. */
  let exportedId: string;
  let counter = 0;
  beforeAll(async () => {
    spreadsheetId = structured<{ spreadsheetId: string }>(
      await call(alice, 'create_spreadsheet', { title: 'Error paths', values: [['a', 'b']] }),
    ).spreadsheetId;
    exportedId = structured<{ spreadsheetId: string }>(
      await call(alice, 'create_spreadsheet', { title: 'Exported', values: [['a', 'b']] }),
    ).spreadsheetId;
  });
  afterAll(async () => {
    await clearFaults();
  });

  // Each family: a tool, the Google method its first call makes, its arguments, and the arguments
  // that name something that does not exist (null where the tool names nothing). `target` is what
  // a fault matches when the method alone would catch another call's request too: a write reads
  // its spreadsheet's owners with drive.files.get, as convert_file reads its file.
  const families: Array<{
    family: string;
    tool: string;
    method: string;
    target?: () => string;
    args: () => Record<string, unknown>;
    missing: Record<string, unknown> | null;
  }> = [
    {
      family: 'listing',
      tool: 'list_spreadsheets',
      method: 'drive.files.list',
      args: () => ({}),
      missing: null,
    },
    {
      family: 'spreadsheet metadata',
      tool: 'get_spreadsheet',
      method: 'sheets.spreadsheets.get',
      args: () => ({ spreadsheetId }),
      missing: { spreadsheetId: 'doesnotexist12345' },
    },
    {
      family: 'reading values',
      tool: 'read_range',
      method: 'sheets.spreadsheets.values.get',
      args: () => ({ spreadsheetId, range: 'A1:B1' }),
      missing: { spreadsheetId: 'doesnotexist12345', range: 'A1' },
    },
    {
      family: 'reading several ranges',
      tool: 'read_ranges',
      method: 'sheets.spreadsheets.values.batchGet',
      args: () => ({ spreadsheetId, ranges: ['A1', 'B1'] }),
      missing: { spreadsheetId: 'doesnotexist12345', ranges: ['A1'] },
    },
    {
      family: 'writing values',
      tool: 'write_range',
      method: 'sheets.spreadsheets.values.update',
      args: () => ({ spreadsheetId, range: 'C1', values: [[`w${++counter}`]] }),
      missing: { spreadsheetId: 'doesnotexist12345', range: 'A1', values: [['x']] },
    },
    {
      family: 'changing structure',
      tool: 'add_sheet',
      method: 'sheets.spreadsheets.batchUpdate',
      args: () => ({ spreadsheetId, title: `Tab ${++counter}` }),
      missing: { spreadsheetId: 'doesnotexist12345', title: 'x' },
    },
    {
      family: 'creating',
      tool: 'create_spreadsheet',
      method: 'sheets.spreadsheets.create',
      args: () => ({ title: `Created ${++counter}` }),
      missing: null,
    },
    {
      family: 'converting files',
      tool: 'convert_file',
      method: 'drive.files.get',
      target: () => `^/drive/v3/files/${exportedId}$`,
      args: () => ({ fileId: exportedId, to: 'csv', name: `Export ${++counter}.csv` }),
      missing: { fileId: 'doesnotexist12345', to: 'csv' },
    },
  ];

  const faultTarget = (row: (typeof families)[number]) => row.target?.() ?? row.method;

  it('a 401 on every family at once: the broker refreshes the token once, each call retries with it and succeeds', async () => {
    // The broker ignores a forced refresh of a token younger than 5 s (many calls refused at once
    // share one refresh); let the current one age past that.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const before = await emulatorStats();
    for (const row of families) await fault({ match: faultTarget(row), status: 401, count: 1 });
    const results = await Promise.all(families.map((row) => call(alice, row.tool, row.args())));
    results.forEach((result, index) => {
      expect(result.isError, `${families[index]!.tool}: ${text(result)}`).toBeFalsy();
    });
    const after = await emulatorStats();
    // A refresh-token grant really happened at Google — one, shared — not a plain retry.
    expect(refreshGrants(after)).toBe(refreshGrants(before) + 1);
    for (const row of families)
      expect(attempts(after, row.method), row.method).toBeGreaterThanOrEqual(
        attempts(before, row.method) + 2,
      );
  });

  it.each(families)('$family ($tool): a 403 is a clear refusal, not retried', async (row) => {
    const before = attempts(await emulatorStats(), row.method);
    await fault({ match: faultTarget(row), status: 403, reason: 'forbidden', count: 1 });
    const result = await call(alice, row.tool, row.args());
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^Google refused access/);
    expect(attempts(await emulatorStats(), row.method)).toBe(before + 1);
  });

  it.each(families)(
    '$family ($tool): a 403 rateLimitExceeded is a quota error, retried like a 429',
    async (row) => {
      const before = attempts(await emulatorStats(), row.method);
      await fault({
        match: faultTarget(row),
        status: 403,
        reason: 'rateLimitExceeded',
        retryAfterSeconds: 0,
        count: 1,
      });
      const result = await call(alice, row.tool, row.args());
      expect(result.isError, text(result)).toBeFalsy();
      expect(attempts(await emulatorStats(), row.method)).toBeGreaterThanOrEqual(before + 2);
    },
  );

  it.each(families.filter((row) => row.missing))(
    '$family ($tool): a 404 says what was not found',
    async (row) => {
      const result = await call(alice, row.tool, row.missing!);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^Not found/);
    },
  );

  it.each(families)('$family ($tool): a 429 is retried honouring Retry-After, then succeeds', async (row) => {
    const before = attempts(await emulatorStats(), row.method);
    await fault({ match: faultTarget(row), status: 429, retryAfterSeconds: 1, count: 1 });
    const started = Date.now();
    const result = await call(alice, row.tool, row.args());
    expect(result.isError, text(result)).toBeFalsy();
    expect(attempts(await emulatorStats(), row.method)).toBeGreaterThanOrEqual(before + 2);
    // The retry came no earlier than the Retry-After (the back-off alone would be under 0.3 s).
    expect(Date.now() - started).toBeGreaterThanOrEqual(RETRY_AFTER_MS);
  });

  it('a revoked Google grant makes every family say authentication is required, naming the dashboard', async () => {
    const { sessionCookie } = await signIn(stack, 'bob@example.com');
    const bob = await mcpClient((await createApiKey(stack, sessionCookie)).secret);
    const bobsSheet = structured<{ spreadsheetId: string }>(
      await call(bob, 'create_spreadsheet', { title: 'Bob error paths' }),
    ).spreadsheetId;
    await fetch(`${stack.emulatorUrl}/__emulator/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bob@example.com' }),
    });
    for (const row of families) {
      const args = JSON.parse(
        JSON.stringify(row.args()).replaceAll(spreadsheetId, bobsSheet).replaceAll(exportedId, bobsSheet),
      );
      const refused = await call(bob, row.tool, args);
      expect(refused.isError, row.tool).toBe(true);
      expect(text(refused), row.tool).toMatch(/^Authentication required/);
      expect(text(refused), row.tool).toContain(`${stack.baseUrl}/dashboard`);
    }
    await signIn(stack, 'bob@example.com');
    await bob.close();
  });

  it('a 401 refresh gives the person a new Google access token; twice in a row is reported', async () => {
    const before = await googleTokenOf(aliceKey);
    await fault({ match: 'sheets.spreadsheets.values.get', status: 401, count: 1 });
    expect((await call(alice, 'read_range', { spreadsheetId, range: 'A1' })).isError).toBeFalsy();
    const after = await googleTokenOf(aliceKey);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    await fault({ match: 'sheets.spreadsheets.values.get', status: 401, count: 2 });
    const refused = await call(alice, 'read_range', { spreadsheetId, range: 'A1' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/Authentication required/);
  });
});

describe("reads stay within a model's context", () => {
  it('a page stops at the character budget and says how to get the rest', async () => {
    const long = 'x'.repeat(5_000);
    const created = structured<{ spreadsheetId: string }>(
      await call(alice, 'create_spreadsheet', {
        title: 'Wide text',
        values: Array.from({ length: 40 }, (_, index) => [`row ${index}`, long]),
      }),
    );
    const result = await call(alice, 'read_range', { spreadsheetId: created.spreadsheetId, range: 'A1:B40' });
    const page = structured<{ returnedRows: number; nextOffset: number | null; totalRows: number }>(result);
    expect(page.totalRows).toBe(40);
    expect(page.returnedRows).toBeLessThan(40);
    expect(page.nextOffset).toBe(page.returnedRows);
    expect(text(result)).toContain(`call read_range with range="A1:B40" and offset=${page.nextOffset}`);

    const several = await call(alice, 'read_ranges', {
      spreadsheetId: created.spreadsheetId,
      ranges: ['A1:B40', 'A1:A2'],
      limitPerRange: 5,
    });
    expect(text(several)).toContain('call read_range with range="A1:B40" and offset=5');
    const next = structured<{ values: unknown[][] }>(
      await call(alice, 'read_range', {
        spreadsheetId: created.spreadsheetId,
        range: 'Sheet1!A1:B40',
        offset: 5,
        limit: 1,
      }),
    );
    expect(next.values).toEqual([['row 5', long]]);
  });

  it('find_in_spreadsheet stops at maxResults without reading further, and says where it stopped', async () => {
    // 5,000 rows of the default 26 columns: more than one read of 100,000 cells.
    const values: string[][] = Array.from({ length: 5_000 }, (_, index) => [`plain ${index}`]);
    values[0] = ['needle one'];
    values[1] = ['needle two'];
    values[4_999] = ['needle three'];
    const created = structured<{ spreadsheetId: string }>(
      await call(alice, 'create_spreadsheet', { title: 'Haystack', values }),
    );
    const reads = async () => attempts(await emulatorStats(), 'sheets.spreadsheets.values.batchGet');

    const before = await reads();
    const capped = structured<{
      matches: Array<{ range: string }>;
      truncated: boolean;
      stoppedAt: string | null;
    }>(
      await call(alice, 'find_in_spreadsheet', {
        spreadsheetId: created.spreadsheetId,
        query: 'needle',
        maxResults: 2,
      }),
    );
    expect(capped.matches.map((match) => match.range)).toEqual(['Sheet1!A1', 'Sheet1!A2']);
    expect(capped.truncated).toBe(true);
    expect(capped.stoppedAt).not.toBeNull();
    const cappedReads = (await reads()) - before;

    const whole = structured<{ matches: Array<{ range: string }>; truncated: boolean; scannedCells: number }>(
      await call(alice, 'find_in_spreadsheet', { spreadsheetId: created.spreadsheetId, query: 'needle' }),
    );
    expect(whole.matches.map((match) => match.range)).toEqual(['Sheet1!A1', 'Sheet1!A2', 'Sheet1!A5000']);
    expect(whole.truncated).toBe(false);
    const wholeReads = (await reads()) - before - cappedReads;
    // The capped search read less of the sheet than the whole search had to.
    expect(cappedReads).toBeLessThan(wholeReads);
  });
});
