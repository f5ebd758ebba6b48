import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Structured, spreadsheetToolChecks } from './support/spreadsheet-tool-checks.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// set_pivot_table through the MCP SDK client, real mcp and auth processes and the Google emulator:
// a pivot table added, changed and removed, each read back (what it shows by read_range, where it
// is and what it is by read_cell_details, its definition as Google keeps it), each undone by undo_change; dry runs
// that send Google no write; bad and hostile arguments refused before Google sees them.

let stack: McpUnderTest;
let client: Client;
let userId: string;
let spreadsheetId: string;

const { call, refused, dryRun } = spreadsheetToolChecks({
  client: () => client,
  spreadsheetId: () => spreadsheetId,
  emulatorUrl: () => stack.emulatorUrl,
});

const shown = async (range = 'Report!A1:F12') =>
  ((await call('read_range', { range, valueRenderOption: 'UNFORMATTED_VALUE' })).structured.values ??
    []) as unknown[][];

/** The pivot table Google keeps at Report!A1, or undefined. */
async function googlePivot(): Promise<Structured | undefined> {
  const token = await stack.googleAccessToken(userId);
  const response = await fetch(
    `${stack.emulatorUrl}/v4/spreadsheets/${spreadsheetId}?ranges=Report!A1&fields=sheets.data.rowData.values.pivotTable`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  const body = (await response.json()) as Structured;
  return body.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]?.pivotTable;
}

