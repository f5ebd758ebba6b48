import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { type Answer, callTool, callToolOk } from './support/tool-answers.ts';

// The change log says what changed, and undo says what it touched (docs/design.md §11.8, issue
// 34 items 3 and 4): each journaled write records a summary in words that list_changes shows with
// its spreadsheet and how to undo it; list_changes filters by tool; undo_change scopes "the last
// change" to a spreadsheet and every answer, dry run included, names the spreadsheet and range.
// Real auth and mcp processes, PostgreSQL and the Google emulator.

let stack: McpUnderTest;
let alice: Client;
let budget: string;
let contacts: string;
let household: string;

interface Listed {
  changeId: string;
  tool: string;
  spreadsheetId: string;
  summary: string;
  ranges: string[];
  undoable: boolean;
  undo: string;
}

const ok = (name: string, args: Record<string, unknown>) => callToolOk(alice, name, args);

async function listed(args: Record<string, unknown>): Promise<{ changes: Listed[]; text: string }> {
  const answer = await ok('list_changes', args);
  return { changes: answer.structured.changes as Listed[], text: answer.text };
}

async function sheetIdOf(spreadsheetId: string, title: string): Promise<number> {
  const sheets = (await ok('get_spreadsheet', { spreadsheetId })).structured.sheets as Array<{
    sheetId: number;
    title: string;
  }>;
  return sheets.find((sheet) => sheet.title === title)!.sheetId;
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const { userId } = await stack.signIn('alice@example.com');
  [budget, contacts, household] = (await stack.seed('alice@example.com', [
    {
      name: 'Budget',
      sheets: [
        { title: 'Sheet1', values: [['a', 'b', 'c']] },
        {
          title: 'Orders',
          values: [
            ['Id', 'Item'],
            [1, 'Pens'],
          ],
        },
        { title: 'Q3', values: [['x', 'y'], ['z']] },
        { title: 'Rows', values: [['r1'], ['r2'], ['r3'], ['r4']] },
      ],
    },
    { name: 'Contacts', sheets: [{ title: 'People', values: [['Ann'], ['Bo']] }] },
    {
      name: 'Household',
      sheets: [
        {
          title: 'Expenses',
          values: [
            ['Category', 'Amount', 'Month', 'Note'],
            ['Rent', 900, 'May', ''],
            ['Food', 300, 'May', ''],
            ['Power', 80, 'May', ''],
          ],
        },
        { title: 'Summary', values: [['Total'], ['=SUM(Expenses!B2:B4)']] },
      ],
    },
  ])) as [string, string, string];
  alice = await stack.connectClient(userId, 'log-words');
});
afterAll(async () => {
  await alice?.close();
  await stack?.stop();
});

