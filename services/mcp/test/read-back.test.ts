import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMAT_MAX_CELLS } from '../src/tools/sets/core-read/read-formats.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { callTool, callToolOk } from './support/tool-answers.ts';

// Issue 35, "read back what can be set": each setting a write tool makes — formats, borders,
// merges, frozen rows, sizes, hidden rows and columns, tabs, range objects, rules, filters,
// tables and charts — made through that tool and then seen through read_formats or
// get_spreadsheet alone. Through the MCP SDK client, real mcp and auth processes and the Google
// emulator.

let stack: McpUnderTest;
let client: Client;
let spreadsheetId: string;
const tabIds: Record<string, number> = {};

/** What read_formats answers, as the tests read it. */
interface Formats {
  range: string;
  cells: number;
  groups: Array<{ ranges: string[]; moreRanges?: number; cells: number; format: Record<string, unknown> }>;
  moreGroups: number;
  merges: string[];
  nextRange: string | null;
}

const call = (name: string, args: Record<string, unknown>) =>
  callToolOk(client, name, { spreadsheetId, ...args });
const refused = async (name: string, args: Record<string, unknown>) => {
  const answer = await callTool(client, name, { spreadsheetId, ...args });
  expect(answer.isError, answer.text).toBe(true);
  return answer.text;
};
const formats = async (range: string) =>
  (await call('read_formats', { range })).structured as unknown as Formats;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const email = 'alice@example.com';
  const { userId } = await stack.signIn(email);
  const rows = [
    ['Item', 'Amount', 'Due', 'Note'],
    ...Array.from({ length: 20 }, (_, index) => [`Item ${index}`, index * 10, '2026-01-05', 'x']),
  ];
  [spreadsheetId] = (await stack.seed(email, [
    {
      name: 'Read-back book',
      sheets: [
        { title: 'Budget', values: rows },
        { title: 'Plain', values: [['a', 'b']] },
        { title: 'Spare', values: [['c']] },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'read back');
  const { structured } = await call('get_spreadsheet', {});
  for (const tab of structured.sheets as Array<{ sheetId: number; title: string }>)
    tabIds[tab.title] = tab.sheetId;
}, 120_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('read_formats', () => {
  it('shows what format_range set, a thousand identical cells as one group, most cells first', async () => {
    await call('format_range', {
      range: 'Budget!B2:C1000',
      numberFormat: { type: 'CURRENCY', pattern: '$#,##0.00' },
      horizontalAlignment: 'RIGHT',
    });
    await call('format_range', {
      range: 'Budget!A1:D1',
      bold: true,
      italic: true,
      fontSize: 12,
      textColor: '#ffffff',
      backgroundColor: '#1a73e8',
      wrapStrategy: 'WRAP',
      horizontalAlignment: 'CENTER',
    });
    const read = await formats('Budget');
    expect(read.range).toBe('Budget!A1:Z1000');
    expect(read.cells).toBe(26_000);
    expect(read.groups).toEqual([
      {
        ranges: ['B2:C1000'],
        cells: 1998,
        format: { numberFormat: { type: 'CURRENCY', pattern: '$#,##0.00' }, horizontalAlignment: 'RIGHT' },
      },
      {
        ranges: ['A1:D1'],
        cells: 4,
        format: {
          fontSize: 12,
          bold: true,
          italic: true,
          textColor: '#ffffff',
          backgroundColor: '#1a73e8',
          horizontalAlignment: 'CENTER',
          wrapStrategy: 'WRAP',
        },
      },
    ]);
    expect(read.nextRange).toBeNull();
    const { text } = await call('read_formats', { range: 'Budget' });
    expect(text).toContain(`B2:C1000 (1,998 cells): number format CURRENCY "$#,##0.00"; right-aligned`);
    expect(text).toContain(
      'A1:D1 (4 cells): 12 pt; bold; italic; text #ffffff; background #1a73e8; centred; wrapped',
    );
    expect(text).toContain("cells with Google's default format left out");
  });

  it('shows borders set by batch_update updateBorders, side by side', async () => {
    const solid = { style: 'SOLID', color: { red: 1 } };
    await call('batch_update', {
      requests: [
        {
          updateBorders: {
            range: {
              sheetId: tabIds.Plain,
              startRowIndex: 4,
              endRowIndex: 6,
              startColumnIndex: 5,
              endColumnIndex: 7,
            },
            top: solid,
            bottom: solid,
            left: solid,
            right: solid,
            innerHorizontal: solid,
            innerVertical: solid,
          },
        },
      ],
    });
    const border = { style: 'SOLID', color: '#ff0000' };
    expect((await formats('Plain!A1:J10')).groups).toEqual([
      {
        ranges: ['F5:G6'],
        cells: 4,
        format: { borders: { top: border, bottom: border, left: border, right: border } },
      },
    ]);
    const { text } = await call('read_formats', { range: 'Plain!F5:G6' });
    expect(text).toContain('F5:G6 (4 cells): borders all sides SOLID #ff0000');
  });

  it('lists merges made by merge_cells that overlap the range', async () => {
    await call('merge_cells', { range: 'Spare!A1:B2' });
    expect((await formats('Spare!B2:C3')).merges).toEqual(['A1:B2']);
    expect((await formats('Spare!C3:D4')).merges).toEqual([]);
  });

  it("leaves out cells whose format is Google's default, and says so", async () => {
    await call('format_range', { range: 'Spare!D1:E2', bold: false, textColor: '#000000' });
    const read = await call('read_formats', { range: 'Spare!D1:E2' });
    expect((read.structured as unknown as Formats).groups).toEqual([]);
    expect(read.text).toContain('No cell has a format set.');
  });

  it('caps the groups and each group’s ranges, saying how many more and how to see them', async () => {
    // Sixty colours in a row: sixty formats of one cell each.
    const colours = Array.from({ length: 60 }, (_, index) => ({
      userEnteredFormat: { backgroundColor: { red: index / 100, green: 0.5, blue: 0.5 } },
    }));
    // A checkerboard of bold: one format, a rectangle per cell.
    const board = Array.from({ length: 40 }, (_, row) => ({
      values: Array.from({ length: 10 }, (_, column) => ({
        userEnteredFormat: { textFormat: { bold: (row + column) % 2 === 0 } },
      })),
    }));
    await call('batch_update', {
      requests: [
        {
          updateCells: {
            range: {
              sheetId: tabIds.Spare,
              startRowIndex: 10,
              endRowIndex: 11,
              startColumnIndex: 0,
              endColumnIndex: 26,
            },
            rows: [{ values: colours.slice(0, 26) }],
            fields: 'userEnteredFormat',
          },
        },
        {
          updateCells: {
            range: {
              sheetId: tabIds.Spare,
              startRowIndex: 11,
              endRowIndex: 12,
              startColumnIndex: 0,
              endColumnIndex: 26,
            },
            rows: [{ values: colours.slice(26, 52) }],
            fields: 'userEnteredFormat',
          },
        },
        {
          updateCells: {
            range: {
              sheetId: tabIds.Spare,
              startRowIndex: 12,
              endRowIndex: 13,
              startColumnIndex: 0,
              endColumnIndex: 8,
            },
            rows: [{ values: colours.slice(52) }],
            fields: 'userEnteredFormat',
          },
        },
        {
          updateCells: {
            range: {
              sheetId: tabIds.Spare,
              startRowIndex: 20,
              endRowIndex: 60,
              startColumnIndex: 0,
              endColumnIndex: 10,
            },
            rows: board,
            fields: 'userEnteredFormat',
          },
        },
      ],
    });
    const read = await call('read_formats', { range: 'Spare!A11:Z60' });
    const answer = read.structured as unknown as Formats;
    expect(answer.groups).toHaveLength(40);
    expect(answer.moreGroups).toBe(21);
    const bold = answer.groups[0]!;
    expect(bold).toMatchObject({ cells: 200, format: { bold: true }, moreRanges: 180 });
    expect(bold.ranges).toHaveLength(20);
    expect(read.text).toContain('… 21 more groups (fewer cells each): read a smaller range to see them.');
    expect(read.text).toContain('and 180 more ranges (200 cells): bold');
    expect(JSON.stringify(answer).length).toBeLessThan(20_000);
  });

  it('reads a huge range in a bounded window and names the rest', async () => {
    const read = await formats('Budget!A1:ZZZ1000000');
    // The grid is 1000 × 26: the range is clipped to it, and 26,000 cells fit in one call.
    expect(read.range).toBe('Budget!A1:Z1000');
    expect(read.nextRange).toBeNull();
    await call('insert_dimension', {
      sheetId: tabIds.Budget,
      dimension: 'ROWS',
      startIndex: 1000,
      count: 4000,
    });
    const wide = await formats('Budget');
    expect(wide.cells).toBeLessThanOrEqual(FORMAT_MAX_CELLS);
    expect(wide.range).toBe('Budget!A1:Z1923');
    expect(wide.nextRange).toBe('Budget!A1924:Z5000');
    expect(wide.groups[0]).toMatchObject({ ranges: ['B2:C1000'] });
    const rest = await formats(wide.nextRange!);
    expect(rest).toMatchObject({ range: 'Budget!A1924:Z3846', nextRange: 'Budget!A3847:Z5000', groups: [] });
  });

  it('answers malformed and hostile ranges with a clear error', async () => {
    expect(await refused('read_formats', { range: 'Nope!A1:B2' })).toContain(
      'there is no tab named "Nope"; the tabs are "Budget", "Plain", "Spare"',
    );
    expect(await refused('read_formats', { range: 'Budget!A1:B2:C3' })).toContain(
      'cannot read "Budget!A1:B2:C3" as A1 notation',
    );
    expect(await refused('read_formats', { range: 'Plain!A2000:B2001' })).toContain(
      'Plain!A2000:B2001 starts outside the tab "Plain", which has 1,000 rows and 26 columns',
    );
    expect(await refused('read_formats', { range: 'x'.repeat(501) })).toContain('<=500 characters');
  });
});

/** One tab of get_spreadsheet's answer, by title. */
async function tabNamed(title: string, args: Record<string, unknown> = {}) {
  const answer = await call('get_spreadsheet', args);
  const tabs = answer.structured.sheets as Array<Record<string, unknown> & { title: string }>;
  return { tab: tabs.find((tab) => tab.title === title)!, answer };
}

async function addTab(title: string): Promise<number> {
  return (await call('add_sheet', { title })).structured.sheetId as number;
}

describe('get_spreadsheet', () => {
  it('shows what freeze, set_dimension_properties, merge_cells, rename_sheet and tab properties set', async () => {
    const sheetId = await addTab('Setup');
    await call('freeze', { sheetId, rows: 1, columns: 2 });
    const size = { sheetId, dimension: 'COLUMNS', startIndex: 0, endIndex: 3, pixelSize: 180 };
    await call('set_dimension_properties', size);
    await call('set_dimension_properties', {
      ...size,
      startIndex: 5,
      endIndex: 6,
      pixelSize: undefined,
      hidden: true,
    });
    await call('set_dimension_properties', {
      sheetId,
      dimension: 'ROWS',
      startIndex: 0,
      endIndex: 1,
      pixelSize: 30,
    });
    await call('set_dimension_properties', {
      sheetId,
      dimension: 'ROWS',
      startIndex: 9,
      endIndex: 12,
      hidden: true,
    });
    await call('merge_cells', { range: 'Setup!A1:B1' });
    await call('rename_sheet', { sheetId, title: 'Set up' });
    await call('batch_update', {
      requests: [
        {
          updateSheetProperties: {
            properties: { sheetId, hidden: true, rightToLeft: true, tabColorStyle: { rgbColor: { red: 1 } } },
            fields: 'hidden,rightToLeft,tabColorStyle',
          },
        },
      ],
    });
    const { tab, answer } = await tabNamed('Set up');
    expect(tab).toEqual({
      sheetId,
      title: 'Set up',
      index: 3,
      rowCount: 1000,
      columnCount: 26,
      frozenRows: 1,
      frozenColumns: 2,
      hidden: true,
      rightToLeft: true,
      tabColor: '#ff0000',
      columnWidths: { count: 1, first: [{ range: 'A:C', pixels: 180 }] },
      rowHeights: { count: 1, first: [{ range: '1:1', pixels: 30 }] },
      hiddenColumns: { count: 1, first: ['F:F'] },
      hiddenRows: { count: 1, first: ['10:12'] },
      merges: { count: 1, first: ['A1:B1'] },
    });
    expect(answer.text).toContain(
      `- Set up (sheetId ${sheetId}, 1000×26): frozen 1 row, 2 columns; hidden; right-to-left; tab colour #ff0000; widths A:C 180 px; heights 1:1 30 px; hidden columns 1: F:F; hidden rows 1: 10:12; merges 1: A1:B1`,
    );
    // A tab where nothing was set says no more than its size.
    expect(answer.text).toMatch(/\n- Spare \(sheetId \d+, 1000×26\): merges 1: A1:B2\n/);
  });

  it('shows where protected and named ranges, rules, filters, filter views, tables and charts apply', async () => {
    const sheetId = await addTab('Objects');
    await call('write_range', {
      range: 'Objects!A1:E4',
      values: [
        ['Item', 'Amount', '', 'Name', 'Cost'],
        ['Rent', 1200, '', 'Ink', 3],
        ['Food', 300, '', 'Pen', 2],
        ['Travel', 150, '', '', ''],
      ],
    });
    await call('add_protected_range', { range: 'Objects!B2:B4', warningOnly: true });
    await call('add_named_range', { name: 'Amounts', range: 'Objects!B2:B4' });
    await call('add_conditional_format', {
      ranges: ['Objects!B2:B4'],
      condition: 'NUMBER_GREATER',
      values: [1000],
      format: { backgroundColor: '#f4cccc' },
    });
    await call('set_basic_filter', { range: 'Objects!A1:B4' });
    await call('add_filter_view', { title: 'Cheap', range: 'Objects!A1:B4' });
    await call('add_table', { name: 'Costs', range: 'Objects!D1:E3' });
    const chart = await call('add_chart', { type: 'column', range: 'Objects!A1:B4', title: 'Spending' });
    const { tab, answer } = await tabNamed('Objects');
    expect(tab).toMatchObject({
      sheetId,
      protectedRanges: { count: 1, first: ['B2:B4 (warning only)'] },
      conditionalFormats: { count: 1, first: ['B2:B4'] },
      basicFilter: 'A1:B4',
      filterViews: { count: 1, first: ['"Cheap" A1:B4'] },
      tables: { count: 1, first: ['Costs D1:E3'] },
      charts: { count: 1, first: [expect.stringMatching(/^#\d+ "Spending" at [A-Z]+\d+$/)] },
    });
    expect((tab.charts as { first: string[] }).first[0]).toContain(`#${chart.structured.chartId} `);
    expect(answer.structured.namedRanges).toEqual({ count: 1, first: ['Amounts: Objects!B2:B4'] });
    expect(answer.text).toContain(
      'protected ranges 1: B2:B4 (warning only); conditional formats 1: B2:B4; basic filter 1: A1:B4; filter views 1: "Cheap" A1:B4; tables 1: Costs D1:E3; charts 1: #',
    );
    expect(answer.text).toContain('Named ranges: 1: Amounts: Objects!B2:B4');
  });

  it('caps each list and the tabs given in full, and gives one tab in full by sheetId', async () => {
    const sheetId = await addTab('Many');
    const column = (index: number) => ({
      sheetId,
      dimension: 'COLUMNS',
      startIndex: index,
      endIndex: index + 1,
    });
    await call('batch_update', {
      requests: [
        ...Array.from({ length: 12 }, (_, index) => ({
          mergeCells: {
            range: {
              sheetId,
              startRowIndex: index * 2,
              endRowIndex: index * 2 + 1,
              startColumnIndex: 0,
              endColumnIndex: 2,
            },
            mergeType: 'MERGE_ALL',
          },
        })),
        ...Array.from({ length: 26 }, (_, index) => ({
          updateDimensionProperties: {
            range: column(index),
            properties: { pixelSize: 101 + index },
            fields: 'pixelSize',
          },
        })),
        ...Array.from({ length: 30 }, (_, index) => ({
          addSheet: { properties: { title: `Extra ${index}` } },
        })),
      ],
    });
    const { tab, answer } = await tabNamed('Many');
    expect(tab.merges).toEqual({ count: 12, first: ['A1:B1', 'A3:B3', 'A5:B5', 'A7:B7', 'A9:B9'] });
    expect(tab.columnWidths).toMatchObject({
      count: 26,
      first: [{ range: 'A:A', pixels: 101 }, {}, {}, {}, {}],
    });
    expect(answer.text).toContain('merges 12: A1:B1, A3:B3, A5:B5, A7:B7, A9:B9, …');
    expect(answer.text).toContain(
      'widths A:A 101 px, B:B 102 px, C:C 103 px, D:D 104 px, E:E 105 px, … (26 runs)',
    );
    const tabs = answer.structured.sheets as Array<Record<string, unknown>>;
    expect(tabs).toHaveLength(36);
    expect(answer.text).toContain('Tabs past the first 30: size only; pass a sheetId for one in full.');
    expect(JSON.stringify(answer.structured).length).toBeLessThan(20_000);

    // The 36th tab, given in full when asked for alone: set up like the 6th would be.
    const last = tabs[35] as { sheetId: number; title: string };
    await call('freeze', { sheetId: last.sheetId, rows: 2 });
    expect(Object.keys((await tabNamed(last.title)).tab)).toEqual([
      'sheetId',
      'title',
      'index',
      'rowCount',
      'columnCount',
    ]);
    const alone = await call('get_spreadsheet', { sheetId: last.sheetId });
    expect(alone.structured.sheets).toEqual([{ ...last, frozenRows: 2 }]);
  });

  it('refuses a sheetId no tab has, listing the tabs', async () => {
    expect(await refused('get_spreadsheet', { sheetId: 424242 })).toMatch(
      /^there is no tab with sheetId 424242; the tabs are "Budget" \(sheetId \d+\), "Plain" \(sheetId \d+\), "Spare" \(sheetId \d+\), /,
    );
  });
});
