import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthInfo } from '../src/auth/auth-info.ts';
import type { ChangeJournal, ListedChange } from '../src/journal/change-journal.ts';
import { undoToolset } from '../src/journal/undo-toolset.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { callTool, callToolOk } from './support/tool-answers.ts';

// Toolsets are a hard boundary (docs/design.md §11.5, issue 32): a call may do only what its
// credential's sets allow, whichever tool carries it. undo_change needs the set of the tool whose
// change it undoes; batch_update takes a request kind only when the set that owns it is enabled.
// Through the MCP SDK client with API keys made by the real auth, against real mcp and auth
// processes and the Google emulator.

let stack: McpUnderTest;
let owner: Client;
let sessionCookie: string;
let spreadsheetId: string;
const clients: Client[] = [];

// undo_change names a change, not a spreadsheet.
const call = (client: Client, name: string, args: Record<string, unknown>) =>
  callTool(client, name, { ...(name === 'undo_change' ? {} : { spreadsheetId }), ...args });
const ok = (client: Client, name: string, args: Record<string, unknown>) =>
  callToolOk(client, name, { ...(name === 'undo_change' ? {} : { spreadsheetId }), ...args });

/** An MCP client on an API key auth made with these toolsets, as the dashboard makes it. */
async function keyClient(toolsets: string[]): Promise<Client> {
  const { secret } = await stack.createApiKey(sessionCookie, { toolsets });
  const client = new Client({ name: `key-${toolsets.join('+')}`, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(stack.mcpUrl), {
      requestInit: { headers: { 'x-api-key': secret } },
    }),
  );
  clients.push(client);
  return client;
}

async function tabs(): Promise<Array<{ sheetId: number; title: string }>> {
  return (await ok(owner, 'get_spreadsheet', {})).structured.sheets as Array<{
    sheetId: number;
    title: string;
  }>;
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const person = await stack.signIn('alice@example.com');
  sessionCookie = person.sessionCookie;
  [spreadsheetId] = (await stack.seed('alice@example.com', [
    {
      name: 'Boundary',
      sheets: [
        {
          title: 'Data',
          values: [
            ['Item', 'Qty'],
            ['Pens', 3],
            ['Ink', 5],
          ],
        },
        { title: 'Old', values: [['keep', 1]] },
        { title: 'Notes', values: [['a']] },
      ],
    },
  ])) as [string];
  // The owner's connection names no sets: every set.
  owner = await stack.connectClient(person.userId, 'boundary-owner');
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await owner?.close();
  await stack?.stop();
});

describe('undo_change needs the toolset of the tool it undoes', () => {
  it('a Reading and Writing key cannot recreate a deleted tab; a key with Structure can', async () => {
    const old = (await tabs()).find((tab) => tab.title === 'Old')!;
    const deleted = await ok(owner, 'delete_sheet', { sheetId: old.sheetId });
    const changeId = deleted.structured.changeId as string;
    const readWrite = await keyClient(['core-read', 'core-write']);

    for (const dryRun of [true, false]) {
      const refused = await call(readWrite, 'undo_change', { changeId, dryRun });
      expect(refused.isError, refused.text).toBe(true);
      expect(refused.text).toContain(
        `Not undone: undoing change ${changeId} writes again what delete_sheet did`,
      );
      expect(refused.text).toContain('"structure" (Structure and formatting)');
      expect(refused.text).toContain(
        `which this API key does not enable; to use it, create an API key with it at ${stack.baseUrl}/dashboard`,
      );
    }
    // Nothing written: the tab is still gone and the change still stands, undoable.
    expect((await tabs()).map((tab) => tab.title)).not.toContain('Old');
    const listed = (await ok(owner, 'list_changes', {})).structured.changes as Array<Record<string, unknown>>;
    expect(listed.find((change) => change.changeId === changeId)).toMatchObject({
      undoable: true,
      undoneAt: null,
    });

    const structure = await keyClient(['core-write', 'structure']);
    const undone = await ok(structure, 'undo_change', { changeId });
    expect(undone.structured.restored).toEqual(['Old']);
    expect((await tabs()).map((tab) => tab.title)).toContain('Old');
  });

  it('a Writing key undoes value writes, and undoes an undo of them (a redo of a Writing change)', async () => {
    const writer = await keyClient(['core-read', 'core-write']);
    const written = await ok(owner, 'write_range', { range: 'Notes!A1', values: [['b']] });
    const undo = await ok(writer, 'undo_change', { changeId: written.structured.changeId });
    const redo = await ok(writer, 'undo_change', { changeId: undo.structured.changeId });
    expect(redo.structured.undoneChangeId).toBe(undo.structured.changeId);
    expect((await ok(owner, 'read_range', { range: 'Notes!A1' })).structured.values).toEqual([['b']]);
  });
});