describe('list_changes says what each change did', () => {
  it('words value writes, appends, clears, notes and deletions, each with its spreadsheet and how to undo it', async () => {
    const wrote = await ok('write_range', {
      spreadsheetId: budget,
      range: 'Sheet1!A2:C3',
      values: [
        [1, 2, '=A2+B2'],
        [3, 4, '=A3+B3'],
      ],
    });
    await ok('write_range', {
      spreadsheetId: budget,
      range: 'Sheet1!A5',
      values: [['=not a formula']],
      valueInputOption: 'RAW',
    });
    await ok('append_rows', {
      spreadsheetId: budget,
      range: 'Orders!A:B',
      values: [
        [2, 'Ink'],
        [3, 'Tape'],
      ],
    });
    await ok('clear_range', { spreadsheetId: budget, range: 'Sheet1!A1:C1' });
    await ok('set_notes', {
      spreadsheetId: budget,
      notes: [{ range: 'Orders!A1:B1', note: 'checked' }],
    });
    await ok('delete_dimension', {
      spreadsheetId: budget,
      sheetId: await sheetIdOf(budget, 'Rows'),
      dimension: 'ROWS',
      startIndex: 1,
      endIndex: 3,
    });
    await ok('delete_sheet', { spreadsheetId: budget, sheetId: await sheetIdOf(budget, 'Q3') });

    const { changes, text } = await listed({ spreadsheetId: budget });
    expect(changes.map((change) => change.summary)).toEqual([
      'deleted the tab "Q3" (1,000 rows, 3 cells)',
      'deleted rows 2–3 of Rows',
      'set notes on 2 cells of Orders!A1:B1',
      'cleared 3 cells of Sheet1!A1:C1',
      'appended 2 rows to Orders!A3:B4',
      'wrote 1 cell of Sheet1!A5',
      'wrote 6 cells of Sheet1!A2:C3 (2 formulas)',
    ]);
    for (const change of changes) {
      expect(change.spreadsheetId).toBe(budget);
      expect(change.undoable).toBe(true);
      expect(change.undo).toContain(`undo_change {"changeId":"${change.changeId}"}`);
      expect(text).toContain(`spreadsheet ${budget}: ${change.summary} (${change.tool}`);
    }
    expect(changes[0]!.undo).toContain('recreates the tab "Q3"');
    expect(changes.at(-1)!.undo).toContain('puts back the values of Sheet1!A2:C3');
    expect(changes.at(-1)!.changeId).toBe(wrote.structured.changeId);
  });

  it('says why a change cannot be undone, and never "0 cells" for one without a count', async () => {
    await ok('freeze', { spreadsheetId: contacts, sheetId: await sheetIdOf(contacts, 'People'), rows: 1 });
    const { changes, text } = await listed({ spreadsheetId: contacts, tool: 'freeze' });
    expect(changes).toHaveLength(1);
    const [frozen] = changes;
    if (!frozen!.undoable) expect(frozen!.undo).toMatch(/^Cannot be undone\. ./);
    expect(frozen!.summary).not.toContain('0 cells');
    expect(text).not.toContain('(0 cells)');
  });

  it('filters by tool', async () => {
    const { changes } = await listed({ spreadsheetId: budget, tool: 'write_range' });
    expect(changes.map((change) => change.tool)).toEqual(['write_range', 'write_range']);
    expect((await listed({ tool: 'sort_range' })).changes).toEqual([]);
    const bad = await callTool(alice, 'list_changes', { tool: 'Not A Tool' });
    expect(bad.isError).toBe(true);
  });
});

describe('undo_change names what it touched', () => {
  it('scopes the last change to a spreadsheet, and names the spreadsheet and range in every answer', async () => {
    const inContacts = await ok('write_range', {
      spreadsheetId: contacts,
      range: 'People!B1',
      values: [['ann@example.com']],
    });
    // The credential's last change is in Budget; scoped to Contacts, the last one there.
    await ok('write_range', { spreadsheetId: budget, range: 'Sheet1!E1', values: [['later']] });

    const dry: Answer = await ok('undo_change', { spreadsheetId: contacts, dryRun: true });
    expect(dry.structured).toMatchObject({
      undoneChangeId: inContacts.structured.changeId,
      spreadsheetId: contacts,
      summary: 'wrote 1 cell of People!B1',
      restored: ['People!B1:B1'],
      dryRun: true,
    });
    expect(dry.text).toContain(`Spreadsheet ${contacts}`);
    expect(dry.text).toContain('People!B1');

    // Without a spreadsheet, the credential's last change wherever it is, and it says where.
    const last = await ok('undo_change', { dryRun: true });
    expect(last.structured).toMatchObject({ spreadsheetId: budget, restored: ['Sheet1!E1:E1'] });
    expect(last.text).toContain(`Spreadsheet ${budget}`);
    expect(last.text).toContain('Sheet1!E1');

    const undone = await ok('undo_change', { spreadsheetId: contacts });
    expect(undone.structured).toMatchObject({
      undoneChangeId: inContacts.structured.changeId,
      spreadsheetId: contacts,
    });
    expect(undone.text).toContain(`Spreadsheet ${contacts}`);
    expect(
      (await ok('read_range', { spreadsheetId: contacts, range: 'People!B1' })).structured.values,
    ).toEqual([]);
    // The Budget change stands.
    expect((await ok('read_range', { spreadsheetId: budget, range: 'Sheet1!E1' })).structured.values).toEqual(
      [['later']],
    );
  });

  it('refuses a change of another spreadsheet than the one named, and names it in refusals', async () => {
    const inBudget = await ok('write_range', { spreadsheetId: budget, range: 'Sheet1!F1', values: [['f']] });
    const elsewhere = await callTool(alice, 'undo_change', {
      changeId: inBudget.structured.changeId,
      spreadsheetId: contacts,
    });
    expect(elsewhere.isError).toBe(true);
    expect(elsewhere.text).toContain(`not found among your changes to spreadsheet ${contacts}`);

    await ok('write_range', { spreadsheetId: budget, range: 'Sheet1!F1', values: [['edited']] });
    const refused = await callTool(alice, 'undo_change', { changeId: inBudget.structured.changeId });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('changed since');
    expect(refused.text).toContain(`Spreadsheet ${budget}`);
    expect(refused.text).toContain('wrote 1 cell of Sheet1!F1');
  });
});

