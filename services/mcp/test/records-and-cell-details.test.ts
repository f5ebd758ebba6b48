import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETAIL_MAX_SCANNED_CELLS } from '../src/tools/sets/core-read/cell-details.ts';
import { RECORDS_MAX_SCANNED_ROWS } from '../src/tools/sets/core-read/records.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// read_records, read_cell_details and set_notes through the MCP SDK client, real mcp and auth
// processes and the Google emulator; the emulator's stats count what was asked of Google.

const ROWS = 60_000;
let stack: McpUnderTest;
let client: Client;
let spreadsheetId: string;
let logId: string;

interface Records {
  records: Array<Record<string, unknown>>;
  columns: string[];
  offset: number;
  nextOffset: number | null;
  scannedRows: number;
  lastRow: number | null;
  lastColumn: string | null;
}

async function stats(method: string): Promise<number> {
  const body = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return body.methods[method]?.attempts ?? 0;
}

async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: { spreadsheetId, ...args } });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  return { structured: result.structuredContent as Record<string, unknown>, text };
}

async function toolError(name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: { spreadsheetId, ...args } });
  expect(result.isError).toBe(true);
  return (result.content as Array<{ text: string }>)[0]!.text;
}

const records = async (args: Record<string, unknown>) =>
  (await call('read_records', args)).structured as unknown as Records;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const email = 'alice@example.com';
  const { userId } = await stack.signIn(email);
  const files = await stack.seed(email, [
    {
      name: 'Orders',
      sheets: [
        {
          title: 'Orders',
          values: [
            ['Customer', 'Status', 'Total', '', 'Total'],
            ['Ada', 'Paid', '120', 'x', 'dup'],
            ['Bob', 'open', '9', '', ''],
            [],
            ['Cy', 'PAID', '1,250.5', '', ''],
            ['Dee', 'Refunded', 'n/a', '', ''],
          ],
        },
      ],
    },
    {
      // Its own file: formulas written to Orders make the emulator evaluate a whole workbook.
      name: 'Log',
      sheets: [
        {
          title: 'Long log',
          values: [
            ['Id', 'Kind'],
            ...Array.from({ length: ROWS }, (_, row) => [
              `${row + 1}`,
              row % 10_000 === 9_999 && row < 30_000 ? 'rare' : 'common',
            ]),
          ],
        },
      ],
    },
  ]);
  spreadsheetId = files[0]!;
  logId = files[1]!;
  client = await stack.connectClient(userId, 'records-test');
}, 120_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('read_records', () => {
  it('keys rows by the header, naming blank and repeated headers, and skips blank rows', async () => {
    const { structured, text } = await call('read_records', { range: 'Orders' });
    const page = structured as unknown as Records;
    expect(page.columns).toEqual(['Customer', 'Status', 'Total', 'D', 'Total (2)']);
    expect(page.records).toEqual([
      { Customer: 'Ada', Status: 'Paid', Total: '120', D: 'x', 'Total (2)': 'dup' },
      { Customer: 'Bob', Status: 'open', Total: '9', D: '', 'Total (2)': '' },
      { Customer: 'Cy', Status: 'PAID', Total: '1,250.50', D: '', 'Total (2)': '' },
      { Customer: 'Dee', Status: 'Refunded', Total: 'n/a', D: '', 'Total (2)': '' },
    ]);
    expect(page.nextOffset).toBeNull();
    expect(text.split('\n')[0]).toBe('Customer\tStatus\tTotal\tD\tTotal (2)');
  });

  it('selects columns and filters: numbers as numbers, text ignoring case, all ANDed', async () => {
    const paid = await records({
      range: 'Orders',
      columns: ['Customer', 'total'],
      filters: ['Status = paid'],
    });
    expect(paid.columns).toEqual(['Customer', 'Total']);
    expect(paid.records).toEqual([
      { Customer: 'Ada', Total: '120' },
      { Customer: 'Cy', Total: '1,250.50' },
    ]);
    // 9 < 100 as numbers though "9" > "100" as text; "n/a" is no number, so > never matches it.
    const big = await records({
      range: 'Orders',
      columns: ['Customer'],
      filters: [{ column: 'Total', op: '>', value: 100 }],
    });
    expect(big.records).toEqual([{ Customer: 'Ada' }, { Customer: 'Cy' }]);
    const both = await records({
      range: 'Orders',
      columns: ['Customer'],
      filters: ['Total >= 9', { column: 'Customer', op: 'contains', value: 'B' }],
    });
    expect(both.records).toEqual([{ Customer: 'Bob' }]);
    const notPaid = await records({
      range: 'Orders',
      columns: ['Customer'],
      filters: ['"Status" != "PAID"'],
    });
    expect(notPaid.records).toEqual([{ Customer: 'Bob' }, { Customer: 'Dee' }]);
  });

  it('takes the header from headerRow, and a range with columns', async () => {
    const page = await records({ range: 'Orders!A:B', headerRow: 2 });
    expect(page.columns).toEqual(['Ada', 'Paid']);
    expect(page.records[0]).toEqual({ Ada: 'Bob', Paid: 'open' });
  });

  it('pages with offset and limit: nextOffset counts data rows', async () => {
    const first = await records({ range: 'Orders', columns: ['Customer'], limit: 2 });
    expect(first.records).toEqual([{ Customer: 'Ada' }, { Customer: 'Bob' }]);
    expect(first.nextOffset).toBe(2);
    const rest = await records({
      range: 'Orders',
      columns: ['Customer'],
      offset: first.nextOffset!,
      limit: 2,
    });
    expect(rest.records).toEqual([{ Customer: 'Cy' }, { Customer: 'Dee' }]);
    expect(rest.nextOffset).toBeNull();
  });

  it('a sparse filter scans at most the row bound per call and says where to continue', async () => {
    const before = await stats('sheets.spreadsheets.values.batchGet');
    const beforeGets = await stats('sheets.spreadsheets.get');
    const first = await records({ spreadsheetId: logId, range: 'Long log', filters: ['Kind = rare'] });
    expect(first.records).toEqual([
      { Id: '10000', Kind: 'rare' },
      { Id: '20000', Kind: 'rare' },
    ]);
    expect(first.scannedRows).toBe(RECORDS_MAX_SCANNED_ROWS);
    expect(first.nextOffset).toBe(RECORDS_MAX_SCANNED_ROWS);
    // Windows of rows, never the whole tab: 20,000 rows in 2,000-row windows, the first of them
    // (with the header) read with the tab's size in one spreadsheets.get.
    expect((await stats('sheets.spreadsheets.values.batchGet')) - before).toBe(9);
    expect((await stats('sheets.spreadsheets.get')) - beforeGets).toBe(1);
    const rest = await records({
      spreadsheetId: logId,
      range: 'Long log',
      filters: ['Kind = rare'],
      offset: first.nextOffset!,
    });
    expect(rest.records).toEqual([{ Id: '30000', Kind: 'rare' }]);
    expect(rest.nextOffset).toBe(2 * RECORDS_MAX_SCANNED_ROWS);
  });

  it('without filters, a page asks Google once: the tab size, the header and one window of rows', async () => {
    const before = await stats('sheets.spreadsheets.values.batchGet');
    const beforeGets = await stats('sheets.spreadsheets.get');
    const page = await records({ spreadsheetId: logId, range: 'Long log', offset: 25_000, limit: 3 });
    expect(page.records).toEqual([
      { Id: '25001', Kind: 'common' },
      { Id: '25002', Kind: 'common' },
      { Id: '25003', Kind: 'common' },
    ]);
    expect(page.nextOffset).toBe(25_003);
    expect((await stats('sheets.spreadsheets.values.batchGet')) - before).toBe(0);
    expect((await stats('sheets.spreadsheets.get')) - beforeGets).toBe(1);
  });

  it('reads the same records with the tab size in one call as through the values API', async () => {
    // 60 columns: a tab name is wider than the columns read with the size, so its rows come from
    // values.batchGet; its first 49 columns named are read with the size. The same rows either way.
    const wide = (row: unknown[]) => [...row, ...Array.from({ length: 54 }, () => ''), 'far'];
    const [wideId] = await stack.seed('alice@example.com', [
      {
        name: 'Wide',
        sheets: [
          {
            title: 'Wide',
            values: [
              wide(['Name', 'Amount', 'Paid', '', 'Due']),
              wide(['Ada', 1250.5, true, '', '2026-01-31']),
              [],
              ['Bob', '', false],
              ['', '', '', '', '=1/0'],
              wide(['Cy', '=2*3', '', 'x', '']),
            ],
          },
        ],
      },
    ]);
    const read = async (range: string, offset = 0) => {
      const before =
        (await stats('sheets.spreadsheets.get')) + (await stats('sheets.spreadsheets.values.batchGet'));
      const answer = await records({
        spreadsheetId: wideId,
        range,
        offset,
        columns: ['Name', 'Amount', 'Paid', 'D', 'Due'],
      });
      const after =
        (await stats('sheets.spreadsheets.get')) + (await stats('sheets.spreadsheets.values.batchGet'));
      return { answer, calls: after - before };
    };
    for (const offset of [0, 1, 3]) {
      const values = await read('Wide', offset);
      const withSize = await read('Wide!A:AW', offset);
      expect(values.calls).toBe(2);
      expect(withSize.calls).toBe(1);
      // Where the data ends is said within each range: the far column lies outside A:AW.
      expect(withSize.answer).toEqual({ ...values.answer, lastColumn: withSize.answer.lastColumn });
      expect([values.answer.lastColumn, withSize.answer.lastColumn]).toEqual(['BH', 'E']);
    }
    expect((await read('Wide')).answer.records).toEqual([
      { Name: 'Ada', Amount: '1250.5', Paid: 'TRUE', D: '', Due: '2026-01-31' },
      { Name: 'Bob', Amount: '', Paid: 'FALSE', D: '', Due: '' },
      { Name: '', Amount: '', Paid: '', D: '', Due: '#DIV/0!' },
      { Name: 'Cy', Amount: '6', Paid: '', D: 'x', Due: '' },
    ]);
  });

  it('clear tool errors for an unknown column, a malformed filter and an unknown tab', async () => {
    expect(await toolError('read_records', { range: 'Orders', columns: ['Price'] })).toMatch(
      /there is no column "Price"; the header has "Customer", "Status", "Total"/,
    );
    expect(await toolError('read_records', { range: 'Orders', filters: ['Status paid'] })).toMatch(
      /cannot read the filter "Status paid": it has no operator/,
    );
    expect(await toolError('read_records', { range: 'Orders', filters: ['Nope = 1'] })).toMatch(
      /there is no column "Nope"/,
    );
    expect(await toolError('read_records', { range: 'Missing!A1:C3' })).toMatch(
      /there is no tab named "Missing"/,
    );
    expect(await toolError('read_records', { range: 'Orders', headerRow: 9 })).toMatch(
      /header row 9 is empty/,
    );
  });
});

