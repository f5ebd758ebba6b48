/**
 * Functions as agents write them against Google Sheets, through googleapis alone; each case's
 * source is the function's page in Google's reference (https://support.google.com/docs/table/25273).
 */
import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;
let spreadsheetId: string;

const REGIONS = ['West', 'East', 'North', 'South'];
/** 1,200 orders (past the 1,000 rows of a new tab): id, customer, region, paid, amount. */
const ORDERS = Array.from({ length: 1200 }, (_, index) => [
  `O-${index + 1}`,
  `Customer ${index % 7}`,
  REGIONS[index % 4] as string,
  index % 3 === 0 ? 'yes' : 'no',
  (index % 50) + 1,
]);
const sumWhere = (keep: (order: (string | number)[]) => boolean) =>
  ORDERS.filter(keep).reduce((sum, order) => sum + Number(order[4]), 0);

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
  const { data } = await sheets.spreadsheets.create({
    requestBody: { sheets: [{ properties: { title: 'Out' } }, { properties: { title: 'Orders' } }] },
  });
  spreadsheetId = data.spreadsheetId as string;
  await write('Orders!A1', [['Order', 'Customer', 'Region', 'Paid', 'Amount'], ...ORDERS]);
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

async function errorIn(formula: string): Promise<sheets_v4.Schema$ErrorValue | undefined> {
  await compute([formula]);
  const { data } = await sheets.spreadsheets.get({
    spreadsheetId,
    ranges: ['Out!A1'],
    includeGridData: true,
  });
  return data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]?.effectiveValue?.errorValue ?? undefined;
}

describe('whole columns and open ranges inside functions', () => {
  it('FILTER, VLOOKUP, SUMIFS and COUNTIFS read whole columns of a tab longer than the formula’s', async () => {
    // FILTER https://support.google.com/docs/answer/3093197, VLOOKUP …/3093318,
    // SUMIFS …/3238496, COUNTIFS …/3256550.
    const [row] = await compute([
      '=ROWS(FILTER(Orders!A:A, Orders!C:C="East"))',
      '=VLOOKUP("O-1150", Orders!A:E, 5, FALSE)',
      '=SUMIFS(Orders!E:E, Orders!C:C, "East", Orders!D:D, "yes")',
      '=COUNTIFS(Orders!C2:C, "West")',
      '=ROWS(FILTER(Orders!A2:E, Orders!C2:C="North", Orders!E2:E>40))',
    ]);
    expect(row).toEqual([
      300,
      ORDERS[1149]?.[4],
      sumWhere((order) => order[2] === 'East' && order[3] === 'yes'),
      300,
      ORDERS.filter((order) => order[2] === 'North' && Number(order[4]) > 40).length,
    ]);
  });
});

describe('lookups over arrays', () => {
  it('VLOOKUP reads the array of a FILTER or QUERY, exact or sorted', async () => {
    // https://support.google.com/docs/answer/3093318: "range - The range to consider for the search."
    expect(
      await compute([
        '=VLOOKUP("o-1150", FILTER(Orders!A2:E, Orders!C2:C="East"), 5, FALSE)',
        '=VLOOKUP("East", QUERY(Orders!A1:E, "select C, sum(E) group by C", 1), 2, FALSE)',
        '=VLOOKUP(4, {1,"a";3,"b";5,"c"}, 2, TRUE)',
      ]),
    ).toEqual([[ORDERS[1149]?.[4], sumWhere((order) => order[2] === 'East'), 'b']]);
    expect(await errorIn('=VLOOKUP("nobody", QUERY(Orders!A1:E, "select C", 1), 1, FALSE)')).toEqual({
      type: 'N_A',
      message: "Did not find value 'nobody' in VLOOKUP evaluation.",
    });
  });
});

