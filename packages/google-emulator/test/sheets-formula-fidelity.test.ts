/**
 * Formulas as an agent writes them against Google Sheets: open-ended ranges (`C2:C`, `A2:2`),
 * array results that spill into the cells below, and array arithmetic over dates typed as text.
 */
import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
});

afterAll(async () => {
  await emulator?.close();
});

const REGIONS = ['West', 'East', 'North', 'South'];

/** Forty orders: id, customer, region, date typed as `2026-MM-15`, paid yes/no, amount. */
const ORDERS = Array.from({ length: 40 }, (_, index) => [
  `O-${index + 1}`,
  `Customer ${index % 7}`,
  REGIONS[index % 4] as string,
  `2026-${String((index % 12) + 1).padStart(2, '0')}-15`,
  index % 3 === 0 ? 'yes' : 'no',
  (index + 1) * 10,
]);

async function newBook(tabs: string[]): Promise<string> {
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      properties: { title: 'Fidelity' },
      sheets: tabs.map((title) => ({ properties: { title } })),
    },
  });
  const spreadsheetId = data.spreadsheetId as string;
  await write(spreadsheetId, 'Orders!A1', [
    ['Order', 'Customer', 'Region', 'Date', 'Paid', 'Amount'],
    ...ORDERS,
  ]);
  return spreadsheetId;
}

const write = (spreadsheetId: string, range: string, values: unknown[][]) =>
  sheets.spreadsheets.values.update({
    spreadsheetId,
    range,
    valueInputOption: 'USER_ENTERED',
    requestBody: { values },
  });

const read = async (spreadsheetId: string, range: string, valueRenderOption = 'FORMATTED_VALUE') =>
  (await sheets.spreadsheets.values.get({ spreadsheetId, range, valueRenderOption })).data.values;

async function cell(spreadsheetId: string, range: string): Promise<sheets_v4.Schema$CellData | undefined> {
  const { data } = await sheets.spreadsheets.get({ spreadsheetId, ranges: [range], includeGridData: true });
  return data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0];
}

describe('open-ended ranges', () => {
  it('reads C2:C to the end of the column, A2:2 to the end of the row, and C:C whole', async () => {
    const spreadsheetId = await newBook(['Summary', 'Orders']);
    const east = ORDERS.filter((order) => order[2] === 'East').reduce(
      (sum, order) => sum + Number(order[5]),
      0,
    );
    await write(spreadsheetId, 'Summary!A1:E1', [
      [
        '=COUNTA(Orders!C2:C)',
        '=SUMIF(Orders!C2:C,"East",Orders!F2:F)',
        '=COUNTA(Orders!A2:2)',
        '=COUNTA(Orders!C:C)',
        "=SUM('Orders'!$F$2:$F)",
      ],
    ]);
    expect(await read(spreadsheetId, 'Summary!A1:E1', 'UNFORMATTED_VALUE')).toEqual([
      [40, east, 6, 41, ORDERS.reduce((sum, order) => sum + Number(order[5]), 0)],
    ]);
    // The formula text is kept as written.
    expect((await read(spreadsheetId, 'Summary!A1:B1', 'FORMULA'))?.[0]).toEqual([
      '=COUNTA(Orders!C2:C)',
      '=SUMIF(Orders!C2:C,"East",Orders!F2:F)',
    ]);
    expect((await cell(spreadsheetId, 'Summary!A1'))?.userEnteredValue).toEqual({
      formulaValue: '=COUNTA(Orders!C2:C)',
    });

    // An open range on a tab that does not exist is an unresolved tab, not a parse error.
    await write(spreadsheetId, 'Summary!F1', [['=COUNTA(Nope!C2:C)']]);
    expect((await cell(spreadsheetId, 'Summary!F1'))?.effectiveValue).toEqual({
      errorValue: { type: 'REF', message: "Unresolved sheet name 'Nope'." },
    });

    // A row added below the data is inside the open range.
    await write(spreadsheetId, 'Orders!C42', [['East']]);
    expect(await read(spreadsheetId, 'Summary!A1', 'UNFORMATTED_VALUE')).toEqual([[41]]);
  });

  it('reads an open range on the formula’s own tab, and on rows the grid grew by', async () => {
    const spreadsheetId = await newBook(['Orders']);
    await write(spreadsheetId, 'Orders!H1', [['=SUM(F2:F)']]);
    await write(spreadsheetId, 'Orders!F2900', [[5]]);
    const total = ORDERS.reduce((sum, order) => sum + Number(order[5]), 0) + 5;
    expect(await read(spreadsheetId, 'Orders!H1', 'UNFORMATTED_VALUE')).toEqual([[total]]);
  });
});

