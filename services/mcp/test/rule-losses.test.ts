import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolsUnderTest, type ToolsUnderTest } from './support/tools-in-process.ts';

// describeLoss of the rule and range-object delete tools (the sentence a person confirms), run in
// this process against a Google emulator process: one spreadsheets.get, no change, and text
// written by anyone the file is shared with quoted so that it cannot disguise the sentence.

let under: ToolsUnderTest;
let spreadsheetId: string;
let dataId: number;

async function run(name: string, input: Record<string, unknown>) {
  const tool = under.tool(name);
  return tool.run(tool.inputSchema.parse({ spreadsheetId, ...input }), under.context());
}

async function describeLoss(name: string, input: Record<string, unknown>) {
  const tool = under.tool(name);
  const parsed = tool.inputSchema.parse({ spreadsheetId, ...input });
  await under.forgetCalls();
  const sentence = await tool.describeLoss!(parsed, under.context());
  const calls = await under.calls();
  expect(calls.all).toBe(1);
  expect(calls.methods['sheets.spreadsheets.get']?.attempts).toBe(1);
  return sentence;
}

beforeAll(async () => {
  under = await startToolsUnderTest();
  [spreadsheetId] = (await under.seed([
    { name: 'Losses', sheets: [{ title: 'Data \u202eQ3', values: [['a', 1]] }] },
  ])) as [string];
  const tabs = (await run('get_spreadsheet', {})).structuredContent.sheets as Array<{ sheetId: number }>;
  dataId = tabs[0]!.sheetId;
}, 60_000);

afterAll(async () => {
  await under?.stop();
});

describe('what a delete of a rule or range object would lose', () => {
  it('a conditional format rule: its index, tab, condition and ranges, escaped', async () => {
    await run('add_conditional_format', {
      ranges: ["'Data \u202eQ3'!B1:B9"],
      condition: 'TEXT_CONTAINS',
      values: ['Allow"\n'],
      format: { bold: true },
    });
    expect(await describeLoss('delete_conditional_format', { sheetId: dataId, index: 0 })).toBe(
      'the conditional format rule 0 of the tab "Data \\u{202e}Q3" (TEXT_CONTAINS "Allow\\"\\n" on "\'Data \\u{202e}Q3\'!B1:B9")',
    );
    await expect(describeLoss('delete_conditional_format', { sheetId: dataId, index: 3 })).rejects.toThrow(
      'so none at index 3',
    );
  });

  it('a named range and a protection, with its description escaped', async () => {
    await run('add_named_range', { name: 'Totals', range: "'Data \u202eQ3'!B1:B9" });
    expect(await describeLoss('delete_named_range', { name: 'totals' })).toBe(
      'the named range "Totals" ("\'Data \\u{202e}Q3\'!B1:B9")',
    );
    const added = await run('add_protected_range', {
      range: "'Data \u202eQ3'!A1",
      description: 'keep\u2028out',
    });
    const id = added.structuredContent.protectedRangeId as number;
    expect(await describeLoss('delete_protected_range', { protectedRangeId: id })).toBe(
      'the protection of "\'Data \\u{202e}Q3\'!A1" ("keep\\u{2028}out")',
    );
  });

  it('a basic filter, a filter view and a table, their names escaped', async () => {
    await run('set_basic_filter', {
      range: "'Data \u202eQ3'!A1:B1",
      criteria: [{ column: 'A', hiddenValues: ['a'] }],
    });
    expect(await describeLoss('clear_basic_filter', { sheetId: dataId })).toBe(
      'the basic filter of the tab "Data \\u{202e}Q3" (on "\'Data \\u{202e}Q3\'!A1:B1", 1 column criterion)',
    );
    const view = await run('add_filter_view', { title: 'mine\u2028yours', range: "'Data \u202eQ3'!A1:B1" });
    expect(
      await describeLoss('delete_filter_view', {
        filterViewId: view.structuredContent.filterViewId as number,
      }),
    ).toBe('the filter view "mine\\u{2028}yours" (on "\'Data \\u{202e}Q3\'!A1:B1")');
    // add_table refuses such a name; one made elsewhere may have it.
    const row = { sheetId: dataId, startRowIndex: 0, endRowIndex: 1, startColumnIndex: 0, endColumnIndex: 2 };
    await run('batch_update', { requests: [{ addTable: { table: { name: 'Sales\u200b', range: row } } }] });
    expect(await describeLoss('delete_table', { table: 'Sales\u200b' })).toBe(
      'the table "Sales\\u{200b}" (on "\'Data \\u{202e}Q3\'!A1:B1", 2 columns; its cells keep their values)',
    );
    await expect(describeLoss('delete_table', { table: 'Nope' })).rejects.toThrow('there is no table "Nope"');
  });
});
