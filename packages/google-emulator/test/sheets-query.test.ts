/**
 * QUERY through googleapis alone, as Sheets computes it: QUERY's help
 * (https://support.google.com/docs/answer/3093343) and the query language reference
 * (https://developers.google.com/chart/interactive/docs/querylanguage).
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

/** Staff in Data!B1:F7 — the table starts in column B, so its column ids are B to F. */
const STAFF = [
  ['Name', 'Dept', 'Salary', 'Hired', 'Senior'],
  ['Ann', 'Eng', 1000, '2020-03-01', 'TRUE'],
  ['Bob', 'Eng', 500, '2021-06-15', 'FALSE'],
  ['Cid', 'Sales', 600, '2019-01-10', 'TRUE'],
  ['Dee', 'Sales', 400, '2022-09-30', 'FALSE'],
  ['Eve', 'Marketing', 800, '2018-11-05', 'TRUE'],
  ['Fay', 'Eng', '', '2023-02-01', 'FALSE'],
];

async function book(): Promise<string> {
  const { data } = await sheets.spreadsheets.create({
    requestBody: { sheets: [{ properties: { title: 'Out' } }, { properties: { title: 'Data' } }] },
  });
  const spreadsheetId = data.spreadsheetId as string;
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Data!B1',
    valueInputOption: 'USER_ENTERED',
    requestBody: { values: STAFF },
  });
  return spreadsheetId;
}

/** Writes one formula into Out!A1 and reads what it spills, unformatted. */
async function query(spreadsheetId: string, formula: string): Promise<unknown[][]> {
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Out!A1',
    valueInputOption: 'USER_ENTERED',
    requestBody: { values: [[formula]] },
  });
  const { data } = await sheets.spreadsheets.values.get({
    spreadsheetId,
    range: 'Out!A1:H20',
    valueRenderOption: 'UNFORMATTED_VALUE',
  });
  return data.values ?? [];
}

async function errorOf(
  spreadsheetId: string,
  formula: string,
): Promise<sheets_v4.Schema$ErrorValue | undefined> {
  await query(spreadsheetId, formula);
  const { data } = await sheets.spreadsheets.get({
    spreadsheetId,
    ranges: ['Out!A1'],
    includeGridData: true,
  });
  return data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]?.effectiveValue?.errorValue ?? undefined;
}

