import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { failureOf, SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

// Pivot tables through googleapis alone: a cell's `pivotTable` written with updateCells, read back
// with spreadsheets.get, and what it shows read with values.get, as Google computes it (Sheets API
// PivotTable, https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/pivot-tables).

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;
let spreadsheetId: string;
const DATA = 3;
const REPORT = 4;

const SALES = [
  ['Region', 'Product', 'Units', 'Rep'],
  ['East', 'Pen', 10, 'Ann'],
  ['West', 'Pen', 5, 'Bo'],
  ['East', 'Paper', 7, 'Ann'],
  ['West', 'Paper', 3, 'Cy'],
  ['east', 'Pen', 2, 'Di'],
  ['North', 'Ink', 4, 'Bo'],
];

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      properties: { title: 'Pivots' },
      sheets: [
        { properties: { title: 'Sales', sheetId: DATA, gridProperties: { rowCount: 20, columnCount: 6 } } },
        {
          properties: { title: 'Report', sheetId: REPORT, gridProperties: { rowCount: 30, columnCount: 10 } },
        },
      ],
    },
  });
  spreadsheetId = data.spreadsheetId!;
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Sales!A1',
    valueInputOption: 'RAW',
    requestBody: { values: SALES },
  });
});

afterAll(async () => {
  await emulator?.close();
});

const SOURCE = { sheetId: DATA, startRowIndex: 0, endRowIndex: 7, startColumnIndex: 0, endColumnIndex: 4 };

const place = (pivotTable: sheets_v4.Schema$PivotTable | null, rowIndex = 0, columnIndex = 0) =>
  sheets.spreadsheets.batchUpdate({
    spreadsheetId,
    requestBody: {
      requests: [
        {
          updateCells: {
            start: { sheetId: REPORT, rowIndex, columnIndex },
            rows: [{ values: [pivotTable ? { pivotTable } : {}] }],
            fields: 'pivotTable',
          },
        },
      ],
    },
  });

const shown = async (range = 'Report!A1:J30') =>
  (await sheets.spreadsheets.values.get({ spreadsheetId, range, valueRenderOption: 'UNFORMATTED_VALUE' }))
    .data.values ?? [];

