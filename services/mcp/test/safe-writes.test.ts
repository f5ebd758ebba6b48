import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// Writes that cannot silently destroy (docs/design.md §11): formulas are not replaced without
// overwriteFormulas, ifRevision refuses a write to a range that changed since it was read, and
// dryRun changes nothing. Through the MCP SDK client against real mcp and auth processes and the
// Google emulator, whose stats show which Google methods each call used.

let stack: McpUnderTest;
let client: Client;
let spreadsheetId: string;
/** The Orders tab's sheetId. */
let orders: number;

const WRITE_METHODS = [
  'sheets.spreadsheets.values.update',
  'sheets.spreadsheets.values.batchUpdate',
  'sheets.spreadsheets.values.append',
  'sheets.spreadsheets.values.clear',
  'sheets.spreadsheets.batchUpdate',
  'sheets.spreadsheets.create',
  'drive.files.create',
  'drive.files.copy',
];

async function attempts(): Promise<Record<string, number>> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return Object.fromEntries(Object.entries(stats.methods).map(([name, { attempts }]) => [name, attempts]));
}

/** Which Google methods `action` called, and how often. */
async function callsOf(action: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await attempts();
  await action();
  const after = await attempts();
  return Object.fromEntries(
    Object.entries(after)
      .map(([name, count]) => [name, count - (before[name] ?? 0)] as const)
      .filter(([, count]) => count > 0),
  );
}

function writesIn(calls: Record<string, number>): string[] {
  return WRITE_METHODS.filter((name) => calls[name]);
}

/** The members of the tools' structuredContent these tests read. */
interface Structured {
  values: unknown[][];
  revision: string;
  sheets: Array<{ sheetId: number; title: string }>;
  valueRanges: Array<{ revision: string }>;
  dryRun?: boolean;
}

async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: { spreadsheetId, ...args } });
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  return {
    isError: result.isError === true,
    structured: result.structuredContent as unknown as Structured,
    text,
  };
}

async function ok(name: string, args: Record<string, unknown>) {
  const result = await call(name, args);
  expect(result.isError, result.text).toBe(false);
  return result;
}

