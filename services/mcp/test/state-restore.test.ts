import type { sheets_v4 } from 'googleapis';
import { describe, expect, it } from 'vitest';
import type { StateImage } from '../src/journal/state/state-image.ts';
import { restoreState } from '../src/journal/state/state-restore.ts';
import { area, bold, chart, grid, image, properties, rule, sheet, sizes } from './support/state-images.ts';

// restoreState alone: the requests that put back what a change altered, what changed since, and
// what it names as restored. The emulator round trip is in state-restore-emulator.test.ts.

const kinds = (requests: sheets_v4.Schema$Request[]) => requests.map((request) => Object.keys(request)[0]);

describe('cells', () => {
  const before = image({
    cells: [
      area([
        ['a', 'b', 'c'],
        ['d', 'e', 'f'],
      ]),
    ],
  });
  const after = image({
    cells: [
      area([
        ['a', 'B', 'c'],
        ['d', 'e', 'F'],
      ]),
    ],
  });

  it('writes before back over the span of the altered cells, keeping what the others hold now', () => {
    const now = image({
      cells: [
        area([
          ['a', 'B', 'c'],
          ['later', 'e', 'F'],
        ]),
      ],
    });
    const { requests, changedSince, restored } = restoreState({ before, after }, now);
    expect(changedSince).toEqual([]);
    expect(restored).toEqual(['put back the values of Sheet1!B1:C2']);
    expect(requests).toEqual([
      {
        updateCells: {
          range: grid(0, 0, 2, 1, 3),
          fields: 'userEnteredValue',
          rows: [
            {
              values: [
                { userEnteredValue: { stringValue: 'b' } },
                { userEnteredValue: { stringValue: 'c' } },
              ],
            },
            {
              values: [
                { userEnteredValue: { stringValue: 'e' } },
                { userEnteredValue: { stringValue: 'f' } },
              ],
            },
          ],
        },
      },
    ]);
  });

  it('leaves a cell the change did not alter with its later value, inside the span too', () => {
    const wide = {
      before: image({ cells: [area([['a', 'b', 'c']])] }),
      after: image({ cells: [area([['A', 'b', 'C']])] }),
    };
    const now = image({ cells: [area([['A', 'later', 'C']])] });
    const { requests, changedSince } = restoreState(wide, now);
    expect(changedSince).toEqual([]);
    const values = requests[0]?.updateCells?.rows?.[0]?.values;
    expect(values?.map((cell) => cell.userEnteredValue?.stringValue)).toEqual(['a', 'later', 'c']);
  });

  it('names each altered cell that changed since, and restores it anyway (force)', () => {
    const now = image({
      cells: [
        area([
          ['a', 'other', 'c'],
          ['d', 'e', 'F'],
        ]),
      ],
    });
    const { requests, changedSince } = restoreState({ before, after }, now);
    expect(changedSince).toEqual(['Sheet1!B1']);
    expect(requests[0]?.updateCells?.rows?.[0]?.values?.[0]).toEqual({
      userEnteredValue: { stringValue: 'b' },
    });
  });

  it('names at most 20 cells, then how many more', () => {
    const row = (text: string) => Array.from({ length: 25 }, () => text);
    const { changedSince } = restoreState(
      { before: image({ cells: [area([row('x')])] }), after: image({ cells: [area([row('y')])] }) },
      image({ cells: [area([row('z')])] }),
    );
    expect(changedSince).toHaveLength(21);
    expect(changedSince[0]).toBe('Sheet1!A1');
    expect(changedSince[19]).toBe('Sheet1!T1');
    expect(changedSince[20]).toBe('and 5 more cells');
  });

  it('empties cells that were empty before, though Google leaves them out of the before-image', () => {
    const empty = image({ cells: [area([], { top: 4, left: 1 })] });
    const written = image({ cells: [area([['x', 'y'], ['z']], { top: 4, left: 1 })] });
    const { requests, restored } = restoreState({ before: empty, after: written }, written);
    expect(restored).toEqual(['put back the values of Sheet1!B5:C6']);
    expect(requests[0]?.updateCells).toEqual({
      range: grid(0, 4, 6, 1, 3),
      fields: 'userEnteredValue',
      rows: [{ values: [{}, {}] }, { values: [{}, {}] }],
    });
  });

  it('puts back cells the change cleared, which the after-image leaves out', () => {
    const full = image({
      cells: [
        area([
          ['x', 'y'],
          ['z', 'w'],
        ]),
      ],
    });
    const cleared = image({ cells: [area([['x']])] });
    const { requests } = restoreState({ before: full, after: cleared }, cleared);
    expect(requests[0]?.updateCells?.range).toEqual(grid(0, 0, 2, 0, 2));
    expect(requests[0]?.updateCells?.rows?.[1]?.values?.[1]).toEqual({
      userEnteredValue: { stringValue: 'w' },
    });
  });

  it('compares cells as Google gives them: key order, empty parts and unread fields do not count', () => {
    const fields: ['userEnteredValue', 'userEnteredFormat'] = ['userEnteredValue', 'userEnteredFormat'];
    const was = area(
      [
        [
          {
            userEnteredValue: { numberValue: 1 },
            userEnteredFormat: { textFormat: { bold: true }, borders: {} },
          },
        ],
      ],
      { fields },
    );
    const is = area(
      [
        [
          {
            userEnteredFormat: { textFormat: { bold: true } },
            userEnteredValue: { numberValue: 1 },
            note: 'not read',
            formattedValue: '1',
          },
        ],
      ],
      { fields },
    );
    const { requests, changedSince, restored } = restoreState(
      { before: image({ cells: [was] }), after: image({ cells: [is] }) },
      image({ cells: [is] }),
    );
    expect({ requests, changedSince, restored }).toEqual({ requests: [], changedSince: [], restored: [] });
  });

  it("writes the area's fields only, as read", () => {
    const fields: ['userEnteredFormat', 'note'] = ['userEnteredFormat', 'note'];
    const was = area([[{ userEnteredValue: { stringValue: 'v' }, note: 'n' }]], { fields });
    const is = area([[{ userEnteredValue: { stringValue: 'v' }, ...bold('v'), note: 'n' }]], { fields });
    const { requests } = restoreState(
      { before: image({ cells: [was] }), after: image({ cells: [is] }) },
      image({ cells: [is] }),
    );
    expect(requests[0]?.updateCells?.fields).toBe('userEnteredFormat,note');
    expect(requests[0]?.updateCells?.rows).toEqual([{ values: [{ note: 'n' }] }]);
  });

  it('writes nothing on a tab deleted since, and names the tab', () => {
    const now = image({ cells: [area([['a']], { sheetId: 5, sheet: 'Other' })] });
    const { requests, changedSince } = restoreState({ before, after }, now);
    expect(requests).toEqual([]);
    expect(changedSince).toEqual(['the tab "Sheet1" (deleted since)']);
  });

  it("quotes a tab's title in the cells it names", () => {
    const options = { sheetId: 3, sheet: "Q1 'final'" };
    const { changedSince, restored } = restoreState(
      {
        before: image({ cells: [area([['a']], options)] }),
        after: image({ cells: [area([['b']], options)] }),
      },
      image({ cells: [area([['c']], options)] }),
    );
    expect(changedSince).toEqual(["'Q1 ''final'''!A1"]);
    expect(restored).toEqual(["put back the values of 'Q1 ''final'''!A1"]);
  });
});

