import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { failureOf, SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

// Basic filters, filter views and structured tables through batchUpdate and spreadsheets.get with
// field masks — through googleapis alone, as Sheetgate's filter and table tools use them.

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;
let spreadsheetId: string;
const DATA = 7;
const OTHER = 8;

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      properties: { title: 'Filters' },
      sheets: [
        { properties: { title: 'Data', sheetId: DATA, gridProperties: { rowCount: 20, columnCount: 6 } } },
        { properties: { title: 'Other', sheetId: OTHER } },
      ],
    },
  });
  spreadsheetId = data.spreadsheetId!;
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Data!A1:C4',
    valueInputOption: 'RAW',
    requestBody: {
      values: [
        ['Name', 'Total', 'Status'],
        ['Ada', 5, 'Open'],
        ['Bob', 7, 'Done'],
        ['Cy', 9, 'Open'],
      ],
    },
  });
});

afterAll(async () => {
  await emulator?.close();
});

const update = (requests: sheets_v4.Schema$Request[]) =>
  sheets.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } });

async function refusal(requests: sheets_v4.Schema$Request[]): Promise<string> {
  const failure = await failureOf(update(requests));
  expect(failure.response?.status).toBe(400);
  expect(failure.response?.data.error.status).toBe('INVALID_ARGUMENT');
  expect(failure.response?.data.error.errors[0]?.reason).toBe('badRequest');
  return failure.response!.data.error.message;
}

const area = (startColumnIndex: number, endColumnIndex: number, startRowIndex = 0, endRowIndex = 4) => ({
  sheetId: DATA,
  startRowIndex,
  endRowIndex,
  startColumnIndex,
  endColumnIndex,
});

async function sheetOf(fields: string, index = 0) {
  const { data } = await sheets.spreadsheets.get({ spreadsheetId, fields });
  return data.sheets?.[index];
}

describe('setBasicFilter and clearBasicFilter', () => {
  it('stores the filter with both filterSpecs and criteria, replaces it, and clears it', async () => {
    const criteria = { condition: { type: 'NUMBER_GREATER', values: [{ userEnteredValue: '6' }] } };
    await update([
      {
        setBasicFilter: {
          filter: {
            range: area(0, 3),
            sortSpecs: [{ dimensionIndex: 1, sortOrder: 'DESCENDING' }],
            filterSpecs: [{ columnIndex: 1, filterCriteria: criteria }],
          },
        },
      },
    ]);
    expect((await sheetOf('sheets(basicFilter)'))?.basicFilter).toEqual({
      range: area(0, 3),
      sortSpecs: [{ dimensionIndex: 1, sortOrder: 'DESCENDING' }],
      filterSpecs: [{ columnIndex: 1, filterCriteria: criteria }],
      criteria: { '1': criteria },
    });
    // The deprecated map alone is read as filterSpecs too.
    await update([
      { setBasicFilter: { filter: { range: area(0, 3), criteria: { '2': { hiddenValues: ['Done'] } } } } },
    ]);
    expect((await sheetOf('sheets(basicFilter(filterSpecs,sortSpecs))'))?.basicFilter).toEqual({
      filterSpecs: [{ columnIndex: 2, filterCriteria: { hiddenValues: ['Done'] } }],
    });
    await update([{ clearBasicFilter: { sheetId: DATA } }]);
    expect(await sheetOf('sheets(properties(sheetId),basicFilter)')).toEqual({
      properties: { sheetId: DATA },
    });
  });

  it("refuses a range outside the grid, a column outside the filter's range and a bad condition", async () => {
    expect(await refusal([{ setBasicFilter: { filter: { range: area(0, 9) } } }])).toBe(
      'Invalid requests[0].setBasicFilter: Range (Data!A1:I4) exceeds grid limits. Max rows: 20, max columns: 6',
    );
    expect(
      await refusal([
        {
          setBasicFilter: {
            filter: { range: area(0, 2), filterSpecs: [{ columnIndex: 4, filterCriteria: {} }] },
          },
        },
      ]),
    ).toContain("column index 4 is outside the filter's range");
    expect(
      await refusal([
        {
          setBasicFilter: {
            filter: {
              range: area(0, 2),
              filterSpecs: [{ columnIndex: 0, filterCriteria: { condition: { type: 'NUMBER_BETWEEN' } } }],
            },
          },
        },
      ]),
    ).toContain('Condition NUMBER_BETWEEN requires 2 condition values, but 0 were given.');
    expect(await refusal([{ setBasicFilter: { filter: {} } }])).toContain('A filter requires a range.');
    expect(await refusal([{ clearBasicFilter: { sheetId: 99 } }])).toContain('No grid with id: 99');
  });
});

