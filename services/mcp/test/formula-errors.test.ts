import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { type Answer, callToolOk } from './support/tool-answers.ts';

// Writes say what they produced (issue 35, item 1): when the cells a value write puts formulas in
// evaluate to an error, the answer names them with Google's error and message, read in one
// spreadsheets.get of `effectiveValue.errorValue` (Sheets API CellData.effectiveValue: "for cells
// with formulas, this is the calculated value"; ErrorValue: `type` and `message`). The write is
// still done and journaled. Through the MCP SDK client against real mcp and auth processes and the
// Google emulator, whose stats count the Google requests.

let stack: McpUnderTest;
let client: Client;
let spreadsheetId: string;

const ok = (name: string, args: Record<string, unknown>) =>
  callToolOk(client, name, { spreadsheetId, ...args });

async function attempts(): Promise<Record<string, number>> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return Object.fromEntries(Object.entries(stats.methods).map(([name, { attempts }]) => [name, attempts]));
}

/** The spreadsheets.get requests `action` made, and its answer. */
async function getsDuring(action: () => Promise<Answer>): Promise<{ gets: number; answer: Answer }> {
  const before = (await attempts())['sheets.spreadsheets.get'] ?? 0;
  const answer = await action();
  return { gets: ((await attempts())['sheets.spreadsheets.get'] ?? 0) - before, answer };
}

