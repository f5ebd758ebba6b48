import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { type Answer, callTool, callToolOk } from './support/tool-answers.ts';

// Safe writes that hold (docs/design.md §11.2, §11.8): every check a write passes — the formula
// guard, ifRevision, the change journal's before-image, the loss description — covers the cells
// its values reach, not the range as written; undo puts back each cell's kind (text that starts
// with = stays text); a dry run writes nothing. Through the MCP SDK client against real mcp and
// auth processes and the Google emulator, whose stats show which Google methods were called.

let stack: McpUnderTest;
let client: Client;
let spreadsheetId: string;
const sheetIds = new Map<string, number>();

const WRITE_METHODS = [
  'sheets.spreadsheets.values.update',
  'sheets.spreadsheets.values.batchUpdate',
  'sheets.spreadsheets.values.append',
  'sheets.spreadsheets.values.clear',
  'sheets.spreadsheets.batchUpdate',
];

async function attempts(): Promise<Record<string, number>> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return Object.fromEntries(Object.entries(stats.methods).map(([name, { attempts }]) => [name, attempts]));
}

/** The Google write methods `action` called. */
async function writesDuring(action: () => Promise<unknown>): Promise<string[]> {
  const before = await attempts();
  await action();
  const after = await attempts();
  return WRITE_METHODS.filter((name) => (after[name] ?? 0) > (before[name] ?? 0));
}

// undo_change finds the spreadsheet from the change.
const withId = (name: string, args: Record<string, unknown>) =>
  name === 'undo_change' ? args : { spreadsheetId, ...args };
const call = (name: string, args: Record<string, unknown>) => callTool(client, name, withId(name, args));
const ok = (name: string, args: Record<string, unknown>) => callToolOk(client, name, withId(name, args));

async function read(range: string, render = 'FORMULA'): Promise<unknown[][]> {
  return (await ok('read_range', { range, valueRenderOption: render })).structured.values as unknown[][];
}

