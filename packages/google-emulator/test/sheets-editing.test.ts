import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { shiftFormula } from '../src/sheets/shift-formula.ts';
import { failureOf, SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

// The batchUpdate requests that edit cells in place (copyPaste, cutPaste, autoFill, sortRange,
// mergeCells, unmergeCells, updateDimensionProperties, autoResizeDimensions), through googleapis
// alone, as Google documents them.

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

async function book(values: unknown[][]): Promise<string> {
  const { data } = await sheets.spreadsheets.create({ requestBody: { properties: { title: 'Editing' } } });
  const spreadsheetId = data.spreadsheetId as string;
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Sheet1!A1',
    valueInputOption: 'USER_ENTERED',
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

const update = (spreadsheetId: string, requests: sheets_v4.Schema$Request[]) =>
  sheets.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } });

const read = async (spreadsheetId: string, range: string, valueRenderOption = 'FORMULA') =>
  (await sheets.spreadsheets.values.get({ spreadsheetId, range, valueRenderOption })).data.values ?? [];

describe('shifting formulas', () => {
  it('moves relative parts, keeps anchors, quoted text and function names', () => {
    expect(shiftFormula('=A1+$B$2+C$3+$D4', 2, 1)).toBe('=B3+$B$2+D$3+$D6');
    expect(shiftFormula('=SUM(A1:B2)*LOG10(A1)&"A1"', 1, 0)).toBe('=SUM(A2:B3)*LOG10(A2)&"A1"');
    expect(shiftFormula("='Q1'!A1+Data!B:B", 0, 1)).toBe("='Q1'!B1+Data!C:C");
    expect(shiftFormula('=A1', -1, 0)).toBe('=#REF!');
  });
});

