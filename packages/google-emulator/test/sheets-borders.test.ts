import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { failureOf, SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

// updateBorders through googleapis: each side lands in the userEnteredFormat.borders of the cells
// it edges, an unset side stays as it was, and style NONE clears one.

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;
let spreadsheetId: string;
const DATA = 3;

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      properties: { title: 'Borders' },
      sheets: [
        { properties: { title: 'Data', sheetId: DATA, gridProperties: { rowCount: 5, columnCount: 4 } } },
      ],
    },
  });
  spreadsheetId = data.spreadsheetId!;
});

afterAll(async () => {
  await emulator?.close();
});

const update = (requests: sheets_v4.Schema$Request[]) =>
  sheets.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } });
const range = { sheetId: DATA, startRowIndex: 0, endRowIndex: 2, startColumnIndex: 0, endColumnIndex: 2 };
const red = { red: 1 };
const solid = { style: 'SOLID', color: red };

async function bordersOf(cells: string) {
  const { data } = await sheets.spreadsheets.get({
    spreadsheetId,
    ranges: [cells],
    fields: 'sheets.data.rowData.values.userEnteredFormat.borders',
  });
  return (data.sheets?.[0]?.data?.[0]?.rowData ?? []).map((row) =>
    (row.values ?? []).map((cell) => Object.keys(cell.userEnteredFormat?.borders ?? {}).sort()),
  );
}

describe('updateBorders', () => {
  it('puts the outer sides on the edge cells and the inner ones on both cells they divide', async () => {
    await update([{ updateBorders: { range, top: solid, bottom: solid, innerVertical: solid } }]);
    expect(await bordersOf('Data!A1:B2')).toEqual([
      [
        ['right', 'top'],
        ['left', 'top'],
      ],
      [
        ['bottom', 'right'],
        ['bottom', 'left'],
      ],
    ]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: ['Data!A1'],
      fields: 'sheets.data.rowData.values.userEnteredFormat.borders.top',
    });
    expect(data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]?.userEnteredFormat?.borders?.top).toEqual({
      style: 'SOLID',
      color: red,
      colorStyle: { rgbColor: red },
    });
  });

  it('keeps a side the request leaves out, and clears one set to NONE', async () => {
    await update([{ updateBorders: { range, left: solid, innerVertical: { style: 'NONE' } } }]);
    expect(await bordersOf('Data!A1:B2')).toEqual([
      [['left', 'top'], ['top']],
      [['bottom', 'left'], ['bottom']],
    ]);
  });

  it('refuses a range outside the grid, as Google does', async () => {
    const failure = await failureOf(
      update([{ updateBorders: { range: { ...range, endRowIndex: 9 }, top: solid } }]),
    );
    expect(failure.response?.status).toBe(400);
    expect(failure.response!.data.error.message).toContain('exceeds grid limits');
  });
});