describe('merges', () => {
  const title = { title: 'Sheet1' };
  const cells = (rows: string[][]) => [area(rows)];
  it('unmerges what the change merged before writing cells, and merges what it unmerged after', () => {
    const before: StateImage = image({
      cells: cells([['a', 'b', 'c']]),
      sheets: [sheet(0, { ...title, merges: [grid(0, 1, 2, 0, 2)] })],
    });
    const after: StateImage = image({
      cells: cells([['a']]),
      sheets: [sheet(0, { ...title, merges: [grid(0, 0, 1, 0, 3)] })],
    });
    const { requests, changedSince, restored } = restoreState({ before, after }, after);
    expect(changedSince).toEqual([]);
    expect(kinds(requests)).toEqual(['unmergeCells', 'updateCells', 'mergeCells']);
    expect(requests[0]).toEqual({ unmergeCells: { range: grid(0, 0, 1, 0, 3) } });
    expect(requests[2]).toEqual({ mergeCells: { range: grid(0, 1, 2, 0, 2), mergeType: 'MERGE_ALL' } });
    expect(restored).toEqual([
      'put back the values of Sheet1!B1:C1',
      'unmerge Sheet1!A1:C1',
      'merge Sheet1!A2:B2 again',
    ]);
  });

  it('names a merge unmerged since, and one merged over since (unmerging it to restore)', () => {
    const before = image({ sheets: [sheet(0, { ...title, merges: [grid(0, 5, 6, 0, 2)] })] });
    const after = image({ sheets: [sheet(0, { ...title, merges: [grid(0, 0, 1, 0, 3)] })] });
    const now = image({ sheets: [sheet(0, { ...title, merges: [grid(0, 5, 7, 1, 3)] })] });
    const { requests, changedSince } = restoreState({ before, after }, now);
    expect(changedSince).toEqual(['the merge Sheet1!A1:C1 (unmerged since)', 'the merges of Sheet1!A6:B6']);
    expect(requests).toEqual([
      { unmergeCells: { range: grid(0, 5, 6, 0, 2) } },
      { mergeCells: { range: grid(0, 5, 6, 0, 2), mergeType: 'MERGE_ALL' } },
    ]);
  });

  it('leaves merges the change did not make alone, a later one included', () => {
    const kept = grid(0, 9, 10, 0, 2);
    const before = image({ sheets: [sheet(0, { ...title, merges: [kept] })] });
    const after = image({ sheets: [sheet(0, { ...title, merges: [kept, grid(0, 0, 1, 0, 2)] })] });
    const now = image({
      sheets: [sheet(0, { ...title, merges: [kept, grid(0, 0, 1, 0, 2), grid(0, 20, 21, 0, 2)] })],
    });
    expect(restoreState({ before, after }, now).requests).toEqual([
      { unmergeCells: { range: grid(0, 0, 1, 0, 2) } },
    ]);
  });
});