describe('QUERY', () => {
  let spreadsheetId: string;
  beforeAll(async () => {
    spreadsheetId = await book();
  });

  it('selects, filters, orders, limits and offsets, naming columns by their letters in the sheet', async () => {
    expect(
      await query(spreadsheetId, '=QUERY(Data!B1:F7, "select B, D where D > 450 order by D desc", 1)'),
    ).toEqual([
      ['Name', 'Salary'],
      ['Ann', 1000],
      ['Eve', 800],
      ['Cid', 600],
      ['Bob', 500],
    ]);
    expect(
      await query(spreadsheetId, '=QUERY(Data!B1:F7, "select B order by D desc limit 2 offset 1", 1)'),
    ).toEqual([['Name'], ['Eve'], ['Cid']]);
    // select * keeps every column; an open-ended range reads to the end of the tab.
    const all = await query(spreadsheetId, '=QUERY(Data!B1:F, "select * where C = \'Sales\'", 1)');
    expect(all.map((row) => row[0])).toEqual(['Name', 'Cid', 'Dee']);
    expect(all[0]).toHaveLength(5);
  });

  it('groups and aggregates, labelled "sum Salary" unless a label clause says otherwise', async () => {
    expect(
      await query(
        spreadsheetId,
        '=QUERY(Data!B1:F7, "select C, sum(D), count(B), avg(D), max(D), min(D) group by C", 1)',
      ),
    ).toEqual([
      ['Dept', 'sum Salary', 'count Name', 'avg Salary', 'max Salary', 'min Salary'],
      // Groups come out in the order of their values; Fay's empty salary is null, not 0.
      ['Eng', 1500, 3, 750, 1000, 500],
      ['Marketing', 800, 1, 800, 800, 800],
      ['Sales', 1000, 2, 500, 600, 400],
    ]);
    expect(
      await query(
        spreadsheetId,
        "=QUERY(Data!B1:F7, \"select C, sum(D) group by C order by sum(D) desc label sum(D) 'Total', C 'Team'\", 1)",
      ),
    ).toEqual([
      ['Team', 'Total'],
      ['Eng', 1500],
      ['Sales', 1000],
      ['Marketing', 800],
    ]);
    // Aggregations without group by give one row.
    expect(await query(spreadsheetId, '=QUERY(Data!B1:F7, "select count(B), sum(D)", 1)')).toEqual([
      ['count Name', 'sum Salary'],
      [6, 3300],
    ]);
  });

  it('pivots a column’s values into columns', async () => {
    expect(
      await query(spreadsheetId, '=QUERY(Data!B1:F7, "select F, sum(D) group by F pivot C", 1)'),
    ).toEqual([
      ['Senior', 'Eng', 'Marketing', 'Sales'],
      [false, 500, '', 400],
      [true, 1000, 800, 600],
    ]);
  });

  it('takes and, or, not, text operators, is null and date literals in where', async () => {
    const names = async (where: string) =>
      (await query(spreadsheetId, `=QUERY(Data!B1:F7, "select B where ${where}", 1)`))
        .slice(1)
        .map((row) => row[0]);
    expect(await names("C = 'Eng' and D >= 500")).toEqual(['Ann', 'Bob']);
    expect(await names("C = 'Marketing' or not F")).toEqual(['Bob', 'Dee', 'Eve', 'Fay']);
    expect(await names("B contains 'e'")).toEqual(['Dee', 'Eve']);
    expect(await names("C starts with 'Ma' or C ends with 'les'")).toEqual(['Cid', 'Dee', 'Eve']);
    expect(await names("B matches '[A-C].*'")).toEqual(['Ann', 'Bob', 'Cid']);
    expect(await names("B like '_e%'")).toEqual(['Dee']);
    expect(await names('D is null')).toEqual(['Fay']);
    expect(await names("E > date '2021-01-01' and D is not null")).toEqual(['Bob', 'Dee']);
    // Text comparisons are case-sensitive.
    expect(await query(spreadsheetId, '=QUERY(Data!B1:F7, "select B where C = \'eng\'", 1)')).toEqual([
      ['Name'],
    ]);
  });

  it('reads headers: joined when several, guessed when omitted, none when 0', async () => {
    expect(await query(spreadsheetId, '=QUERY(Data!B1:F7, "select B, D where D = 400", 2)')).toEqual([
      ['Name Ann', 'Salary 1000'],
      ['Dee', 400],
    ]);
    // Text over a column of numbers: one header row.
    expect(await query(spreadsheetId, '=QUERY(Data!B1:F7, "select B, D where D = 400")')).toEqual([
      ['Name', 'Salary'],
      ['Dee', 400],
    ]);
    expect(await query(spreadsheetId, '=QUERY(Data!B2:F7, "select B where D < 600", 0)')).toEqual([
      ['Bob'],
      ['Dee'],
    ]);
  });

  it('takes a query built by formula, with a cell’s value in it', async () => {
    await sheets.spreadsheets.values.update({
      spreadsheetId,
      range: 'Out!J1',
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: [['Sales']] },
    });
    expect(
      await query(spreadsheetId, '=QUERY(Data!B1:F7, "select B, D where C = \'"&J1&"\' order by D", 1)'),
    ).toEqual([
      ['Name', 'Salary'],
      ['Dee', 400],
      ['Cid', 600],
    ]);
  });

  it('names the columns of a computed array Col1, Col2, …', async () => {
    expect(
      await query(
        spreadsheetId,
        '=QUERY(FILTER(Data!B2:D7, Data!D2:D7 > 0), "select Col1, Col3 where Col3 < 600", 0)',
      ),
    ).toEqual([
      ['Bob', 500],
      ['Dee', 400],
    ]);
  });

  it('reads a mixed column as its majority type, the others as null', async () => {
    const id = await book();
    await sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Data!D8',
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: [['n/a']] },
    });
    expect(await query(id, '=QUERY(Data!B1:F8, "select count(D), sum(D)", 1)')).toEqual([
      ['count Salary', 'sum Salary'],
      [5, 3300],
    ]);
  });

  it('answers Google’s errors for a bad query', async () => {
    expect(await errorOf(spreadsheetId, '=QUERY(Data!B1:F7, "select Z", 1)')).toEqual({
      type: 'VALUE',
      message: 'Unable to parse query string for Function QUERY parameter 2: NO_COLUMN: Z',
    });
    expect(await errorOf(spreadsheetId, '=QUERY(Data!B1:F7, "select B, sum(D) group by C", 1)')).toEqual({
      type: 'VALUE',
      message: 'Unable to parse query string for Function QUERY parameter 2: ADD_COL_TO_GROUP_BY_OR_AGG: B',
    });
    const parse = await errorOf(spreadsheetId, '=QUERY(Data!B1:F7, "select B whre D > 1", 1)');
    expect(parse?.type).toBe('VALUE');
    expect(parse?.message).toMatch(
      /^Unable to parse query string for Function QUERY parameter 2: PARSE_ERROR: /,
    );
    expect(await errorOf(spreadsheetId, '=QUERY(Data!B2:F7, "select B where D > 5000", 0)')).toEqual({
      type: 'N_A',
      message: 'Query completed with an empty output.',
    });
  });
});
