import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { type DimensionChange, rewriteFormulaForDimension } from '../src/sheets/dimension-references.ts';
import { SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

// Formulas follow the rows and columns that insertDimension, deleteDimension and values.append
// INSERT_ROWS move, as Google Sheets rewrites them.

const rows = (sheetTitle: string, start: number, count: number): DimensionChange => ({
  sheetTitle,
  rows: true,
  start,
  count,
});
const columns = (sheetTitle: string, start: number, count: number): DimensionChange => ({
  sheetTitle,
  rows: false,
  start,
  count,
});

/** The formula on tab `Sheet1` after the change. */
const onSheet1 = (formula: string, change: DimensionChange) =>
  rewriteFormulaForDimension(formula, change, 'Sheet1');

describe('rewriteFormulaForDimension: inserted rows', () => {
  // One row inserted at index 5: before row 6.
  const insert = rows('Sheet1', 5, 1);

  it('moves references at or after the insertion, anchored or not, and leaves earlier ones', () => {
    expect(onSheet1('=B6+B$6+$B6+$B$6', insert)).toBe('=B7+B$7+$B7+$B$7');
    expect(onSheet1('=B5*2+A1', insert)).toBe('=B5*2+A1');
    expect(onSheet1('=b6', insert)).toBe('=B7');
  });

  it('grows a range across the insertion, moves one after it, keeps one before it', () => {
    expect(onSheet1('=SUM(B2:B5)', insert)).toBe('=SUM(B2:B5)');
    expect(onSheet1('=SUM(B2:B6)', insert)).toBe('=SUM(B2:B7)');
    expect(onSheet1('=SUM($B$2:$B$9)', insert)).toBe('=SUM($B$2:$B$10)');
    expect(onSheet1('=SUM(B6:C9)', insert)).toBe('=SUM(B7:C10)');
    expect(onSheet1('=SUM(B9:B2)', insert)).toBe('=SUM(B10:B2)');
    expect(onSheet1('=SUM(2:9)+SUM(7:8)', insert)).toBe('=SUM(2:10)+SUM(8:9)');
  });

  it('inserts several rows at once and at the top', () => {
    expect(onSheet1('=SUM(A1:A3)+A4', rows('Sheet1', 0, 3))).toBe('=SUM(A4:A6)+A7');
    expect(onSheet1('=SUM(A1:A3)+A4', rows('Sheet1', 1, 2))).toBe('=SUM(A1:A5)+A6');
  });

  it('leaves whole columns, open ends and function names alone', () => {
    expect(onSheet1('=SUM(C:C)+SUM($A:B)', insert)).toBe('=SUM(C:C)+SUM($A:B)');
    expect(onSheet1('=SUM(A2:C)+SUM(A9:C)', insert)).toBe('=SUM(A2:C)+SUM(A10:C)');
    expect(onSheet1('=LOG10(B6)+ATAN2(B6,1)', insert)).toBe('=LOG10(B7)+ATAN2(B7,1)');
    expect(onSheet1('=Sales2024+1.5E3+6', insert)).toBe('=Sales2024+1.5E3+6');
  });

  it('never touches text in double quotes', () => {
    expect(onSheet1('="B6"&B6&"Sheet1!B6 ""B6"""', insert)).toBe('="B6"&B7&"Sheet1!B6 ""B6"""');
    expect(onSheet1('=INDIRECT("B6")', insert)).toBe('=INDIRECT("B6")');
  });
});

describe('rewriteFormulaForDimension: tabs', () => {
  const insert = rows('Expenses', 5, 1);

  it('rewrites references qualified with the changed tab in formulas on any tab', () => {
    expect(rewriteFormulaForDimension('=SUM(Expenses!B2:B6)', insert, 'Summary')).toBe(
      '=SUM(Expenses!B2:B7)',
    );
    expect(rewriteFormulaForDimension('=Expenses!B6', insert, 'Expenses')).toBe('=Expenses!B7');
    expect(rewriteFormulaForDimension('=expenses!B6', insert, 'Summary')).toBe('=expenses!B7');
  });

  it('rewrites unqualified references only on the changed tab', () => {
    expect(rewriteFormulaForDimension('=B6+Summary!B6', insert, 'Summary')).toBe('=B6+Summary!B6');
    expect(rewriteFormulaForDimension('=B6+Summary!B6', insert, 'Expenses')).toBe('=B7+Summary!B6');
  });

  it('reads quoted tab names, with doubled quotes and spaces', () => {
    const myTab = rows('My tab', 5, 1);
    expect(rewriteFormulaForDimension("=SUM('My tab'!B6:C9)+B6", myTab, 'Other')).toBe(
      "=SUM('My tab'!B7:C10)+B6",
    );
    expect(rewriteFormulaForDimension("='It''s'!A6+'My tab'!A6", rows("It's", 0, 2), 'Other')).toBe(
      "='It''s'!A8+'My tab'!A6",
    );
    expect(rewriteFormulaForDimension("='Expenses 2'!B6+'Expenses'!B6", insert, 'Other')).toBe(
      "='Expenses 2'!B6+'Expenses'!B7",
    );
  });
});

describe('rewriteFormulaForDimension: deleted rows', () => {
  // Rows 4 and 5 (indexes 3 and 4) deleted.
  const remove = rows('Sheet1', 3, -2);

  it('moves later references back and turns one to a deleted cell into #REF!', () => {
    expect(onSheet1('=A9+A3', remove)).toBe('=A7+A3');
    expect(onSheet1('=A4+A5*2', remove)).toBe('=#REF!+#REF!*2');
    expect(rewriteFormulaForDimension('=Sheet1!$A$5+1', remove, 'Other')).toBe('=#REF!+1');
  });

  it('shrinks ranges that lose rows and turns a wholly deleted one into #REF!', () => {
    expect(onSheet1('=SUM(A1:A9)', remove)).toBe('=SUM(A1:A7)');
    expect(onSheet1('=SUM(A4:A9)', remove)).toBe('=SUM(A4:A7)');
    expect(onSheet1('=SUM(A2:A4)', remove)).toBe('=SUM(A2:A3)');
    expect(onSheet1('=SUM(A4:B5)', remove)).toBe('=SUM(#REF!)');
    expect(onSheet1('=SUM(4:5)+SUM(D:D)', remove)).toBe('=SUM(#REF!)+SUM(D:D)');
    expect(onSheet1('=SUM(A5:C)', remove)).toBe('=SUM(A4:C)');
  });
});

describe('rewriteFormulaForDimension: columns', () => {
  it('moves columns on insertion, growing ranges across it, leaving whole rows', () => {
    const insert = columns('Sheet1', 2, 1); // before column C
    expect(onSheet1('=B1+C1+$C$1+AA1', insert)).toBe('=B1+D1+$D$1+AB1');
    expect(onSheet1('=SUM(A1:C9)+SUM(A1:B9)+SUM(C:E)', insert)).toBe('=SUM(A1:D9)+SUM(A1:B9)+SUM(D:F)');
    expect(onSheet1('=SUM(2:5)', insert)).toBe('=SUM(2:5)');
  });

  it('deletes columns: later ones move left, deleted ones become #REF!', () => {
    const remove = columns('Sheet1', 1, -2); // B and C
    expect(onSheet1('=A1+B1+D1+SUM(A1:E1)+SUM(B:C)', remove)).toBe('=A1+#REF!+B1+SUM(A1:C1)+SUM(#REF!)');
    expect(onSheet1('=SUM(C1:Z1)', remove)).toBe('=SUM(B1:X1)');
  });
});

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;

beforeAll(async () => {
  let clientA: Awaited<ReturnType<typeof startTestEmulator>>['clientA'];
  ({ emulator, clientA } = await startTestEmulator());
  const { auth } = await signIn(emulator, clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
});
afterAll(async () => {
  await emulator?.close();
});

const EXPENSES = 11;
const SUMMARY = 12;

/** An Expenses tab of five amounts (B2:B6) and a Summary tab of formulas over it. */
async function budget(): Promise<string> {
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      properties: { title: 'Budget' },
      sheets: [
        { properties: { sheetId: EXPENSES, title: 'Expenses' } },
        { properties: { sheetId: SUMMARY, title: 'Summary' } },
      ],
    },
  });
  const spreadsheetId = data.spreadsheetId as string;
  await sheets.spreadsheets.values.batchUpdate({
    spreadsheetId,
    requestBody: {
      valueInputOption: 'USER_ENTERED',
      data: [
        {
          range: 'Expenses!A1',
          values: [
            ['Item', 'Amount'],
            ['Rent', 1000],
            ['Food', 300],
            ['Power', 80],
            ['Web', 40],
            ['Bus', 60],
            ['Total', '=SUM(B2:B6)'],
          ],
        },
        {
          range: 'Summary!A1',
          values: [
            ['Total', '=SUM(Expenses!B2:B6)'],
            ['Last', '=Expenses!B$6'],
            ['Rent', "='Expenses'!B2"],
            ['Label', '="Expenses!B6"'],
            ['Column', '=COUNT(Expenses!B:B)'],
          ],
        },
      ],
    },
  });
  return spreadsheetId;
}

