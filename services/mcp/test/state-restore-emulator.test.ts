import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedParts } from '../src/journal/state/state-describe.ts';
import type { CellField, StateImage } from '../src/journal/state/state-image.ts';
import { restoreState } from '../src/journal/state/state-restore.ts';
import { startEmulatorSheets } from './support/emulator-sheets.ts';
import { canonicalImage, type ImagePlan, readStateImage } from './support/read-state-image.ts';

// restoreState against the Google emulator: a spreadsheet is built, read (before), changed through
// batchUpdate, read again (after and now), and restoreState's requests applied; the spreadsheet
// must then read as before, for each part undo restores — and a later, unrelated edit must stay.

const DATA = 10;
const OTHER = 20;
let sheets: sheets_v4.Sheets;
let stop: () => void;

beforeAll(async () => {
  ({ sheets, stop } = await startEmulatorSheets());
});

afterAll(() => stop?.());

async function newSpreadsheet(): Promise<string> {
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      properties: { title: 'Undo round trip' },
      sheets: [
        { properties: { title: 'Data', sheetId: DATA, gridProperties: { rowCount: 40, columnCount: 8 } } },
        { properties: { title: 'Other', sheetId: OTHER, gridProperties: { rowCount: 20, columnCount: 5 } } },
      ],
    },
  });
  const spreadsheetId = data.spreadsheetId as string;
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Data!A1:C6',
    valueInputOption: 'RAW',
    requestBody: {
      values: [
        ['Name', 'Total', 'Status'],
        ['Ada', 5, 'Open'],
        ['Bob', 7, 'Done'],
        ['Cy', 9, 'Open'],
        ['Di', 2, 'Done'],
        ['Ed', 4, 'Open'],
      ],
    },
  });
  return spreadsheetId;
}

const update = (spreadsheetId: string, requests: sheets_v4.Schema$Request[]) =>
  requests.length === 0
    ? Promise.resolve()
    : sheets.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } });

interface Scenario {
  plan?: ImagePlan;
  setup?: sheets_v4.Schema$Request[];
  change: sheets_v4.Schema$Request[];
  /** An edit made after the change, which undo must leave as it is. */
  later?: sheets_v4.Schema$Request[];
}

/**
 * Builds, reads, changes, reads, undoes and reads again. Undo runs from the journal's smaller
 * images (changedParts), as it will. Answers the three reads and what restoreState said.
 */
async function roundTrip(scenario: Scenario) {
  const spreadsheetId = await newSpreadsheet();
  const plan = scenario.plan ?? {};
  await update(spreadsheetId, scenario.setup ?? []);
  const before = await readStateImage(sheets, spreadsheetId, plan);
  await update(spreadsheetId, scenario.change);
  const after = await readStateImage(sheets, spreadsheetId, plan);
  let expected: StateImage = before;
  if (scenario.later) {
    // What undo should leave: before, with the later edit applied to it.
    await update(spreadsheetId, scenario.later);
  }
  const now = await readStateImage(sheets, spreadsheetId, plan);
  const restore = restoreState(changedParts(before, after), now);
  expect(restoreState({ before, after }, now)).toEqual(restore);
  await update(spreadsheetId, restore.requests);
  const restored = await readStateImage(sheets, spreadsheetId, plan);
  if (scenario.later) {
    const twin = await newSpreadsheet();
    await update(twin, [...(scenario.setup ?? []), ...scenario.later]);
    expected = await readStateImage(sheets, twin, plan);
  }
  return { before, after, expected, restored, restore };
}

async function expectRestored(scenario: Scenario) {
  const result = await roundTrip(scenario);
  expect(canonicalImage(result.after)).not.toEqual(canonicalImage(result.before));
  expect(result.restore.changedSince).toEqual([]);
  expect(canonicalImage(result.restored)).toEqual(canonicalImage(result.expected));
  return result;
}

const range = (
  startRowIndex: number,
  endRowIndex: number,
  startColumnIndex: number,
  endColumnIndex: number,
  sheetId = DATA,
) => ({
  sheetId,
  startRowIndex,
  endRowIndex,
  startColumnIndex,
  endColumnIndex,
});

const cellsPlan = (a1: string, fields: CellField[]): ImagePlan => ({
  cells: [{ sheet: 'Data', sheetId: DATA, range: a1, fields }],
});