describe('conditional formats', () => {
  const [r1, r2, r3] = [
    rule(grid(0, 1, 300, 0, 1), 1),
    rule(grid(0, 1, 300, 1, 2), 2),
    rule(grid(0, 1, 300, 2, 3), 3),
  ];
  const before = image({ sheets: [sheet(0, { title: 'Sheet1', conditionalFormats: [r1, r2] })] });
  const after = image({ sheets: [sheet(0, { title: 'Sheet1', conditionalFormats: [r1, r3, r2] })] });

  it('restores the whole list in order: the current rules deleted from the last, the earlier ones added by index', () => {
    const { requests, changedSince, restored } = restoreState({ before, after }, after);
    expect(changedSince).toEqual([]);
    expect(restored).toEqual(['remove conditional format rule 2 on Sheet1!C2:C300']);
    expect(requests).toEqual([
      { deleteConditionalFormatRule: { sheetId: 0, index: 2 } },
      { deleteConditionalFormatRule: { sheetId: 0, index: 1 } },
      { deleteConditionalFormatRule: { sheetId: 0, index: 0 } },
      { addConditionalFormatRule: { rule: r1, index: 0 } },
      { addConditionalFormatRule: { rule: r2, index: 1 } },
    ]);
  });

  it('names the rule list when it changed since, and deletes the rules there now', () => {
    const now = image({ sheets: [sheet(0, { title: 'Sheet1', conditionalFormats: [r1, r3, r2, r3] })] });
    const { requests, changedSince } = restoreState({ before, after }, now);
    expect(changedSince).toEqual(['the conditional format rules of the tab "Sheet1"']);
    expect(requests.filter((request) => request.deleteConditionalFormatRule)).toHaveLength(4);
  });

  it('leaves a rule list the change did not alter as it is now', () => {
    const same = image({ sheets: [sheet(0, { title: 'Sheet1', conditionalFormats: [r1] })] });
    const now = image({ sheets: [sheet(0, { title: 'Sheet1', conditionalFormats: [r1, r3] })] });
    expect(restoreState({ before: same, after: same }, now)).toEqual({
      requests: [],
      changedSince: [],
      restored: [],
    });
  });
});

describe('the basic filter', () => {
  const filter: sheets_v4.Schema$BasicFilter = {
    range: grid(0, 0, 10, 0, 3),
    filterSpecs: [{ columnIndex: 1, filterCriteria: { hiddenValues: ['x'] } }],
    criteria: { 1: { hiddenValues: ['x'] } },
  };
  const none = image({ sheets: [sheet(0, { title: 'Sheet1', basicFilter: null })] });
  const set = image({ sheets: [sheet(0, { title: 'Sheet1', basicFilter: filter })] });

  it('clears a filter the change set', () => {
    expect(restoreState({ before: none, after: set }, set)).toEqual({
      requests: [{ clearBasicFilter: { sheetId: 0 } }],
      changedSince: [],
      restored: ['clear the filter on Sheet1!A1:C10'],
    });
  });

  it('sets back a filter the change cleared, its conditions once', () => {
    const { requests } = restoreState({ before: set, after: none }, none);
    expect(requests).toEqual([
      { setBasicFilter: { filter: { range: filter.range, filterSpecs: filter.filterSpecs } } },
    ]);
  });

  it('names a filter changed since', () => {
    const now = image({
      sheets: [sheet(0, { title: 'Sheet1', basicFilter: { range: grid(0, 0, 5, 0, 2) } })],
    });
    expect(restoreState({ before: none, after: set }, now).changedSince).toEqual([
      'the filter of the tab "Sheet1"',
    ]);
  });
});

