/**
 * Functions as an agent analysing a tab writes them, through googleapis alone: TEXT's number
 * formats, lookups of a column of keys in array context, ROW and COLUMN of a range, and UNIQUE
 * over a long column. Each case's source is the function's page in Google's reference
 * (https://support.google.com/docs/table/25273).
 */
import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;
let spreadsheetId: string;
let outSheetId: number;

/** Keys looked up (one not in Prices), and a paid flag per row. */
const ORDERS = [
  ['Item', 'Paid'],
  ['pear', 'no'],
  ['Apple', 'yes'],
  ['kiwi', 'no'],
  ['plum', 'no'],
  ['fig', 'yes'],
];
const PRICES = [
  ['Item', 'Price'],
  ['apple', 1.5],
  ['pear', 2],
  ['fig', 3.25],
  ['plum', 0.5],
];

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      sheets: [
        { properties: { title: 'Out' } },
        { properties: { title: 'Orders' } },
        { properties: { title: 'Prices' } },
      ],
    },
  });
  spreadsheetId = data.spreadsheetId as string;
  outSheetId = data.sheets?.[0]?.properties?.sheetId as number;
  await write('Orders!A1', ORDERS);
  await write('Prices!A1', PRICES);
});

afterAll(async () => {
  await emulator?.close();
});

function write(range: string, values: unknown[][]) {
  return sheets.spreadsheets.values.update({
    spreadsheetId,
    range,
    valueInputOption: 'USER_ENTERED',
    requestBody: { values },
  });
}

/** Clears Out, writes the formulas into its row 1 and reads `range` unformatted. */
async function compute(formulas: string[], range = 'Out!A1:F12'): Promise<unknown[][]> {
  await sheets.spreadsheets.values.clear({ spreadsheetId, range: 'Out' });
  await write('Out!A1', [formulas]);
  const { data } = await sheets.spreadsheets.values.get({
    spreadsheetId,
    range,
    valueRenderOption: 'UNFORMATTED_VALUE',
  });
  return data.values ?? [];
}

/** The first column of what `compute` read. */
const column = (values: unknown[][]) => values.map((row) => row[0]);

describe('TEXT formats a number with a Sheets number format', () => {
  it('percent, thousands, decimals, scaling and quoted text', async () => {
    // https://support.google.com/docs/answer/3094139 and the format tokens of
    // https://developers.google.com/workspace/sheets/api/guides/formats
    const [row] = await compute([
      '=TEXT(0.0394, "0.00%")',
      '=TEXT(1234567.891, "#,##0")',
      '=TEXT(3.14159, "0.0")',
      '=TEXT(1234567, "#,##0,")',
      '=TEXT(1234567, "0.0,,""M""")',
      '=TEXT(5, "0"" units""")',
    ]);
    expect(row).toEqual(['3.94%', '1,234,568', '3.1', '1,235', '1.2M', '5 units']);
  });

  it('dates by yyyy-mm-dd, mmm and dddd; text through @; text that reads as a number', async () => {
    const [row] = await compute([
      '=TEXT(DATE(2026,12,7), "yyyy-mm-dd")',
      '=TEXT(DATE(2026,12,7), "mmm")',
      '=TEXT(DATE(2026,12,7), "dddd")',
      '=TEXT("abc", "@")',
      '=TEXT("12.5", "0.00")',
      '=TEXT(12, "@")',
    ]);
    expect(row).toEqual(['2026-12-07', 'Dec', 'Monday', 'abc', '12.50', '12']);
  });

  it('a cell formatted as percent shows 3.94% for 0.0394', async () => {
    await compute(['0.0394']);
    await sheets.spreadsheets.batchUpdate({
      spreadsheetId,
      requestBody: {
        requests: [
          {
            repeatCell: {
              range: {
                sheetId: outSheetId,
                startRowIndex: 0,
                endRowIndex: 1,
                startColumnIndex: 0,
                endColumnIndex: 1,
              },
              cell: { userEnteredFormat: { numberFormat: { type: 'PERCENT', pattern: '0.00%' } } },
              fields: 'userEnteredFormat.numberFormat',
            },
          },
        ],
      },
    });
    const { data } = await sheets.spreadsheets.values.get({ spreadsheetId, range: 'Out!A1' });
    expect(data.values).toEqual([['3.94%']]);
  });
});

describe('lookups of a column of keys in array context', () => {
  const prices = [2, 1.5, undefined, 0.5, 3.25];

  it('ARRAYFORMULA(VLOOKUP) over whole columns: a result per key, Google’s #N/A for the one missing', async () => {
    // https://support.google.com/docs/answer/3093318, ARRAYFORMULA https://support.google.com/docs/answer/3093275
    const values = await compute([
      '=ARRAYFORMULA(IFNA(VLOOKUP(Orders!A2:A6, Prices!A:B, 2, FALSE), "none"))',
    ]);
    expect(column(values)).toEqual([2, 1.5, 'none', 0.5, 3.25]);
    await compute(['=ARRAYFORMULA(VLOOKUP(Orders!A2:A6, Prices!A:B, 2, FALSE))']);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: ['Out!A3'],
      includeGridData: true,
    });
    expect(data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]?.effectiveValue?.errorValue).toEqual({
      type: 'N_A',
      message: "Did not find value 'kiwi' in VLOOKUP evaluation.",
    });
  });

  it('XLOOKUP of a range of keys gives one result per key, if_not_found for a missing one', async () => {
    // https://support.google.com/docs/answer/12405947
    const values = await compute([
      '=XLOOKUP(Orders!A2:A6, Prices!A:A, Prices!B:B, "none")',
      '=ARRAYFORMULA(XLOOKUP(Orders!A2:A6, Prices!A2:A, Prices!B2:B, "none"))',
    ]);
    const expected = prices.map((price) => price ?? 'none');
    expect(values).toEqual(expected.map((price) => [price, price]));
  });

  it('INDEX with MATCH over whole columns and open ranges; MATCH and COUNTIF of a range of keys', async () => {
    // INDEX https://support.google.com/docs/answer/3098242, MATCH …/3093378, COUNTIF …/3093480
    const values = await compute([
      '=INDEX(Prices!B:B, MATCH("fig", Prices!A:A, 0))',
      '=MATCH("plum", Prices!A2:A, 0)',
      '=ARRAYFORMULA(IFNA(INDEX(Prices!B:B, MATCH(Orders!A2:A6, Prices!A:A, 0)), "none"))',
      '=ARRAYFORMULA(COUNTIF(Prices!A:A, Orders!A2:A6))',
    ]);
    expect(values).toEqual([
      [3.25, 4, 2, 1],
      ['', '', 1.5, 1],
      ['', '', 'none', 0],
      ['', '', 0.5, 1],
      ['', '', 3.25, 1],
    ]);
  });
});