describe('cells', () => {
  it('values, formats, notes, data validation and rich text come back; cells written into come back empty', async () => {
    const { restore } = await expectRestored({
      plan: cellsPlan('A1:E8', [
        'userEnteredValue',
        'userEnteredFormat',
        'note',
        'dataValidation',
        'textFormatRuns',
      ]),
      setup: [{ repeatCell: { range: range(0, 1, 0, 3), cell: { note: 'header' }, fields: 'note' } }],
      change: [
        {
          repeatCell: {
            range: range(0, 4, 0, 3),
            cell: { userEnteredFormat: { textFormat: { bold: true }, backgroundColor: { red: 1 } } },
            fields: 'userEnteredFormat',
          },
        },
        {
          updateCells: {
            range: range(5, 8, 3, 5),
            rows: [{ values: [{ userEnteredValue: { stringValue: 'new' }, note: 'n' }] }],
            fields: 'userEnteredValue,note',
          },
        },
        {
          setDataValidation: {
            range: range(1, 6, 2, 3),
            rule: {
              condition: {
                type: 'ONE_OF_LIST',
                values: [{ userEnteredValue: 'Open' }, { userEnteredValue: 'Done' }],
              },
            },
          },
        },
        { repeatCell: { range: range(0, 1, 0, 3), cell: {}, fields: 'note' } },
        {
          updateCells: {
            range: range(1, 2, 0, 1),
            rows: [
              {
                values: [
                  {
                    userEnteredValue: { stringValue: 'Ada' },
                    textFormatRuns: [{ format: { italic: true } }],
                  },
                ],
              },
            ],
            fields: 'userEnteredValue,textFormatRuns',
          },
        },
      ],
    });
    expect(restore.restored).toEqual([
      'put back the values, formats, notes and data validation of Data!A1:D6',
    ]);
  });

  it('leaves a cell the change did not alter with its later value, inside the area too', async () => {
    await expectRestored({
      plan: cellsPlan('A1:C6', ['userEnteredValue']),
      change: [
        {
          updateCells: {
            range: range(1, 3, 1, 2),
            rows: [
              { values: [{ userEnteredValue: { numberValue: 50 } }] },
              { values: [{ userEnteredValue: { numberValue: 70 } }] },
            ],
            fields: 'userEnteredValue',
          },
        },
      ],
      later: [
        {
          updateCells: {
            range: range(2, 3, 0, 1),
            rows: [{ values: [{ userEnteredValue: { stringValue: 'Robert' } }] }],
            fields: 'userEnteredValue',
          },
        },
      ],
    });
  });

  it('forced over a cell changed since, writes before back and says which cell', async () => {
    const result = await roundTrip({
      plan: cellsPlan('A1:C6', ['userEnteredValue']),
      change: [
        {
          updateCells: {
            range: range(1, 2, 1, 2),
            rows: [{ values: [{ userEnteredValue: { numberValue: 50 } }] }],
            fields: 'userEnteredValue',
          },
        },
      ],
      later: [
        {
          updateCells: {
            range: range(1, 2, 1, 2),
            rows: [{ values: [{ userEnteredValue: { numberValue: 51 } }] }],
            fields: 'userEnteredValue',
          },
        },
      ],
    });
    expect(result.restore.changedSince).toEqual(['Data!B2']);
    expect(canonicalImage(result.restored)).toEqual(canonicalImage(result.before));
  });
});

describe('merges', () => {
  it('what the change merged comes apart, what it unmerged is merged again', async () => {
    const { restore } = await expectRestored({
      plan: cellsPlan('A1:C8', ['userEnteredValue']),
      setup: [{ mergeCells: { range: range(6, 7, 0, 2), mergeType: 'MERGE_ALL' } }],
      change: [
        { mergeCells: { range: range(0, 1, 0, 3), mergeType: 'MERGE_ALL' } },
        { unmergeCells: { range: range(6, 7, 0, 2) } },
      ],
    });
    expect(restore.restored).toEqual([
      'put back the values of Data!B1:C1',
      'unmerge Data!A1:C1',
      'merge Data!A7:B7 again',
    ]);
  });
});

const rule = (column: number, over: number) => ({
  ranges: [range(1, 6, column, column + 1)],
  booleanRule: {
    condition: { type: 'NUMBER_GREATER', values: [{ userEnteredValue: String(over) }] },
    format: { backgroundColor: { red: 1 } },
  },
});