describe('read_cell_details and set_notes', () => {
  it('sets notes, reads notes, links, formulas, errors and validation, and clears notes', async () => {
    await call('write_range', {
      range: 'Orders!G1:H2',
      values: [
        ['=HYPERLINK("https://example.com/orders", "list")', '=1/0'],
        ['=SUM(1,2)', 'plain'],
      ],
    });
    const { sheets } = (await call('get_spreadsheet', {})).structured as {
      sheets: Array<{ title: string; sheetId: number }>;
    };
    const sheetId = sheets.find((sheet) => sheet.title === 'Orders')!.sheetId;
    await call('batch_update', {
      requests: [
        {
          updateCells: {
            range: { sheetId, startRowIndex: 1, endRowIndex: 2, startColumnIndex: 7, endColumnIndex: 8 },
            rows: [
              {
                values: [
                  {
                    dataValidation: {
                      condition: { type: 'ONE_OF_LIST', values: [{ userEnteredValue: 'plain' }] },
                      strict: true,
                    },
                  },
                ],
              },
            ],
            fields: 'dataValidation',
          },
        },
      ],
    });
    const set = await call('set_notes', {
      notes: [
        { range: 'Orders!A2', note: 'first customer' },
        { range: 'Orders!J4:J5', note: 'empty cells get notes too' },
      ],
    });
    expect(set.structured).toEqual({
      updatedRanges: ['Orders!A2:A2', 'Orders!J4:J5'],
      // The change journal's entry (undo_change can undo it).
      changeId: expect.any(String),
    });

    const before = await stats('sheets.spreadsheets.get');
    const { structured, text } = await call('read_cell_details', { range: 'Orders!A1:J6' });
    // One call answers both the tab's size and the range's details.
    expect((await stats('sheets.spreadsheets.get')) - before).toBe(1);
    expect(structured).toEqual({
      cells: [
        {
          range: 'Orders!G1',
          cell: 'G1',
          hyperlink: 'https://example.com/orders',
          formula: '=HYPERLINK("https://example.com/orders", "list")',
        },
        {
          range: 'Orders!H1',
          cell: 'H1',
          formula: '=1/0',
          error: { type: 'DIVIDE_BY_ZERO', message: 'Function DIVIDE parameter 2 cannot be zero.' },
        },
        { range: 'Orders!A2', cell: 'A2', note: 'first customer' },
        { range: 'Orders!G2', cell: 'G2', formula: '=SUM(1,2)' },
        {
          range: 'Orders!H2',
          cell: 'H2',
          validation: { condition: 'ONE_OF_LIST', values: ['plain'], strict: true },
        },
        { range: 'Orders!J4', cell: 'J4', note: 'empty cells get notes too' },
        { range: 'Orders!J5', cell: 'J5', note: 'empty cells get notes too' },
      ],
      nextOffset: null,
      scannedCells: 60,
    });
    expect(text).toContain('Orders!H1: formula =1/0; error DIVIDE_BY_ZERO');

    const notesOnly = (
      await call('read_cell_details', { range: 'Orders!A1:J6', fields: ['notes'], limit: 1 })
    ).structured as { cells: Array<{ cell: string }>; nextOffset: number | null };
    expect(notesOnly.cells.map((cell) => cell.cell)).toEqual(['A2']);
    // Row 4's two notes would pass the limit: the page stops before that row.
    expect(notesOnly.nextOffset).toBe(3);
    const nextNotes = (
      await call('read_cell_details', { range: 'Orders!A1:J6', fields: ['notes'], limit: 2, offset: 3 })
    ).structured as { cells: Array<{ cell: string }>; nextOffset: number | null };
    expect(nextNotes.cells.map((cell) => cell.cell)).toEqual(['J4', 'J5']);
    expect(nextNotes.nextOffset).toBeNull();

    await call('set_notes', { notes: [{ range: 'Orders!J4:J5', note: null }] });
    const after = (await call('read_cell_details', { range: 'Orders!J1:J9', fields: ['notes'] })).structured;
    expect(after).toEqual({ cells: [], nextOffset: null, scannedCells: 9 });
    // The value beside a cleared note stays.
    const values = (await call('read_range', { range: 'Orders!A2' })).structured as { values: unknown[][] };
    expect(values.values).toEqual([['Ada']]);
  });

  it('read_cell_details pages a tall range by rows within its cell bound', async () => {
    type Details = { cells: unknown[]; nextOffset: number | null; scannedCells: number };
    const first = (
      await call('read_cell_details', { spreadsheetId: logId, range: 'Long log!A:B', fields: ['notes'] })
    ).structured as Details;
    expect(first.cells).toEqual([]);
    expect(first.scannedCells).toBe(DETAIL_MAX_SCANNED_CELLS);
    expect(first.nextOffset).toBe(DETAIL_MAX_SCANNED_CELLS / 2);
    const rest = (
      await call('read_cell_details', {
        spreadsheetId: logId,
        range: 'Long log!A:B',
        fields: ['notes'],
        offset: first.nextOffset,
      })
    ).structured as Details;
    expect(rest.nextOffset).toBeNull();
    expect(rest.scannedCells).toBeGreaterThan(0);
    expect(rest.scannedCells).toBeLessThan(DETAIL_MAX_SCANNED_CELLS);
  });

  it('read_cell_details asks for the tab size with the first cells, whatever shape the range has', async () => {
    await call('set_notes', { notes: [{ range: 'Orders!B3', note: 'shape' }] });
    const tabs = (await call('get_spreadsheet', {})).structured as {
      sheets: Array<{ title: string; rowCount: number; columnCount: number }>;
    };
    const grid = tabs.sheets.find((tab) => tab.title === 'Orders')!;
    const explicit = (
      await call('read_cell_details', {
        range: `Orders!A1:${String.fromCharCode(64 + grid.columnCount)}${grid.rowCount}`,
        fields: ['notes'],
      })
    ).structured;
    expect(explicit.cells).toContainEqual({ range: 'Orders!B3', cell: 'B3', note: 'shape' });
    // A tab name, whole rows, another case: the same cells; the first window (10,000 cells) comes
    // with the tab's size, so the calls are the windows alone.
    const windows = Math.ceil(grid.rowCount / Math.floor(10_000 / grid.columnCount));
    for (const range of ['Orders', 'orders', 'Orders!1:1000000']) {
      const before = await stats('sheets.spreadsheets.get');
      const { structured } = await call('read_cell_details', { range, fields: ['notes'] });
      expect(structured, range).toEqual(explicit);
      expect((await stats('sheets.spreadsheets.get')) - before, range).toBe(windows);
    }
    // Two columns are one window, from an offset too, and an offset past the grid reads nothing.
    let before = await stats('sheets.spreadsheets.get');
    const narrow = (await call('read_cell_details', { range: 'Orders!A:B', fields: ['notes'], offset: 2 }))
      .structured;
    expect(narrow).toEqual({
      cells: [{ range: 'Orders!B3', cell: 'B3', note: 'shape' }],
      nextOffset: null,
      scannedCells: 2 * (grid.rowCount - 2),
    });
    expect((await stats('sheets.spreadsheets.get')) - before).toBe(1);
    before = await stats('sheets.spreadsheets.get');
    const past = (await call('read_cell_details', { range: 'Orders', offset: grid.rowCount + 5 })).structured;
    expect(past).toEqual({ cells: [], nextOffset: null, scannedCells: 0 });
    expect((await stats('sheets.spreadsheets.get')) - before).toBeLessThanOrEqual(2);
  });

  it('set_notes and read_cell_details refuse an unknown tab', async () => {
    expect(await toolError('set_notes', { notes: [{ range: 'Nope!A1', note: 'x' }] })).toMatch(
      /no tab named "Nope"/,
    );
    expect(await toolError('read_cell_details', { range: 'Nope!A1' })).toMatch(/no tab named "Nope"/);
  });
});
