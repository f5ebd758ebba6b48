/**
 * Ranges with absolute ends (`$B$1:$B$4`, `A1:B$4`, `$A:$A`, `$2:$2`, `'My tab'!$A$2:$B`) through
 * googleapis alone, as Sheets reads them: a `$` fixes a row or column when the formula is copied
 * and changes nothing in what it reads (https://support.google.com/docs/answer/46977, "Use
 * absolute references"), on either end of a range and in every function
 * (https://support.google.com/docs/table/25273).
 */
import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;
let spreadsheetId: string;

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      sheets: [
        { properties: { title: 'Sheet1', gridProperties: { rowCount: 20, columnCount: 6 } } },
        { properties: { title: 'My tab', gridProperties: { rowCount: 20, columnCount: 4 } } },
      ],
    },
  });
  spreadsheetId = data.spreadsheetId as string;
  await sheets.spreadsheets.values.batchUpdate({
    spreadsheetId,
    requestBody: {
      valueInputOption: 'USER_ENTERED',
      data: [
        { range: 'Sheet1!A1', values: [[1], [2], [3], [4]] },
        { range: 'Sheet1!B1', values: [['x'], ['y'], ['x'], ['x']] },
        {
          range: "'My tab'!A2",
          values: [
            [10, 1],
            [20, 2],
            [30, 3],
          ],
        },
      ],
    },
  });
});

afterAll(async () => {
  await emulator?.close();
});

/** Writes formulas into Sheet1!D1, D2, … and reads what each shows, unformatted. */
async function results(formulas: string[]): Promise<unknown[]> {
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Sheet1!D1',
    valueInputOption: 'USER_ENTERED',
    requestBody: { values: formulas.map((formula) => [formula]) },
  });
  const { data } = await sheets.spreadsheets.values.get({
    spreadsheetId,
    range: `Sheet1!D1:D${formulas.length}`,
    valueRenderOption: 'UNFORMATTED_VALUE',
  });
  return (data.values ?? []).map((row) => row[0]);
}

describe('absolute references in ranges', () => {
  it('reads a range with both ends absolute, on its own tab or another', async () => {
    expect(
      await results([
        '=COUNTIF($B$1:$B$4,B1)',
        '=SUM(Sheet1!$A$1:$A$4)',
        '=SUM($A$1:A3)',
        '=SUM(A1:A$4)',
        '=SUM(A$1:$A2)',
        "=SUM('My tab'!$A$2:$B$4)",
      ]),
    ).toEqual([3, 10, 6, 10, 3, 66]);
  });

  it('reads whole and open-ended ranges with absolute ends', async () => {
    expect(
      await results([
        '=SUM($A:$A)',
        "=COUNTA('My tab'!$2:$2)",
        "=SUM('My tab'!$A$2:$B)",
        "=SUM('My tab'!A$3:$A)",
        '=SUM($A2:$A)',
        "=SUM('My tab'!$3:3)",
      ]),
    ).toEqual([10, 2, 66, 50, 9, 22]);
  });

  it('keeps the $ signs in the formula it gives back', async () => {
    await results(['=COUNTIF($B$1:$B$4,"x")']);
    const { data } = await sheets.spreadsheets.values.get({
      spreadsheetId,
      range: 'Sheet1!D1',
      valueRenderOption: 'FORMULA',
    });
    expect(data.values).toEqual([['=COUNTIF($B$1:$B$4,"x")']]);
  });
});