describe('conditional formats', () => {
  it('the rule list comes back whole and in order', async () => {
    await expectRestored({
      setup: [
        { addConditionalFormatRule: { rule: rule(1, 1), index: 0 } },
        { addConditionalFormatRule: { rule: rule(1, 2), index: 1 } },
        { addConditionalFormatRule: { rule: rule(1, 3), index: 2 } },
      ],
      change: [
        { addConditionalFormatRule: { rule: rule(0, 9), index: 1 } },
        { deleteConditionalFormatRule: { sheetId: DATA, index: 3 } },
        { updateConditionalFormatRule: { sheetId: DATA, index: 0, newIndex: 2 } },
      ],
      // On another tab: a rule list the change did not touch stays as it is now.
      later: [
        {
          addConditionalFormatRule: { rule: { ...rule(0, 5), ranges: [range(0, 2, 0, 1, OTHER)] }, index: 0 },
        },
      ],
    });
  });
});

describe('filters', () => {
  const filter = { range: range(0, 6, 0, 3), sortSpecs: [{ dimensionIndex: 1, sortOrder: 'DESCENDING' }] };

  it('a basic filter the change set is cleared, one it cleared is set again, one it changed is set back', async () => {
    await expectRestored({ change: [{ setBasicFilter: { filter } }] });
    await expectRestored({
      setup: [{ setBasicFilter: { filter } }],
      change: [{ clearBasicFilter: { sheetId: DATA } }],
    });
    await expectRestored({
      setup: [{ setBasicFilter: { filter } }],
      change: [
        {
          setBasicFilter: {
            filter: {
              range: range(0, 6, 0, 3),
              filterSpecs: [{ columnIndex: 2, filterCriteria: { hiddenValues: ['Done'] } }],
            },
          },
        },
      ],
    });
  });

  it('filter views are deleted, added back with their ids, and set back', async () => {
    await expectRestored({
      setup: [
        { addFilterView: { filter: { filterViewId: 31, title: 'Big', ...filter } } },
        { addFilterView: { filter: { filterViewId: 32, title: 'Open', range: range(0, 6, 0, 3) } } },
      ],
      change: [
        { addFilterView: { filter: { filterViewId: 33, title: 'New', range: range(0, 4, 0, 2) } } },
        { deleteFilterView: { filterId: 31 } },
        {
          updateFilterView: {
            filter: {
              filterViewId: 32,
              title: 'Done only',
              filterSpecs: [{ columnIndex: 2, filterCriteria: { hiddenValues: ['Open'] } }],
            },
            fields: 'title,filterSpecs',
          },
        },
      ],
      later: [
        { addFilterView: { filter: { filterViewId: 40, title: 'Later', range: range(0, 3, 0, 2, OTHER) } } },
      ],
    });
  });
});

