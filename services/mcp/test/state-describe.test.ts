import type { sheets_v4 } from 'googleapis';
import { describe, expect, it } from 'vitest';
import { changedParts, describeStateChange } from '../src/journal/state/state-describe.ts';
import type { StateImage } from '../src/journal/state/state-image.ts';
import { restoreState } from '../src/journal/state/state-restore.ts';
import { area, chart, grid, image, properties, rule, sheet, sizes } from './support/state-images.ts';

// The activity log's words for a structure change, and the smaller images the journal keeps.

const formatted = (format: sheets_v4.Schema$CellFormat) => ({ userEnteredFormat: format });
const blocks = (rows: number, columns: number, cell: sheets_v4.Schema$CellData | null) =>
  Array.from({ length: rows }, () => Array.from({ length: columns }, () => cell));

describe('describeStateChange', () => {
  it('names the formats a change set, on how many cells of which range', () => {
    const fields: ['userEnteredFormat'] = ['userEnteredFormat'];
    const before = image({ cells: [area(blocks(4, 3, null), { fields })] });
    const after = image({
      cells: [
        area(blocks(4, 3, formatted({ textFormat: { bold: true }, backgroundColor: { red: 1 } })), {
          fields,
        }),
      ],
    });
    expect(describeStateChange(before, after)).toEqual({
      summary: 'bold, background colour on 12 cells of Sheet1!A1:C4',
      ranges: ['Sheet1!A1:C4'],
      cells: 12,
      rows: 4,
    });
  });

  it('says data validation was set, and on which cells', () => {
    const fields: ['dataValidation'] = ['dataValidation'];
    const options = { sheet: 'Contacts', sheetId: 3, top: 1, left: 2, fields };
    const rule_: sheets_v4.Schema$DataValidationRule = {
      condition: { type: 'ONE_OF_LIST', values: [{ userEnteredValue: 'yes' }, { userEnteredValue: 'no' }] },
    };
    const before = image({ cells: [area([], options)] });
    const after = image({ cells: [area(blocks(300, 1, { dataValidation: rule_ }), options)] });
    const described = describeStateChange(before, after);
    expect(described.summary).toBe('set data validation on 300 cells of Contacts!C2:C301');
    expect(described.rows).toBe(300);
    expect(describeStateChange(after, before).summary).toBe(
      'cleared data validation on 300 cells of Contacts!C2:C301',
    );
  });

  it('says which conditional format rule of how many was added, deleted or changed', () => {
    const rules = [
      rule(grid(0, 1, 300, 0, 1), 1),
      rule(grid(0, 1, 300, 1, 2), 2),
      rule(grid(0, 1, 300, 2, 3), 3),
    ];
    const list = (...picked: sheets_v4.Schema$ConditionalFormatRule[]) =>
      image({ sheets: [sheet(0, { title: 'Sheet1', conditionalFormats: picked })] });
    const [r1, r2, r3] = rules as [
      sheets_v4.Schema$ConditionalFormatRule,
      sheets_v4.Schema$ConditionalFormatRule,
      sheets_v4.Schema$ConditionalFormatRule,
    ];
    expect(describeStateChange(list(r1, r3), list(r1, r2, r3)).summary).toBe(
      'added conditional format rule 2 of 3 on Sheet1!B2:B300',
    );
    expect(describeStateChange(list(r1, r2, r3), list(r2, r3)).summary).toBe(
      'deleted conditional format rule 1 of 3 on Sheet1!A2:A300',
    );
    const changed = rule(grid(0, 1, 300, 1, 2), 9);
    expect(describeStateChange(list(r1, r2), list(r1, changed)).summary).toBe(
      'changed conditional format rule 2 of 2 on Sheet1!B2:B300',
    );
    expect(describeStateChange(list(r1, r2), list(r2, r1)).summary).toBe(
      'reordered the conditional format rules of the tab "Sheet1"',
    );
  });

  it('names charts, tables, filter views, named, protected and banded ranges by what a person sees', () => {
    const sales = chart(7, 'Sales', { sheetId: 2 }, grid(0, 0, 5, 0, 1));
    const named = { namedRangeId: 'n', name: 'Items', range: grid(0, 0, 10, 0, 1) };
    const before = image({
      sheets: [sheet(2, { title: 'Dashboard', charts: [sales] }), sheet(0, { title: 'Sheet1' })],
    });
    const after = image({
      namedRanges: [named],
      sheets: [
        sheet(2, { title: 'Dashboard', charts: [] }),
        sheet(0, {
          title: 'Sheet1',
          tables: [{ tableId: '1', name: 'Jobs', range: grid(0, 0, 10, 0, 3) }],
          filterViews: [{ filterViewId: 4, title: 'Big', range: grid(0, 0, 10, 0, 3) }],
          protectedRanges: [{ protectedRangeId: 5, range: grid(0, 0, 1, 0, 3) }],
          bandedRanges: [{ bandedRangeId: 6, range: grid(0, 0, 10, 0, 3) }],
        }),
      ],
    });
    const { summary, ranges } = describeStateChange(before, after);
    expect(summary.split('; ')).toEqual([
      'deleted the chart "Sales" (id 7) on the tab "Dashboard"',
      'added the named range "Items" (Sheet1!A1:A10)',
      'added the table "Jobs" on Sheet1!A1:C10',
      'added the alternating colours of Sheet1!A1:C10',
      'added the protection of Sheet1!A1:C1',
      'added the filter view "Big" on Sheet1!A1:C10',
    ]);
    expect(ranges).toEqual(['Dashboard', 'Sheet1!A1:A10', 'Sheet1!A1:C10', 'Sheet1!A1:C1']);
  });

  it('names what happened to tabs: frozen, renamed, hidden, moved, added and deleted; merges; sizes', () => {
    const before = image({
      tabs: [
        { sheetId: 0, title: 'Sheet1' },
        { sheetId: 8, title: 'Old' },
      ],
      sheets: [sheet(0, { properties: properties(0, 'Sheet1'), merges: [] })],
      dimensions: [sizes('ROWS', 0, [21, 21, 21])],
    });
    const after = image({
      tabs: [
        { sheetId: 0, title: 'Sheet1' },
        { sheetId: 9, title: 'Q3' },
      ],
      sheets: [
        sheet(0, {
          properties: properties(0, 'Sheet1', {
            hidden: true,
            gridProperties: { rowCount: 1000, columnCount: 26, frozenRowCount: 1 },
          }),
          merges: [grid(0, 0, 1, 0, 3)],
        }),
      ],
      dimensions: [sizes('ROWS', 0, [21, 'hidden', 'hidden'])],
    });
    expect(describeStateChange(before, after)).toEqual({
      summary:
        'added the tab "Q3"; deleted the tab "Old"; hid the tab "Sheet1"; froze 1 row of the tab "Sheet1"; merged Sheet1!A1:C1; hid 2 rows of Sheet1!2:3',
      ranges: ['Q3', 'Old', 'Sheet1', 'Sheet1!A1:C1', 'Sheet1!2:3'],
      cells: 0,
      rows: 2,
    });
  });

  it('keeps the summary within 300 characters, saying how many more changes there were', () => {
    const rules = Array.from({ length: 40 }, (_, index) => rule(grid(index, 0, 1, 0, 1), 1));
    const before = image({
      sheets: rules.map((_, index) => sheet(index, { title: `Tab ${index}`, conditionalFormats: [] })),
    });
    const after = image({
      sheets: rules.map((each, index) => sheet(index, { title: `Tab ${index}`, conditionalFormats: [each] })),
    });
    const { summary, ranges } = describeStateChange(before, after);
    expect(summary.length).toBeLessThanOrEqual(300);
    expect(summary).toMatch(/; and \d+ more$/);
    expect(ranges).toHaveLength(40);
  });

  it('says when nothing changed', () => {
    const same = image({ cells: [area([['a']])] });
    expect(describeStateChange(same, same)).toEqual({ summary: 'no change', ranges: [], cells: 0, rows: 0 });
  });
});