describe('pivot tables', () => {
  it('groups rows ascending (text without regard to case), sums each, and adds the Grand Total', async () => {
    await place({
      source: SOURCE,
      rows: [{ sourceColumnOffset: 0, showTotals: true, sortOrder: 'ASCENDING' }],
      values: [{ summarizeFunction: 'SUM', sourceColumnOffset: 2 }],
    });
    expect(await shown()).toEqual([
      ['Region', 'SUM of Units'],
      ['East', 19],
      ['North', 4],
      ['West', 8],
      ['Grand Total', 31],
    ]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: ['Report!A1'],
      fields: 'sheets.data.rowData.values.pivotTable',
    });
    const pivot = data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]?.pivotTable;
    expect(pivot?.source).toEqual(SOURCE);
    expect(pivot?.values?.[0]).toEqual({ summarizeFunction: 'SUM', sourceColumnOffset: 2 });
  });

  it('lays out column groups, several values, descending order and per-group totals', async () => {
    await place({
      source: SOURCE,
      rows: [{ sourceColumnOffset: 0, sortOrder: 'DESCENDING' }],
      columns: [{ sourceColumnOffset: 1, showTotals: true, label: 'Item' }],
      values: [{ summarizeFunction: 'SUM', sourceColumnOffset: 2 }],
    });
    expect(await shown()).toEqual([
      ['SUM of Units', 'Item'],
      ['Region', 'Ink', 'Paper', 'Pen', 'Grand Total'],
      ['West', '', 3, 5, 8],
      ['North', 4, '', '', 4],
      ['East', '', 7, 12, 19],
    ]);
    await place({
      source: SOURCE,
      rows: [{ sourceColumnOffset: 0, showTotals: true }, { sourceColumnOffset: 1 }],
      values: [
        { summarizeFunction: 'COUNTA', sourceColumnOffset: 3, name: 'Sales' },
        { summarizeFunction: 'COUNTUNIQUE', sourceColumnOffset: 3 },
        { summarizeFunction: 'AVERAGE', sourceColumnOffset: 2 },
        { summarizeFunction: 'MAX', sourceColumnOffset: 2 },
      ],
    });
    expect(await shown()).toEqual([
      ['Region', 'Product', 'Sales', 'COUNTUNIQUE of Rep', 'AVERAGE of Units', 'MAX of Units'],
      ['East', 'Paper', 1, 1, 7, 7],
      ['', 'Pen', 2, 2, 6, 10],
      ['East Total', '', 3, 2, 19 / 3, 10],
      ['North', 'Ink', 1, 1, 4, 4],
      ['North Total', '', 1, 1, 4, 4],
      ['West', 'Paper', 1, 1, 3, 3],
      ['', 'Pen', 1, 1, 5, 5],
      ['West Total', '', 2, 2, 4, 5],
      ['Grand Total', '', 6, 4, 31 / 6, 10],
    ]);
  });

  it('sorts a group by a value when given its valueBucket', async () => {
    await place({
      source: SOURCE,
      rows: [{ sourceColumnOffset: 0, sortOrder: 'DESCENDING', valueBucket: { valuesIndex: 1 } }],
      values: [
        { summarizeFunction: 'COUNTA', sourceColumnOffset: 3 },
        { summarizeFunction: 'SUM', sourceColumnOffset: 2 },
      ],
    });
    expect(await shown()).toEqual([
      ['Region', 'COUNTA of Rep', 'SUM of Units'],
      ['East', 3, 19],
      ['West', 2, 8],
      ['North', 1, 4],
    ]);
  });

  it('keeps only the rows its filters show: visible values and conditions', async () => {
    await place({
      source: SOURCE,
      rows: [{ sourceColumnOffset: 1, showTotals: true }],
      values: [{ summarizeFunction: 'SUM', sourceColumnOffset: 2 }],
      filterSpecs: [
        { columnOffsetIndex: 0, filterCriteria: { visibleValues: ['East', 'West'] } },
        {
          columnOffsetIndex: 2,
          filterCriteria: { condition: { type: 'NUMBER_GREATER', values: [{ userEnteredValue: '3' }] } },
        },
      ],
    });
    expect(await shown()).toEqual([
      ['Product', 'SUM of Units'],
      ['Paper', 7],
      ['Pen', 15],
      ['Grand Total', 22],
    ]);
  });

  it('gives criteria and filterSpecs both, takes the deprecated criteria alone, and repeats headings when asked', async () => {
    const visible = { visibleValues: ['West'] };
    await place({
      source: SOURCE,
      rows: [{ sourceColumnOffset: 0, repeatHeadings: true }, { sourceColumnOffset: 1 }],
      values: [{ summarizeFunction: 'SUM', sourceColumnOffset: 2 }],
      criteria: { '0': visible },
    });
    expect(await shown()).toEqual([
      ['Region', 'Product', 'SUM of Units'],
      ['West', 'Paper', 3],
      ['West', 'Pen', 5],
    ]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: ['Report!A1'],
      fields: 'sheets.data.rowData.values.pivotTable(criteria,filterSpecs)',
    });
    expect(data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]?.pivotTable).toEqual({
      criteria: { '0': visible },
      filterSpecs: [{ columnOffsetIndex: 0, filterCriteria: visible }],
    });
  });

  it('follows its source when a value changes, and formulas read what it shows', async () => {
    await place({
      source: SOURCE,
      rows: [{ sourceColumnOffset: 0 }],
      values: [{ summarizeFunction: 'SUM', sourceColumnOffset: 2 }],
    });
    await sheets.spreadsheets.values.update({
      spreadsheetId,
      range: 'Report!F1',
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: [['=SUM(B2:B4)*2']] },
    });
    expect(await shown('Report!F1')).toEqual([[62]]);
    await sheets.spreadsheets.values.update({
      spreadsheetId,
      range: 'Sales!C7',
      valueInputOption: 'RAW',
      requestBody: { values: [[40]] },
    });
    expect(await shown('Report!A1:B4')).toEqual([
      ['Region', 'SUM of Units'],
      ['East', 19],
      ['North', 40],
      ['West', 8],
    ]);
    expect(await shown('Report!F1')).toEqual([[134]]);
    await sheets.spreadsheets.values.update({
      spreadsheetId,
      range: 'Sales!C7',
      valueInputOption: 'RAW',
      requestBody: { values: [[4]] },
    });
    await sheets.spreadsheets.values.clear({ spreadsheetId, range: 'Report!F1' });
  });

  it('is #REF! at its anchor when its cells would cover data, and removed by writing the field empty', async () => {
    await sheets.spreadsheets.values.update({
      spreadsheetId,
      range: 'Report!B3',
      valueInputOption: 'RAW',
      requestBody: { values: [['in the way']] },
    });
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: ['Report!A1:B3'],
      fields: 'sheets.data.rowData.values(effectiveValue,formattedValue)',
    });
    const rows = data.sheets?.[0]?.data?.[0]?.rowData ?? [];
    expect(rows[0]?.values?.[0]?.effectiveValue?.errorValue).toEqual({
      type: 'REF',
      message: 'Pivot table results were not expanded because they would overwrite data in B3.',
    });
    expect(rows[1]?.values?.[0]?.formattedValue).toBeUndefined();
    await sheets.spreadsheets.values.clear({ spreadsheetId, range: 'Report!B3' });
    await place(null);
    expect(await shown()).toEqual([]);
    const { data: after } = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: ['Report!A1'],
      fields: 'sheets.data.rowData.values.pivotTable',
    });
    expect(after.sheets?.[0]?.data?.[0]?.rowData ?? []).toEqual([]);
  });

  it('refuses a source off the grid, an offset outside the source, an unknown summary', async () => {
    const refused = async (pivotTable: sheets_v4.Schema$PivotTable) => {
      const failure = await failureOf(place(pivotTable));
      expect(failure.response?.status).toBe(400);
      return failure.response?.data.error.message as string;
    };
    expect(
      await refused({ source: { ...SOURCE, endRowIndex: 21 }, values: [{ sourceColumnOffset: 2 }] }),
    ).toMatch(/^Invalid requests\[0\]\.updateCells: Invalid pivot table source/);
    expect(await refused({ source: SOURCE, rows: [{ sourceColumnOffset: 4 }] })).toMatch(
      /sourceColumnOffset 4 is outside the source's 4 columns/,
    );
    expect(
      await refused({ source: SOURCE, values: [{ sourceColumnOffset: 1, summarizeFunction: 'TOTAL' }] }),
    ).toMatch(/unknown summarizeFunction TOTAL/);
    expect(await refused({ source: { ...SOURCE, sheetId: 99 }, values: [] })).toMatch(/No grid with id: 99/);
  });

  it('shows ten thousand groups cut at the grid', async () => {
    const rows = Array.from({ length: 10_000 }, (_, index) => [`k${index}`, index]);
    await sheets.spreadsheets.batchUpdate({
      spreadsheetId,
      requestBody: {
        requests: [
          {
            addSheet: {
              properties: { sheetId: 9, title: 'Many', gridProperties: { rowCount: 10_001, columnCount: 4 } },
            },
          },
        ],
      },
    });
    await sheets.spreadsheets.values.update({
      spreadsheetId,
      range: 'Many!A1',
      valueInputOption: 'RAW',
      requestBody: { values: [['Key', 'N'], ...rows] },
    });
    await place({
      source: { sheetId: 9, startRowIndex: 0, endRowIndex: 10_001, startColumnIndex: 0, endColumnIndex: 2 },
      rows: [{ sourceColumnOffset: 0 }],
      values: [{ summarizeFunction: 'SUM', sourceColumnOffset: 1 }],
    });
    const values = await shown('Report!A1:B40');
    expect(values).toHaveLength(30);
    expect(values[1]).toEqual(['k0', 0]);
    await place(null);
  });
});
