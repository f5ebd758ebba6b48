import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredTools } from '../src/tools/registry.ts';
import { freshCallOf } from './support/every-tool-call.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { type Answer, callTool, callToolOk } from './support/tool-answers.ts';

// Errors that say how to recover, and inputs as people have them (issue 35, item 5), through the
// MCP SDK client against real mcp and auth processes and the Google emulator: a spreadsheet's URL
// wherever its id goes, a tab's name wherever its sheetId goes, a write past a tab's grid said as
// such, and a range on a tab that is not there answered with the tabs that are. The same inputs on
// every tool's definition are in id-url-inputs.test.ts.

let stack: McpUnderTest;
let client: Client;
let userId: string;
let spreadsheetId: string;
const tabIds: Record<string, number> = {};

const urlOf = (id: string) => `https://docs.google.com/spreadsheets/d/${id}/edit#gid=0`;
const call = (name: string, args: Record<string, unknown>) =>
  callTool(client, name, { spreadsheetId, ...args });
const ok = (name: string, args: Record<string, unknown>) =>
  callToolOk(client, name, { spreadsheetId, ...args });

async function google(path: string): Promise<Record<string, unknown>> {
  const token = await stack.googleAccessToken(userId);
  const response = await fetch(`${stack.emulatorUrl}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

type Tab = { properties: { sheetId: number; title: string; gridProperties: Record<string, number> } };
async function tabs(id = spreadsheetId): Promise<Tab['properties'][]> {
  const book = (await google(`/v4/spreadsheets/${id}?fields=sheets.properties`)) as { sheets: Tab[] };
  return book.sheets.map((sheet) => sheet.properties);
}

async function attempts(): Promise<Record<string, number>> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return Object.fromEntries(Object.entries(stats.methods).map(([name, { attempts }]) => [name, attempts]));
}

/** The Google requests `action` made, by method, and its answer. */
async function requestsDuring(
  action: () => Promise<Answer>,
): Promise<{ made: Record<string, number>; answer: Answer }> {
  const before = await attempts();
  const answer = await action();
  const after = await attempts();
  const made = Object.fromEntries(
    Object.entries(after)
      .map(([method, count]) => [method, count - (before[method] ?? 0)] as const)
      .filter(([, count]) => count > 0),
  );
  return { made, answer };
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  ({ userId } = await stack.signIn('alice@example.com'));
  [spreadsheetId] = (await stack.seed('alice@example.com', [
    {
      name: 'Household',
      sheets: [
        {
          title: 'Budget',
          values: [
            ['Item', 'Amount'],
            ['Rent', 1200],
            ['Food', 300],
          ],
        },
        { title: 'Orders', values: [['Order']] },
        { title: 'Scratch', values: [['x']] },
        { title: 'Wide', values: [['']] },
      ],
    },
  ])) as [string];
  for (const tab of await tabs()) tabIds[tab.title] = tab.sheetId;
  client = await stack.connectClient(userId, 'inputs as people have them');
}, 120_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe("the issue's reproductions", () => {
  it('a spreadsheet URL is taken as its id, #gid and all', async () => {
    const written = await callToolOk(client, 'write_range', {
      spreadsheetId: urlOf(spreadsheetId),
      range: 'Budget!C1',
      values: [['Note']],
    });
    expect(written.text).toMatch(/^Updated 1 cells in Budget!C1\./);
    expect((await ok('read_range', { range: 'Budget!C1' })).structured.values).toEqual([['Note']]);
  });

  it('freeze and delete_sheet take the tab by name', async () => {
    const frozen = await ok('freeze', { sheetId: 'Budget', rows: 1 });
    expect(frozen.structured.sheetId).toBe(tabIds.Budget);
    const budget = (await tabs()).find((tab) => tab.title === 'Budget')!;
    expect(budget.gridProperties.frozenRowCount).toBe(1);

    const deleted = await ok('delete_sheet', { sheetId: 'scratch' });
    expect(deleted.structured.deletedSheetId).toBe(tabIds.Scratch);
    expect((await tabs()).map((tab) => tab.title)).not.toContain('Scratch');
  });

  it('a tab name that is no tab is refused, listing the tabs, and nothing changes', async () => {
    const before = await tabs();
    const refused = await call('delete_sheet', { sheetId: 'Sheet1' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toBe(
      `there is no tab named "Sheet1"; the tabs are "Budget" (sheetId ${tabIds.Budget}), "Orders" (sheetId ${tabIds.Orders}), "Wide" (sheetId ${tabIds.Wide})`,
    );
    expect(await tabs()).toEqual(before);
  });

  it.each([
    ['write_range', { range: 'Sheet1!A1:B2', values: [['a', 'b']] }],
    [
      'write_ranges',
      {
        data: [
          { range: 'Budget!D1', values: [['a']] },
          { range: 'Sheet1!A1', values: [['b']] },
        ],
      },
    ],
    ['append_rows', { range: 'Sheet1!A:B', values: [['a', 'b']] }],
    ['clear_range', { range: 'Sheet1!A1:B2' }],
    ['read_range', { range: 'Sheet1!A1:B2' }],
    ['read_ranges', { ranges: ['Budget!A1', 'Sheet1!A1:B2'] }],
  ])('%s on a tab that is not there names the tabs there are', async (tool, args) => {
    const refused = await call(tool, args);
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(
      /^there is no tab named "Sheet1" \(in the range "Sheet1![A-Z0-9:]*"\); the tabs are "Budget" \(sheetId \d+\), "Orders"/,
    );
    expect(refused.text).not.toContain('Unable to parse range');
  });

  it('the tabs are read only when the range names none: a good write reads nothing more', async () => {
    const { made, answer } = await requestsDuring(() =>
      ok('write_range', { range: 'Orders!A2', values: [[1]] }),
    );
    expect(answer.isError).toBe(false);
    expect(made['sheets.spreadsheets.get'] ?? 0).toBe(0);
    const refused = await requestsDuring(() => call('write_range', { range: 'Nope!A2', values: [[1]] }));
    expect(refused.answer.isError).toBe(true);
    expect(refused.made['sheets.spreadsheets.get']).toBe(1);
    expect(refused.made['sheets.spreadsheets.values.update'] ?? 0).toBe(0);
  });

  it('a 5,000-row write from A1 says the tab grew, from how many rows to how many', async () => {
    const values = Array.from({ length: 5_000 }, (_, row) => [row]);
    const written = await ok('write_range', { range: 'Orders!A1', values });
    expect(written.text).toMatch(
      /^Updated 5000 cells in Orders!A1:A5000, growing the tab "Orders" from 1,000 to 5,000 rows\./,
    );
    expect(written.structured.tabsGrown).toEqual(['"Orders" from 1,000 to 5,000 rows']);
    expect((await tabs()).find((tab) => tab.title === 'Orders')!.gridProperties.rowCount).toBe(5_000);
  });

  it('write_ranges past the right edge says which tab grew, and by how many columns', async () => {
    const written = await ok('write_ranges', {
      data: [
        { range: 'Budget!D2', values: [['x']] },
        { range: 'Wide!Z1', values: [['a', 'b', 'c']] },
      ],
    });
    expect(written.text).toMatch(
      /^Updated 4 cells in 2 ranges, growing the tab "Wide" from 26 to 28 columns\./,
    );
    expect(written.structured.tabsGrown).toEqual(['"Wide" from 26 to 28 columns']);
  });

  it('a write within the grid reads no grid and says nothing of it', async () => {
    const { made, answer } = await requestsDuring(() =>
      ok('write_range', { range: 'Budget!A4', values: [['Travel', 150]] }),
    );
    expect(answer.text).not.toContain('growing');
    expect(answer.structured.tabsGrown).toBeUndefined();
    expect(made['sheets.spreadsheets.get'] ?? 0).toBe(0);
  });

  it('a values tool Google refuses past the grid names append_rows and insert_dimension', async () => {
    const refused = await call('clear_range', { range: 'Budget!A5001:B5002' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toBe(
      'Range (Budget!A5001:B5002) exceeds grid limits. Max rows: 1000, max columns: 26. The tab has no cells there: append_rows adds rows after a table; insert_dimension adds rows or columns anywhere.',
    );
  });
});

describe('a spreadsheet, file or folder URL in each family of tools', () => {
  const docUrl = (id: string) => `https://docs.google.com/spreadsheets/d/${id}/edit?usp=sharing#gid=0`;
  const driveUrl = (id: string) => `https://drive.google.com/file/d/${id}/view`;
  const folderUrl = (id: string) => `https://drive.google.com/drive/folders/${id}`;

  it.each([
    'get_spreadsheet',
    'read_range',
    'write_range',
    'insert_dimension',
    'freeze',
    'list_conditional_formats',
    'list_charts',
    'list_tables',
    'copy_spreadsheet',
    'convert_file',
    'list_permissions',
    'list_comments',
    'copy_sheet_to',
  ])('%s', async (tool) => {
    const { target, args } = await freshCallOf(stack, userId, tool);
    const withUrls: Record<string, unknown> = { ...args };
    if ('spreadsheetId' in args) withUrls.spreadsheetId = docUrl(target.spreadsheetId);
    if ('destinationSpreadsheetId' in args) withUrls.destinationSpreadsheetId = docUrl(target.spreadsheetId);
    if ('fileId' in args) withUrls.fileId = driveUrl(target.spreadsheetId);
    expect(withUrls).not.toEqual(args);
    await callToolOk(client, tool, withUrls);
  });

  it('list_folder_contents and create_spreadsheet take a folder URL', async () => {
    const folder = await callToolOk(client, 'create_folder', { name: 'Budgets' });
    const folderId = folder.structured.folderId as string;
    const made = await callToolOk(client, 'create_spreadsheet', {
      title: 'In the folder',
      folderId: folderUrl(folderId),
    });
    expect(made.structured.folderId).toBe(folderId);
    const listed = await callToolOk(client, 'list_folder_contents', { folderId: folderUrl(folderId) });
    expect((listed.structured.files as Array<{ name: string }>).map((file) => file.name)).toEqual([
      'In the folder',
    ]);
  });
});

