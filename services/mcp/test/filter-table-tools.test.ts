import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Structured, spreadsheetToolChecks } from './support/spreadsheet-tool-checks.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

/** The sentence a journaled write's answer ends with, naming its change. */
const changeNoteOf = (answer: { structured: Structured }) =>
  ` Change ${answer.structured.changeId} (undo_change can undo it).`;

// Basic filters, filter views and structured tables through the MCP SDK client, real mcp and auth
// processes and the Google emulator: each tool's effect read back (by list_filters, list_tables
// or the values API), dry runs that send Google no write, and bad arguments answered as tool
// errors before Google sees them.

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

const filters = async (sheetId?: number) =>
  (await call('list_filters', sheetId === undefined ? {} : { sheetId })).structured as {
    basicFilters: Structured[];
    filterViews: Structured[];
  };
const tables = async () => (await call('list_tables', {})).structured.tables as Structured[];

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const email = 'alice@example.com';
  const { userId } = await stack.signIn(email);
  [spreadsheetId] = (await stack.seed(email, [
    {
      name: 'Filter book',
      sheets: [
        {
          title: 'Data',
          values: [
            ['Name', 'Total', 'Status', 'Due'],
            ['Ada', 120, 'Open', '2026-01-05'],
            ['Bob', 9, 'Done', '2026-03-01'],
            ['Cy', 40, 'Open', '2026-02-01'],
          ],
        },
        { title: 'Lists', values: [['Open'], ['Done']] },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'filter and table tools');
  const { structured } = await call('get_spreadsheet', {});
  const tabs = structured.sheets as Array<{ sheetId: number; title: string }>;
  dataId = tabs.find((tab) => tab.title === 'Data')!.sheetId;
  listsId = tabs.find((tab) => tab.title === 'Lists')!.sheetId;
}, 120_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('the basic filter', () => {
  it('sets a filter with a sort, hidden values and a condition, shows it in list_filters, replaces and clears it', async () => {
    const dry = await dryRun('set_basic_filter', { range: 'Data!A1:D4' });
    expect(dry.structured.replaced).toBeNull();
    expect((await filters()).basicFilters).toEqual([]);

    const set = await call('set_basic_filter', {
      range: 'Data!A1:D4',
      sort: [{ column: 'B', order: 'DESCENDING' }],
      criteria: [
        { column: 'C', hiddenValues: ['Done'] },
        { column: 'b', condition: 'NUMBER_GREATER', values: [10] },
      ],
    });
    const expected = {
      sheetId: dataId,
      filterViewId: null,
      title: null,
      range: 'Data!A1:D4',
      sort: [{ column: 'B', order: 'DESCENDING' }],
      criteria: [
        { column: 'C', hiddenValues: ['Done'], condition: null, values: [] },
        { column: 'B', hiddenValues: [], condition: 'NUMBER_GREATER', values: ['10'] },
      ],
    };
    expect(set.structured).toEqual({ ...expected, replaced: null, changeId: expect.any(String) });
    expect(set.text).toBe(
      `Set the basic filter of the tab "Data" on Data!A1:D4, sorted by B descending, C: hides Done, B: NUMBER_GREATER 10.${changeNoteOf(set)}`,
    );
    expect((await filters(dataId)).basicFilters).toEqual([expected]);

    const replaced = await call('set_basic_filter', {
      range: 'Data!A1:C4',
      criteria: [{ column: 'A', condition: 'CUSTOM_FORMULA', values: ['=LEN(A1)>2'] }],
    });
    expect(replaced.structured.replaced).toEqual(expected);
    expect((await filters()).basicFilters[0]!.criteria).toEqual([
      { column: 'A', hiddenValues: [], condition: 'CUSTOM_FORMULA', values: ['=LEN(A1)>2'] },
    ]);

    await dryRun('clear_basic_filter', { sheetId: dataId });
    expect((await filters()).basicFilters).toHaveLength(1);
    const cleared = await call('clear_basic_filter', { sheetId: dataId });
    expect(cleared.structured.cleared.range).toBe('Data!A1:C4');
    expect((await filters()).basicFilters).toEqual([]);
  });

  it('refuses a range outside the tab, a column outside the range, an empty criterion and bad A1', async () => {
    expect(await refused('set_basic_filter', { range: 'Data!A1:AB4' })).toContain(
      'Data!A1:AB4 reaches outside the tab "Data"',
    );
    expect(
      await refused('set_basic_filter', {
        range: 'Data!A1:B4',
        criteria: [{ column: 'D', hiddenValues: ['x'] }],
      }),
    ).toContain("a criterion column D is outside the filter's columns (A to B)");
    expect(await refused('set_basic_filter', { range: 'Data!A1:B4', sort: [{ column: 'C' }] })).toContain(
      "the sort column C is outside the filter's columns",
    );
    expect(await refused('set_basic_filter', { range: 'Data!A1:B4', criteria: [{ column: 'A' }] })).toContain(
      'needs hiddenValues or a condition',
    );
    expect(
      await refused('set_basic_filter', {
        range: 'Data!A1:B4',
        criteria: [{ column: 'B', condition: 'NUMBER_BETWEEN', values: [1] }],
      }),
    ).toContain('NUMBER_BETWEEN takes 2 values; 1 given');
    expect(await refused('set_basic_filter', { range: 'Data!A1:B2:C3' })).toContain('cannot read the cells');
    expect(await refused('set_basic_filter', { range: 'x'.repeat(600) })).toContain('invalid arguments');
    expect(
      await refused('set_basic_filter', {
        range: 'Data!A1:B4',
        criteria: [{ column: 'A1', hiddenValues: ['x'] }],
      }),
    ).toContain('invalid arguments');
    expect(await refused('clear_basic_filter', { sheetId: listsId })).toContain(
      'the tab "Lists" has no basic filter',
    );
  });
});

describe('filter views', () => {
  it('adds, lists, changes and deletes a filter view; dry runs change nothing', async () => {
    await dryRun('add_filter_view', { title: 'Open', range: 'Data!A1:D4' });
    expect((await filters()).filterViews).toEqual([]);
    const added = await call('add_filter_view', {
      title: 'Open',
      range: 'Data!A1:D4',
      criteria: [{ column: 'C', condition: 'TEXT_CONTAINS', values: ['Op'] }],
    });
    const id = added.structured.filterViewId as number;
    expect(id).toBeTypeOf('number');
    expect(added.text).toBe(
      `Added the filter view "Open" on Data!A1:D4, C: TEXT_CONTAINS Op (filterViewId ${id}).${changeNoteOf(added)}`,
    );
    expect((await filters()).filterViews).toEqual([
      {
        sheetId: dataId,
        filterViewId: id,
        title: 'Open',
        range: 'Data!A1:D4',
        sort: [],
        criteria: [{ column: 'C', hiddenValues: [], condition: 'TEXT_CONTAINS', values: ['Op'] }],
      },
    ]);

    await dryRun('update_filter_view', { filterViewId: id, title: 'Renamed' });
    expect((await filters()).filterViews[0]!.title).toBe('Open');
    const changed = await call('update_filter_view', {
      filterViewId: id,
      title: 'Open, by due date',
      sort: [{ column: 'D' }],
    });
    expect(changed.structured.previous.title).toBe('Open');
    const [view] = (await filters()).filterViews;
    // The criteria were not given, so they stay.
    expect(view).toMatchObject({
      title: 'Open, by due date',
      sort: [{ column: 'D', order: 'ASCENDING' }],
      criteria: [{ column: 'C', condition: 'TEXT_CONTAINS' }],
    });

    await dryRun('delete_filter_view', { filterViewId: id });
    expect((await filters()).filterViews).toHaveLength(1);
    const deleted = await call('delete_filter_view', { filterViewId: id });
    expect(deleted.structured.deleted.title).toBe('Open, by due date');
    expect((await filters()).filterViews).toEqual([]);
  });

  it('refuses an id that does not exist, an empty title, a range its criteria leave, and a change of nothing', async () => {
    expect(await refused('delete_filter_view', { filterViewId: 4242 })).toContain(
      'there is no filter view 4242; the spreadsheet has 0 filter views',
    );
    expect(await refused('update_filter_view', { filterViewId: 4242, title: 'x' })).toContain(
      'there is no filter view 4242',
    );
    expect(await refused('add_filter_view', { title: '  ', range: 'Data!A1:B4' })).toContain(
      'invalid arguments',
    );
    expect(await refused('add_filter_view', { title: 'x'.repeat(201), range: 'Data!A1:B4' })).toContain(
      'invalid arguments',
    );
    const { structured } = await call('add_filter_view', {
      title: 'Status',
      range: 'Data!A1:D4',
      criteria: [{ column: 'D', hiddenValues: ['2026-01-05'] }],
    });
    expect(
      await refused('update_filter_view', { filterViewId: structured.filterViewId, range: 'Data!A1:B4' }),
    ).toContain("a criterion column D is outside the filter's columns (A to B)");
    expect(
      await refused('update_filter_view', { filterViewId: structured.filterViewId, range: 'Lists!A1:D2' }),
    ).toContain('a filter view stays on its tab');
    expect(await refused('update_filter_view', { filterViewId: structured.filterViewId })).toContain(
      'give a new title, range, sort or criteria',
    );
    await call('delete_filter_view', { filterViewId: structured.filterViewId });
  });
});

describe('tables', () => {
  it('adds a table with column types and a dropdown, lists, renames, resizes, retypes and deletes it', async () => {
    const dry = await dryRun('add_table', {
      name: 'Tasks',
      range: 'Data!A1:D4',
      columns: [{}, { type: 'DOUBLE' }, { type: 'DROPDOWN', dropdownValues: ['Open', 'Done'] }],
    });
    expect(dry.structured.columns[3]).toEqual({ index: 3, name: null, type: null, dropdownValues: [] });
    expect(dry.structured.replacedHeaders).toEqual([]);
    expect(await tables()).toEqual([]);

    const added = await call('add_table', {
      name: 'Tasks',
      range: 'Data!A1:D4',
      columns: [
        {},
        { type: 'DOUBLE' },
        { type: 'DROPDOWN', dropdownValues: ['Open', 'Done'] },
        { name: 'Due date', type: 'DATE' },
      ],
    });
    const expected = {
      tableId: added.structured.tableId,
      name: 'Tasks',
      sheetId: dataId,
      range: 'Data!A1:D4',
      columns: [
        { index: 0, name: 'Name', type: null, dropdownValues: [] },
        { index: 1, name: 'Total', type: 'DOUBLE', dropdownValues: [] },
        { index: 2, name: 'Status', type: 'DROPDOWN', dropdownValues: ['Open', 'Done'] },
        { index: 3, name: 'Due date', type: 'DATE', dropdownValues: [] },
      ],
    };
    // The given name replaces the header's text, and says so.
    expect(added.structured).toEqual({
      ...expected,
      replacedHeaders: ['D1: "Due" → "Due date"'],
      changeId: expect.any(String),
    });
    expect(added.text).toContain(', replacing the header D1: "Due" → "Due date".');
    expect(await tables()).toEqual([expected]);
    // A given column name is the header cell's text.
    const header = await call('read_range', { range: 'Data!A1:D1' });
    expect(header.structured.values).toEqual([['Name', 'Total', 'Status', 'Due date']]);

    await dryRun('update_table', { table: 'tasks', newName: 'Jobs' });
    expect((await tables())[0]!.name).toBe('Tasks');
    await call('update_table', {
      table: 'tasks',
      newName: 'Jobs',
      range: 'Data!A1:E6',
      columns: [
        { index: 0, name: 'Who', type: 'TEXT' },
        { index: 4, type: 'BOOLEAN' },
      ],
    });
    const [table] = await tables();
    expect(table).toMatchObject({ name: 'Jobs', range: 'Data!A1:E6' });
    expect(table!.columns.map((column: Structured) => [column.name, column.type])).toEqual([
      ['Who', 'TEXT'],
      ['Total', 'DOUBLE'],
      ['Status', 'DROPDOWN'],
      ['Due date', 'DATE'],
      ['Column 5', 'BOOLEAN'],
    ]);

    await dryRun('delete_table', { table: table!.tableId });
    expect(await tables()).toHaveLength(1);
    const deleted = await call('delete_table', { table: table!.tableId });
    expect(deleted.text).toContain('its cells keep their values');
    expect(await tables()).toEqual([]);
    expect((await call('read_range', { range: 'Data!A1:B2' })).structured.values).toEqual([
      ['Who', 'Total'],
      ['Ada', '120'],
    ]);
  });

  it('refuses an overlap, a taken name, an empty name, bad columns and an unknown table', async () => {
    await call('add_table', { name: 'Base', range: 'Data!A1:B4' });
    expect(await refused('add_table', { name: 'Other', range: 'Data!B3:C5' })).toBe(
      'Data!B3:C5 overlaps the table "Base" (Data!A1:B4); tables cannot overlap',
    );
    expect(await refused('add_table', { name: 'BASE', range: 'Lists!A1:A2' })).toContain(
      'a table named "Base" already exists (Data!A1:B4)',
    );
    expect(await refused('add_table', { name: '', range: 'Lists!A1:A2' })).toContain('invalid arguments');
    expect(await refused('add_table', { name: 'a\u202eb', range: 'Lists!A1:A2' })).toContain(
      'invalid arguments',
    );
    expect(await refused('add_table', { name: 'x'.repeat(256), range: 'Lists!A1:A2' })).toContain(
      'invalid arguments',
    );
    expect(await refused('add_table', { name: 'T', range: 'Lists!A1:A2', columns: [{}, {}] })).toContain(
      '2 columns given, but Lists!A1:A2 has 1',
    );
    expect(
      await refused('add_table', {
        name: 'T',
        range: 'Lists!A1:B2',
        columns: [{ name: 'A' }, { name: 'a' }],
      }),
    ).toContain('two columns are named "a"');
    expect(
      await refused('add_table', { name: 'T', range: 'Lists!A1:A2', columns: [{ type: 'DROPDOWN' }] }),
    ).toContain('column 1 is a DROPDOWN: give its dropdownValues');
    expect(await refused('add_table', { name: 'T', range: 'Lists!A1:AA2' })).toContain(
      'reaches outside the tab',
    );
    await call('write_range', { range: 'Lists!C1', values: [['=1+1']] });
    expect(
      await refused('add_table', { name: 'Sums', range: 'Lists!C1:C2', columns: [{ name: 'Sum' }] }),
    ).toContain('the header cell C1 holds a formula (=1+1); give no name for column 1 to keep it');
    expect(await refused('update_table', { table: 'Nope', newName: 'x' })).toContain(
      'there is no table "Nope"; the tables are "Base"',
    );
    expect(await refused('update_table', { table: 'Base', columns: [{ index: 5, name: 'x' }] })).toContain(
      'the table has 2 columns (index 0 to 1), so none at index 5',
    );
    expect(await refused('delete_table', { table: 'Nope' })).toContain('there is no table "Nope"');
    await call('delete_table', { table: 'Base' });
  });
});

describe('batch_update', () => {
  it('passes filter-view and table requests through', async () => {
    const { structured } = await call('batch_update', {
      requests: [
        {
          addFilterView: {
            filter: { title: 'Raw', range: { sheetId: listsId, startRowIndex: 0, endRowIndex: 2 } },
          },
        },
        {
          addTable: {
            table: {
              name: 'Raw_table',
              range: {
                sheetId: listsId,
                startRowIndex: 0,
                endRowIndex: 2,
                startColumnIndex: 0,
                endColumnIndex: 1,
              },
            },
          },
        },
      ],
    });
    expect(structured).toBeTruthy();
    expect((await filters(listsId)).filterViews.map((view) => view.title)).toEqual(['Raw']);
    expect((await tables()).map((table) => table.name)).toEqual(['Raw_table']);
  });
});