describe('filter views', () => {
  it('adds with a new id and a default title, updates masked fields, duplicates and deletes', async () => {
    const { data } = await update([
      { addFilterView: { filter: { title: 'Open ones', range: area(0, 3) } } },
      { addFilterView: { filter: { range: area(0, 2) } } },
    ]);
    const first = data.replies?.[0]?.addFilterView?.filter;
    const second = data.replies?.[1]?.addFilterView?.filter;
    expect(first).toMatchObject({ title: 'Open ones', range: area(0, 3) });
    expect(first?.filterViewId).toBeTypeOf('number');
    expect(second?.title).toBe('Filter 2');

    const hidden = { hiddenValues: ['Done'] };
    await update([
      {
        updateFilterView: {
          filter: {
            filterViewId: first!.filterViewId,
            filterSpecs: [{ columnIndex: 2, filterCriteria: hidden }],
          },
          fields: 'filterSpecs',
        },
      },
    ]);
    const views = (await sheetOf('sheets(filterViews)'))?.filterViews;
    // Only the masked field changed: the title and range stay.
    expect(views?.find((view) => view.filterViewId === first!.filterViewId)).toEqual({
      filterViewId: first!.filterViewId,
      title: 'Open ones',
      range: area(0, 3),
      filterSpecs: [{ columnIndex: 2, filterCriteria: hidden }],
      criteria: { '2': hidden },
    });

    const { data: duplicated } = await update([{ duplicateFilterView: { filterId: first!.filterViewId } }]);
    const copy = duplicated.replies?.[0]?.duplicateFilterView?.filter;
    expect(copy).toMatchObject({ title: 'Copy of Open ones', filterSpecs: [{ columnIndex: 2 }] });
    expect(copy?.filterViewId).not.toBe(first!.filterViewId);

    await update([
      { deleteFilterView: { filterId: first!.filterViewId } },
      { deleteFilterView: { filterId: second!.filterViewId } },
      { deleteFilterView: { filterId: copy!.filterViewId } },
    ]);
    expect((await sheetOf('sheets(filterViews)'))?.filterViews).toBeUndefined();
  });

  it('refuses an unknown id, an update without fields, a taken id and a range off the grid', async () => {
    expect(await refusal([{ deleteFilterView: { filterId: 4242 } }])).toBe(
      'Invalid requests[0].deleteFilterView: No filter view with id: 4242',
    );
    expect(
      await refusal([{ updateFilterView: { filter: { filterViewId: 4242, title: 'x' }, fields: 'title' } }]),
    ).toContain('No filter view with id: 4242');
    await update([{ addFilterView: { filter: { filterViewId: 31, range: area(0, 1) } } }]);
    expect(
      await refusal([{ updateFilterView: { filter: { filterViewId: 31, title: 'x' }, fields: '' } }]),
    ).toContain("'fields' is empty");
    expect(await refusal([{ addFilterView: { filter: { filterViewId: 31, range: area(0, 1) } } }])).toContain(
      'A filter view with id 31 already exists.',
    );
    expect(
      await refusal([
        { updateFilterView: { filter: { filterViewId: 31, range: area(0, 1, 0, 40) }, fields: 'range' } },
      ]),
    ).toContain('exceeds grid limits');
    // A failed batch changes nothing: the add before the refusal is not kept.
    expect(
      await refusal([
        { addFilterView: { filter: { filterViewId: 32, range: area(0, 1) } } },
        { deleteFilterView: { filterId: 4242 } },
      ]),
    ).toContain('requests[1].deleteFilterView');
    const views = (await sheetOf('sheets(filterViews(filterViewId))'))?.filterViews;
    expect(views).toEqual([{ filterViewId: 31 }]);
    await update([{ deleteFilterView: { filterId: 31 } }]);
  });
});