describe('ROW and COLUMN of a range', () => {
  it('number each row or column where an array is read: FILTER, SUMPRODUCT, ARRAYFORMULA', async () => {
    // ROW https://support.google.com/docs/answer/3093316, COLUMN …/3093373
    const values = await compute([
      '=FILTER(ROW(Orders!A2:A6), Orders!B2:B6="no")',
      '=SUMPRODUCT((Orders!B2:B6="no")*ROW(Orders!A2:A6))',
      '=ARRAYFORMULA(ROW(Orders!A2:A6)-1)',
      '=ARRAYFORMULA(COLUMN(Orders!B1:C1))',
    ]);
    expect(values).toEqual([
      [2, 2 + 4 + 5, 1, 2, 3],
      [4, '', 2],
      [5, '', 3],
      ['', '', 4],
      ['', '', 5],
    ]);
  });

  it('a formula that is only ROW or COLUMN of a range shows the first number, spilling nothing', async () => {
    expect(await compute(['=ROW(Orders!A2:A40)', '=COLUMN(Orders!C1:E9)', '=ROW()'])).toEqual([[2, 3, 1]]);
  });
});

describe('a tab of 10,000 rows: UNIQUE, SORTN and lookups of every row', () => {
  beforeAll(async () => {
    const { data } = await sheets.spreadsheets.batchUpdate({
      spreadsheetId,
      requestBody: {
        requests: [{ addSheet: { properties: { title: 'Ids', gridProperties: { rowCount: 10_001 } } } }],
      },
    });
    expect(data.replies?.[0]?.addSheet?.properties?.title).toBe('Ids');
    // Ids id-0 … id-999 twice (rows 2–1001 and 9002–10001); column B numbers the data rows from 0.
    await write(
      'Ids!A2',
      Array.from({ length: 10_000 }, (_, index) => [`id-${index % 9_000}`, index]),
    );
  });

  it('UNIQUE gives each distinct value of 10,000 once, in order of first appearance', async () => {
    // https://support.google.com/docs/answer/10522653
    const [row] = await compute([
      '=ROWS(UNIQUE(Ids!A2:A))',
      '=INDEX(UNIQUE(Ids!A2:A), 9000)',
      '=COUNTUNIQUE(Ids!A:A)',
    ]);
    expect(row).toEqual([9_000, 'id-8999', 9_000]);
  });

  it('VLOOKUP, XLOOKUP and MATCH of all 10,000 ids find each one’s first row', async () => {
    // The 9,500th id is id-499, first in data row 499 (sheet row 501).
    const [row] = await compute([
      '=INDEX(ARRAYFORMULA(VLOOKUP(Ids!A2:A, Ids!A:B, 2, FALSE)), 9500)',
      '=INDEX(XLOOKUP(Ids!A2:A, Ids!A:A, Ids!B:B), 9500)',
      '=ROWS(XLOOKUP(Ids!A2:A, Ids!A:A, Ids!B:B))',
      '=INDEX(ARRAYFORMULA(MATCH(Ids!A2:A, Ids!A:A, 0)), 9500)',
    ]);
    expect(row).toEqual([499, 499, 10_000, 501]);
  });

  it('INDEX(MATCH) filled down all 10,000 rows finds each id’s first row', async () => {
    // https://support.google.com/docs/answer/3098242
    await write(
      'Ids!C2',
      Array.from({ length: 10_000 }, (_, index) => [`=INDEX(B:B, MATCH(A${index + 2}, A:A, 0))`]),
    );
    const { data } = await sheets.spreadsheets.values.get({
      spreadsheetId,
      range: 'Ids!C9501:C10001',
      valueRenderOption: 'UNFORMATTED_VALUE',
    });
    // Sheet row 9501 holds id-499 (first in data row 499), row 10001 id-999.
    expect([data.values?.[0]?.[0], data.values?.at(-1)?.[0], data.values?.length]).toEqual([499, 999, 501]);
  });

  it('SORTN keeps the first unique rows of 10,000, with their duplicates in tie mode 3', async () => {
    // https://support.google.com/docs/answer/7354624: display_ties_mode 2 and 3
    const values = await compute(['=SORTN(Ids!A2:A, 3, 2)', '=ROWS(SORTN(Ids!A2:A, 2, 3))']);
    expect(values).toEqual([['id-0', 4], ['id-1'], ['id-10']]);
  });
});
