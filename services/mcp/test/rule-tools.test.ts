import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Structured, spreadsheetToolChecks } from './support/spreadsheet-tool-checks.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

/** The sentence a journaled write's answer ends with, naming its change. */
const changeNoteOf = (answer: { structured: Structured }) =>
  ` Change ${answer.structured.changeId} (undo_change can undo it).`;
/** A journaled write's result as a list shows the object: without its change. */
const listedAs = ({ changeId: _changeId, ...object }: Structured) => object;

// Data validation, conditional formats, named ranges and protected ranges through the MCP SDK
// client, real mcp and auth processes and the Google emulator: each tool's effect read back (by
// the list tools, read_cell_details or the values API), dry runs that send Google no write, and
// bad arguments answered as tool errors before Google sees them.

let stack: McpUnderTest;
let client: Client;
let spreadsheetId: string;
let dataId: number;
let listsId: number;

const { call, refused, dryRun } = spreadsheetToolChecks({
  client: () => client,
  spreadsheetId: () => spreadsheetId,
  emulatorUrl: () => stack.emulatorUrl,
});

async function validationOf(range: string) {
  const { structured } = await call('read_cell_details', { range, fields: ['validation'] });
  return (structured.cells as Array<{ cell: string; validation?: Record<string, unknown> }>).map((cell) => [
    cell.cell,
    cell.validation,
  ]);
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const email = 'alice@example.com';
  const { userId } = await stack.signIn(email);
  [spreadsheetId] = (await stack.seed(email, [
    {
      name: 'Rules book',
      sheets: [
        {
          title: 'Data',
          values: [
            ['Name', 'Total', 'Status', 'Due'],
            ['Ada', 120, 'Open', '2026-01-05'],
            ['Bob', 9, 'Done', '2026-03-01'],
          ],
        },
        { title: 'Lists', values: [['Open'], ['Done'], ['Blocked']] },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'rule tools');
  const { structured } = await call('get_spreadsheet', {});
  const tabs = structured.sheets as Array<{ sheetId: number; title: string }>;
  dataId = tabs.find((tab) => tab.title === 'Data')!.sheetId;
  listsId = tabs.find((tab) => tab.title === 'Lists')!.sheetId;
}, 120_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('set_data_validation', () => {
  it('sets a dropdown from a list, from a range, a checkbox and number, date and text rules', async () => {
    const list = await call('set_data_validation', {
      range: 'Data!C2:C3',
      condition: 'ONE_OF_LIST',
      values: ['Open', 'Done'],
    });
    expect(list.structured).toEqual({
      range: 'Data!C2:C3',
      condition: 'ONE_OF_LIST',
      values: ['Open', 'Done'],
      strict: true,
      cells: 2,
      changeId: expect.any(String),
    });
    expect(list.text).toBe(
      `Set ONE_OF_LIST (Open, Done), strict on Data!C2:C3 (2 cells).${changeNoteOf(list)}`,
    );
    await call('set_data_validation', {
      range: 'Data!C4',
      condition: 'ONE_OF_RANGE',
      values: ['Lists!A1:A3'],
    });
    await call('set_data_validation', { range: 'Data!E2:E3', condition: 'BOOLEAN' });
    await call('set_data_validation', {
      range: 'Data!B2:B3',
      condition: 'NUMBER_BETWEEN',
      values: [0, 1000],
      strict: false,
    });
    await call('set_data_validation', { range: 'Data!D2', condition: 'DATE_BEFORE', values: ['TODAY'] });
    await call('set_data_validation', { range: 'Data!F2', condition: 'TEXT_IS_EMAIL' });
    expect(await validationOf('Data!B2:F4')).toEqual([
      ['B2', { condition: 'NUMBER_BETWEEN', values: ['0', '1000'], strict: false }],
      ['C2', { condition: 'ONE_OF_LIST', values: ['Open', 'Done'], strict: true }],
      ['D2', { condition: 'DATE_BEFORE', values: ['TODAY'], strict: true }],
      ['E2', { condition: 'BOOLEAN', values: [], strict: true }],
      ['F2', { condition: 'TEXT_IS_EMAIL', values: [], strict: true }],
      ['B3', { condition: 'NUMBER_BETWEEN', values: ['0', '1000'], strict: false }],
      ['C3', { condition: 'ONE_OF_LIST', values: ['Open', 'Done'], strict: true }],
      ['E3', { condition: 'BOOLEAN', values: [], strict: true }],
      ['C4', { condition: 'ONE_OF_RANGE', values: ['=Lists!A1:A3'], strict: true }],
    ]);
  });

  it('finds the tab ignoring case, as Sheets resolves a range', async () => {
    const set = await call('set_data_validation', { range: 'data!F3', condition: 'TEXT_IS_EMAIL' });
    expect(set.structured.range).toBe('Data!F3');
    expect(await validationOf('Data!F3')).toEqual([
      ['F3', { condition: 'TEXT_IS_EMAIL', values: [], strict: true }],
    ]);
    await call('set_data_validation', { range: 'Data!F3', clear: true });
  });

  it('clears validation, and a dry run changes nothing', async () => {
    await call('set_data_validation', { range: 'Data!G1:G2', condition: 'TEXT_IS_URL' });
    const dry = await dryRun('set_data_validation', { range: 'Data!G1:G2', clear: true });
    expect(dry.structured).toMatchObject({ range: 'Data!G1:G2', condition: null, cells: 2 });
    expect(await validationOf('Data!G1:G2')).toHaveLength(2);
    await dryRun('set_data_validation', { range: 'Data!H1', condition: 'BOOLEAN' });
    expect(await validationOf('Data!H1')).toEqual([]);
    await call('set_data_validation', { range: 'Data!G1:G2', clear: true });
    expect(await validationOf('Data!G1:G2')).toEqual([]);
  });

  it('refuses a range outside the tab, an unknown tab, a rule missing values, and malformed arguments', async () => {
    expect(await refused('set_data_validation', { range: 'Data!A1:AA3', condition: 'BOOLEAN' })).toContain(
      'Data!A1:AA3 reaches outside the tab "Data", which has 1000 rows and 26 columns',
    );
    expect(await refused('set_data_validation', { range: 'Data!A1001', condition: 'BOOLEAN' })).toContain(
      'reaches outside the tab',
    );
    expect(await refused('set_data_validation', { range: 'Nope!A1', condition: 'BOOLEAN' })).toContain(
      'there is no tab named "Nope"',
    );
    expect(
      await refused('set_data_validation', { range: 'Data!B2', condition: 'NUMBER_BETWEEN', values: [1] }),
    ).toContain('NUMBER_BETWEEN takes 2 values; 1 given');
    expect(await refused('set_data_validation', { range: 'Data!B2', condition: 'ONE_OF_LIST' })).toContain(
      'ONE_OF_LIST takes at least 1 value; 0 given',
    );
    expect(
      await refused('set_data_validation', { range: 'Data!B2', condition: 'TEXT_IS_EMAIL', values: ['x'] }),
    ).toContain('TEXT_IS_EMAIL takes no values');
    expect(await refused('set_data_validation', { range: 'Data!B2' })).toContain('give a condition');
    expect(await refused('set_data_validation', { range: 'Data!B2', condition: 'BLANK' })).toContain(
      'invalid arguments',
    );
    expect(await refused('set_data_validation', { range: 'Data!B2:C3:D4', condition: 'BOOLEAN' })).toContain(
      'cannot read the cells',
    );
    expect(
      await refused('set_data_validation', {
        range: 'Data!B2',
        condition: 'ONE_OF_LIST',
        values: [{ x: 1 }],
      }),
    ).toContain('invalid arguments');
  });
});

describe('conditional formats', () => {
  const rules = async (sheetId = dataId) =>
    (await call('list_conditional_formats', { sheetId })).structured.rules as Structured[];

  it('adds a condition with a format, a custom formula and a colour scale, in priority order', async () => {
    const added = await call('add_conditional_format', {
      ranges: ['Data!B2:B3'],
      condition: 'NUMBER_GREATER',
      values: [100],
      format: { backgroundColor: '#f4cccc', bold: true },
    });
    expect(added.structured).toEqual({
      sheetId: dataId,
      index: 0,
      ranges: ['Data!B2:B3'],
      condition: 'NUMBER_GREATER',
      values: ['100'],
      format: { backgroundColor: '#f4cccc', bold: true },
      colorScale: null,
      changeId: expect.any(String),
    });
    await call('add_conditional_format', {
      ranges: ['Data!A2:A3', 'Data!C2:C3'],
      condition: 'CUSTOM_FORMULA',
      values: ['=$B2>100'],
      format: { textColor: '#0000ff' },
      index: 1,
    });
    await call('add_conditional_format', {
      ranges: ['Data!B:B'],
      colorScale: {
        min: { type: 'MIN', color: '#ffffff' },
        mid: { type: 'PERCENTILE', value: 50, color: '#ffff00' },
        max: { type: 'MAX', color: '#00ff00' },
      },
    });
    const listed = await rules();
    expect(listed.map((rule) => [rule.index, rule.condition, rule.ranges])).toEqual([
      [0, null, ['Data!B:B']],
      [1, 'NUMBER_GREATER', ['Data!B2:B3']],
      [2, 'CUSTOM_FORMULA', ['Data!A2:A3', 'Data!C2:C3']],
    ]);
    expect(listed[0]!.colorScale).toEqual({
      min: { type: 'MIN', value: null, color: '#ffffff' },
      mid: { type: 'PERCENTILE', value: '50', color: '#ffff00' },
      max: { type: 'MAX', value: null, color: '#00ff00' },
    });
    expect(listed[2]).toMatchObject({ values: ['=$B2>100'], format: { textColor: '#0000ff' } });
    expect(await rules(listsId)).toEqual([]);
    const all = await call('list_conditional_formats', {});
    expect(all.text).toContain(
      `sheetId ${dataId} #1: NUMBER_GREATER 100 → backgroundColor #f4cccc, bold on Data!B2:B3`,
    );
  });

  it('updates a rule in place, moves it, and deletes it; dry runs change nothing', async () => {
    const before = await rules();
    await dryRun('update_conditional_format', {
      sheetId: dataId,
      index: 1,
      values: [5],
      condition: 'NUMBER_LESS',
    });
    await dryRun('delete_conditional_format', { sheetId: dataId, index: 0 });
    await dryRun('add_conditional_format', {
      ranges: ['Data!A1'],
      condition: 'BLANK',
      format: { italic: true },
    });
    expect(await rules()).toEqual(before);

    const updated = await call('update_conditional_format', {
      sheetId: dataId,
      index: 1,
      condition: 'NUMBER_LESS',
      values: [5],
    });
    expect(updated.structured).toMatchObject({
      index: 1,
      condition: 'NUMBER_LESS',
      values: ['5'],
      // The format and ranges it had are kept.
      format: { backgroundColor: '#f4cccc', bold: true },
      ranges: ['Data!B2:B3'],
      previous: { condition: 'NUMBER_GREATER', values: ['100'] },
    });
    // A colour scale given new ranges keeps its colours.
    const moved = await call('update_conditional_format', {
      sheetId: dataId,
      index: 0,
      ranges: ['Data!B2:B30'],
    });
    expect(moved.structured).toMatchObject({ ranges: ['Data!B2:B30'], colorScale: before[0]!.colorScale });
    await call('update_conditional_format', { sheetId: dataId, index: 0, ranges: ['Data!B:B'] });
    await call('update_conditional_format', { sheetId: dataId, index: 2, newIndex: 0 });
    expect((await rules()).map((rule) => rule.condition)).toEqual(['CUSTOM_FORMULA', null, 'NUMBER_LESS']);

    const deleted = await call('delete_conditional_format', { sheetId: dataId, index: 1 });
    expect(deleted.structured.deleted).toMatchObject({ index: 1, condition: null, ranges: ['Data!B:B'] });
    expect(deleted.text).toContain('Deleted a colour scale on Data!B:B');
    expect((await rules()).map((rule) => rule.condition)).toEqual(['CUSTOM_FORMULA', 'NUMBER_LESS']);
  });

  it('refuses an index that does not exist, an incomplete rule and ranges on two tabs', async () => {
    expect(await refused('delete_conditional_format', { sheetId: dataId, index: 7 })).toContain(
      `the tab with sheetId ${dataId} has 2 conditional format rules (index 0 to 1), so none at index 7`,
    );
    expect(await refused('delete_conditional_format', { sheetId: 4242, index: 0 })).toContain(
      'there is no tab with sheetId 4242',
    );
    expect(await refused('update_conditional_format', { sheetId: dataId, index: 0, newIndex: 9 })).toContain(
      'newIndex 9 is past the last rule',
    );
    expect(
      await refused('add_conditional_format', { ranges: ['Data!A1'], condition: 'NUMBER_GREATER' }),
    ).toContain('NUMBER_GREATER takes 1 value; 0 given');
    expect(
      await refused('add_conditional_format', { ranges: ['Data!A1'], condition: 'NOT_BLANK' }),
    ).toContain('a condition needs a format');
    expect(
      await refused('add_conditional_format', {
        ranges: ['Data!A1'],
        colorScale: { min: { type: 'NUMBER', color: '#ffffff' }, max: { type: 'MAX', color: '#000000' } },
      }),
    ).toContain('colorScale.min of type NUMBER needs a value');
    expect(
      await refused('add_conditional_format', {
        ranges: ['Data!A1', 'Lists!A1'],
        condition: 'NOT_BLANK',
        format: { bold: true },
      }),
    ).toContain('all ranges of a conditional format must be on one tab');
    expect(
      await refused('add_conditional_format', {
        ranges: ['Data!A1'],
        condition: 'TEXT_IS_EMAIL',
        format: { bold: true },
      }),
    ).toContain('invalid arguments');
    expect(
      await refused('add_conditional_format', {
        ranges: ['Data!A1'],
        condition: 'NOT_BLANK',
        format: { backgroundColor: 'red' },
      }),
    ).toContain('a colour like #1a73e8');
  });
});

describe('named ranges', () => {
  const named = async () =>
    (await call('list_named_ranges', {})).structured.namedRanges as Array<{ name: string; range: string }>;

  it('adds a name usable wherever a range is accepted, renames, repoints and deletes it', async () => {
    const dry = await dryRun('add_named_range', { name: 'Totals', range: 'Data!B2:B3' });
    expect(dry.structured).toEqual({ namedRangeId: null, name: 'Totals', range: 'Data!B2:B3', dryRun: true });
    expect(await named()).toEqual([]);

    const added = await call('add_named_range', { name: 'Totals', range: 'Data!B2:B3' });
    expect(added.structured.namedRangeId).toEqual(expect.any(String));
    expect(await named()).toEqual([
      { namedRangeId: added.structured.namedRangeId, name: 'Totals', range: 'Data!B2:B3' },
    ]);

    const read = await call('read_range', { range: 'Totals' });
    expect(read.structured).toMatchObject({ range: 'Data!B2:B3', values: [['120'], ['9']] });
    await call('write_range', { range: 'Totals', values: [[130], [10]] });
    expect((await call('read_range', { range: 'Data!B2:B3' })).structured.values).toEqual([['130'], ['10']]);

    await dryRun('update_named_range', { name: 'totals', newName: 'Sums', range: 'Data!B2:B4' });
    const updated = await call('update_named_range', {
      name: 'totals',
      newName: 'Sums',
      range: 'Data!B2:B4',
    });
    expect(updated.structured).toMatchObject({
      name: 'Sums',
      range: 'Data!B2:B4',
      previous: { name: 'Totals' },
    });
    expect((await call('read_range', { range: 'Sums' })).structured.range).toBe('Data!B2:B4');

    await dryRun('delete_named_range', { name: 'Sums' });
    expect(await named()).toHaveLength(1);
    await call('delete_named_range', { name: 'Sums' });
    expect(await named()).toEqual([]);
  });

  it('refuses a duplicate name, a name like a cell, an unknown name and a range outside the tab', async () => {
    await call('add_named_range', { name: 'People', range: 'Data!A2:A3' });
    // The rule tools take a name too.
    const named = await call('set_data_validation', {
      range: 'people',
      condition: 'TEXT_CONTAINS',
      values: ['a'],
    });
    expect(named.structured).toMatchObject({ range: 'Data!A2:A3', cells: 2 });
    expect(await validationOf('Data!A2:A3')).toHaveLength(2);
    expect((await dryRun('add_protected_range', { range: 'People' })).structured.range).toBe('Data!A2:A3');
    expect(await refused('add_named_range', { name: 'PEOPLE', range: 'Data!A1' })).toContain(
      'a named range "People" already exists (Data!A2:A3)',
    );
    expect(await refused('add_named_range', { name: 'AB12', range: 'Data!A1' })).toContain(
      'invalid arguments',
    );
    expect(await refused('add_named_range', { name: 'has space', range: 'Data!A1' })).toContain(
      'invalid arguments',
    );
    expect(await refused('add_named_range', { name: 'Far', range: 'Data!ZZ1' })).toContain(
      'reaches outside the tab',
    );
    expect(await refused('update_named_range', { name: 'Nobody', newName: 'X_1' })).toContain(
      'there is no named range "Nobody"; the named ranges are People',
    );
    expect(await refused('update_named_range', { name: 'People' })).toContain('give newName, range, or both');
    expect(await refused('delete_named_range', { name: 'Nobody' })).toContain(
      'there is no named range "Nobody"',
    );
  });
});

describe('protected ranges', () => {
  const protectedRanges = async () =>
    (await call('list_protected_ranges', {})).structured.protectedRanges as Array<Record<string, unknown>>;

  it('protects a range and a whole tab, lists them and removes one', async () => {
    const dry = await dryRun('add_protected_range', { range: 'Data!A1:D1', description: 'header' });
    expect(dry.structured).toMatchObject({ protectedRangeId: null, range: 'Data!A1:D1' });
    expect(await protectedRanges()).toEqual([]);

    const header = await call('add_protected_range', { range: 'Data!A1:D1', description: 'header' });
    expect(header.structured).toEqual({
      protectedRangeId: expect.any(Number),
      range: 'Data!A1:D1',
      description: 'header',
      warningOnly: false,
      changeId: expect.any(String),
    });
    const tab = await call('add_protected_range', { range: 'Lists', warningOnly: true });
    expect(tab.structured).toMatchObject({ range: 'Lists', warningOnly: true, description: null });
    expect(await protectedRanges()).toEqual([listedAs(header.structured), listedAs(tab.structured)]);

    const id = header.structured.protectedRangeId as number;
    await dryRun('delete_protected_range', { protectedRangeId: id });
    expect(await protectedRanges()).toHaveLength(2);
    const removed = await call('delete_protected_range', { protectedRangeId: id });
    expect(removed.text).toBe(`Removed the protection of Data!A1:D1 ("header").${changeNoteOf(removed)}`);
    expect(await protectedRanges()).toEqual([listedAs(tab.structured)]);
    expect(await refused('delete_protected_range', { protectedRangeId: id })).toContain(
      `there is no protected range ${id}; the spreadsheet has 1 protected range (${tab.structured.protectedRangeId})`,
    );
  });

  it('refuses an unknown tab and malformed arguments', async () => {
    expect(await refused('add_protected_range', { range: 'Gone!A1' })).toContain(
      'there is no tab named "Gone"',
    );
    expect(await refused('add_protected_range', { range: '' })).toContain('invalid arguments');
    expect(await refused('delete_protected_range', { protectedRangeId: 'x' })).toContain('invalid arguments');
    expect(
      await refused('add_protected_range', { range: 'Data!A1', description: 'x'.repeat(600) }),
    ).toContain('invalid arguments');
  });
});

describe('a condition and colour scale points as one text each (issue 35, item 9)', () => {
  it('sets, formats and filters as the type-and-values form did, and refuses the malformed before Google', async () => {
    await call('set_data_validation', {
      range: 'Lists!B1',
      condition: 'number_between 0 1000',
      strict: false,
    });
    await call('set_data_validation', { range: 'Lists!B2', condition: 'ONE_OF_LIST Open, Done' });
    expect(await validationOf('Lists!B1:B2')).toEqual([
      ['B1', { condition: 'NUMBER_BETWEEN', values: ['0', '1000'], strict: false }],
      ['B2', { condition: 'ONE_OF_LIST', values: ['Open', 'Done'], strict: true }],
    ]);

    const added = await call('add_conditional_format', {
      ranges: ['Lists!A1:A3'],
      condition: 'TEXT_EQ "Done"',
      format: { bold: true },
    });
    expect(added.structured).toMatchObject({ condition: 'TEXT_EQ', values: ['Done'] });
    const scale = await call('add_conditional_format', {
      ranges: ['Lists!C1:C3'],
      colorScale: { min: 'MIN #ffffff', mid: 'percent 50 #ffff00', max: 'MAX #00ff00' },
    });
    expect(scale.structured.colorScale).toEqual({
      min: { type: 'MIN', value: null, color: '#ffffff' },
      mid: { type: 'PERCENT', value: '50', color: '#ffff00' },
      max: { type: 'MAX', value: null, color: '#00ff00' },
    });
    const listed = (await call('list_conditional_formats', { sheetId: listsId })).structured
      .rules as Structured[];
    expect(listed.map((rule) => [rule.condition, rule.values])).toEqual([
      [null, []],
      ['TEXT_EQ', ['Done']],
    ]);

    const filtered = await call('set_basic_filter', {
      range: 'Lists!A1:C3',
      criteria: [{ column: 'A', condition: 'TEXT_CONTAINS o' }],
    });
    expect(filtered.structured.criteria).toEqual([
      { column: 'A', hiddenValues: [], condition: 'TEXT_CONTAINS', values: ['o'] },
    ]);
    await call('clear_basic_filter', { sheetId: listsId });

    expect(
      await refused('set_data_validation', { range: 'Lists!B3', condition: 'NUMBER_GREATER 5', values: [6] }),
    ).toContain("give NUMBER_GREATER's values after it or in values, not both");
    expect(
      await refused('set_data_validation', { range: 'Lists!B3', condition: 'NUMBER_BETWEEN 1 2 3' }),
    ).toContain('NUMBER_BETWEEN takes at most 2 values');
    expect(
      await refused('set_data_validation', { range: 'Lists!B3', condition: 'TEXT_IS_EMAIL x' }),
    ).toContain('TEXT_IS_EMAIL takes no value');
    const unknown = await refused('add_conditional_format', {
      ranges: ['Lists!A1'],
      condition: 'GREATER_THAN 5',
      format: { bold: true },
    });
    expect(unknown).toContain('invalid arguments');
    expect(unknown).toContain('"GREATER_THAN" is not a condition type here; give one of NUMBER_GREATER,');
    expect(
      await refused('set_basic_filter', {
        range: 'Lists!A1:C3',
        criteria: [{ column: 'B', condition: 'BLANK now' }],
      }),
    ).toContain('BLANK takes no value');
    expect(
      await refused('add_conditional_format', {
        ranges: ['Lists!A1'],
        colorScale: { min: 'MIN white', max: 'MAX #000000' },
      }),
    ).toContain('"NUMBER 50 #ff0000"');
    // None of the refusals changed a rule.
    expect(await validationOf('Lists!B3')).toEqual([]);
    expect((await call('list_conditional_formats', { sheetId: listsId })).structured.rules).toHaveLength(2);
  });
});