describe('objects kept by id', () => {
  const sales = chart(7, 'Sales', { sheetId: 0, rowIndex: 2 }, grid(0, 0, 5, 0, 1));
  const other = chart(8, 'Other', { sheetId: 0, rowIndex: 9 }, grid(0, 0, 5, 0, 1));
  const withCharts = (...charts: sheets_v4.Schema$EmbeddedChart[]) =>
    image({ sheets: [sheet(0, { title: 'Sheet1', charts })] });

  it('deletes a chart the change added, and leaves one added since', () => {
    const { requests, restored, changedSince } = restoreState(
      { before: withCharts(), after: withCharts(sales) },
      withCharts(sales, other),
    );
    expect(requests).toEqual([{ deleteEmbeddedObject: { objectId: 7 } }]);
    expect(restored).toEqual(['delete the chart "Sales" (id 7) on the tab "Sheet1"']);
    expect(changedSince).toEqual([]);
  });

  it('adds back a chart the change deleted, with its id, spec and position', () => {
    const { requests, restored } = restoreState(
      { before: withCharts(sales), after: withCharts() },
      withCharts(),
    );
    expect(requests).toEqual([
      { addChart: { chart: { chartId: 7, spec: sales.spec, position: sales.position } } },
    ]);
    expect(restored).toEqual(['add back the chart "Sales" (id 7) on the tab "Sheet1"']);
  });

  it('sets back the spec and the position of a chart the change altered', () => {
    const changed = structuredClone(sales);
    (changed.spec as sheets_v4.Schema$ChartSpec).basicChart!.chartType = 'LINE';
    changed.position = { overlayPosition: { anchorCell: { sheetId: 0, rowIndex: 30 } } };
    const { requests, changedSince } = restoreState(
      { before: withCharts(sales), after: withCharts(changed) },
      withCharts(changed),
    );
    expect(changedSince).toEqual([]);
    expect(requests).toEqual([
      { updateChartSpec: { chartId: 7, spec: sales.spec } },
      { updateEmbeddedObjectPosition: { objectId: 7, newPosition: sales.position, fields: '*' } },
    ]);
  });

  it('names a chart changed or deleted since; forced, a deleted one comes back', () => {
    const changed = structuredClone(sales);
    changed.spec!.title = 'Sales 2';
    const later = structuredClone(changed);
    later.spec!.title = 'Sales 3';
    expect(
      restoreState({ before: withCharts(sales), after: withCharts(changed) }, withCharts(later)).changedSince,
    ).toEqual(['the chart "Sales 3" (id 7)']);
    const gone = restoreState({ before: withCharts(sales), after: withCharts(changed) }, withCharts());
    expect(gone.changedSince).toEqual(['the chart "Sales 2" (id 7) (deleted since)']);
    expect(kinds(gone.requests)).toEqual(['addChart']);
    const added = restoreState({ before: withCharts(), after: withCharts(sales) }, withCharts());
    expect(added).toEqual({
      requests: [],
      restored: [],
      changedSince: ['the chart "Sales" (id 7) (deleted since)'],
    });
  });

  it('brings a chart that had a tab of its own back on a new one', () => {
    const own = { ...sales, position: { sheetId: 44 } };
    const before = image({
      sheets: [sheet(0, { title: 'Sheet1', charts: [] }), sheet(44, { title: 'Chart1', charts: [own] })],
    });
    const after = image({ sheets: [sheet(0, { title: 'Sheet1', charts: [] })] });
    const { requests } = restoreState({ before, after }, after);
    expect(requests[0]?.addChart?.chart?.position).toEqual({ newSheet: true });
  });

  const view: sheets_v4.Schema$FilterView = {
    filterViewId: 31,
    title: 'Big',
    range: grid(0, 0, 10, 0, 3),
    filterSpecs: [
      {
        columnIndex: 0,
        filterCriteria: { condition: { type: 'NUMBER_GREATER', values: [{ userEnteredValue: '5' }] } },
      },
    ],
    criteria: { 0: { condition: { type: 'NUMBER_GREATER', values: [{ userEnteredValue: '5' }] } } },
  };
  const views = (...filterViews: sheets_v4.Schema$FilterView[]) =>
    image({ sheets: [sheet(0, { title: 'Sheet1', filterViews })] });

  it('filter views: deleted, added back with their id, updated whole', () => {
    const { criteria: _twice, ...writable } = view;
    expect(restoreState({ before: views(), after: views(view) }, views(view)).requests).toEqual([
      { deleteFilterView: { filterId: 31 } },
    ]);
    expect(restoreState({ before: views(view), after: views() }, views()).requests).toEqual([
      { addFilterView: { filter: writable } },
    ]);
    const renamed = { ...view, title: 'Bigger' };
    const result = restoreState({ before: views(view), after: views(renamed) }, views(renamed));
    expect(result.requests).toEqual([{ updateFilterView: { filter: writable, fields: '*' } }]);
    expect(result.restored).toEqual(['put back the filter view "Bigger" on Sheet1!A1:C10 as it was']);
  });

  const protection: sheets_v4.Schema$ProtectedRange = {
    protectedRangeId: 12,
    range: grid(0, 0, 2, 0, 2),
    description: 'Totals',
    warningOnly: true,
    requestingUserCanEdit: true,
  };
  const protections = (...protectedRanges: sheets_v4.Schema$ProtectedRange[]) =>
    image({ sheets: [sheet(0, { title: 'Sheet1', protectedRanges })] });

  it('protected ranges: the fields the change altered are set back; one added back leaves out what Google fills in', () => {
    const widened = { ...protection, range: grid(0, 0, 9, 0, 2), description: 'All' };
    const { requests } = restoreState(
      { before: protections(protection), after: protections(widened) },
      protections(widened),
    );
    const { requestingUserCanEdit: _filled, ...writable } = protection;
    expect(requests).toEqual([
      { updateProtectedRange: { protectedRange: writable, fields: 'range,description' } },
    ]);
    expect(
      restoreState({ before: protections(protection), after: protections() }, protections()).requests,
    ).toEqual([{ addProtectedRange: { protectedRange: writable } }]);
    expect(
      restoreState({ before: protections(), after: protections(protection) }, protections(protection))
        .requests,
    ).toEqual([{ deleteProtectedRange: { protectedRangeId: 12 } }]);
  });

  const banding: sheets_v4.Schema$BandedRange = {
    bandedRangeId: 5,
    range: grid(0, 0, 10, 0, 3),
    rowProperties: {
      firstBandColorStyle: { rgbColor: { red: 1 } },
      secondBandColorStyle: { rgbColor: { blue: 1 } },
    },
  };
  const bandings = (...bandedRanges: sheets_v4.Schema$BandedRange[]) =>
    image({ sheets: [sheet(0, { title: 'Sheet1', bandedRanges })] });

  it('banded ranges: deleted, added back with their id, updated by mask', () => {
    expect(
      restoreState({ before: bandings(), after: bandings(banding) }, bandings(banding)).requests,
    ).toEqual([{ deleteBanding: { bandedRangeId: 5 } }]);
    expect(restoreState({ before: bandings(banding), after: bandings() }, bandings()).requests).toEqual([
      { addBanding: { bandedRange: banding } },
    ]);
    const moved = { ...banding, range: grid(0, 0, 20, 0, 3) };
    const result = restoreState({ before: bandings(banding), after: bandings(moved) }, bandings(moved));
    expect(result.requests).toEqual([{ updateBanding: { bandedRange: banding, fields: 'range' } }]);
    expect(result.restored).toEqual(['put back the alternating colours of Sheet1!A1:C20 as it was']);
  });

  const table: sheets_v4.Schema$Table = {
    tableId: '991',
    name: 'Jobs',
    range: grid(0, 0, 5, 0, 2),
    columnProperties: [{ columnName: 'Name' }, { columnIndex: 1, columnName: 'Total', columnType: 'DOUBLE' }],
  };
  const tables = (...list: sheets_v4.Schema$Table[]) =>
    image({ sheets: [sheet(0, { title: 'Sheet1', tables: list })] });

  it('tables: deleted, added back with their id, updated by mask', () => {
    expect(restoreState({ before: tables(), after: tables(table) }, tables(table)).requests).toEqual([
      { deleteTable: { tableId: '991' } },
    ]);
    expect(restoreState({ before: tables(table), after: tables() }, tables()).requests).toEqual([
      { addTable: { table } },
    ]);
    const renamed = { ...table, name: 'Tasks', range: grid(0, 0, 8, 0, 2) };
    const result = restoreState({ before: tables(table), after: tables(renamed) }, tables(renamed));
    expect(result.requests).toEqual([{ updateTable: { table, fields: 'name,range' } }]);
    expect(result.restored).toEqual(['rename the table "Tasks" back to "Jobs"']);
  });

  const items: sheets_v4.Schema$NamedRange = {
    namedRangeId: 'nr1',
    name: 'Items',
    range: grid(0, 0, 10, 0, 1),
  };

  it('named ranges: deleted, added back with their id, updated by mask, named for a person', () => {
    const named = (...namedRanges: sheets_v4.Schema$NamedRange[]) => image({ namedRanges });
    expect(restoreState({ before: named(), after: named(items) }, named(items)).requests).toEqual([
      { deleteNamedRange: { namedRangeId: 'nr1' } },
    ]);
    expect(restoreState({ before: named(items), after: named() }, named()).requests).toEqual([
      { addNamedRange: { namedRange: items } },
    ]);
    const moved = { ...items, range: grid(0, 0, 20, 0, 1) };
    const later = { ...items, range: grid(0, 0, 30, 0, 1) };
    const result = restoreState({ before: named(items), after: named(moved) }, named(later));
    expect(result.requests).toEqual([{ updateNamedRange: { namedRange: items, fields: 'range' } }]);
    expect(result.changedSince).toEqual(['the named range "Items"']);
  });

  it('deletes what was built on a named range before it, and adds the named range back first', () => {
    const onItems = {
      protectedRangeId: 3,
      namedRangeId: 'nr1',
      range: items.range,
      requestingUserCanEdit: true,
    };
    const before = image({ sheets: [sheet(0, { title: 'Sheet1' })] });
    const after = image({
      namedRanges: [items],
      sheets: [sheet(0, { title: 'Sheet1', protectedRanges: [onItems] })],
    });
    expect(kinds(restoreState({ before, after }, after).requests)).toEqual([
      'deleteProtectedRange',
      'deleteNamedRange',
    ]);
    const restored = restoreState({ before: after, after: before }, before);
    expect(kinds(restored.requests)).toEqual(['addNamedRange', 'addProtectedRange']);
    expect(restored.requests[1]?.addProtectedRange?.protectedRange).toEqual({
      protectedRangeId: 3,
      namedRangeId: 'nr1',
    });
  });
});