describe('copyPaste and cutPaste', () => {
  it('copies formulas shifted, values and formats, repeating to fill a multiple', async () => {
    const id = await book([
      [1, 10, '=A1*B1'],
      [2, 20, '=A2*B2'],
    ]);
    await update(id, [
      {
        repeatCell: {
          range: grid([0, 1], [2, 3]),
          cell: { userEnteredFormat: { textFormat: { bold: true } } },
          fields: 'userEnteredFormat.textFormat.bold',
        },
      },
      { copyPaste: { source: grid([0, 2], [2, 3]), destination: grid([0, 4], [3, 4]) } },
    ]);
    expect(await read(id, 'Sheet1!D1:D4')).toEqual([['=B1*C1'], ['=B2*C2'], ['=B3*C3'], ['=B4*C4']]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId: id,
      ranges: ['Sheet1!D1'],
      includeGridData: true,
    });
    expect(data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]?.userEnteredFormat?.textFormat?.bold).toBe(
      true,
    );
  });

  it('pastes computed values, or formats only', async () => {
    const id = await book([[3, 4, '=A1*B1']]);
    await update(id, [
      {
        copyPaste: {
          source: grid([0, 1], [2, 3]),
          destination: grid([1, 2], [2, 3]),
          pasteType: 'PASTE_VALUES',
        },
      },
      {
        copyPaste: {
          source: grid([0, 1], [0, 1]),
          destination: grid([2, 3], [0, 1]),
          pasteType: 'PASTE_FORMAT',
        },
      },
    ]);
    expect(await read(id, 'Sheet1!C2')).toEqual([[12]]);
    expect(await read(id, 'Sheet1!A3')).toEqual([]);
  });

  it('cuts: the source is emptied and formulas keep their references', async () => {
    const id = await book([[5, '=A1*2']]);
    await update(id, [
      {
        cutPaste: { source: grid([0, 1], [1, 2]), destination: { sheetId: 0, rowIndex: 4, columnIndex: 3 } },
      },
    ]);
    expect(await read(id, 'Sheet1!A1:D5')).toEqual([[5], [], [], [], ['', '', '', '=A1*2']]);
  });

  // An array formula's result fills the cells beside it, which hold no formula
  // (https://support.google.com/docs/answer/3093275): values pasted are every cell's shown value
  // (PasteType PASTE_VALUES, https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/request#PasteType);
  // a normal paste or cut carries the formula from its own cell only, and it spills again there.
  it('pastes the values of every cell a spilled array fills, or moves its formula', async () => {
    /** What each cell of the range holds itself (userEnteredValue), null for none. */
    const entered = async (spreadsheetId: string, range: string) => {
      const { data } = await sheets.spreadsheets.get({
        spreadsheetId,
        ranges: [range],
        includeGridData: true,
      });
      const rows = data.sheets?.[0]?.data?.[0]?.rowData ?? [];
      return [0, 1, 2].map((row) =>
        [0, 1].map((column) => rows[row]?.values?.[column]?.userEnteredValue ?? null),
      );
    };
    const id = await book([
      ['b', 2, '=SORT($A$1:$B$3)'],
      ['c', 3],
      ['a', 1],
    ]);
    const sorted = [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ];
    await update(id, [
      {
        copyPaste: {
          source: grid([0, 3], [2, 4]),
          destination: grid([4, 5], [0, 1]),
          pasteType: 'PASTE_VALUES',
        },
      },
    ]);
    expect(await read(id, 'Sheet1!A5:B7')).toEqual(sorted);
    expect(await read(id, 'Sheet1!A5:B7', 'UNFORMATTED_VALUE')).toEqual(sorted);

    await update(id, [{ copyPaste: { source: grid([0, 3], [2, 4]), destination: grid([0, 1], [5, 6]) } }]);
    expect(await entered(id, 'Sheet1!F1:G3')).toEqual([
      [{ formulaValue: '=SORT($A$1:$B$3)' }, null],
      [null, null],
      [null, null],
    ]);
    expect(await read(id, 'Sheet1!F1:G3', 'UNFORMATTED_VALUE')).toEqual(sorted);

    await update(id, [
      {
        cutPaste: { source: grid([0, 3], [2, 4]), destination: { sheetId: 0, rowIndex: 8, columnIndex: 2 } },
      },
    ]);
    expect(await read(id, 'Sheet1!C1:D3', 'UNFORMATTED_VALUE')).toEqual([]);
    expect(await entered(id, 'Sheet1!C9:D11')).toEqual([
      [{ formulaValue: '=SORT($A$1:$B$3)' }, null],
      [null, null],
      [null, null],
    ]);
    expect(await read(id, 'Sheet1!C9:D11', 'UNFORMATTED_VALUE')).toEqual(sorted);

    await update(id, [
      {
        cutPaste: {
          source: grid([8, 11], [2, 4]),
          destination: { sheetId: 0, rowIndex: 12, columnIndex: 0 },
          pasteType: 'PASTE_VALUES',
        },
      },
    ]);
    expect(await read(id, 'Sheet1!A13:B15')).toEqual(sorted);
    expect(await read(id, 'Sheet1!C9:D11', 'UNFORMATTED_VALUE')).toEqual([]);
  });

  it('refuses a paste past the grid', async () => {
    const id = await book([[1]]);
    const failure = await failureOf(
      update(id, [{ copyPaste: { source: grid([0, 1], [0, 1]), destination: grid([0, 1], [26, 27]) } }]),
    );
    expect(failure.response?.status).toBe(400);
  });
});

describe('autoFill', () => {
  it('continues number and text series and shifts formulas, down and up', async () => {
    const id = await book([
      [1, 'Week 1', '=A1*2', 'x'],
      [3, 'Week 2', '=A2*2', 'x'],
    ]);
    await update(id, [
      {
        autoFill: {
          sourceAndDestination: { source: grid([0, 2], [0, 4]), dimension: 'ROWS', fillLength: 2 },
        },
      },
    ]);
    expect(await read(id, 'Sheet1!A3:D4')).toEqual([
      [5, 'Week 3', '=A3*2', 'x'],
      [7, 'Week 4', '=A4*2', 'x'],
    ]);
  });

  it('fills a range from the data at its start, across columns too', async () => {
    const id = await book([[10, 20, '', '']]);
    await update(id, [{ autoFill: { range: grid([0, 1], [0, 4]) } }]);
    expect(await read(id, 'Sheet1!A1:D1')).toEqual([[10, 20, 30, 40]]);
  });
});

