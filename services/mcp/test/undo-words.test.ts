import type { sheets_v4 } from 'googleapis';
import { describe, expect, it } from 'vitest';
import { describeStateChange } from '../src/journal/state/state-describe.ts';
import type { CellAreaImage, StateImage } from '../src/journal/state/state-image.ts';
import { restoreState } from '../src/journal/state/state-restore.ts';
import { pastTense, thirdPerson } from '../src/journal/state/state-words.ts';
import { undoOfSummary } from '../src/journal/state/undo-words.ts';
import { area, chart, grid, image, properties, rule, sheet, sizes } from './support/state-images.ts';

// Undo's words say what undo does, the same in list_changes (read back from the activity log's
// summary, undo-words.ts) and in undo_change (restoreState's `restored`): "delete the chart …",
// "rename the tab "Totals" back to "Summary"", "put back the formats of …" — never "restore" for
// everything.

type Case = [name: string, before: StateImage, after: StateImage, undo: string[]];

const tab = (parts: sheets_v4.Schema$SheetProperties = {}, title = 'Expenses') =>
  image({ sheets: [sheet(0, { properties: properties(0, title, parts) })] });
const grid26 = (parts: sheets_v4.Schema$GridProperties) => ({ rowCount: 1000, columnCount: 26, ...parts });
const withSheet = (parts: Parameters<typeof sheet>[1]) =>
  image({ sheets: [sheet(0, { title: 'Expenses', ...parts })] });
const cells = (rows: Parameters<typeof area>[0], fields: NonNullable<Parameters<typeof area>[1]>['fields']) =>
  image({ cells: [area(rows, { sheet: 'Expenses', fields })] });
const tabs = (...list: Array<[number, string]>) =>
  image({ tabs: list.map(([sheetId, title]) => ({ sheetId, title })) });

const [r1, r2, r3] = [
  rule(grid(0, 1, 300, 0, 1), 1),
  rule(grid(0, 1, 300, 1, 2), 2),
  rule(grid(0, 1, 300, 2, 3), 3),
];
const totals = chart(7, 'Totals by category', { sheetId: 0, rowIndex: 2 }, grid(0, 0, 5, 0, 2));
const movedTotals = {
  ...totals,
  position: { overlayPosition: { anchorCell: { sheetId: 0, rowIndex: 40 } } },
};
const relined = structuredClone(totals);
relined.spec!.basicChart!.chartType = 'LINE';
const filter = { range: grid(0, 0, 10, 0, 4) };
const jobs = { tableId: '9', name: 'Jobs', range: grid(0, 0, 5, 0, 2) };
const bold = { userEnteredFormat: { textFormat: { bold: true } } };