describe('protected ranges, banded ranges, named ranges and tables', () => {
  it('protected ranges are deleted, added back with their ids, and set back', async () => {
    await expectRestored({
      setup: [
        {
          addProtectedRange: {
            protectedRange: { protectedRangeId: 11, range: range(0, 1, 0, 3), description: 'Header' },
          },
        },
        {
          addProtectedRange: {
            protectedRange: { protectedRangeId: 12, range: range(1, 6, 1, 2), warningOnly: true },
          },
        },
      ],
      change: [
        { addProtectedRange: { protectedRange: { protectedRangeId: 13, range: { sheetId: OTHER } } } },
        { deleteProtectedRange: { protectedRangeId: 11 } },
        {
          updateProtectedRange: {
            protectedRange: { protectedRangeId: 12, range: range(1, 9, 1, 3), description: 'Totals' },
            fields: 'range,description',
          },
        },
      ],
    });
  });

  it('banded ranges are deleted, added back with their ids, and set back', async () => {
    const colours = {
      firstBandColorStyle: { rgbColor: { red: 1 } },
      secondBandColorStyle: { rgbColor: { green: 1 } },
    };
    await expectRestored({
      setup: [
        {
          addBanding: { bandedRange: { bandedRangeId: 5, range: range(0, 6, 0, 3), rowProperties: colours } },
        },
        {
          addBanding: {
            bandedRange: { bandedRangeId: 6, range: range(0, 4, 0, 2, OTHER), columnProperties: colours },
          },
        },
      ],
      change: [
        { deleteBanding: { bandedRangeId: 5 } },
        {
          updateBanding: {
            bandedRange: { bandedRangeId: 6, range: range(0, 9, 0, 2, OTHER) },
            fields: 'range',
          },
        },
        {
          addBanding: {
            bandedRange: { bandedRangeId: 7, range: range(10, 20, 0, 3), rowProperties: colours },
          },
        },
      ],
    });
  });

  it('named ranges, and what is built on them, come back in an order Google takes', async () => {
    await expectRestored({
      setup: [
        { addNamedRange: { namedRange: { namedRangeId: 'items', name: 'Items', range: range(1, 6, 0, 1) } } },
        {
          addNamedRange: { namedRange: { namedRangeId: 'totals', name: 'Totals', range: range(1, 6, 1, 2) } },
        },
        { addProtectedRange: { protectedRange: { protectedRangeId: 21, namedRangeId: 'items' } } },
      ],
      change: [
        { deleteProtectedRange: { protectedRangeId: 21 } },
        { deleteNamedRange: { namedRangeId: 'items' } },
        {
          updateNamedRange: {
            namedRange: { namedRangeId: 'totals', name: 'Sums', range: range(1, 9, 1, 2) },
            fields: 'name,range',
          },
        },
        { addNamedRange: { namedRange: { namedRangeId: 'new', name: 'Fresh', range: range(0, 1, 0, 1) } } },
        { addFilterView: { filter: { filterViewId: 50, title: 'On fresh', namedRangeId: 'new' } } },
      ],
    });
  });

  it('tables are deleted, added back with their ids and header cells, and set back', async () => {
    await expectRestored({
      plan: cellsPlan('A1:H12', ['userEnteredValue']),
      setup: [
        {
          addTable: {
            table: {
              tableId: '100',
              name: 'People',
              range: range(0, 6, 0, 3),
              columnProperties: [{ columnIndex: 1, columnName: 'Total', columnType: 'DOUBLE' }],
            },
          },
        },
      ],
      change: [
        {
          updateTable: {
            table: { tableId: '100', name: 'Staff', range: range(0, 4, 0, 3) },
            fields: 'name,range',
          },
        },
        { addTable: { table: { tableId: '200', name: 'Jobs', range: range(8, 12, 4, 6) } } },
      ],
    });
    await expectRestored({
      plan: cellsPlan('A1:C6', ['userEnteredValue']),
      setup: [{ addTable: { table: { tableId: '100', name: 'People', range: range(0, 6, 0, 3) } } }],
      change: [{ deleteTable: { tableId: '100' } }],
    });
  });
});

const chart = (
  chartId: number,
  title: string,
  anchor: sheets_v4.Schema$GridCoordinate | undefined,
  own = false,
) => ({
  chartId,
  spec: {
    title,
    basicChart: {
      chartType: 'COLUMN',
      domains: [{ domain: { sourceRange: { sources: [range(0, 6, 0, 1)] } } }],
      series: [{ series: { sourceRange: { sources: [range(0, 6, 1, 2)] } } }],
    },
  },
  position: own
    ? { newSheet: true }
    : { overlayPosition: { anchorCell: anchor, widthPixels: 400, heightPixels: 300 } },
});

describe('charts', () => {
  it('a chart the change added goes, one it deleted comes back with its id, one it altered is set back', async () => {
    await expectRestored({
      setup: [
        { addChart: { chart: chart(70, 'Totals', { sheetId: DATA, rowIndex: 8 }) } },
        { addChart: { chart: chart(71, 'Status', { sheetId: OTHER, rowIndex: 2, columnIndex: 1 }) } },
      ],
      change: [
        { deleteEmbeddedObject: { objectId: 70 } },
        {
          updateChartSpec: {
            chartId: 71,
            spec: { ...chart(71, 'Status', undefined).spec, title: 'Renamed' },
          },
        },
        {
          updateEmbeddedObjectPosition: {
            objectId: 71,
            newPosition: { overlayPosition: { anchorCell: { sheetId: DATA, rowIndex: 20 } } },
            fields: 'anchorCell',
          },
        },
        { addChart: { chart: chart(72, 'New', { sheetId: DATA, rowIndex: 30 }) } },
      ],
      later: [{ addChart: { chart: chart(80, 'Later', { sheetId: OTHER, rowIndex: 10 }) } }],
    });
  });

  it('a chart added on a tab of its own goes with its tab', async () => {
    const spreadsheetId = await newSpreadsheet();
    const before = await readStateImage(sheets, spreadsheetId, {});
    await update(spreadsheetId, [{ addChart: { chart: chart(90, 'Own', undefined, true) } }]);
    const after = await readStateImage(sheets, spreadsheetId, {});
    const { requests, changedSince } = restoreState({ before, after }, after);
    expect(changedSince).toEqual([]);
    await update(spreadsheetId, requests);
    expect(canonicalImage(await readStateImage(sheets, spreadsheetId, {}))).toEqual(canonicalImage(before));
  });
});

