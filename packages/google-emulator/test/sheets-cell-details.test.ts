import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

// Notes, hyperlinks, data validation, formulas and formula errors through spreadsheets.get with
// ranges, includeGridData and field masks, and notes and rules written by batchUpdate — through
// googleapis alone, as Sheetgate's read_cell_details and set_notes use them.

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;
let spreadsheetId: string;

const DETAILS =
  'sheets(data(startRow,startColumn,rowData(values(note,hyperlink,dataValidation,userEnteredValue,effectiveValue))))';

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      properties: { title: 'Details' },
      sheets: [{ properties: { title: 'Data', sheetId: 7 } }],
    },
  });
  spreadsheetId = data.spreadsheetId!;
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Data!A1:C2',
    valueInputOption: 'USER_ENTERED',
    requestBody: {
      values: [
        ['Name', '=HYPERLINK("https://example.com/a?q=""x""", "site")', '=1/0'],
        ['Ada', 'plain', '=SUM(1,2)'],
      ],
    },
  });
});

afterAll(async () => {
  await emulator?.close();
});

async function cellsOf(range: string, fields = DETAILS) {
  const { data } = await sheets.spreadsheets.get({
    spreadsheetId,
    ranges: [range],
    includeGridData: true,
    fields,
  });
  return data.sheets?.[0]?.data?.[0];
}

describe('spreadsheets.get: cell details', () => {
  it('gives a =HYPERLINK() formula its link, a formula its text and an error its type and message', async () => {
    const grid = await cellsOf('Data!A1:C2');
    const [first, second] = grid?.rowData ?? [];
    expect(first?.values?.[1]).toEqual({
      hyperlink: 'https://example.com/a?q="x"',
      userEnteredValue: { formulaValue: '=HYPERLINK("https://example.com/a?q=""x""", "site")' },
      effectiveValue: expect.any(Object),
    });
    expect(first?.values?.[2]?.effectiveValue).toEqual({
      errorValue: { type: 'DIVIDE_BY_ZERO', message: 'Function DIVIDE parameter 2 cannot be zero.' },
    });
    expect(second?.values?.[2]).toEqual({
      userEnteredValue: { formulaValue: '=SUM(1,2)' },
      effectiveValue: { numberValue: 3 },
    });
    expect(second?.values?.[1]).toEqual({
      userEnteredValue: { stringValue: 'plain' },
      effectiveValue: { stringValue: 'plain' },
    });
  });

  it('a mask naming only notes returns empty cells for the rest, and the window’s start', async () => {
    await sheets.spreadsheets.batchUpdate({
      spreadsheetId,
      requestBody: {
        requests: [
          {
            updateCells: {
              range: { sheetId: 7, startRowIndex: 1, endRowIndex: 2, startColumnIndex: 0, endColumnIndex: 1 },
              rows: [{ values: [{ note: 'first author' }] }],
              fields: 'note',
            },
          },
          {
            updateCells: {
              start: { sheetId: 7, rowIndex: 4, columnIndex: 3 },
              rows: [
                { values: [{ note: 'on an empty cell', userEnteredValue: { stringValue: 'ignored' } }] },
              ],
              fields: 'note',
            },
          },
        ],
      },
    });
    const grid = await cellsOf('Data!A2:D5', 'sheets(data(startRow,startColumn,rowData(values(note))))');
    expect(grid?.startRow).toBe(1);
    expect(grid?.startColumn).toBeUndefined();
    expect(grid?.rowData?.[0]?.values?.[0]).toEqual({ note: 'first author' });
    expect(grid?.rowData?.[0]?.values?.[1]).toEqual({});
    expect(grid?.rowData?.[3]?.values?.[3]).toEqual({ note: 'on an empty cell' });
    // The mask named only the note: the value given beside it was not written.
    const { data } = await sheets.spreadsheets.values.get({ spreadsheetId, range: 'Data!D5' });
    expect(data.values).toBeUndefined();
  });

  it('updateCells with fields note and no note clears it, leaving the value', async () => {
    await sheets.spreadsheets.batchUpdate({
      spreadsheetId,
      requestBody: {
        requests: [
          {
            updateCells: {
              range: { sheetId: 7, startRowIndex: 1, endRowIndex: 2, startColumnIndex: 0, endColumnIndex: 1 },
              fields: 'note',
            },
          },
        ],
      },
    });
    const grid = await cellsOf('Data!A2', 'sheets(data(rowData(values(note,userEnteredValue))))');
    expect(grid?.rowData?.[0]?.values?.[0]).toEqual({ userEnteredValue: { stringValue: 'Ada' } });
  });

  it('setDataValidation sets a rule on each cell of its range, and without a rule clears it', async () => {
    const rule = {
      condition: { type: 'ONE_OF_LIST', values: [{ userEnteredValue: 'yes' }, { userEnteredValue: 'no' }] },
      strict: true,
      showCustomUi: true,
    };
    const range = { sheetId: 7, startRowIndex: 5, endRowIndex: 7, startColumnIndex: 1, endColumnIndex: 2 };
    await sheets.spreadsheets.batchUpdate({
      spreadsheetId,
      requestBody: { requests: [{ setDataValidation: { range, rule } }] },
    });
    const grid = await cellsOf('Data!B6:B7', 'sheets(data(rowData(values(dataValidation))))');
    expect(grid?.rowData?.map((row) => row.values?.[0])).toEqual([
      { dataValidation: rule },
      { dataValidation: rule },
    ]);
    await sheets.spreadsheets.batchUpdate({
      spreadsheetId,
      requestBody: { requests: [{ setDataValidation: { range } }] },
    });
    const cleared = await cellsOf('Data!B6:B7', 'sheets(data(rowData(values(dataValidation))))');
    expect(cleared?.rowData).toBeUndefined();
  });

  it('setDataValidation past the grid is refused as Google refuses it', async () => {
    const call = sheets.spreadsheets.batchUpdate({
      spreadsheetId,
      requestBody: {
        requests: [{ setDataValidation: { range: { sheetId: 7, startRowIndex: 999, endRowIndex: 1001 } } }],
      },
    });
    await expect(call).rejects.toThrow(
      /Invalid requests\[0\]\.setDataValidation: Range .* exceeds grid limits/,
    );
  });
});
