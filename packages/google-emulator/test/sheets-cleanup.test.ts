import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { failureOf, SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

// Data cleanup's batchUpdate requests (deleteDuplicates, trimWhitespace) through googleapis alone,
// as the Sheets API reference documents them.

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

async function book(values: unknown[][], valueInputOption = 'USER_ENTERED'): Promise<string> {
  const { data } = await sheets.spreadsheets.create({ requestBody: { properties: { title: 'Cleanup' } } });
  const spreadsheetId = data.spreadsheetId as string;
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Sheet1!A1',
    valueInputOption,
    requestBody: { values },
  });
  return spreadsheetId;
}

const grid = (rows: [number, number], columns: [number, number]) => ({
  sheetId: 0,
  startRowIndex: rows[0],
  endRowIndex: rows[1],
  startColumnIndex: columns[0],
  endColumnIndex: columns[1],
});

const update = async (spreadsheetId: string, requests: sheets_v4.Schema$Request[]) =>
  (await sheets.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } })).data.replies ?? [];

const read = async (spreadsheetId: string, range: string) =>
  (await sheets.spreadsheets.values.get({ spreadsheetId, range, valueRenderOption: 'FORMULA' })).data
    .values ?? [];

describe('deleteDuplicates', () => {
  it('keeps the first of rows alike in every column, ignoring case, and moves the rest up', async () => {
    const id = await book([
      ['Ada', 'ada@x.org', 'keep'],
      ['Bob', 'bob@x.org', 'keep'],
      ['ADA', 'ADA@x.org', 'keep'],
      ['Cy', 'cy@x.org', 'keep'],
      ['Bob', 'bob@x.org', 'keep'],
      ['', '', 'below'],
    ]);
    const replies = await update(id, [{ deleteDuplicates: { range: grid([0, 5], [0, 2]) } }]);
    expect(replies).toEqual([{ deleteDuplicates: { duplicatesRemovedCount: 2 } }]);
    // Column C is outside the range: untouched. The freed rows at the range's bottom are empty.
    expect(await read(id, 'Sheet1!A1:C6')).toEqual([
      ['Ada', 'ada@x.org', 'keep'],
      ['Bob', 'bob@x.org', 'keep'],
      ['Cy', 'cy@x.org', 'keep'],
      ['', '', 'keep'],
      ['', '', 'keep'],
      ['', '', 'below'],
    ]);
  });

  it('compares only the comparison columns, and formulas by their results', async () => {
    const id = await book([
      ['Ada', 1, '=B1*2'],
      ['Ada', 2, '=B2*2'],
      ['Bea', 3, 2],
      ['Cy', 4, '=B4*2'],
    ]);
    const [byName] = await update(id, [
      {
        deleteDuplicates: {
          range: grid([0, 4], [0, 3]),
          comparisonColumns: [{ sheetId: 0, dimension: 'COLUMNS', startIndex: 0, endIndex: 1 }],
        },
      },
    ]);
    expect(byName).toEqual({ deleteDuplicates: { duplicatesRemovedCount: 1 } });
    // The moved formulas' relative references move with their rows.
    expect(await read(id, 'Sheet1!A1:C4')).toEqual([
      ['Ada', 1, '=B1*2'],
      ['Bea', 3, 2],
      ['Cy', 4, '=B3*2'],
    ]);
    const [byResult] = await update(id, [
      {
        deleteDuplicates: {
          range: grid([0, 3], [0, 3]),
          comparisonColumns: [{ sheetId: 0, dimension: 'COLUMNS', startIndex: 2, endIndex: 3 }],
        },
      },
    ]);
    // =B1*2 is 2, as Bea's typed 2 is.
    expect(byResult).toEqual({ deleteDuplicates: { duplicatesRemovedCount: 1 } });
  });

  it('moves formats with their rows, and answers no count when nothing was removed', async () => {
    const id = await book([['a'], ['b'], ['a'], ['c']]);
    await update(id, [
      {
        repeatCell: {
          range: grid([3, 4], [0, 1]),
          cell: { userEnteredFormat: { textFormat: { bold: true } } },
          fields: 'userEnteredFormat.textFormat.bold',
        },
      },
    ]);
    await update(id, [{ deleteDuplicates: { range: grid([0, 4], [0, 1]) } }]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId: id,
      ranges: ['Sheet1!A3:A4'],
      fields: 'sheets(data(rowData(values(userEnteredValue,userEnteredFormat.textFormat.bold))))',
    });
    expect(data.sheets?.[0]?.data?.[0]?.rowData).toEqual([
      {
        values: [
          { userEnteredValue: { stringValue: 'c' }, userEnteredFormat: { textFormat: { bold: true } } },
        ],
      },
    ]);
    expect(await update(id, [{ deleteDuplicates: { range: grid([0, 3], [0, 1]) } }])).toEqual([
      { deleteDuplicates: {} },
    ]);
  });

  it('refuses comparison columns outside the range, and a range past the grid', async () => {
    const id = await book([['a', 'b']]);
    const outside = await failureOf(
      update(id, [
        {
          deleteDuplicates: {
            range: grid([0, 1], [0, 1]),
            comparisonColumns: [{ sheetId: 0, dimension: 'COLUMNS', startIndex: 1, endIndex: 2 }],
          },
        },
      ]),
    );
    expect(outside.response?.status).toBe(400);
    expect(outside.response?.data.error.message).toMatch(/^Invalid requests\[0\]\.deleteDuplicates: /);
    const past = await failureOf(update(id, [{ deleteDuplicates: { range: grid([0, 1001], [0, 1]) } }]));
    expect(past.response?.status).toBe(400);
  });
});

describe('trimWhitespace', () => {
  it('trims the ends of text and collapses inner runs to one space, leaving numbers and formulas', async () => {
    const id = await book([
      ['  Ada   Lovelace ', '\tbob\n', 12, '=" x  "'],
      ['clean', '   ', '  =1+1 ', 'ok'],
    ]);
    const replies = await update(id, [{ trimWhitespace: { range: grid([0, 2], [0, 4]) } }]);
    expect(replies).toEqual([{ trimWhitespace: { cellsChangedCount: 4 } }]);
    expect(await read(id, 'Sheet1!A1:D2')).toEqual([
      ['Ada Lovelace', 'bob', 12, '=" x  "'],
      ['clean', '', '=1+1', 'ok'],
    ]);
    // Trimmed text that starts with = stays text.
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId: id,
      ranges: ['Sheet1!C2'],
      fields: 'sheets(data(rowData(values(userEnteredValue))))',
    });
    expect(data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]?.userEnteredValue).toEqual({
      stringValue: '=1+1',
    });
    expect(await update(id, [{ trimWhitespace: { range: grid([0, 2], [0, 4]) } }])).toEqual([
      { trimWhitespace: {} },
    ]);
  });
});