/** A tab's cells in both renderings: formulas and kinds (FORMULA), and what each shows (FORMATTED). */
async function snapshot(range: string) {
  return { formulas: await read(range), shown: await read(range, 'FORMATTED_VALUE') };
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const { userId } = await stack.signIn('alice@example.com');
  [spreadsheetId] = (await stack.seed('alice@example.com', [
    {
      name: 'Writes that hold',
      sheets: [
        {
          title: 'Blocks',
          values: [
            [1, 2],
            [3, '=A1+A2'],
          ],
        },
        {
          title: 'Anchored',
          values: [
            [1, 2],
            [3, '=A1+A2'],
          ],
        },
        {
          title: 'Appends',
          values: [
            [1, 2],
            [3, 4],
            ['', '', '=1+1'],
          ],
        },
        {
          title: 'Cells',
          values: [
            ['a', 'b', 'c'],
            ['=1+1', 'e', '=2+2'],
            ['g', 'h', 'i'],
          ],
        },
        { title: 'Texts', values: [['x']] },
        {
          title: 'Grid',
          values: Array.from({ length: 6 }, (_, row) =>
            Array.from({ length: 5 }, (_, column) =>
              (row + column) % 3 === 0
                ? `=ROW()*10+COLUMN()`
                : (row * 5 + column) % 2
                  ? `t${row}${column}`
                  : row * 5 + column,
            ),
          ),
        },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'writes-that-hold-test');
  const tabs = (await ok('get_spreadsheet', {})).structured.sheets as Array<{
    sheetId: number;
    title: string;
  }>;
  for (const tab of tabs) sheetIds.set(tab.title, tab.sheetId);
  // Text that looks like a formula, as shared or imported data holds it.
  await ok('write_ranges', {
    data: [
      { range: 'Grid!B6', values: [['=IMPORTDATA("https://example.com/x.csv")']] },
      { range: 'Grid!E1', values: [['=not a formula']] },
      { range: 'Grid!A3', values: [['=A1']] },
      { range: 'Grid!C4', values: [['=SUM(']] },
      { range: 'Grid!D2', values: [['#N/A']] },
    ],
    valueInputOption: 'RAW',
    overwriteFormulas: true,
  });
});
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('a block written from one cell is guarded over every cell it covers', () => {
  const block = [
    [10, 20],
    [30, 40],
  ];

  it('write_range and write_ranges refuse to replace a formula outside the one-cell range, and write nothing', async () => {
    let single: Answer | undefined;
    let several: Answer | undefined;
    const writes = await writesDuring(async () => {
      single = await call('write_range', { range: 'Blocks!A1', values: block });
      several = await call('write_ranges', { data: [{ range: 'Blocks!A1', values: block }] });
    });
    for (const answer of [single!, several!]) {
      expect(answer.isError).toBe(true);
      expect(answer.text).toContain('a formula (Blocks!B2)');
    }
    expect(writes).toEqual([]);
    expect(await read('Blocks!A1:B2')).toEqual([
      [1, 2],
      [3, '=A1+A2'],
    ]);
  });

  it('with overwriteFormulas the block is written, and undo restores all four cells, not only the anchor', async () => {
    const written = await ok('write_range', { range: 'Blocks!A1', values: block, overwriteFormulas: true });
    expect(written.structured.updatedRange).toBe('Blocks!A1:B2');
    expect(await read('Blocks!A1:B2')).toEqual(block);
    const undone = await ok('undo_change', { changeId: written.structured.changeId });
    expect(undone.text).toContain('Blocks!A1:B2');
    expect(await read('Blocks!A1:B2')).toEqual([
      [1, 2],
      [3, '=A1+A2'],
    ]);
  });

  it('ifRevision covers only the cells it read: a revision of the anchor cell does not vouch for the block', async () => {
    const anchor = (await ok('read_range', { range: 'Anchored!A1' })).structured.revision as string;
    const refused = await call('write_range', {
      range: 'Anchored!A1',
      values: block,
      ifRevision: anchor,
      overwriteFormulas: true,
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('ifRevision does not cover Anchored!A1:B2: it vouches for A1:A1');
    // A revision of the block's own area is accepted for a write from its first cell.
    const whole = (await ok('read_range', { range: 'Anchored!A1:B2' })).structured.revision as string;
    await ok('write_range', {
      range: 'Anchored!A1',
      values: block,
      ifRevision: whole,
      overwriteFormulas: true,
    });
    expect(await read('Anchored!A1:B2')).toEqual(block);
  });

  it("a dry run says the block's area", async () => {
    const planned = await ok('write_range', { range: 'Blocks!C5', values: block, dryRun: true });
    expect(planned.structured.updatedRange).toBe('Blocks!C5:D6');
  });
});

describe('append_rows with OVERWRITE', () => {
  it('refuses to replace a formula in the row after the table, writing nothing', async () => {
    let refused: Answer | undefined;
    const writes = await writesDuring(async () => {
      refused = await call('append_rows', {
        range: 'Appends!A1:B2',
        values: [[5, 6, 7]],
        insertDataOption: 'OVERWRITE',
      });
    });
    expect(refused!.isError).toBe(true);
    expect(refused!.text).toContain('a formula (Appends!C3)');
    // Only the probe: an append of no values, which tells where the table ends and writes nothing.
    expect(writes).toEqual(['sheets.spreadsheets.values.append']);
    expect(await read('Appends!A1:C3')).toEqual([
      [1, 2],
      [3, 4],
      ['', '', '=1+1'],
    ]);
  });

  it('with overwriteFormulas it writes after the table, and undo puts the formula back', async () => {
    const appended = await ok('append_rows', {
      range: 'Appends!A1:B2',
      values: [[5, 6, 7]],
      insertDataOption: 'OVERWRITE',
      overwriteFormulas: true,
    });
    expect(appended.structured.updatedRange).toBe('Appends!A3:C3');
    expect(appended.structured.tableRange).toBe('Appends!A1:B2');
    expect(await read('Appends!A3:C3')).toEqual([[5, 6, 7]]);
    await ok('undo_change', { changeId: appended.structured.changeId });
    expect(await read('Appends!A1:C3')).toEqual([
      [1, 2],
      [3, 4],
      ['', '', '=1+1'],
    ]);
  });
});

describe('batch_update updateCells from a start cell', () => {
  it('is described by the cells its rows cover, so a dry run names the loss', async () => {
    const cells = sheetIds.get('Cells')!;
    const row = (...values: string[]) => ({
      values: values.map((text) => ({ userEnteredValue: { stringValue: text } })),
    });
    const planned = await ok('batch_update', {
      requests: [
        {
          updateCells: {
            start: { sheetId: cells, rowIndex: 0, columnIndex: 0 },
            rows: [row('1', '2', '3'), row('4', '5', '6')],
            fields: 'userEnteredValue',
          },
        },
      ],
      dryRun: true,
    });
    expect(planned.text).toMatch(/replaces the values of A1:C2 of the tab "Cells" \(6 non-empty cells\)/);
    expect(await read('Cells!A1:C2')).toEqual([
      ['a', 'b', 'c'],
      ['=1+1', 'e', '=2+2'],
    ]);
  });
});

describe("undo keeps each cell's kind", () => {
  it('text that starts with = is put back as text, not as a formula that runs', async () => {
    await ok('write_range', { range: 'Texts!A1', values: [['=1+1']], valueInputOption: 'RAW' });
    expect(await read('Texts!A1', 'FORMATTED_VALUE')).toEqual([['=1+1']]);
    const cleared = await ok('clear_range', { range: 'Texts!A1' });
    await ok('undo_change', { changeId: cleared.structured.changeId });
    expect(await read('Texts!A1', 'FORMATTED_VALUE')).toEqual([['=1+1']]);
    // Replaced by a write, and undone: still text.
    const written = await ok('write_range', {
      range: 'Texts!A1',
      values: [['plain']],
      overwriteFormulas: true,
    });
    const undone = await ok('undo_change', { changeId: written.structured.changeId });
    expect(await read('Texts!A1', 'FORMATTED_VALUE')).toEqual([['=1+1']]);
    // Undoing the undo (a redo) keeps the kinds too.
    await ok('undo_change', { changeId: undone.structured.changeId });
    expect(await read('Texts!A1', 'FORMATTED_VALUE')).toEqual([['plain']]);
  });
});

describe('property: random blocks from random anchors over a tab of formulas, text and numbers', () => {
  const cell = fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: -99, max: 999 }) },
    { weight: 3, arbitrary: fc.constantFrom('x', 'note', '007', 'TRUE') },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant('=1+2') },
  );
  const write = fc.record({
    row: fc.integer({ min: 0, max: 5 }),
    column: fc.integer({ min: 0, max: 4 }),
    values: fc.array(fc.array(cell, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
    tool: fc.constantFrom('write_range anchor', 'write_range area', 'write_ranges anchor'),
    overwriteFormulas: fc.boolean(),
    dryRun: fc.boolean(),
  });
  const letters = 'ABCDEFGH';

  it('no formula is replaced without overwriteFormulas, every undo restores exactly what was replaced, and a dry run writes nothing', async () => {
    const region = 'Grid!A1:G8';
    await fc.assert(
      fc.asyncProperty(write, async (plan) => {
        const before = await snapshot(region);
        const width = Math.max(...plan.values.map((line) => line.length));
        const anchor = `${letters[plan.column]}${plan.row + 1}`;
        const area = `${anchor}:${letters[plan.column + width - 1]}${plan.row + plan.values.length}`;
        const range = `Grid!${plan.tool === 'write_range area' ? area : anchor}`;
        const options = { overwriteFormulas: plan.overwriteFormulas, dryRun: plan.dryRun };
        const replacesFormula = plan.values.some((line, r) =>
          line.some((value, c) => {
            const now = before.formulas[plan.row + r]?.[plan.column + c];
            return value !== null && typeof now === 'string' && now.startsWith('=') && now !== value;
          }),
        );
        let answer: Answer | undefined;
        const writes = await writesDuring(async () => {
          answer =
            plan.tool === 'write_ranges anchor'
              ? await call('write_ranges', { data: [{ range, values: plan.values }], ...options })
              : await call('write_range', { range, values: plan.values, ...options });
        });
        if (plan.dryRun || (replacesFormula && !plan.overwriteFormulas)) {
          expect(writes).toEqual([]);
          // A dry run is refused as the write would be.
          expect(answer!.isError).toBe(replacesFormula && !plan.overwriteFormulas);
          expect(await snapshot(region)).toEqual(before);
          return;
        }
        expect(answer!.isError, answer!.text).toBe(false);
        const changeId = answer!.structured.changeId;
        // A block of nulls changes nothing, and is not a change to undo.
        if (plan.values.every((line) => line.every((value) => value === null))) return;
        expect(changeId).toEqual(expect.any(String));
        const undone = await call('undo_change', { changeId });
        expect(undone.isError, undone.text).toBe(false);
        expect(await snapshot(region)).toEqual(before);
      }),
      { numRuns: 60 },
    );
  });
});