describe('tab properties, sizes and tabs', () => {
  it('frozen rows and columns, title, hidden, colour, gridlines and position come back; the grid size is left', async () => {
    await expectRestored({
      change: [
        {
          updateSheetProperties: {
            properties: {
              sheetId: DATA,
              title: 'Renamed',
              index: 2,
              hidden: true,
              tabColorStyle: { rgbColor: { red: 1 } },
              gridProperties: { frozenRowCount: 1, frozenColumnCount: 2, hideGridlines: true },
            },
            fields:
              'title,index,hidden,tabColorStyle,gridProperties.frozenRowCount,gridProperties.frozenColumnCount,gridProperties.hideGridlines',
          },
        },
      ],
    });
  });

  it('a tab moved forward goes back to its place, asked for as Google counts positions', async () => {
    // The second time with only the moved tab read, as a change that adds no tab is.
    for (const plan of [{}, { onlyTabs: [OTHER] }])
      await expectRestored({
        plan,
        setup: [{ addSheet: { properties: { sheetId: 40, title: 'Third', index: 2 } } }],
        change: [{ updateSheetProperties: { properties: { sheetId: OTHER, index: 0 }, fields: 'index' } }],
      });
  });

  it('row heights, column widths and hidden rows come back, a later resize elsewhere stays', async () => {
    await expectRestored({
      plan: {
        dimensions: [
          { sheet: 'Data', sheetId: DATA, dimension: 'ROWS', start: 0, end: 10 },
          { sheet: 'Data', sheetId: DATA, dimension: 'COLUMNS', start: 0, end: 5 },
        ],
      },
      change: [
        {
          updateDimensionProperties: {
            range: { sheetId: DATA, dimension: 'ROWS', startIndex: 2, endIndex: 5 },
            properties: { hiddenByUser: true },
            fields: 'hiddenByUser',
          },
        },
        {
          updateDimensionProperties: {
            range: { sheetId: DATA, dimension: 'COLUMNS', startIndex: 1, endIndex: 3 },
            properties: { pixelSize: 240 },
            fields: 'pixelSize',
          },
        },
      ],
      later: [
        {
          updateDimensionProperties: {
            range: { sheetId: DATA, dimension: 'ROWS', startIndex: 8, endIndex: 9 },
            properties: { pixelSize: 60 },
            fields: 'pixelSize',
          },
        },
      ],
    });
  });

  it('tabs the change added are deleted; a tab it deleted comes back with its id, properties, cells and merges', async () => {
    const { restore } = await expectRestored({
      plan: {
        cells: [
          {
            sheet: 'Other',
            sheetId: OTHER,
            range: 'A1:C3',
            fields: ['userEnteredValue', 'userEnteredFormat'],
          },
        ],
      },
      setup: [
        {
          updateCells: {
            range: range(0, 2, 0, 2, OTHER),
            rows: [
              {
                values: [
                  {
                    userEnteredValue: { stringValue: 'kept' },
                    userEnteredFormat: { textFormat: { italic: true } },
                  },
                ],
              },
            ],
            fields: 'userEnteredValue,userEnteredFormat',
          },
        },
        { mergeCells: { range: range(2, 3, 0, 3, OTHER), mergeType: 'MERGE_ALL' } },
        {
          updateSheetProperties: {
            properties: { sheetId: OTHER, gridProperties: { frozenRowCount: 1 } },
            fields: 'gridProperties.frozenRowCount',
          },
        },
      ],
      change: [
        { addSheet: { properties: { sheetId: 30, title: 'Q3', index: 0 } } },
        { duplicateSheet: { sourceSheetId: DATA, newSheetId: 31, newSheetName: 'Copy' } },
        { deleteSheet: { sheetId: OTHER } },
      ],
    });
    expect(restore.restored).toContain('add back the tab "Other"');
    expect(restore.restored).toContain('delete the tab "Q3"');
  });
});