const BY_REGION = [
  ['Region', 'SUM of Units'],
  ['East', 17],
  ['West', 8],
  ['Grand Total', 25],
];

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const email = 'alice@example.com';
  ({ userId } = await stack.signIn(email));
  [spreadsheetId] = (await stack.seed(email, [
    {
      name: 'Pivot book',
      sheets: [
        {
          title: 'Sales',
          values: [
            ['Region', 'Product', 'Units'],
            ['East', 'Pen', 10],
            ['West', 'Pen', 5],
            ['East', 'Paper', 7],
            ['West', 'Paper', 3],
          ],
        },
        { title: 'Report', values: [] },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'pivot tools');
}, 120_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('set_pivot_table', () => {
  it('adds, changes and removes a pivot table, each read back and undone', async () => {
    const plan = {
      anchor: 'Report!A1',
      source: 'Sales!A1:C5',
      rows: [{ column: 'region' }],
      values: [{ column: 'Units' }],
    };
    const dry = await dryRun('set_pivot_table', plan);
    expect(dry.text).toBe(
      'Dry run: would add the pivot table at Report!A1: from Sales!A1:C5; rows Region; values SUM of Units. Nothing was changed.',
    );
    expect(await googlePivot()).toBeUndefined();

    const added = await call('set_pivot_table', plan);
    expect(added.structured).toMatchObject({
      anchor: 'Report!A1',
      pivotTable: 'from Sales!A1:C5; rows Region; values SUM of Units',
      previous: null,
    });
    expect(added.structured.changeId).toEqual(expect.any(String));
    expect(await shown()).toEqual(BY_REGION);
    expect(await googlePivot()).toEqual({
      source: {
        sheetId: expect.any(Number),
        startRowIndex: 0,
        endRowIndex: 5,
        startColumnIndex: 0,
        endColumnIndex: 3,
      },
      rows: [{ sourceColumnOffset: 0, showTotals: true, sortOrder: 'ASCENDING' }],
      values: [{ sourceColumnOffset: 2, summarizeFunction: 'SUM' }],
    });
    // read_cell_details finds it at its anchor, worded as set_pivot_table words it; the cells it
    // fills are values, and get_spreadsheet (which reads no cell) says nothing of it.
    const found = await call('read_cell_details', { range: 'Report!A1:F12', fields: ['pivotTables'] });
    expect(found.structured).toEqual({
      cells: [
        {
          range: 'Report!A1',
          cell: 'A1',
          pivotTable: 'from Sales!A1:C5; rows Region; values SUM of Units',
        },
      ],
      nextOffset: null,
      scannedCells: 72,
    });
    expect(found.text).toBe('Report!A1: pivot table from Sales!A1:C5; rows Region; values SUM of Units');
    const everything = await call('read_cell_details', { range: 'Report!A1:B4' });
    expect(everything.structured.cells).toEqual(found.structured.cells);
    expect(await call('read_cell_details', { range: 'Sales!A1:C5' })).toMatchObject({
      structured: { cells: [], nextOffset: null, scannedCells: 15 },
      text: 'No cell in the range has any of these details.',
    });
    expect(
      (await call('read_cell_details', { range: 'Report!A1:B4', fields: ['notes', 'formulas'] })).structured
        .cells,
    ).toEqual([]);
    expect(JSON.stringify((await call('get_spreadsheet', {})).structured)).not.toContain('pivot');

    // Changed: the source is kept, the groups and summaries are new; a filter keeps the pens.
    const changed = await call('set_pivot_table', {
      anchor: 'Report!A1',
      rows: [{ column: 'Product', descending: true, totals: false }],
      columns: ['Region'],
      values: [{ column: 'Units', summary: 'MAX' }],
      filters: [{ column: 'Units', condition: 'NUMBER_GREATER', values: [4] }],
    });
    expect(changed.text).toContain(
      'Replaced the pivot table at Report!A1: from Sales!A1:C5; rows Product (descending) (no totals); columns Region; values MAX of Units; filters Units NUMBER_GREATER "4" (was from Sales!A1:C5; rows Region; values SUM of Units). read_range from Report!A1 shows it.',
    );
    expect(await shown()).toEqual([
      ['MAX of Units', 'Region'],
      ['Product', 'East', 'West', 'Grand Total'],
      ['Pen', 10, 5, 10],
      ['Paper', 7, '', 7],
    ]);
    await call('undo_change', { changeId: changed.structured.changeId });
    expect(await shown()).toEqual(BY_REGION);

    // Groups sorted by their first value, largest first (valueBucket).
    const ranked = await call('set_pivot_table', {
      anchor: 'Report!A1',
      rows: [{ column: 'Product', byValue: true, descending: true }],
      values: [{ column: 'Units', summary: 'MIN' }],
    });
    expect(ranked.structured.pivotTable).toBe(
      'from Sales!A1:C5; rows Product (by value) (descending); values MIN of Units',
    );
    expect(await shown()).toEqual([
      ['Product', 'MIN of Units'],
      ['Pen', 5],
      ['Paper', 3],
      ['Grand Total', 3],
    ]);
    await call('undo_change', { changeId: ranked.structured.changeId });
    expect(await shown()).toEqual(BY_REGION);

    const removed = await call('set_pivot_table', { anchor: 'Report!A1', remove: true });
    expect(removed.text).toContain(
      'Removed the pivot table at Report!A1 (from Sales!A1:C5; rows Region; values SUM of Units).',
    );
    expect(await shown()).toEqual([]);
    expect(await googlePivot()).toBeUndefined();
    const listed = await call('list_changes', { spreadsheetId });
    const entry = (listed.structured.changes as Structured[]).find(
      (each) => each.changeId === removed.structured.changeId,
    );
    expect(entry?.summary).toContain('removed the pivot table at Report!A1');
    expect(entry?.undo).toContain('puts back the pivot table at Report!A1');
    const undone = await call('undo_change', { changeId: removed.structured.changeId });
    expect(undone.structured.restored).toEqual(['put back the pivot table at Report!A1']);
    expect(await shown()).toEqual(BY_REGION);

    // A named range is a source as a range is.
    await call('add_named_range', { name: 'SalesData', range: 'Sales!A1:C5' });
    const named = await dryRun('set_pivot_table', {
      anchor: 'Report!A1',
      source: 'SalesData',
      rows: [{ column: 'Product' }],
    });
    expect(named.structured.pivotTable).toBe('from Sales!A1:C5; rows Product');

    // The undo of the add removes it.
    const undoAdd = await call('undo_change', { changeId: added.structured.changeId, force: true });
    expect(undoAdd.structured.restored).toEqual(['remove the pivot table at Report!A1']);
    expect(await shown()).toEqual([]);
    expect(await googlePivot()).toBeUndefined();
  });

  it('refuses what Google would, and hostile input, before any write', async () => {
    const base = { anchor: 'Report!A1', source: 'Sales!A1:C5', rows: [{ column: 'Region' }] };
    expect(await refused('set_pivot_table', { ...base, values: [{ column: 'Price' }] })).toContain(
      'no column "Price" in the header row of Sales!A1:C5; its columns are "Region", "Product", "Units"',
    );
    expect(await refused('set_pivot_table', { ...base, source: 'Sales!A1:C2000' })).toContain(
      'reaches outside the tab "Sales"',
    );
    expect(await refused('set_pivot_table', { ...base, anchor: 'Sales!B3' })).toContain(
      'the anchor Sales!B3 is inside the source Sales!A1:C5',
    );
    expect(await refused('set_pivot_table', { ...base, anchor: 'Nowhere!A1' })).toContain(
      'there is no tab named "Nowhere"',
    );
    expect(
      await refused('set_pivot_table', { anchor: 'Report!A1', source: 'Sales!A1:C5', values: [] }),
    ).toContain('give rows, columns or values');
    expect(await refused('set_pivot_table', { anchor: 'Report!A1', rows: [{ column: 'Region' }] })).toContain(
      'give the source: there is no pivot table at Report!A1',
    );
    expect(await refused('set_pivot_table', { anchor: 'Report!A1', remove: true })).toContain(
      'there is no pivot table at Report!A1',
    );
    expect(
      await refused('set_pivot_table', {
        ...base,
        filters: [{ column: 'Units', condition: 'NUMBER_BETWEEN', values: [1] }],
      }),
    ).toContain('NUMBER_BETWEEN takes 2 values');
    const long = 'x'.repeat(255);
    const text = await refused('set_pivot_table', { ...base, rows: [{ column: long }] });
    expect(text.length).toBeLessThan(600);
    const unknown = await client.callTool({
      name: 'set_pivot_table',
      arguments: { spreadsheetId, ...base, values: [{ column: 'Units', summary: 'CUSTOM' }] },
    });
    expect(unknown.isError).toBe(true);
    expect(await googlePivot()).toBeUndefined();
  });

  it('groups ten thousand values with an answer of bounded size', async () => {
    const rows = Array.from({ length: 10_000 }, (_, index) => [`k${index}`, index]);
    await call('add_sheet', { title: 'Many', rowCount: 10_001, columnCount: 2 });
    await call('write_range', { range: 'Many!A1', values: [['Key', 'N'], ...rows] });
    const added = await call('set_pivot_table', {
      anchor: 'Report!A1',
      source: 'Many!A1:B10001',
      rows: [{ column: 'Key' }],
      values: [{ column: 'N', summary: 'COUNT' }],
    });
    expect(added.text.length).toBeLessThan(400);
    const first = await call('read_range', { range: 'Report!A1:B3' });
    expect(first.structured.values).toEqual([
      ['Key', 'COUNT of N'],
      ['k0', '1'],
      ['k1', '1'],
    ]);
    await call('set_pivot_table', { anchor: 'Report!A1', remove: true });
  });

  it('comes back with its tab, or its rows, when their deletion is undone', async () => {
    await call('set_pivot_table', {
      anchor: 'Report!A1',
      source: 'Sales!A1:C5',
      rows: [{ column: 'Region' }],
      values: [{ column: 'Units' }],
    });
    const deleted = await call('delete_sheet', { sheetId: 'Report' });
    await call('undo_change', { changeId: deleted.structured.changeId });
    expect(await shown()).toEqual(BY_REGION);
    const rows = await call('delete_dimension', {
      sheetId: 'Report',
      dimension: 'ROWS',
      startIndex: 0,
      endIndex: 1,
    });
    expect(await googlePivot()).toBeUndefined();
    await call('undo_change', { changeId: rows.structured.changeId });
    expect(await shown()).toEqual(BY_REGION);
    await call('set_pivot_table', { anchor: 'Report!A1', remove: true });
  });
});