async function valuesOf(range: string, render = 'FORMULA'): Promise<unknown[][]> {
  return (await ok('read_range', { range, valueRenderOption: render })).structured.values;
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const email = 'alice@example.com';
  const { userId } = await stack.signIn(email);
  [spreadsheetId] = (await stack.seed(email, [
    {
      name: 'Orders',
      sheets: [
        {
          title: 'Orders',
          values: [
            ['Item', 'Qty', 'Price', 'Total'],
            ['Pens', '3', '1.5', '=B2*C2'],
            ['Paper', '2', '4', '=B3*C3'],
          ],
        },
        { title: 'Grid', values: Array.from({ length: 30 }, (_, row) => [`=ROW()+${row}`]) },
        { title: 'Log', values: Array.from({ length: 100 }, (_, row) => [`line ${row + 1}`, row + 1]) },
        { title: 'Scratch', values: [['a', 'b']] },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'safe-writes-test');
  const tabs = (await ok('get_spreadsheet', {})).structured.sheets as Array<{
    sheetId: number;
    title: string;
  }>;
  orders = tabs.find((tab) => tab.title === 'Orders')!.sheetId;
});
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('overwriteFormulas', () => {
  it('write_range refuses to replace formulas, names them, and writes nothing; one read decided it', async () => {
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    const calls = await callsOf(async () => {
      refused = await call('write_range', {
        range: 'Orders!C2:D3',
        values: [
          [2, 9],
          [5, 9],
        ],
      });
    });
    expect(refused!.isError).toBe(true);
    expect(refused!.text).toContain('Nothing was written');
    expect(refused!.text).toContain('2 formulas (Orders!D2, D3)');
    expect(refused!.text).toContain('overwriteFormulas: true');
    // Every write reads the spreadsheet's owners first (guards/spreadsheet-owners.ts; the test
    // stack keeps none across calls, so each write here pays its one read).
    expect(calls).toEqual({ 'drive.files.get': 1, 'sheets.spreadsheets.values.batchGet': 1 });
    expect(await valuesOf('Orders!C2:D3')).toEqual([
      [1.5, '=B2*C2'],
      [4, '=B3*C3'],
    ]);
  });

  it('cells the write leaves alone (null) or writes the same formula to are not replacements', async () => {
    await ok('write_range', { range: 'Orders!C2:D2', values: [[2, null]] });
    await ok('write_range', { range: 'Orders!D3', values: [['=B3*C3']] });
    expect(await valuesOf('Orders!C2:D3')).toEqual([
      [2, '=B2*C2'],
      [4, '=B3*C3'],
    ]);
  });

  it("with overwriteFormulas: true the formula is replaced; the read first is the change journal's before-image, and a cell starting with = has its kind read", async () => {
    const calls = await callsOf(() =>
      ok('write_range', { range: 'Orders!D2', values: [[6]], overwriteFormulas: true }),
    );
    // The FORMULA rendering of D2 cannot say whether it is a formula or text starting with =.
    expect(calls).toEqual({
      'drive.files.get': 1,
      'sheets.spreadsheets.values.batchGet': 1,
      'sheets.spreadsheets.get': 1,
      'sheets.spreadsheets.values.update': 1,
    });
    expect(await valuesOf('Orders!D2')).toEqual([[6]]);
  });

  it('write_ranges checks every range in one batchGet and lists at most 20 cells plus a count', async () => {
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    const calls = await callsOf(async () => {
      refused = await call('write_ranges', {
        data: [
          { range: 'Scratch!A1', values: [['fine']] },
          { range: 'Grid!A1:A30', values: Array.from({ length: 30 }, () => ['x']) },
        ],
      });
    });
    expect(refused!.isError).toBe(true);
    expect(refused!.text).toContain('30 formulas (Grid!A1, A2,');
    expect(refused!.text).toContain('A20 and 10 more');
    expect(refused!.text).not.toContain('A21');
    expect(calls).toEqual({ 'drive.files.get': 1, 'sheets.spreadsheets.values.batchGet': 1 });
    expect(await valuesOf('Scratch!A1')).toEqual([['a']]);
    expect((await valuesOf('Grid!A1'))[0]![0]).toBe('=ROW()+0');
  });
});

describe('revision and ifRevision', () => {
  it('a read returns a revision; a write with it goes ahead while the range is unchanged, in one read', async () => {
    const read = await ok('read_range', { range: 'Log!A1:B10', valueRenderOption: 'FORMULA' });
    // The area read (tab, row 1, column A, 2 columns, 10 rows, none below) and 10 row hashes.
    expect(read.structured.revision).toMatch(/^2\.F[A-Za-z0-9_-]{5}\.0\.0\.2\.a\.0\.[A-Za-z0-9_-]{40}$/);
    const calls = await callsOf(() =>
      ok('write_range', { range: 'Log!A1:B10', values: [['first']], ifRevision: read.structured.revision }),
    );
    // The formula check and the revision check share the one FORMULA read.
    expect(calls).toEqual({
      'drive.files.get': 1,
      'sheets.spreadsheets.values.batchGet': 1,
      'sheets.spreadsheets.values.update': 1,
    });
  });

  it('refuses a write to a range that changed since it was read, naming the rows, and writes nothing', async () => {
    const read = await ok('read_range', { range: 'Log!A1:B10' });
    await ok('write_range', { range: 'Log!B4', values: [[400]] });
    await ok('write_range', { range: 'Log!A9', values: [['changed']] });
    const refused = await call('write_range', {
      range: 'Log!A1:B10',
      values: Array.from({ length: 10 }, () => ['mine']),
      ifRevision: read.structured.revision,
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("'Log'!A1:B10 changed since it was read: rows 4, 9 differ now");
    expect((await valuesOf('Log!A1'))[0]![0]).toBe('first');
  });

  it('names rows added below a read that had seen the end of the data', async () => {
    const read = await ok('read_range', { range: 'Scratch' });
    await ok('write_range', { range: 'Scratch!A3', values: [['new']] });
    const refused = await call('write_range', {
      range: 'Scratch',
      values: [['x'], ['y'], ['z']],
      ifRevision: read.structured.revision,
    });
    expect(refused.text).toContain('row 3 differs now');
    // Rows the write does not change are no reason to refuse it.
    await ok('write_range', { range: 'Scratch!A2', values: [['y']], ifRevision: read.structured.revision });
    await ok('write_range', { range: 'Scratch!A2:A3', values: [[''], ['']] });
  });

  it('a long page groups rows: the changed group is named, the token stays short', async () => {
    const read = await ok('read_range', { range: 'Log!A1:B100', limit: 100 });
    expect(read.structured.revision.length).toBeLessThan(150);
    await ok('write_range', { range: 'Log!B50', values: [[-1]] });
    const refused = await call('write_range', {
      range: 'Log!A1:B100',
      values: Array.from({ length: 100 }, () => [null]),
      ifRevision: read.structured.revision,
    });
    expect(refused.text).toMatch(/rows 49–52 differ now/);
  });

  it('a revision of an area that does not hold the write, or of another tab, is refused as such', async () => {
    const other = await ok('read_range', { range: 'Log!A1:B5' });
    const paged = await ok('read_range', { range: 'Log!A1:B10', offset: 5 });
    for (const [revision, covered] of [
      [other.structured.revision, 'A1:B5'],
      [paged.structured.revision, 'A6:B10'],
    ] as const) {
      const refused = await call('write_range', {
        range: 'Log!A1:B10',
        values: Array.from({ length: 10 }, () => ['x']),
        ifRevision: revision,
      });
      expect(refused.text).toContain(
        `ifRevision does not cover 'Log'!A1:A10: it vouches for ${covered} of the tab that was read.`,
      );
    }
    const scratch = await call('write_range', {
      range: 'Scratch!A1',
      values: [['x']],
      ifRevision: other.structured.revision,
    });
    expect(scratch.text).toContain(
      'ifRevision is of a read of another tab than Scratch: pass the revision of a read of this tab.',
    );
  });

  it('read_ranges returns a revision per range that write_ranges accepts', async () => {
    const read = await ok('read_ranges', { ranges: ['Scratch!A1:B1', 'Log!A20:B21'] });
    const [first, second] = read.structured.valueRanges;
    await ok('write_ranges', {
      data: [
        { range: 'Scratch!A1:B1', values: [['c', 'd']], ifRevision: first!.revision },
        { range: 'Log!A20:B21', values: [['e']], ifRevision: second!.revision },
      ],
    });
    expect(await valuesOf('Scratch!A1:B1')).toEqual([['c', 'd']]);
  });

  it('a FORMATTED_VALUE revision is checked in that rendering: one more read, still nothing written on change', async () => {
    const read = await ok('read_range', { range: 'Log!A30:B31' });
    await ok('write_range', { range: 'Log!B31', values: [[31.0001]] });
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    const calls = await callsOf(async () => {
      refused = await call('write_range', {
        range: 'Log!A30:B31',
        values: [['x'], ['y']],
        ifRevision: read.structured.revision,
      });
    });
    expect(refused!.text).toContain('row 31 differs now');
    expect(calls).toEqual({ 'drive.files.get': 1, 'sheets.spreadsheets.values.batchGet': 2 });
  });

  it('hostile ifRevision values are refused cleanly and write nothing', async () => {
    const genuine = (await ok('read_range', { range: 'Scratch!A1:B1' })).structured.revision as string;
    const hostile = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.constantFrom('1.F______.0e.', '1.Fabcdef.zzzzzzze.', `${genuine}AAAA`, genuine.slice(0, -1)),
      fc.stringMatching(
        /^2\.[FUV][A-Za-z0-9_-]{5}\.[0-9a-z]{1,2}\.[0-9a-z]{1,2}\.([0-9a-z]{1,2}|\*)\.[0-9a-z]{1,2}\.([0-9a-z]{1,2}|\*)\.([A-Za-z0-9_-]{4}){0,32}$/,
      ),
    );
    await fc.assert(
      fc.asyncProperty(hostile, async (ifRevision) => {
        fc.pre(ifRevision !== genuine);
        const calls = await callsOf(async () => {
          const answer = await call('write_range', { range: 'Scratch!A1:B1', values: [['zz']], ifRevision });
          expect(answer.isError).toBe(true);
          expect(answer.text).toMatch(
            /Nothing was written\. (ifRevision for .* is not a revision from read_range|ifRevision does not cover|ifRevision is of a read of another tab|Scratch!A1:B1 changed since)/,
          );
        });
        expect(writesIn(calls)).toEqual([]);
      }),
      { numRuns: 40 },
    );
    expect(await valuesOf('Scratch!A1:B1')).toEqual([['c', 'd']]);
  });
});

describe('dryRun changes nothing at Google', () => {
  const cases: Array<[string, () => Record<string, unknown>, RegExp]> = [
    ['write_range', () => ({ range: 'Orders!A2:B2', values: [['Ink', 1]] }), /would update 2 cells/],
    ['write_ranges', () => ({ data: [{ range: 'Orders!A2', values: [['Ink']] }] }), /would update 1 cells/],
    ['append_rows', () => ({ range: 'Orders', values: [['Ink', 1]] }), /would append 1 row/],
    ['clear_range', () => ({ range: 'Orders!A1:B3' }), /6 non-empty cells/],
    [
      'insert_dimension',
      () => ({ sheetId: orders, dimension: 'ROWS', startIndex: 1, count: 2 }),
      /would insert 2 rows/,
    ],
    [
      'delete_dimension',
      () => ({ sheetId: orders, dimension: 'ROWS', startIndex: 0, endIndex: 3 }),
      /Deletes rows 1–3/,
    ],
    ['add_sheet', () => ({ title: 'Never' }), /would add the tab Never/],
    ['rename_sheet', () => ({ sheetId: orders, title: 'Renamed' }), /would rename/],
    ['delete_sheet', () => ({ sheetId: orders }), /Deletes the tab "Orders"/],
    ['duplicate_sheet', () => ({ sheetId: orders }), /would copy/],
    ['format_range', () => ({ range: 'Orders!A1:D1', bold: true }), /would format/],
    [
      'batch_update',
      () => ({ requests: [{ repeatCell: { range: { sheetId: orders }, fields: 'userEnteredValue' } }] }),
      /clears the values of .* of the tab "Orders"/,
    ],
    [
      'create_spreadsheet',
      () => ({ title: 'Never', values: [['a']], spreadsheetId: undefined }),
      /would create Never/,
    ],
  ];
  it.each(cases)('%s', async (name, args, says) => {
    const before = await valuesOf('Orders');
    let answer: Awaited<ReturnType<typeof call>> | undefined;
    const calls = await callsOf(async () => {
      answer = await call(name, { ...args(), dryRun: true });
    });
    expect(answer!.isError, answer!.text).toBe(false);
    expect(answer!.structured.dryRun).toBe(true);
    expect(answer!.text).toMatch(says);
    expect(writesIn(calls)).toEqual([]);
    expect(await valuesOf('Orders')).toEqual(before);
  });

  it('convert_file: checks the source, creates nothing', async () => {
    let answer: Awaited<ReturnType<typeof call>> | undefined;
    const calls = await callsOf(async () => {
      answer = await call('convert_file', {
        fileId: spreadsheetId,
        to: 'csv',
        dryRun: true,
        spreadsheetId: undefined,
      });
    });
    expect(answer!.structured).toMatchObject({ fileId: null, name: 'Orders.csv', dryRun: true });
    expect(calls).toEqual({ 'drive.files.get': 1 });
  });

  it('a refused write is refused in a dry run too', async () => {
    const answer = await call('write_range', { range: 'Orders!D3', values: [[1]], dryRun: true });
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain('a formula (Orders!D3)');
  });
});