const CASES: Case[] = [
  [
    'formats',
    cells([[null, null]], ['userEnteredFormat']),
    cells([[bold, bold]], ['userEnteredFormat']),
    ['put back the formats of Expenses!A1:B1'],
  ],
  [
    'values',
    cells([['a']], ['userEnteredValue']),
    cells([['b']], ['userEnteredValue']),
    ['put back the values of Expenses!A1'],
  ],
  [
    'values and a format together',
    cells([['a']], ['userEnteredValue', 'userEnteredFormat']),
    cells([[{ userEnteredValue: { stringValue: 'b' }, ...bold }]], ['userEnteredValue', 'userEnteredFormat']),
    ['put back the values and formats of Expenses!A1'],
  ],
  [
    'data validation',
    cells([[null]], ['dataValidation']),
    cells([[{ dataValidation: { condition: { type: 'BOOLEAN' } } }]], ['dataValidation']),
    ['put back the data validation of Expenses!A1'],
  ],
  ['a tab added', tabs([0, 'Expenses']), tabs([0, 'Expenses'], [9, 'Q3']), ['delete the tab "Q3"']],
  ['a tab deleted', tabs([0, 'Expenses'], [4, 'Old']), tabs([0, 'Expenses']), ['add back the tab "Old"']],
  ['a tab renamed', tab({}, 'Summary'), tab({}, 'Totals'), ['rename the tab "Totals" back to "Summary"']],
  ['a tab hidden', tab(), tab({ hidden: true }), ['show the tab "Expenses" again']],
  ['a tab shown', tab({ hidden: true }), tab(), ['hide the tab "Expenses" again']],
  [
    'a tab coloured',
    tab(),
    tab({ tabColorStyle: { rgbColor: { red: 1 } } }),
    ['remove the colour of the tab "Expenses"'],
  ],
  [
    "a tab's colour changed",
    tab({ tabColorStyle: { rgbColor: { blue: 1 } } }),
    tab({ tabColorStyle: { rgbColor: { red: 1 } } }),
    ['put back the colour of the tab "Expenses" as it was'],
  ],
  [
    "a tab's colour removed",
    tab({ tabColorStyle: { rgbColor: { blue: 1 } } }),
    tab(),
    ['add back the colour of the tab "Expenses"'],
  ],
  ['right to left', tab(), tab({ rightToLeft: true }), ['set the tab "Expenses" left to right again']],
  [
    'rows frozen',
    tab(),
    tab({ gridProperties: grid26({ frozenRowCount: 1 }) }),
    ['unfreeze the rows of the tab "Expenses"'],
  ],
  [
    'more rows frozen',
    tab({ gridProperties: grid26({ frozenRowCount: 1 }) }),
    tab({ gridProperties: grid26({ frozenRowCount: 2 }) }),
    ['freeze 1 row of the tab "Expenses"'],
  ],
  [
    'columns unfrozen',
    tab({ gridProperties: grid26({ frozenColumnCount: 2 }) }),
    tab(),
    ['freeze 2 columns of the tab "Expenses"'],
  ],
  [
    'gridlines hidden',
    tab(),
    tab({ gridProperties: grid26({ hideGridlines: true }) }),
    ['show the gridlines of the tab "Expenses" again'],
  ],
  [
    'a merge',
    withSheet({ merges: [] }),
    withSheet({ merges: [grid(0, 0, 1, 0, 3)] }),
    ['unmerge Expenses!A1:C1'],
  ],
  [
    'an unmerge',
    withSheet({ merges: [grid(0, 0, 1, 0, 3)] }),
    withSheet({ merges: [] }),
    ['merge Expenses!A1:C1 again'],
  ],
  [
    'a rule added',
    withSheet({ conditionalFormats: [r1, r3] }),
    withSheet({ conditionalFormats: [r1, r2, r3] }),
    ['remove conditional format rule 2 on Expenses!B2:B300'],
  ],
  [
    'a rule deleted',
    withSheet({ conditionalFormats: [r1, r2] }),
    withSheet({ conditionalFormats: [r2] }),
    ['add back conditional format rule 1 on Expenses!A2:A300'],
  ],
  [
    'a rule changed',
    withSheet({ conditionalFormats: [r1, r2] }),
    withSheet({ conditionalFormats: [r1, rule(grid(0, 1, 300, 1, 2), 9)] }),
    ['put back conditional format rule 2 on Expenses!B2:B300 as it was'],
  ],
  [
    'rules reordered',
    withSheet({ conditionalFormats: [r1, r2] }),
    withSheet({ conditionalFormats: [r2, r1] }),
    ['put back the order of the conditional format rules of the tab "Expenses"'],
  ],
  [
    'rules replaced',
    withSheet({ conditionalFormats: [r1] }),
    withSheet({ conditionalFormats: [r2, r3, r1] }),
    ['put back the conditional format rules of the tab "Expenses" (1 rule)'],
  ],
  [
    'a filter set',
    withSheet({ basicFilter: null }),
    withSheet({ basicFilter: filter }),
    ['clear the filter on Expenses!A1:D10'],
  ],
  [
    'a filter cleared',
    withSheet({ basicFilter: filter }),
    withSheet({ basicFilter: null }),
    ['put back the filter on Expenses!A1:D10'],
  ],
  [
    'a filter changed',
    withSheet({ basicFilter: filter }),
    withSheet({ basicFilter: { range: grid(0, 0, 20, 0, 4) } }),
    ['put back the filter on Expenses!A1:D20 as it was'],
  ],
  [
    'rows hidden',
    image({ sheets: [sheet(0, { title: 'Expenses' })], dimensions: [sizes('ROWS', 1, [21, 21])] }),
    image({
      sheets: [sheet(0, { title: 'Expenses' })],
      dimensions: [sizes('ROWS', 1, ['hidden', 'hidden'])],
    }),
    ['show 2 rows of Expenses!2:3 again'],
  ],
  [
    'columns resized',
    image({ sheets: [sheet(0, { title: 'Expenses' })], dimensions: [sizes('COLUMNS', 0, [100, 100])] }),
    image({ sheets: [sheet(0, { title: 'Expenses' })], dimensions: [sizes('COLUMNS', 0, [150, 150])] }),
    ['put back the width of 2 columns of Expenses!A:B'],
  ],
  [
    'a chart added',
    withSheet({ charts: [] }),
    withSheet({ charts: [totals] }),
    ['delete the chart "Totals by category" (id 7) on the tab "Expenses"'],
  ],
  [
    'a chart deleted',
    withSheet({ charts: [totals] }),
    withSheet({ charts: [] }),
    ['add back the chart "Totals by category" (id 7) on the tab "Expenses"'],
  ],
  [
    'a chart moved',
    withSheet({ charts: [totals] }),
    withSheet({ charts: [movedTotals] }),
    ['move the chart "Totals by category" (id 7) on the tab "Expenses" back'],
  ],
  [
    'a chart changed',
    withSheet({ charts: [totals] }),
    withSheet({ charts: [relined] }),
    ['put back the chart "Totals by category" (id 7) on the tab "Expenses" as it was'],
  ],
  [
    'a table renamed',
    withSheet({ tables: [jobs] }),
    withSheet({ tables: [{ ...jobs, name: 'Tasks' }] }),
    ['rename the table "Tasks" back to "Jobs"'],
  ],
  [
    'a filter view added',
    withSheet({ filterViews: [] }),
    withSheet({ filterViews: [{ filterViewId: 3, title: 'Big', range: grid(0, 0, 10, 0, 3) }] }),
    ['delete the filter view "Big" on Expenses!A1:C10'],
  ],
  [
    'a protection added',
    withSheet({ protectedRanges: [] }),
    withSheet({ protectedRanges: [{ protectedRangeId: 5, range: grid(0, 0, 1, 0, 3) }] }),
    ['remove the protection of Expenses!A1:C1'],
  ],
  [
    'alternating colours removed',
    withSheet({ bandedRanges: [{ bandedRangeId: 6, range: grid(0, 0, 10, 0, 3) }] }),
    withSheet({ bandedRanges: [] }),
    ['add back the alternating colours of Expenses!A1:C10'],
  ],
  [
    'a named range added',
    image({ namedRanges: [], sheets: [sheet(0, { title: 'Expenses' })] }),
    image({
      namedRanges: [{ namedRangeId: 'n', name: 'Items', range: grid(0, 0, 10, 0, 1) }],
      sheets: [sheet(0, { title: 'Expenses' })],
    }),
    ['delete the named range "Items" (Expenses!A1:A10)'],
  ],
];