describe('the toolset an undo needs, followed through undos of undos', () => {
  const change = (id: string, tool: string, undoesChangeId = ''): ListedChange =>
    ({ id, tool, undoesChangeId }) as ListedChange;
  const kept = new Map<string, ListedChange>([
    ['d', change('d', 'delete_sheet')],
    ['u1', change('u1', 'undo_change', 'd')],
    ['u2', change('u2', 'undo_change', 'u1')],
    ['w', change('w', 'write_range')],
    ['u3', change('u3', 'undo_change', 'w')],
    ['lost', change('lost', 'undo_change', 'purged')],
  ]);
  const journal = {
    get: async (_auth: AuthInfo, id: string | undefined) => {
      const found = id ? kept.get(id) : undefined;
      return found ? { change: found, payload: undefined } : undefined;
    },
  } as unknown as ChangeJournal;
  const auth = (toolsets?: string[]): AuthInfo => ({
    userId: 'u',
    scopes: new Set(['sheets:write']),
    credential: 'api_key',
    ...(toolsets ? { toolsets } : {}),
  });
  const writing = auth(['core-read', 'core-write']);

  it("is the original tool's set however many undos lie between", async () => {
    expect(await undoToolset(journal, writing, kept.get('u2')!)).toEqual({
      kind: 'not_enabled',
      tool: 'delete_sheet',
      set: 'structure',
    });
    expect(await undoToolset(journal, writing, kept.get('u3')!)).toEqual({ kind: 'ok' });
    expect(await undoToolset(journal, auth(['core-write', 'structure']), kept.get('u2')!)).toEqual({
      kind: 'ok',
    });
  });

  it('cannot be told when the chain leaves the journal; a credential with every set reads nothing', async () => {
    expect(await undoToolset(journal, writing, kept.get('lost')!)).toMatchObject({ kind: 'unknown' });
    expect(await undoToolset(journal, writing, change('x', 'a_tool_of_another_release'))).toMatchObject({
      kind: 'unknown',
    });
    const none = { get: () => Promise.reject(new Error('read')) } as unknown as ChangeJournal;
    expect(await undoToolset(none, auth(), kept.get('lost')!)).toEqual({ kind: 'ok' });
  });
});

describe('batch_update takes a request kind only when its toolset is enabled', () => {
  it('a Structure key cannot add a table or data validation through it; nothing is written', async () => {
    const structure = await keyClient(['core-read', 'structure']);
    const data = (await tabs()).find((tab) => tab.title === 'Data')!;
    const grid = {
      sheetId: data.sheetId,
      startRowIndex: 0,
      endRowIndex: 3,
      startColumnIndex: 0,
      endColumnIndex: 2,
    };
    const table = await call(structure, 'batch_update', {
      requests: [
        { mergeCells: { range: { ...grid, startRowIndex: 5, endRowIndex: 6 }, mergeType: 'MERGE_ALL' } },
        { addTable: { table: { name: 'Stock', range: grid } } },
      ],
    });
    expect(table.isError, table.text).toBe(true);
    expect(table.text).toContain('request 1 (addTable) is in the toolset "rules" (Rules and ranges)');
    expect(table.text).toContain(`create an API key with it at ${stack.baseUrl}/dashboard`);

    const validation = {
      dataValidation: {
        condition: { type: 'ONE_OF_LIST', values: [{ userEnteredValue: 'Pens' }] },
        strict: true,
      },
    };
    for (const request of [
      { repeatCell: { range: grid, cell: validation, fields: 'dataValidation' } },
      {
        repeatCell: { range: grid, cell: validation, fields: 'userEnteredFormat(textFormat),dataValidation' },
      },
      { updateCells: { range: grid, rows: [{ values: [validation] }], fields: '*' } },
    ]) {
      for (const dryRun of [true, false]) {
        const refused = await call(structure, 'batch_update', { requests: [request], dryRun });
        expect(refused.isError, refused.text).toBe(true);
        expect(refused.text).toMatch(
          /request 0 \((repeatCell|updateCells) writing data validation .*"rules" \(Rules and ranges\)/,
        );
      }
    }
    // A pivot table is a cell's field: writing it through batch_update needs Charts, as set_pivot_table does.
    const pivotCells = (fields: string) => ({
      updateCells: {
        range: { ...grid, startRowIndex: 8, endRowIndex: 9, endColumnIndex: 1 },
        rows: [{ values: [{ pivotTable: { source: grid, rows: [{ sourceColumnOffset: 0 }] } }] }],
        fields,
      },
    });
    const pivot = await call(structure, 'batch_update', { requests: [pivotCells('pivotTable')] });
    expect(pivot.isError, pivot.text).toBe(true);
    expect(pivot.text).toContain(
      'request 0 (updateCells writing pivot tables (fields "pivotTable")) is in the toolset "charts" (Charts)',
    );
    // setDataValidation is not a kind batch_update passes at all (set_data_validation does it).
    const raw = await call(structure, 'batch_update', {
      requests: [{ setDataValidation: { range: grid, rule: validation.dataValidation } }],
    });
    expect(raw.isError).toBe(true);

    expect((await ok(owner, 'list_tables', {})).structured.tables).toEqual([]);
    const details = await ok(owner, 'read_cell_details', { range: 'Data!A1:B3', fields: ['validation'] });
    expect(details.structured.cells).toEqual([]);

    // The same key's own kinds go through, formats beside the cells included.
    await ok(structure, 'batch_update', {
      requests: [
        { mergeCells: { range: { ...grid, startRowIndex: 5, endRowIndex: 6 }, mergeType: 'MERGE_ALL' } },
        {
          repeatCell: {
            range: grid,
            cell: { userEnteredFormat: { textFormat: { bold: true } } },
            fields: 'userEnteredFormat',
          },
        },
      ],
    });
    // And with Rules enabled too, the table is added.
    const both = await keyClient(['core-read', 'structure', 'rules']);
    await ok(both, 'batch_update', { requests: [{ addTable: { table: { name: 'Stock', range: grid } } }] });
    const pivotUnderAll = await call(both, 'batch_update', { requests: [pivotCells('*')] });
    expect(pivotUnderAll.text).toContain('request 0 (updateCells writing pivot tables (fields "*"))');
    expect((await ok(owner, 'list_tables', {})).structured.tables).toHaveLength(1);
  });
});