describe('sheet properties', () => {
  const tab = (parts: sheets_v4.Schema$SheetProperties) =>
    image({ sheets: [sheet(0, { properties: properties(0, 'Sheet1', parts) })] });

  it('sets back only the fields the change altered, never the grid size', () => {
    const before = tab({ gridProperties: { rowCount: 1000, columnCount: 26 } });
    const after = tab({ gridProperties: { rowCount: 2000, columnCount: 26, frozenRowCount: 1 } });
    const { requests, restored, changedSince } = restoreState({ before, after }, after);
    expect(requests).toEqual([
      {
        updateSheetProperties: {
          properties: { sheetId: 0, gridProperties: { frozenRowCount: 0 } },
          fields: 'gridProperties.frozenRowCount',
        },
      },
    ]);
    expect(restored).toEqual(['unfreeze the rows of the tab "Sheet1"']);
    expect(changedSince).toEqual([]);
  });

  it('names each altered property changed since, by the title it has now', () => {
    const before = tab({ hidden: false });
    const after = tab({ title: 'Renamed', hidden: true });
    const now = tab({
      title: 'Again',
      hidden: true,
      gridProperties: { rowCount: 1000, columnCount: 26, frozenColumnCount: 2 },
    });
    const { requests, changedSince } = restoreState({ before, after }, now);
    expect(changedSince).toEqual(['the title of the tab "Again"']);
    expect(requests[0]?.updateSheetProperties).toEqual({
      properties: { sheetId: 0, title: 'Sheet1', hidden: false },
      fields: 'title,hidden',
    });
  });

  it('moves a tab back, counting a later position before the move as Google does', () => {
    const at = (index: number) =>
      image({ sheets: [sheet(0, { properties: properties(0, 'Sheet1', { index }) })] });
    expect(
      restoreState({ before: at(0), after: at(2) }, at(2)).requests[0]?.updateSheetProperties?.properties
        ?.index,
    ).toBe(0);
    expect(
      restoreState({ before: at(2), after: at(0) }, at(0)).requests[0]?.updateSheetProperties?.properties
        ?.index,
    ).toBe(3);
  });

  it('clears a tab colour the change set', () => {
    const before = tab({});
    const after = tab({ tabColorStyle: { rgbColor: { red: 1 } } });
    expect(restoreState({ before, after }, after).requests[0]?.updateSheetProperties).toEqual({
      properties: { sheetId: 0 },
      fields: 'tabColorStyle',
    });
  });
});