describe('structure changes: the log and undo say what undo does', () => {
  it('names the action for formats, a freeze, a chart, a rename and a sort, in list_changes and undo_change alike', async () => {
    const expenses = await sheetIdOf(household, 'Expenses');
    const on = { spreadsheetId: household };
    const formatted = await ok('format_range', { ...on, range: 'Expenses!A1:D1', bold: true });
    const frozen = await ok('freeze', { ...on, sheetId: expenses, rows: 1 });
    const charted = await ok('add_chart', {
      ...on,
      type: 'column',
      range: 'Expenses!A1:B4',
      title: 'Totals by category',
    });
    const chartId = charted.structured.chartId as number;
    const renamed = await ok('rename_sheet', {
      ...on,
      sheetId: await sheetIdOf(household, 'Summary'),
      title: 'Totals',
    });
    const sorted = await ok('sort_range', { ...on, range: 'Expenses!A2:B4', sortBy: [{ column: 'B' }] });

    const chart = `the chart "Totals by category" (id ${chartId}) on the tab "Expenses"`;
    const expected = new Map([
      [formatted, ['bold on 4 cells of Expenses!A1:D1', 'puts back the formats of Expenses!A1:D1']],
      [frozen, ['froze 1 row of the tab "Expenses"', 'unfreezes the rows of the tab "Expenses"']],
      [charted, [`added ${chart}`, `deletes ${chart}`]],
      [renamed, ['renamed the tab "Summary" to "Totals"', 'renames the tab "Totals" back to "Summary"']],
      [
        sorted,
        [
          'sorted the rows of Expenses!A2:B4 (4 cells moved)',
          'puts back the order of the rows of Expenses!A2:B4',
        ],
      ],
    ]);
    const { changes } = await listed(on);
    for (const [answer, [summary, undo]] of expected) {
      const change = changes.find((each) => each.changeId === answer.structured.changeId);
      expect(change?.summary, answer.text).toBe(summary);
      expect(change?.undo).toBe(`undo_change {"changeId":"${change?.changeId}"} ${undo}.`);
    }

    // The dry run says the same action; the undo says it was done.
    const dry = await ok('undo_change', { changeId: charted.structured.changeId, dryRun: true });
    expect(dry.structured.restored).toEqual([`delete ${chart}`]);
    expect(dry.text).toContain(`would delete ${chart}. Nothing was changed.`);
    const back = await ok('undo_change', { changeId: renamed.structured.changeId });
    expect(back.structured.restored).toEqual(['rename the tab "Totals" back to "Summary"']);
    expect(back.text).toContain(
      `Undid change ${renamed.structured.changeId}: renamed the tab "Totals" back to "Summary".`,
    );
    expect(await sheetIdOf(household, 'Summary')).toBeTypeOf('number');
  });
});