describe('spilled arrays', () => {
  it('FILTER spills the rows of a range of any width whose conditions hold', async () => {
    const values = await compute(['=FILTER(Orders!A2:E, Orders!E2:E=50, Orders!C2:C="East")']);
    expect(values).toEqual(
      ORDERS.filter((order) => order[4] === 50 && order[2] === 'East')
        .slice(0, 12)
        .map((order) => order),
    );
  });

  it('FILTER with no match is #N/A, with mismatched sizes #VALUE!, each with Google’s message', async () => {
    expect(await errorIn('=FILTER(Orders!A2:A, Orders!C2:C="Nowhere")')).toEqual({
      type: 'N_A',
      message: 'No matches are found in FILTER evaluation.',
    });
    expect(await errorIn('=FILTER(Orders!A2:A10, Orders!C2:C9="East")')).toEqual({
      type: 'VALUE',
      message:
        'FILTER has mismatched range sizes. Expected row count: 9. column count: 1. Actual row count: 8, column count: 1.',
    });
  });

  it('SORT takes sort_column, is_ascending pairs, a column being an index or a range', async () => {
    // https://support.google.com/docs/answer/3093150: SORT(range, sort_column, is_ascending, [sort_column2, is_ascending2, …])
    await write('Orders!G1:H5', [
      ['Name', 'Score'],
      ['b', 2],
      ['a', 2],
      ['c', 9],
    ]);
    expect(await compute(['=SORT(Orders!G2:H4, 2, FALSE)'])).toEqual([
      ['c', 9],
      ['b', 2],
      ['a', 2],
    ]);
    expect(await compute(['=SORT(Orders!G2:H4, 2, TRUE, 1, TRUE)'])).toEqual([
      ['a', 2],
      ['b', 2],
      ['c', 9],
    ]);
    expect(await compute(['=SORT(Orders!G2:G4, Orders!H2:H4, FALSE)'])).toEqual([['c'], ['b'], ['a']]);
    expect(await compute(['=SORT(UNIQUE(Orders!C2:C))'], 'Out!A1:A5')).toEqual([
      ['East'],
      ['North'],
      ['South'],
      ['West'],
    ]);
  });

  it('SORTN gives the first n rows, with ties when asked', async () => {
    // https://support.google.com/docs/answer/7354624: SORTN(range, [n], [display_ties_mode], [sort_column], [is_ascending], …)
    expect(await compute(['=SORTN(Orders!G2:H4, 2, 0, 2, FALSE)'])).toEqual([
      ['c', 9],
      ['b', 2],
    ]);
    expect(await compute(['=SORTN(Orders!H2:H4, 1, 1, 1, TRUE)'])).toEqual([[2], [2]]);
    expect(await compute(['=SORTN(Orders!C2:C, 2, 2, 1, TRUE)'])).toEqual([['East'], ['North']]);
  });

  it('SEQUENCE, ARRAYFORMULA and array arithmetic in SUMPRODUCT without ARRAYFORMULA', async () => {
    // SEQUENCE https://support.google.com/docs/answer/9368244, ARRAYFORMULA …/3093275,
    // SUMPRODUCT …/3094294.
    expect(await compute(['=SEQUENCE(3, 2)'])).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    expect(await compute(['=ARRAYFORMULA(Orders!E2:E4*2)'])).toEqual([[2], [4], [6]]);
    expect(await compute(['=SUMPRODUCT((Orders!C2:C1201="East")*(Orders!E2:E1201))'])).toEqual([
      [sumWhere((order) => order[2] === 'East')],
    ]);
  });
});

describe('aggregates', () => {
  it('AVERAGEIFS averages the cells meeting every criterion; none is #DIV/0!', async () => {
    // https://support.google.com/docs/answer/3256534
    const east = ORDERS.filter((order) => order[2] === 'East' && order[3] === 'yes');
    const [[average]] = (await compute([
      '=AVERAGEIFS(Orders!E:E, Orders!C:C, "East", Orders!D:D, "yes")',
    ])) as [[number]];
    expect(average).toBeCloseTo(east.reduce((sum, order) => sum + Number(order[4]), 0) / east.length, 9);
    expect(await errorIn('=AVERAGEIFS(Orders!E:E, Orders!C:C, "Nowhere")')).toEqual({
      type: 'DIVIDE_BY_ZERO',
      message: 'Evaluation of function AVERAGEIFS caused a divide by zero error.',
    });
  });

  it('COUNTA and COUNTUNIQUE ignore empty cells', async () => {
    // COUNTA https://support.google.com/docs/answer/3093991, COUNTUNIQUE …/3093405.
    expect(
      await compute(['=COUNTA(Orders!C:C)', '=COUNTUNIQUE(Orders!C2:C)', '=COUNTUNIQUE(Orders!H:H)']),
    ).toEqual([[1201, 4, 3]]);
  });

  it('reads number literals with an exponent, 1E+99', async () => {
    expect(await compute(['=1E+99', '=2.5E-3*4', '=MIN(Orders!E:E, 1E+99)'])).toEqual([[1e99, 0.01, 1]]);
  });
});

describe('error values with Google’s messages', () => {
  it('a lookup that finds nothing names the value and the function', async () => {
    // VLOOKUP https://support.google.com/docs/answer/3093318, MATCH …/3093378.
    expect(await errorIn('=VLOOKUP("O-9999", Orders!A:E, 5, FALSE)')).toEqual({
      type: 'N_A',
      message: "Did not find value 'O-9999' in VLOOKUP evaluation.",
    });
    expect(await errorIn('=MATCH(77, Orders!E:E, 0)')).toEqual({
      type: 'N_A',
      message: "Did not find value '77' in MATCH evaluation.",
    });
  });

  it('an average of no numbers, and a division by zero', async () => {
    expect(await errorIn('=AVERAGE(Orders!J:J)')).toEqual({
      type: 'DIVIDE_BY_ZERO',
      message: 'Evaluation of function AVERAGE caused a divide by zero error.',
    });
    expect(await errorIn('=1/0')).toEqual({
      type: 'DIVIDE_BY_ZERO',
      message: 'Function DIVIDE parameter 2 cannot be zero.',
    });
  });

  it('a function given too few or too many arguments names it and the counts', async () => {
    expect(await errorIn('=VLOOKUP("O-1", Orders!A:E)')).toEqual({
      type: 'N_A',
      message:
        'Wrong number of arguments to VLOOKUP. Expected between 3 and 4 arguments, but got 2 arguments.',
    });
    expect(await errorIn('=IF(TRUE, SUM(), 1)')).toEqual({
      type: 'N_A',
      message: 'Wrong number of arguments to SUM. Expected at least 1 arguments, but got 0 arguments.',
    });
  });

  it('an unknown function, an unknown tab and a formula that does not parse', async () => {
    expect(await errorIn('=SUMM(1)')).toEqual({ type: 'NAME', message: "Unknown function: 'summ'." });
    expect(await errorIn('=SUM(Nope!A:A)')).toEqual({
      type: 'REF',
      message: "Unresolved sheet name 'Nope'.",
    });
    expect(await errorIn('=SUM(1')).toEqual({ type: 'ERROR', message: 'Formula parse error.' });
  });
});