describe('rows and columns', () => {
  it('sets back sizes per run of equal values, only the fields the change altered', () => {
    const named = [sheet(0, { title: 'Sheet1' })];
    const before = image({ sheets: named, dimensions: [sizes('COLUMNS', 1, [100, 100, 120, 100])] });
    const after = image({ sheets: named, dimensions: [sizes('COLUMNS', 1, [200, 200, 200, [100, true]])] });
    const now = image({ sheets: named, dimensions: [sizes('COLUMNS', 1, [200, 200, 200, [150, true]])] });
    const { requests, restored, changedSince } = restoreState({ before, after }, now);
    expect(changedSince).toEqual([]);
    expect(requests).toEqual([
      {
        updateDimensionProperties: {
          range: { sheetId: 0, dimension: 'COLUMNS', startIndex: 1, endIndex: 3 },
          properties: { pixelSize: 100 },
          fields: 'pixelSize',
        },
      },
      {
        updateDimensionProperties: {
          range: { sheetId: 0, dimension: 'COLUMNS', startIndex: 3, endIndex: 4 },
          properties: { pixelSize: 120 },
          fields: 'pixelSize',
        },
      },
      {
        updateDimensionProperties: {
          range: { sheetId: 0, dimension: 'COLUMNS', startIndex: 4, endIndex: 5 },
          properties: { hiddenByUser: false },
          fields: 'hiddenByUser',
        },
      },
    ]);
    expect(restored).toEqual([
      'put back the width of 2 columns of Sheet1!B:C',
      'put back the width of 1 column of Sheet1!D:D',
      'show 1 column of Sheet1!E:E again',
    ]);
  });

  it('names rows resized since', () => {
    const with_ = (values: number[]) =>
      image({ cells: [area([['x']])], dimensions: [sizes('ROWS', 2, values)] });
    const { changedSince } = restoreState(
      { before: with_([21, 21]), after: with_([40, 40]) },
      with_([40, 60]),
    );
    expect(changedSince).toEqual(['the height of Sheet1!4:4']);
  });
});