describe('tables', () => {
  const dropdown = {
    condition: { type: 'ONE_OF_LIST', values: [{ userEnteredValue: 'Open' }, { userEnteredValue: 'Done' }] },
  };

  it('adds a table with column names from its header row or as given, and writes them there', async () => {
    const { data } = await update([
      {
        addTable: {
          table: {
            name: 'Tasks',
            range: area(0, 3),
            columnProperties: [
              { columnIndex: 1, columnName: 'Amount', columnType: 'DOUBLE' },
              { columnIndex: 2, columnType: 'DROPDOWN', dataValidationRule: dropdown },
            ],
          },
        },
      },
    ]);
    const table = data.replies?.[0]?.addTable?.table;
    expect(table?.tableId).toMatch(/^\d+$/);
    expect(table).toEqual({
      tableId: table?.tableId,
      name: 'Tasks',
      range: area(0, 3),
      columnProperties: [
        { columnIndex: 0, columnName: 'Name' },
        { columnIndex: 1, columnName: 'Amount', columnType: 'DOUBLE' },
        { columnIndex: 2, columnName: 'Status', columnType: 'DROPDOWN', dataValidationRule: dropdown },
      ],
    });
    expect((await sheetOf('sheets(tables)'))?.tables).toEqual([table]);
    const { data: header } = await sheets.spreadsheets.values.get({ spreadsheetId, range: 'Data!A1:C1' });
    expect(header.values).toEqual([['Name', 'Amount', 'Status']]);
  });

  it('updates the masked fields: a new name, a wider range with a default column name', async () => {
    const tableId = (await sheetOf('sheets(tables(tableId))'))?.tables?.[0]?.tableId;
    await update([
      {
        updateTable: {
          table: { tableId, name: 'Jobs', range: area(0, 4, 0, 6) },
          fields: 'name,range',
        },
      },
    ]);
    const table = (await sheetOf('sheets(tables)'))?.tables?.[0];
    expect(table?.name).toBe('Jobs');
    expect(table?.range).toEqual(area(0, 4, 0, 6));
    expect(table?.columnProperties?.map((column) => [column.columnName, column.columnType ?? null])).toEqual([
      ['Name', null],
      ['Amount', 'DOUBLE'],
      ['Status', 'DROPDOWN'],
      ['Column 4', null],
    ]);
  });

  it('refuses an overlap, a taken name, a bad column and an unknown id', async () => {
    expect(await refusal([{ addTable: { table: { name: 'Clash', range: area(3, 5, 2, 8) } } }])).toBe(
      'Invalid requests[0].addTable: The table range (Data!D3:E8) overlaps the table "Jobs".',
    );
    expect(
      await refusal([{ addTable: { table: { name: 'jobs', range: { ...area(0, 2), sheetId: OTHER } } } }]),
    ).toContain('A table with the name "jobs" already exists.');
    expect(await refusal([{ addTable: { table: { name: ' ', range: area(0, 2, 10, 12) } } }])).toContain(
      'A table must have a name.',
    );
    expect(
      await refusal([
        {
          addTable: {
            table: {
              name: 'Bad',
              range: area(0, 2, 10, 12),
              columnProperties: [{ columnIndex: 0, columnType: 'DROPDOWN' }],
            },
          },
        },
      ]),
    ).toContain('A DROPDOWN column needs a dataValidationRule with a ONE_OF_LIST condition');
    expect(
      await refusal([
        {
          addTable: {
            table: {
              name: 'Bad',
              range: area(0, 2, 10, 12),
              columnProperties: [
                { columnIndex: 0, columnName: 'A' },
                { columnIndex: 1, columnName: 'a' },
              ],
            },
          },
        },
      ]),
    ).toContain('Duplicate column name in table: "a".');
    expect(
      await refusal([
        {
          addTable: {
            table: { name: 'Bad', range: area(0, 2, 10, 12), columnProperties: [{ columnIndex: 5 }] },
          },
        },
      ]),
    ).toContain('column index 5 is outside the table');
    expect(
      await refusal([{ updateTable: { table: { tableId: 'nope', name: 'x' }, fields: 'name' } }]),
    ).toContain('No table with id: nope');
    expect(await refusal([{ deleteTable: { tableId: 'nope' } }])).toContain('No table with id: nope');
  });

  it('a filter view on a table or a named range takes its range, and goes when the table goes', async () => {
    const { data } = await update([
      { addTable: { table: { name: 'Small', range: { ...area(0, 2, 0, 3), sheetId: OTHER } } } },
      { addNamedRange: { namedRange: { namedRangeId: 'n1', name: 'Corner', range: area(0, 1, 0, 2) } } },
    ]);
    const tableId = data.replies?.[0]?.addTable?.table?.tableId;
    const { data: views } = await update([
      { addFilterView: { filter: { title: 'On table', tableId } } },
      { addFilterView: { filter: { title: 'On name', namedRangeId: 'n1' } } },
      { setBasicFilter: { filter: { tableId } } },
    ]);
    expect(views.replies?.[0]?.addFilterView?.filter).toMatchObject({
      tableId,
      range: { ...area(0, 2, 0, 3), sheetId: OTHER },
    });
    expect(views.replies?.[1]?.addFilterView?.filter).toMatchObject({
      namedRangeId: 'n1',
      range: area(0, 1, 0, 2),
    });
    expect(await refusal([{ addFilterView: { filter: { tableId, namedRangeId: 'n1' } } }])).toContain(
      'Only one of range, namedRangeId or tableId may be set.',
    );
    await update([{ deleteTable: { tableId } }]);
    expect((await sheetOf('sheets(basicFilter,filterViews(title))', 1)) ?? {}).toEqual({});
    const onName = (await sheetOf('sheets(filterViews(filterViewId,title))'))?.filterViews ?? [];
    expect(onName.map((view) => view.title)).toEqual(['On name']);
    await update([
      { deleteFilterView: { filterId: onName[0]!.filterViewId } },
      { deleteNamedRange: { namedRangeId: 'n1' } },
    ]);
  });

  it('moves with inserted rows, and a delete keeps the cells', async () => {
    const tableId = (await sheetOf('sheets(tables(tableId))'))?.tables?.[0]?.tableId;
    await update([
      { insertDimension: { range: { sheetId: DATA, dimension: 'ROWS', startIndex: 0, endIndex: 1 } } },
    ]);
    expect((await sheetOf('sheets(tables(range))'))?.tables?.[0]?.range).toEqual(area(0, 4, 1, 7));
    await update([{ deleteTable: { tableId } }]);
    expect((await sheetOf('sheets(tables)'))?.tables).toBeUndefined();
    const { data } = await sheets.spreadsheets.values.get({ spreadsheetId, range: 'Data!A2:B2' });
    expect(data.values).toEqual([['Name', 'Amount']]);
  });
});
