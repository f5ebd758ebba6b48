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
