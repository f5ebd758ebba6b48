/**
 * One formula cannot take its spreadsheet down, through googleapis alone: a formula HyperFormula
 * or one of the emulator's functions throws on shows `#ERROR!` in its own cell, and the write,
 * every later read and write of the spreadsheet answer as before. And array literals holding
 * expressions evaluate as Sheets does ("Using arrays in Google Sheets",
 * https://support.google.com/docs/answer/6208276): `={SUM(A1:A2),1}` shows the sum and 1 side by
 * side, a semicolon stacks below.
 */
import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';
import { registerThrowingFunctions } from './support/throwing-functions.ts';

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;

beforeAll(async () => {
  registerThrowingFunctions();
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
});

afterAll(async () => {
  await emulator?.close();
});

/** A new spreadsheet whose Sheet1!A1:B2 holds 1, 5 / 2, 6. */
async function newSpreadsheet(): Promise<string> {
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      sheets: [{ properties: { title: 'Sheet1', gridProperties: { rowCount: 20, columnCount: 8 } } }],
    },
  });
  const spreadsheetId = data.spreadsheetId as string;
  await write(spreadsheetId, 'Sheet1!A1', [
    [1, 5],
    [2, 6],
  ]);
  return spreadsheetId;
}

async function write(spreadsheetId: string, range: string, values: unknown[][]): Promise<number> {
  const response = await sheets.spreadsheets.values.update({
    spreadsheetId,
    range,
    valueInputOption: 'USER_ENTERED',
    requestBody: { values },
  });
  return response.status;
}

async function read(spreadsheetId: string, range: string): Promise<unknown[][]> {
  const { data } = await sheets.spreadsheets.values.get({
    spreadsheetId,
    range,
    valueRenderOption: 'UNFORMATTED_VALUE',
  });
  return data.values ?? [];
}

describe('a formula that throws inside the engine', () => {
  it('shows #ERROR! in its own cell, and the spreadsheet answers every request after it', async () => {
    const spreadsheetId = await newSpreadsheet();
    await write(spreadsheetId, 'Sheet1!C1', [['=A1+1']]);
    // One throws while evaluated, one while the engine sizes its result (building its graph).
    expect(await write(spreadsheetId, 'Sheet1!D1', [['=TESTTHROW()', '=TESTTHROWSIZE()+1', '=C1*10']])).toBe(
      200,
    );
    expect(await read(spreadsheetId, 'Sheet1!C1:F1')).toEqual([[2, '#ERROR!', '#ERROR!', 20]]);

    const { data, status } = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: ['Sheet1!D1:E1'],
      includeGridData: true,
    });
    expect(status).toBe(200);
    const cells = data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values ?? [];
    for (const cell of cells)
      expect(cell.effectiveValue).toEqual({ errorValue: { type: 'ERROR', message: 'Formula parse error.' } });

    const batch = await sheets.spreadsheets.batchUpdate({
      spreadsheetId,
      requestBody: {
        requests: [
          { insertDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 0, endIndex: 1 } } },
        ],
      },
    });
    expect(batch.status).toBe(200);
    // The rows moved down one; later writes recalculate what depends on them.
    await write(spreadsheetId, 'Sheet1!A2', [[10]]);
    expect(await read(spreadsheetId, 'Sheet1!C2:F2')).toEqual([[11, '#ERROR!', '#ERROR!', 110]]);
    // The faulty formulas replaced, their cells evaluate again.
    await write(spreadsheetId, 'Sheet1!D2', [['=A2*3', '=B2']]);
    expect(await read(spreadsheetId, 'Sheet1!C2:F2')).toEqual([[11, 30, 5, 110]]);
  });
});

describe('array literals with expressions', () => {
  it('evaluates function calls, arithmetic, ranges and nested literals inside braces', async () => {
    const spreadsheetId = await newSpreadsheet();
    expect(await write(spreadsheetId, 'Sheet1!D1', [['={SUM(A1:A2),1}']])).toBe(200);
    expect(await read(spreadsheetId, 'Sheet1!D1:E1')).toEqual([[3, 1]]);
    await write(spreadsheetId, 'Sheet1!D1', [['=ROWS({SUM(A1:A2),1})', '=COLUMNS({SUM(A1:A2),1})']]);
    expect(await read(spreadsheetId, 'Sheet1!D1:E1')).toEqual([[1, 2]]);
    await write(spreadsheetId, 'Sheet1!D1', [['={A1;A2*2}', '']]);
    expect(await read(spreadsheetId, 'Sheet1!D1:D2')).toEqual([[1], [4]]);
    await write(spreadsheetId, 'Sheet1!D1', [['={A1:A2,B1:B2}']]);
    expect(await read(spreadsheetId, 'Sheet1!D1:E2')).toEqual([
      [1, 5],
      [2, 6],
    ]);
    await write(spreadsheetId, 'Sheet1!D1', [['={{SUM(A1:B1),MAX(A1:A2)};{"x",A2}}']]);
    expect(await read(spreadsheetId, 'Sheet1!D1:E2')).toEqual([
      [6, 2],
      ['x', 2],
    ]);
    await write(spreadsheetId, 'Sheet1!D1', [
      ['={"x",TODAY()}', ''],
      ['', ''],
    ]);
    const [[text, today]] = (await read(spreadsheetId, 'Sheet1!D1:E1')) as [[unknown, unknown]];
    expect(text).toBe('x');
    // TODAY() as a serial number: days since 1899-12-30, as Sheets counts.
    expect(today).toBe(Math.floor((Date.now() - Date.UTC(1899, 11, 30)) / 86_400_000));
    // The formula is given back as written.
    const { data } = await sheets.spreadsheets.values.get({
      spreadsheetId,
      range: 'Sheet1!D1',
      valueRenderOption: 'FORMULA',
    });
    expect(data.values).toEqual([['={"x",TODAY()}']]);
  });
});