describe('changedParts', () => {
  const sales = chart(7, 'Sales', { sheetId: 0 }, grid(0, 0, 5, 0, 1));
  const other = chart(8, 'Other', { sheetId: 0 }, grid(0, 0, 5, 0, 1));
  const moved = { ...sales, position: { overlayPosition: { anchorCell: { sheetId: 0, rowIndex: 40 } } } };
  const before: StateImage = image({
    tabs: [{ sheetId: 0, title: 'Sheet1' }],
    cells: [area([['a', 'b']]), area([['same']], { top: 10 })],
    dimensions: [sizes('ROWS', 0, [21]), sizes('COLUMNS', 0, [100])],
    sheets: [
      sheet(0, {
        properties: properties(0, 'Sheet1'),
        merges: [grid(0, 20, 21, 0, 2)],
        conditionalFormats: [rule(grid(0, 0, 1, 0, 1), 1)],
        charts: [sales, other],
      }),
    ],
    namedRanges: [{ namedRangeId: 'a', name: 'A', range: grid(0, 0, 1, 0, 1) }],
  });
  const after: StateImage = image({
    tabs: [{ sheetId: 0, title: 'Sheet1' }],
    cells: [area([['a', 'B']]), area([['same']], { top: 10 })],
    dimensions: [sizes('ROWS', 0, [21]), sizes('COLUMNS', 0, [150])],
    sheets: [
      sheet(0, {
        properties: properties(0, 'Sheet1'),
        merges: [grid(0, 20, 21, 0, 2)],
        conditionalFormats: [rule(grid(0, 0, 1, 0, 1), 1)],
        charts: [moved, other],
      }),
    ],
    namedRanges: [{ namedRangeId: 'a', name: 'A', range: grid(0, 0, 1, 0, 1) }],
  });

  it('keeps only what the change altered: the altered cells, altered sizes, objects that differ', () => {
    const parts = changedParts(before, after);
    const runs = (text: string) => ({
      sheetId: 0,
      sheet: 'Sheet1',
      top: 0,
      left: 0,
      fields: ['userEnteredValue'],
      runs: [[0, 1, [{ userEnteredValue: { stringValue: text } }]]],
    });
    expect(parts.after.cells).toEqual([runs('B')]);
    expect(parts.before).toEqual({
      tabs: [{ sheetId: 0, title: 'Sheet1' }],
      cells: [runs('b')],
      dimensions: [sizes('COLUMNS', 0, [100])],
      sheets: [{ sheetId: 0, title: 'Sheet1', charts: [sales] }],
    });
    expect(parts.after.sheets).toEqual([{ sheetId: 0, title: 'Sheet1', charts: [moved] }]);
  });

  it('gives the same restore and the same words as the whole images', () => {
    const parts = changedParts(before, after);
    expect(restoreState(parts, after)).toEqual(restoreState({ before, after }, after));
    expect(describeStateChange(parts.before, parts.after)).toEqual(describeStateChange(before, after));
  });
});