describe('array results spill', () => {
  it('fills the cells below with SORT(UNIQUE(…)), which hold values and no formula', async () => {
    const spreadsheetId = await newBook(['Summary', 'Orders']);
    await write(spreadsheetId, 'Summary!A2', [['=SORT(UNIQUE(Orders!C2:C41))']]);
    await write(spreadsheetId, 'Summary!B2:B5', [
      ['=SUMIF(Orders!C2:C,A2,Orders!F2:F)'],
      ['=SUMIF(Orders!C2:C,A3,Orders!F2:F)'],
      ['=SUMIF(Orders!C2:C,A4,Orders!F2:F)'],
      ['=SUMIF(Orders!C2:C,A5,Orders!F2:F)'],
    ]);
    const sorted = [...REGIONS].sort();
    expect(await read(spreadsheetId, 'Summary!A1:A10')).toEqual([[], ...sorted.map((region) => [region])]);
    const totals = sorted.map((region) =>
      ORDERS.filter((order) => order[2] === region).reduce((sum, order) => sum + Number(order[5]), 0),
    );
    // Formulas beside the spill read the spilled values.
    expect(await read(spreadsheetId, 'Summary!B2:B5', 'UNFORMATTED_VALUE')).toEqual(
      totals.map((total) => [total]),
    );
    // A FORMULA read gives the formula in its own cell and the values in the cells it filled.
    expect(await read(spreadsheetId, 'Summary!A2:A5', 'FORMULA')).toEqual([
      ['=SORT(UNIQUE(Orders!C2:C41))'],
      ...sorted.slice(1).map((region) => [region]),
    ]);
    const spilledCell = await cell(spreadsheetId, 'Summary!A3');
    expect(spilledCell?.userEnteredValue).toBeUndefined();
    expect(spilledCell?.effectiveValue).toEqual({ stringValue: sorted[1] });
    expect(spilledCell?.formattedValue).toBe(sorted[1]);
  });

  it('spills an open range’s unique values, ignoring cells below the result', async () => {
    const spreadsheetId = await newBook(['Summary', 'Orders']);
    await write(spreadsheetId, 'Summary!A1', [['=SORT(UNIQUE(Orders!C2:C))']]);
    // Below the four regions (and the empty cell UNIQUE gives for the column's blanks).
    await write(spreadsheetId, 'Summary!A8', [['Total']]);
    const sorted = [...REGIONS].sort();
    expect(await read(spreadsheetId, 'Summary!A1:A8')).toEqual([
      ...sorted.map((region) => [region]),
      [],
      [],
      [],
      ['Total'],
    ]);
  });

  it('spills a formula that is only a range, closed, open or whole', async () => {
    const spreadsheetId = await newBook(['Copy', 'Orders']);
    await write(spreadsheetId, 'Copy!A1:E1', [['=Orders!E1:F2', '', '=Orders!F2:F', '=Orders!F:F']]);
    expect(await read(spreadsheetId, 'Copy!A1:D3')).toEqual([
      ['Paid', 'Amount', '10', 'Amount'],
      ['yes', '10', '20', '10'],
      ['', '', '30', '20'],
    ]);
    expect(await read(spreadsheetId, 'Copy!C1:D45', 'UNFORMATTED_VALUE')).toHaveLength(41);
  });

  it('gives #REF! when a cell holding data is in the way, and fills nothing', async () => {
    const spreadsheetId = await newBook(['Summary', 'Orders']);
    await write(spreadsheetId, 'Summary!A1:A3', [['=SORT(UNIQUE(Orders!C2:C41))'], [''], ['in the way']]);
    expect(await read(spreadsheetId, 'Summary!A1:A4')).toEqual([['#REF!'], [], ['in the way']]);
    expect((await cell(spreadsheetId, 'Summary!A1'))?.effectiveValue).toEqual({
      errorValue: {
        type: 'REF',
        message: 'Array result was not expanded because it would overwrite data in A3.',
      },
    });
  });
});

describe('array arithmetic over dates typed as text', () => {
  it('stores USER_ENTERED ISO dates as date serials and counts them in SUMPRODUCT', async () => {
    const spreadsheetId = await newBook(['Orders']);
    expect(await read(spreadsheetId, 'Orders!D2', 'UNFORMATTED_VALUE')).toEqual([[46037]]);
    expect(await read(spreadsheetId, 'Orders!D2')).toEqual([['2026-01-15']]);
    expect((await cell(spreadsheetId, 'Orders!D2'))?.userEnteredFormat?.numberFormat?.type).toBe('DATE');

    await write(spreadsheetId, 'Orders!H1', [
      ['=SUMPRODUCT((E2:E41="no")*(D2:D41<DATE(2026,12,7)))', '=SUMPRODUCT((C2:C41="East")*F2:F41)'],
    ]);
    const expected = ORDERS.filter((order) => order[4] === 'no' && !String(order[3]).startsWith('2026-12'));
    const east = ORDERS.filter((order) => order[2] === 'East').reduce(
      (sum, order) => sum + Number(order[5]),
      0,
    );
    expect(await read(spreadsheetId, 'Orders!H1:I1', 'UNFORMATTED_VALUE')).toEqual([[expected.length, east]]);
  });
});

describe('a 10,000-row tab', () => {
  it('evaluates open ranges and spills over it in bounded time, spills cut at the grid', async () => {
    const { data } = await sheets.spreadsheets.create({
      requestBody: { sheets: [{ properties: { title: 'Summary' } }, { properties: { title: 'Orders' } }] },
    });
    const spreadsheetId = data.spreadsheetId as string;
    const rows = Array.from({ length: 10_000 }, (_, index) => [`O-${index}`, REGIONS[index % 4], index]);
    await write(spreadsheetId, 'Orders!A1', [['Order', 'Region', 'Amount'], ...rows]);
    const started = Date.now();
    await write(spreadsheetId, 'Summary!A1:C1', [
      ['=SORT(UNIQUE(Orders!B2:B))', '=COUNTA(Orders!B2:B)', '=ARRAYFORMULA(Orders!C2:C*2)'],
    ]);
    const values = await read(spreadsheetId, 'Summary!A1:C', 'UNFORMATTED_VALUE');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(values?.slice(0, 4).map((row) => row[0])).toEqual([...REGIONS].sort());
    expect(values?.[0]?.[1]).toBe(10_000);
    // Summary's grid has 1000 rows: the spill stops there (see README-sheets.md).
    expect(values).toHaveLength(1000);
    expect(values?.[999]?.[2]).toBe(1998);
  });
});