describe('undo words', () => {
  it.each(CASES)('%s: list_changes and undo_change say the same action', (_name, before, after, undo) => {
    expect(restoreState({ before, after }, after).restored).toEqual(undo);
    expect(undoOfSummary(describeStateChange(before, after).summary)).toEqual(undo);
  });

  it('several changes in one: each undone, in the order the log lists them', () => {
    const before = image({
      tabs: [{ sheetId: 0, title: 'Expenses' }],
      sheets: [sheet(0, { properties: properties(0, 'Expenses'), charts: [] })],
    });
    const after = image({
      tabs: [{ sheetId: 0, title: 'Expenses' }],
      sheets: [
        sheet(0, {
          properties: properties(0, 'Expenses', { gridProperties: grid26({ frozenRowCount: 1 }) }),
          charts: [totals],
        }),
      ],
    });
    const summary = describeStateChange(before, after).summary;
    expect(summary).toBe(
      'froze 1 row of the tab "Expenses"; added the chart "Totals by category" (id 7) on the tab "Expenses"',
    );
    expect(undoOfSummary(summary)?.map(thirdPerson)).toEqual([
      'unfreezes the rows of the tab "Expenses"',
      'deletes the chart "Totals by category" (id 7) on the tab "Expenses"',
    ]);
    expect(restoreState({ before, after }, after).restored.map(pastTense).sort()).toEqual([
      'deleted the chart "Totals by category" (id 7) on the tab "Expenses"',
      'unfroze the rows of the tab "Expenses"',
    ]);
  });

  it('the tool gives moved or filled cells a verb, and their undo its own words', () => {
    const before = cells([['b'], ['a']], ['userEnteredValue', 'userEnteredFormat']);
    const after = cells([['a'], ['b']], ['userEnteredValue', 'userEnteredFormat']);
    const said = (tool: string) => describeStateChange(before, after, tool).summary;
    expect(said('sort_range')).toBe('sorted the rows of Expenses!A1:A2 (2 cells moved)');
    expect(undoOfSummary(said('sort_range'))).toEqual(['put back the order of the rows of Expenses!A1:A2']);
    expect(said('find_replace')).toBe('replaced text in 2 cells of Expenses!A1:A2');
    expect(undoOfSummary(said('find_replace'))).toEqual(['put back the values of Expenses!A1:A2']);
    expect(said('copy_range')).toBe('pasted onto 2 cells of Expenses!A1:A2 (values)');
    expect(said('autofill')).toBe('filled 2 cells of Expenses!A1:A2 (values)');
    for (const tool of ['copy_range', 'autofill'])
      expect(undoOfSummary(said(tool))).toEqual(['put back the values of Expenses!A1:A2']);
    expect(said('format_range')).toBe('changed the values of 2 cells of Expenses!A1:A2');
  });

  it('a name holding "; " or quotes stays one name, escaped', () => {
    const before = tab({}, 'a; b');
    const after = tab({}, 'say "hi"; \'x\'');
    const summary = describeStateChange(before, after).summary;
    expect(summary).toBe(String.raw`renamed the tab "a; b" to "say \"hi\"; 'x'"`);
    expect(undoOfSummary(summary)).toEqual([String.raw`rename the tab "say \"hi\"; 'x'" back to "a; b"`]);
    const quotedTab = cells([['a']], ['userEnteredValue']);
    quotedTab.cells[0]!.sheet = "It's; here";
    const changed = structuredClone(quotedTab);
    (changed.cells[0] as CellAreaImage).rows = [[{ userEnteredValue: { stringValue: 'b' } }]];
    expect(undoOfSummary(describeStateChange(quotedTab, changed).summary)).toEqual([
      "put back the values of 'It''s; here'!A1",
    ]);
  });

  it('says the rest of a long summary as the log does, and nothing for words it does not know', () => {
    expect(undoOfSummary('hid the tab "A"; and 4 more')).toEqual(['show the tab "A" again', 'and 4 more']);
    expect(undoOfSummary('format_range of Sheet1!A1 (3 cells)')).toBeUndefined();
    expect(undoOfSummary('no change')).toBeUndefined();
  });
});