describe('tabs', () => {
  const tabs = (...list: Array<[number, string]>) => list.map(([sheetId, title]) => ({ sheetId, title }));

  it('deletes a tab the change added, last', () => {
    const before = image({
      tabs: tabs([0, 'Sheet1']),
      sheets: [sheet(0, { title: 'Sheet1', conditionalFormats: [] })],
    });
    const after = image({
      tabs: tabs([0, 'Sheet1'], [9, 'Q3']),
      sheets: [sheet(0, { title: 'Sheet1', conditionalFormats: [rule(grid(0, 0, 1, 0, 1), 1)] })],
    });
    const { requests, restored } = restoreState({ before, after }, after);
    expect(kinds(requests)).toEqual(['deleteConditionalFormatRule', 'deleteSheet']);
    expect(requests[1]).toEqual({ deleteSheet: { sheetId: 9 } });
    expect(restored).toContain('delete the tab "Q3"');
  });

  it('names a tab the change added that is gone now, and asks nothing for it', () => {
    const before = image({ tabs: tabs([0, 'Sheet1']) });
    const after = image({ tabs: tabs([0, 'Sheet1'], [9, 'Q3']) });
    const now = image({ tabs: tabs([0, 'Sheet1']) });
    expect(restoreState({ before, after }, now)).toEqual({
      requests: [],
      changedSince: ['the tab "Q3" (deleted since)'],
      restored: [],
    });
  });

  it('adds back a tab the change deleted, first, with its id and properties, then its cells', () => {
    const props = properties(4, 'Old', {
      index: 1,
      gridProperties: { rowCount: 50, columnCount: 5, frozenRowCount: 1 },
    });
    const before = image({
      tabs: tabs([0, 'Sheet1'], [4, 'Old']),
      sheets: [sheet(4, { properties: props, merges: [grid(4, 0, 1, 0, 2)] })],
      cells: [area([['kept']], { sheetId: 4, sheet: 'Old' })],
    });
    const after = image({ tabs: tabs([0, 'Sheet1']) });
    const now = image({ tabs: tabs([0, 'Sheet1']) });
    const { requests, changedSince, restored } = restoreState({ before, after }, now);
    expect(changedSince).toEqual([]);
    expect(kinds(requests)).toEqual(['addSheet', 'updateCells', 'mergeCells']);
    expect(requests[0]).toEqual({
      addSheet: {
        properties: {
          sheetId: 4,
          title: 'Old',
          index: 1,
          gridProperties: {
            rowCount: 50,
            columnCount: 5,
            frozenRowCount: 1,
            frozenColumnCount: 0,
            hideGridlines: false,
          },
        },
      },
    });
    // A title that reads like a column (OLD) is quoted.
    expect(restored).toEqual([
      'add back the tab "Old"',
      "put back the values of 'Old'!A1",
      "merge 'Old'!A1:B1 again",
    ]);
  });

  it('adds a deleted tab back under another title when one holds it now, and says so', () => {
    const before = image({ tabs: tabs([0, 'Sheet1'], [4, 'Old']) });
    const after = image({ tabs: tabs([0, 'Sheet1']) });
    const now = image({ tabs: tabs([0, 'Sheet1'], [6, 'old']) });
    const { requests, changedSince, restored } = restoreState({ before, after }, now);
    expect(changedSince).toEqual(['a tab named "Old" exists now']);
    expect(requests[0]?.addSheet?.properties?.title).toBe('Old (restored)');
    expect(restored).toEqual(['add back the tab "Old" as "Old (restored)"']);
  });

  it('gives a deleted tab its title back after deleting the tab the change added under it', () => {
    const before = image({ tabs: tabs([0, 'Sheet1'], [4, 'Data']) });
    const after = image({ tabs: tabs([0, 'Sheet1'], [7, 'Data']) });
    const { requests, changedSince } = restoreState({ before, after }, after);
    expect(changedSince).toEqual([]);
    expect(requests).toEqual([
      { addSheet: { properties: { sheetId: 4, title: 'Data (restored)', index: 1 } } },
      { deleteSheet: { sheetId: 7 } },
      { updateSheetProperties: { properties: { sheetId: 4, title: 'Data' }, fields: 'title' } },
    ]);
  });

  it('does not count a tab added before another as moving it', () => {
    const before = image({
      tabs: tabs([0, 'Sheet1'], [1, 'B']),
      sheets: [sheet(1, { properties: properties(1, 'B', { index: 1 }) })],
    });
    const after = image({
      tabs: tabs([9, 'New'], [0, 'Sheet1'], [1, 'B']),
      sheets: [sheet(1, { properties: properties(1, 'B', { index: 2 }) })],
    });
    expect(restoreState({ before, after }, after).requests).toEqual([{ deleteSheet: { sheetId: 9 } }]);
  });
});