const read = async (spreadsheetId: string, range: string, valueRenderOption: string) =>
  (await sheets.spreadsheets.values.get({ spreadsheetId, range, valueRenderOption })).data.values ?? [];

const dimension = (
  kind: 'insertDimension' | 'deleteDimension',
  sheetId: number,
  startIndex: number,
  endIndex: number,
): sheets_v4.Schema$Request => ({ [kind]: { range: { sheetId, dimension: 'ROWS', startIndex, endIndex } } });

describe('formulas through the Sheets API when rows move', () => {
  it('insertDimension: formulas on every tab follow the rows, and the totals still compute', async () => {
    const id = await budget();
    // A row before row 6 (Bus), inside the summed range B2:B6.
    await sheets.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: { requests: [dimension('insertDimension', EXPENSES, 5, 6)] },
    });
    expect(await read(id, 'Summary!B1:B5', 'FORMULA')).toEqual([
      ['=SUM(Expenses!B2:B7)'],
      ['=Expenses!B$7'],
      ["='Expenses'!B2"],
      ['="Expenses!B6"'],
      ['=COUNT(Expenses!B:B)'],
    ]);
    expect(await read(id, 'Expenses!B8', 'FORMULA')).toEqual([['=SUM(B2:B7)']]);

    await sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Expenses!A6',
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: [['Gym', 25]] },
    });
    expect(await read(id, 'Summary!B1:B5', 'FORMATTED_VALUE')).toEqual([
      ['1505'],
      ['60'],
      ['1000'],
      ['Expenses!B6'],
      ['7'],
    ]);
    expect(await read(id, 'Expenses!B8', 'FORMATTED_VALUE')).toEqual([['1505']]);
  });

  it('deleteDimension: ranges shrink and a reference to a deleted row is #REF!', async () => {
    const id = await budget();
    await sheets.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: { requests: [dimension('deleteDimension', EXPENSES, 5, 6)] },
    });
    expect(await read(id, 'Summary!B1:B3', 'FORMULA')).toEqual([
      ['=SUM(Expenses!B2:B5)'],
      ['=#REF!'],
      ["='Expenses'!B2"],
    ]);
    expect(await read(id, 'Summary!B1:B3', 'FORMATTED_VALUE')).toEqual([['1420'], ['#REF!'], ['1000']]);
    expect(await read(id, 'Expenses!B6', 'FORMULA')).toEqual([['=SUM(B2:B5)']]);
  });

  it('values.append INSERT_ROWS: rows inserted after the table move what refers below it', async () => {
    const { data } = await sheets.spreadsheets.create({ requestBody: { properties: { title: 'Log' } } });
    const id = data.spreadsheetId as string;
    await sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Sheet1!A1',
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: [[1], [2], [], ['=SUM(A1:A2)', '=A4']] },
    });
    await sheets.spreadsheets.values.append({
      spreadsheetId: id,
      range: 'Sheet1!A1',
      valueInputOption: 'USER_ENTERED',
      insertDataOption: 'INSERT_ROWS',
      requestBody: { values: [[3]] },
    });
    expect(await read(id, 'Sheet1!A1:B5', 'FORMULA')).toEqual([[1], [2], [3], [], ['=SUM(A1:A2)', '=A5']]);
  });
});