async function read(range: string, render = 'FORMULA'): Promise<unknown[][]> {
  return (await ok('read_range', { range, valueRenderOption: render })).structured.values as unknown[][];
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const { userId } = await stack.signIn('alice@example.com');
  [spreadsheetId] = (await stack.seed('alice@example.com', [
    {
      name: 'Formula errors',
      sheets: [
        {
          title: 'Orders',
          values: [
            ['Order', 'Customer', 'Date', 'Amount'],
            [1, 'Ada', '2024-01-02', 700],
            [2, 'Bob', '2024-01-03', 300],
            [3, 'Ada', '2024-01-04', 900],
          ],
        },
        { title: 'Summary', values: [['']] },
        { title: 'Mixed', values: [['']] },
        { title: 'Plain', values: [['']] },
        { title: 'Bulk', values: [['']] },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'formula-errors-test');
});
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe("the issue's reproductions no longer answer as a clean success", () => {
  it('a formula Sheets cannot parse: #ERROR! with its message, and the write is done and journaled', async () => {
    // One closing parenthesis too many: Google cannot parse it either.
    const formula = '=SORT(UNIQUE(FILTER(Orders!B2:B, Orders!D2:D>500))))';
    const written = await ok('write_range', {
      range: 'Summary!A1',
      values: [
        ['Big buyers', formula],
        ['Orders', 3],
      ],
    });
    expect(written.structured).toMatchObject({
      updatedCells: 4,
      formulaErrorCount: 1,
      formulaErrors: [{ cell: 'Summary!B1', error: '#ERROR!', message: 'Formula parse error.' }],
    });
    expect(written.text).toMatch(
      /^Updated 4 cells in Summary!A1:B2, but 1 formula evaluates to an error \(below\)\./,
    );
    expect(written.text).toContain('\n- Summary!B1: #ERROR! Formula parse error.');
    expect(written.structured.changeId).toEqual(expect.any(String));
    expect((await read('Summary!B1'))[0]).toEqual([formula]);
  });

  it("a reference to a tab that does not exist: #REF! Unresolved sheet name 'Nope'.", async () => {
    const written = await ok('write_range', {
      range: 'Summary!D1',
      values: [
        ['From Nope', '=Nope!A1'],
        ['Note', 'x'],
      ],
    });
    expect(written.structured.formulaErrors).toEqual([
      { cell: 'Summary!E1', error: '#REF!', message: "Unresolved sheet name 'Nope'." },
    ]);
    expect(written.structured.formulaErrorCount).toBe(1);
    expect(written.text).toContain('but 1 formula evaluates to an error (below).');
    expect(written.text.endsWith("\n- Summary!E1: #REF! Unresolved sheet name 'Nope'.")).toBe(true);
    expect((await read('Summary!E1', 'FORMATTED_VALUE'))[0]).toEqual(['#REF!']);
  });
});

describe('only the formulas that evaluate to an error are listed', () => {
  it('write_ranges: good and bad formulas over two ranges, the bad in the order written', async () => {
    const written = await ok('write_ranges', {
      data: [
        { range: 'Mixed!A1', values: [['=SUM(Orders!D2:D4)', '=1/0', 'text', '=1+1']] },
        {
          range: 'Mixed!A3',
          values: [
            ['=NOSUCHFUNCTION(1)', 5, '="a"+1'],
            [null, '=UPPER("ok")', '=SUM(1'],
          ],
        },
      ],
    });
    expect(written.structured.formulaErrorCount).toBe(4);
    expect(written.structured.formulaErrors).toEqual([
      { cell: 'Mixed!B1', error: '#DIV/0!', message: 'Function DIVIDE parameter 2 cannot be zero.' },
      { cell: 'Mixed!A3', error: '#NAME?', message: "Unknown function: 'nosuchfunction'." },
      { cell: 'Mixed!C3', error: '#VALUE!', message: expect.any(String) },
      { cell: 'Mixed!C4', error: '#ERROR!', message: 'Formula parse error.' },
    ]);
    expect(written.text).toMatch(
      /^Updated 9 cells in 2 ranges, but 4 formulas evaluate to an error \(below\)\./,
    );
    expect(written.text.split('\n- ')).toHaveLength(5);
    expect(await read('Mixed!A1:D1', 'FORMATTED_VALUE')).toEqual([['1900', '#DIV/0!', 'text', '2']]);
  });

  it('append_rows, inserting or overwriting, names the appended cell that fails', async () => {
    const appended = await ok('append_rows', {
      range: 'Orders!A:D',
      values: [[4, 'Cy', '2024-01-05', '=D2/0']],
    });
    expect(appended.structured).toMatchObject({
      updatedRange: 'Orders!A5:D5',
      formulaErrorCount: 1,
      formulaErrors: [
        { cell: 'Orders!D5', error: '#DIV/0!', message: 'Function DIVIDE parameter 2 cannot be zero.' },
      ],
    });
    expect(appended.text).toMatch(/^Appended 1 row at Orders!A5:D5, but 1 formula evaluates to an error/);
    // OVERWRITE writes after the table as write_range does, and says the same.
    const overwritten = await ok('append_rows', {
      range: 'Orders!A:D',
      values: [[5, 'Di', '2024-01-06', '=Nope!D1']],
      insertDataOption: 'OVERWRITE',
    });
    expect(overwritten.structured).toMatchObject({
      updatedRange: 'Orders!A6:D6',
      formulaErrorCount: 1,
      formulaErrors: [{ cell: 'Orders!D6', error: '#REF!', message: "Unresolved sheet name 'Nope'." }],
    });
    expect(overwritten.text).toContain('overwriting what was there, but 1 formula evaluates to an error');
  });

  it('formulas that all evaluate are checked and say so in the structured result only', async () => {
    const written = await ok('write_range', { range: 'Mixed!A10', values: [['=2*3', '=Orders!B2']] });
    expect(written.structured).toMatchObject({ formulaErrorCount: 0, formulaErrors: [] });
    expect(written.text).not.toContain('error');
  });
});

describe('a write without formulas reads nothing more', () => {
  it('plain values, RAW text starting with =, and USER_ENTERED text behind an apostrophe make no spreadsheets.get', async () => {
    const plain = await getsDuring(() => ok('write_range', { range: 'Plain!A1', values: [['a', 1, true]] }));
    const raw = await getsDuring(() =>
      ok('write_range', { range: 'Plain!A2', values: [['=Nope!A1']], valueInputOption: 'RAW' }),
    );
    const quoted = await getsDuring(() => ok('write_range', { range: 'Plain!A3', values: [["'=Nope!A1"]] }));
    const several = await getsDuring(() =>
      ok('write_ranges', { data: [{ range: 'Plain!A4', values: [["'=1/0", 2]] }] }),
    );
    const appended = await getsDuring(() => ok('append_rows', { range: 'Plain!A:C', values: [['b', 2]] }));
    for (const { gets, answer } of [plain, raw, quoted, several, appended]) {
      expect(gets).toBe(0);
      expect(answer.structured).not.toHaveProperty('formulaErrorCount');
      expect(answer.structured).not.toHaveProperty('formulaErrors');
    }
    // The apostrophe keeps the text: the cell shows it, not an error.
    expect(await read('Plain!A2:A3', 'FORMATTED_VALUE')).toEqual([['=Nope!A1'], ['=Nope!A1']]);
  });

  it('a write with formulas makes exactly one spreadsheets.get more', async () => {
    const { gets, answer } = await getsDuring(() =>
      ok('write_range', {
        range: 'Plain!E1',
        values: [
          ['=1/0', '=1+1'],
          ['=Nope!B2', 'x'],
        ],
      }),
    );
    expect(gets).toBe(1);
    expect(answer.structured.formulaErrorCount).toBe(2);
  });
});

describe('the answer is bounded', () => {
  it('5,000 broken formulas: the first 20 listed, and how many there are', async () => {
    const values = Array.from({ length: 250 }, (_, row) =>
      Array.from({ length: 20 }, (_, column) => `=Nope!A${row * 20 + column + 1}`),
    );
    const written = await ok('write_range', { range: 'Bulk!A1', values });
    expect(written.structured.updatedCells).toBe(5000);
    expect(written.structured.formulaErrorCount).toBe(5000);
    const listed = written.structured.formulaErrors as Array<{ cell: string; error: string }>;
    expect(listed).toHaveLength(20);
    expect(listed[0]).toEqual({ cell: 'Bulk!A1', error: '#REF!', message: "Unresolved sheet name 'Nope'." });
    expect(listed.at(-1)?.cell).toBe('Bulk!T1');
    expect(written.text).toContain('but 5,000 formulas evaluate to an error (the first 20 below).');
    expect(written.text.split('\n- ')).toHaveLength(21);
    expect(written.text.length).toBeLessThan(2_000);
  });
});