describe('sortRange', () => {
  it('sorts by columns, blanks last, formulas moving with their rows', async () => {
    const id = await book([
      ['b', 2, '=B1*10'],
      ['', 9, ''],
      ['a', 2, '=B3*10'],
      ['c', 1, '=B4*10'],
    ]);
    await update(id, [
      {
        sortRange: {
          range: grid([0, 4], [0, 3]),
          sortSpecs: [
            { dimensionIndex: 1, sortOrder: 'ASCENDING' },
            { dimensionIndex: 0, sortOrder: 'DESCENDING' },
          ],
        },
      },
    ]);
    expect(await read(id, 'Sheet1!A1:C4')).toEqual([
      ['c', 1, '=B1*10'],
      ['b', 2, '=B2*10'],
      ['a', 2, '=B3*10'],
      ['', 9],
    ]);
  });
});

describe('mergeCells and unmergeCells', () => {
  it('merges, keeps the top-left value, refuses a partial overlap, unmerges', async () => {
    const id = await book([
      ['keep', 'gone'],
      ['gone', 'gone'],
    ]);
    await update(id, [{ mergeCells: { range: grid([0, 2], [0, 2]), mergeType: 'MERGE_ALL' } }]);
    expect(await read(id, 'Sheet1!A1:B2')).toEqual([['keep']]);
    const merged = await sheets.spreadsheets.get({ spreadsheetId: id, fields: 'sheets.merges' });
    expect(merged.data.sheets?.[0]?.merges).toEqual([grid([0, 2], [0, 2])]);
    const failure = await failureOf(
      update(id, [{ mergeCells: { range: grid([1, 3], [1, 3]), mergeType: 'MERGE_ALL' } }]),
    );
    expect(failure.response?.status).toBe(400);
    expect(failure.response?.data.error.message).toMatch(
      /^Invalid requests\[0\]\.mergeCells: You can't merge/,
    );
    await update(id, [{ mergeCells: { range: grid([4, 6], [0, 3]), mergeType: 'MERGE_ROWS' } }]);
    await update(id, [{ unmergeCells: { range: grid([0, 1], [0, 1]) } }]);
    const after = await sheets.spreadsheets.get({ spreadsheetId: id, fields: 'sheets.merges' });
    expect(after.data.sheets?.[0]?.merges).toEqual([grid([4, 5], [0, 3]), grid([5, 6], [0, 3])]);
  });

  it('moves merges with inserted and deleted rows and columns, and drops one left with one cell', async () => {
    const id = await book([['a', 'b', 'c']]);
    await update(id, [
      { mergeCells: { range: grid([2, 4], [0, 2]), mergeType: 'MERGE_ALL' } },
      { mergeCells: { range: grid([6, 7], [0, 2]), mergeType: 'MERGE_ALL' } },
    ]);
    const dimension = (
      kind: 'insertDimension' | 'deleteDimension',
      rows: boolean,
      start: number,
      end: number,
    ) => ({
      [kind]: {
        range: { sheetId: 0, dimension: rows ? 'ROWS' : 'COLUMNS', startIndex: start, endIndex: end },
      },
    });
    const merges = async () =>
      (await sheets.spreadsheets.get({ spreadsheetId: id, fields: 'sheets.merges' })).data.sheets?.[0]
        ?.merges;
    // Two rows above: both move down; one row inside the first: it grows.
    await update(id, [dimension('insertDimension', true, 0, 2), dimension('insertDimension', true, 5, 6)]);
    expect(await merges()).toEqual([grid([4, 7], [0, 2]), grid([9, 10], [0, 2])]);
    // A column deleted across both: the one-row merge is left with one cell and comes apart.
    await update(id, [dimension('deleteDimension', false, 1, 2)]);
    expect(await merges()).toEqual([grid([4, 7], [0, 1])]);
  });
});