describe('a tab name in every tool that took only a sheetId', () => {
  const withTabs = registeredTools()
    .filter((tool) => 'sheetId' in tool.inputSchema.shape)
    .map((tool) => tool.name);

  it('covers them all', () => expect(withTabs.length).toBeGreaterThanOrEqual(16));

  it.each(withTabs)('%s', async (tool) => {
    const { target, args } = await freshCallOf(stack, userId, tool);
    const names: Record<number, string> = { [target.planId]: 'Plan', [target.notesId]: 'notes' };
    // A per-tab listing is asked for "Plan"; a tool that needs a tab is given its name for its id.
    const byName = { ...args, sheetId: typeof args.sheetId === 'number' ? names[args.sheetId] : 'Plan' };
    const answer = await callToolOk(client, tool, byName);
    if (
      'sheetId' in answer.structured &&
      typeof args.sheetId === 'number' &&
      tool !== 'copy_sheet_to' &&
      tool !== 'duplicate_sheet'
    )
      expect(answer.structured.sheetId).toBe(args.sheetId);
    if (tool === 'get_spreadsheet')
      expect((answer.structured.sheets as Array<{ title: string }>).map((tab) => tab.title)).toEqual([
        'Plan',
      ]);
  });
});

describe('hostile ids are refused before Google is asked', () => {
  it.each([
    [
      'another host',
      `https://evil.example/spreadsheets/d/1AbCdEfGhIjKlMnOp/edit`,
      'only a docs.google.com or drive.google.com URL is read for its spreadsheetId',
    ],
    [
      'javascript:',
      'javascript:fetch("https://evil.example")',
      'only a docs.google.com or drive.google.com URL is read for its spreadsheetId',
    ],
    [
      'an over-long URL',
      `https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOp/edit?${'a'.repeat(5_000)}`,
      'a spreadsheetId or URL is at most 2,000 characters',
    ],
  ])('%s', async (_what, spreadsheetIdGiven, refusal) => {
    const { made, answer } = await requestsDuring(() =>
      callTool(client, 'read_range', { spreadsheetId: spreadsheetIdGiven, range: 'A1' }),
    );
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain(refusal);
    expect(made).toEqual({});
  });
});