describe('order of a mixed restore', () => {
  it('unmerges, removes objects, writes cells, merges, restores objects and properties, deletes tabs', () => {
    const tabs = (...ids: number[]) => ids.map((sheetId) => ({ sheetId, title: `T${sheetId}` }));
    const before = image({
      tabs: tabs(0),
      cells: [area([['a']])],
      sheets: [
        sheet(0, {
          properties: properties(0, 'Sheet1'),
          merges: [grid(0, 5, 6, 0, 2)],
          charts: [chart(3, 'Old', { sheetId: 0 }, grid(0, 0, 3, 0, 1))],
        }),
      ],
    });
    const after = image({
      tabs: tabs(0, 2),
      cells: [area([['b']])],
      sheets: [
        sheet(0, {
          properties: properties(0, 'Sheet1', {
            gridProperties: { rowCount: 1000, columnCount: 26, frozenRowCount: 2 },
          }),
          merges: [grid(0, 0, 1, 0, 2)],
          charts: [chart(4, 'New', { sheetId: 0 }, grid(0, 0, 3, 0, 1))],
        }),
      ],
    });
    expect(kinds(restoreState({ before, after }, after).requests)).toEqual([
      'unmergeCells',
      'deleteEmbeddedObject',
      'updateCells',
      'mergeCells',
      'addChart',
      'updateSheetProperties',
      'deleteSheet',
    ]);
  });
});