describe('dimension properties', () => {
  it('sets, hides and auto-fits rows and columns', async () => {
    const id = await book([['a rather long piece of text']]);
    await update(id, [
      {
        updateDimensionProperties: {
          range: { sheetId: 0, dimension: 'ROWS', startIndex: 1, endIndex: 3 },
          properties: { pixelSize: 40 },
          fields: 'pixelSize',
        },
      },
      {
        updateDimensionProperties: {
          range: { sheetId: 0, dimension: 'COLUMNS', startIndex: 1, endIndex: 2 },
          properties: { hiddenByUser: true },
          fields: 'hiddenByUser',
        },
      },
      {
        autoResizeDimensions: {
          dimensions: { sheetId: 0, dimension: 'COLUMNS', startIndex: 0, endIndex: 1 },
        },
      },
    ]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId: id,
      ranges: ['Sheet1!A1:C3'],
      includeGridData: true,
      fields: 'sheets.data(rowMetadata,columnMetadata)',
    });
    const sheetData = data.sheets?.[0]?.data?.[0];
    expect(sheetData?.rowMetadata?.map((row) => row.pixelSize)).toEqual([21, 40, 40]);
    expect(sheetData?.columnMetadata?.[1]).toEqual({ hiddenByUser: true, pixelSize: 100 });
    expect(sheetData?.columnMetadata?.[0]?.pixelSize).toBeGreaterThan(100);
    const failure = await failureOf(
      update(id, [
        {
          updateDimensionProperties: {
            range: { sheetId: 0, dimension: 'ROWS', startIndex: 999, endIndex: 1001 },
            properties: { pixelSize: 40 },
            fields: 'pixelSize',
          },
        },
      ]),
    );
    expect(failure.response?.status).toBe(400);
  });
});

describe('sheets.copyTo', () => {
  it('copies a tab with its cells and merges to the end of another spreadsheet', async () => {
    const source = await book([['a', '=1+1']]);
    await update(source, [{ mergeCells: { range: grid([2, 3], [0, 2]), mergeType: 'MERGE_ALL' } }]);
    const target = await book([['x']]);
    const first = await sheets.spreadsheets.sheets.copyTo({
      spreadsheetId: source,
      sheetId: 0,
      requestBody: { destinationSpreadsheetId: target },
    });
    expect(first.data).toMatchObject({ title: 'Copy of Sheet1', index: 1, sheetType: 'GRID' });
    const again = await sheets.spreadsheets.sheets.copyTo({
      spreadsheetId: source,
      sheetId: 0,
      requestBody: { destinationSpreadsheetId: target },
    });
    expect(again.data.title).toBe('Copy of Sheet1 2');
    expect(await read(target, "'Copy of Sheet1'!A1:B1")).toEqual([['a', '=1+1']]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId: target,
      fields: 'sheets(properties.title,merges)',
    });
    expect(data.sheets?.[1]?.merges).toEqual([{ ...grid([2, 3], [0, 2]), sheetId: first.data.sheetId }]);
    const missing = await failureOf(
      sheets.spreadsheets.sheets.copyTo({
        spreadsheetId: source,
        sheetId: 77,
        requestBody: { destinationSpreadsheetId: target },
      }),
    );
    expect(missing.response?.status).toBe(400);
    const nowhere = await failureOf(
      sheets.spreadsheets.sheets.copyTo({
        spreadsheetId: source,
        sheetId: 0,
        requestBody: { destinationSpreadsheetId: 'nope' },
      }),
    );
    expect(nowhere.response?.status).toBe(404);
  });
});
