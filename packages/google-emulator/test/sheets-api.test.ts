import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { SCOPES, sheetsFor, signIn, startTestEmulator, type TestClient } from './support/emulator.ts';

let emulator: GoogleEmulator;
let clientA: TestClient;
let clientB: TestClient;
let sheets: sheets_v4.Sheets;

beforeAll(async () => {
  ({ emulator, clientA, clientB } = await startTestEmulator());
  const { auth } = await signIn(emulator, clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
});

afterAll(async () => {
  await emulator?.close();
});

/** The Google error body of a failed call. */
interface GoogleErrorBody {
  httpStatus: number;
  code: number;
  message: string;
  status: string;
  errors: unknown[];
}

async function googleError(call: Promise<unknown>): Promise<GoogleErrorBody> {
  try {
    await call;
  } catch (error) {
    const response = (
      error as { response?: { status: number; data: { error: Omit<GoogleErrorBody, 'httpStatus'> } } }
    ).response;
    if (response) return { httpStatus: response.status, ...response.data.error };
  }
  throw new Error('expected the call to fail');
}

async function newSpreadsheet(title = 'Test', sheetTitles: string[] = ['Sheet1']) {
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      properties: { title },
      sheets: sheetTitles.map((sheetTitle) => ({ properties: { title: sheetTitle } })),
    },
  });
  return data.spreadsheetId as string;
}

const write = (
  spreadsheetId: string,
  range: string,
  values: unknown[][],
  valueInputOption = 'USER_ENTERED',
) => sheets.spreadsheets.values.update({ spreadsheetId, range, valueInputOption, requestBody: { values } });

const read = async (
  spreadsheetId: string,
  range: string,
  options: Partial<sheets_v4.Params$Resource$Spreadsheets$Values$Get> = {},
) => (await sheets.spreadsheets.values.get({ spreadsheetId, range, ...options })).data;

describe('spreadsheets.create and get', () => {
  it('creates a spreadsheet with a Drive file id and Google defaults', async () => {
    const { data } = await sheets.spreadsheets.create({ requestBody: { properties: { title: 'Budget' } } });
    expect(data.spreadsheetId).toMatch(/^[\w-]{44}$/);
    expect(data.properties?.title).toBe('Budget');
    expect(data.properties?.locale).toBe('en_US');
    expect(data.sheets?.[0]?.properties).toEqual({
      sheetId: 0,
      title: 'Sheet1',
      index: 0,
      sheetType: 'GRID',
      gridProperties: { rowCount: 1000, columnCount: 26 },
    });
    expect(data.spreadsheetUrl).toBe(`https://docs.google.com/spreadsheets/d/${data.spreadsheetId}/edit`);
  });

  it('honours field masks', async () => {
    const spreadsheetId = await newSpreadsheet('Masked', ['One', 'Two']);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      fields: 'spreadsheetId,properties.title,sheets.properties.title',
    });
    expect(data).toEqual({
      spreadsheetId,
      properties: { title: 'Masked' },
      sheets: [{ properties: { title: 'One' } }, { properties: { title: 'Two' } }],
    });
    const nested = await sheets.spreadsheets.get({
      spreadsheetId,
      fields: 'sheets(properties(sheetId,title,index,gridProperties))',
    });
    expect(Object.keys(nested.data)).toEqual(['sheets']);
    expect(nested.data.sheets?.[1]?.properties).toMatchObject({
      title: 'Two',
      index: 1,
      gridProperties: { rowCount: 1000 },
    });
    expect(nested.data.sheets?.[1]?.properties).not.toHaveProperty('sheetType');
    const url = await sheets.spreadsheets.get({ spreadsheetId, fields: 'spreadsheetUrl' });
    expect(url.data).toEqual({ spreadsheetUrl: expect.stringContaining(spreadsheetId) });
  });

  it('returns grid data for ranges, only for their sheets', async () => {
    const spreadsheetId = await newSpreadsheet('Grid', ['Data', 'Other']);
    await write(spreadsheetId, 'Data!A1:B2', [
      ['Name', '12%'],
      ['=1+1', ''],
    ]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: ['Data!A1:B2'],
      includeGridData: true,
    });
    expect(data.sheets).toHaveLength(1);
    const rows = data.sheets?.[0]?.data?.[0]?.rowData;
    expect(rows?.[0]?.values?.[1]).toMatchObject({
      userEnteredValue: { numberValue: 0.12 },
      effectiveValue: { numberValue: 0.12 },
      formattedValue: '12%',
      userEnteredFormat: { numberFormat: { type: 'PERCENT', pattern: '0%' } },
    });
    expect(rows?.[1]?.values?.[0]).toMatchObject({
      userEnteredValue: { formulaValue: '=1+1' },
      effectiveValue: { numberValue: 2 },
      formattedValue: '2',
    });
    expect(data.sheets?.[0]?.data?.[0]?.rowMetadata).toHaveLength(2);
  });

  it('answers 404 for an unknown spreadsheet and for one the caller may not see', async () => {
    expect(await googleError(sheets.spreadsheets.get({ spreadsheetId: 'nope' }))).toMatchObject({
      httpStatus: 404,
      code: 404,
      status: 'NOT_FOUND',
      message: 'Requested entity was not found.',
    });
    const spreadsheetId = await newSpreadsheet();
    // Another person, with every scope that would let the owner read it.
    const bob = await signIn(emulator, clientA, {
      account: 'bob@example.com',
      scopes: [SCOPES.spreadsheets],
    });
    const hidden = await googleError(sheetsFor(emulator, bob.auth).spreadsheets.get({ spreadsheetId }));
    expect(hidden).toMatchObject({ httpStatus: 404, code: 404, status: 'NOT_FOUND' });
    // The owner through another app that holds only drive.file (the file is not that app's).
    const other = await signIn(emulator, clientB, { scopes: [SCOPES.driveFile] });
    const error = await googleError(sheetsFor(emulator, other.auth).spreadsheets.get({ spreadsheetId }));
    expect(error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    // The control: the owner reads it with the scope bob holds.
    expect((await sheets.spreadsheets.get({ spreadsheetId })).data.spreadsheetId).toBe(spreadsheetId);
  });

  it('refuses writes under a read-only scope with insufficientPermissions', async () => {
    const spreadsheetId = await newSpreadsheet();
    const reader = await signIn(emulator, clientA, {
      scopes: ['https://www.googleapis.com/auth/spreadsheets.readonly'],
    });
    const readOnly = sheetsFor(emulator, reader.auth);
    expect((await readOnly.spreadsheets.values.get({ spreadsheetId, range: 'A1' })).data.range).toBe(
      'Sheet1!A1',
    );
    const error = await googleError(
      readOnly.spreadsheets.values.update({
        spreadsheetId,
        range: 'A1',
        valueInputOption: 'RAW',
        requestBody: { values: [[1]] },
      }),
    );
    expect(error).toMatchObject({
      code: 403,
      status: 'PERMISSION_DENIED',
      errors: [{ reason: 'insufficientPermissions' }],
    });
  });
});

describe('A1 ranges', () => {
  it("reads and writes quoted tab names, with Google's quoting in responses", async () => {
    const spreadsheetId = await newSpreadsheet('Tabs', ['My tab', "It's", 'Sheet1']);
    const update = await write(spreadsheetId, "'My tab'!A1:C2", [
      ['a', 'b', 'c'],
      [1, 2, 3],
    ]);
    expect(update.data).toEqual({
      spreadsheetId,
      updatedRange: "'My tab'!A1:C2",
      updatedRows: 2,
      updatedColumns: 3,
      updatedCells: 6,
    });
    await write(spreadsheetId, "'It''s'!B2", [['quoted']]);
    expect(await read(spreadsheetId, "'It''s'!A1:C3")).toEqual({
      range: "'It''s'!A1:C3",
      majorDimension: 'ROWS',
      values: [[], ['', 'quoted']],
    });
    expect((await read(spreadsheetId, "'My tab'")).range).toBe("'My tab'!A1:Z1000");
    expect((await read(spreadsheetId, "'My tab'!B:C")).values).toEqual([
      ['b', 'c'],
      ['2', '3'],
    ]);
    expect((await read(spreadsheetId, "'My tab'!2:2")).values).toEqual([['1', '2', '3']]);
    expect((await read(spreadsheetId, "'My tab'!B2:C")).range).toBe("'My tab'!B2:C1000");
  });

  it("answers range errors in Google's shape", async () => {
    const spreadsheetId = await newSpreadsheet();
    expect(await googleError(sheets.spreadsheets.values.get({ spreadsheetId, range: 'Sheet9!A1' }))).toEqual({
      httpStatus: 400,
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: 'Unable to parse range: Sheet9!A1',
      errors: [{ message: 'Unable to parse range: Sheet9!A1', domain: 'global', reason: 'badRequest' }],
    });
    // A read that starts below (or right of) the grid is refused; one that reaches past it is not.
    expect(
      await googleError(sheets.spreadsheets.values.get({ spreadsheetId, range: 'Sheet1!A1001:B1200' })),
    ).toMatchObject({
      code: 400,
      message: 'Range (Sheet1!A1001:B1200) exceeds grid limits. Max rows: 1000, max columns: 26',
    });
    expect(
      await googleError(sheets.spreadsheets.values.get({ spreadsheetId, range: 'Sheet1!AA1' })),
    ).toMatchObject({
      code: 400,
    });
    expect((await read(spreadsheetId, 'Sheet1!A990:B1200')).range).toBe('Sheet1!A990:B1200');
    const tooMany = await googleError(write(spreadsheetId, 'Sheet1!A1:B1', [[1, 2, 3]]));
    expect(tooMany).toMatchObject({
      code: 400,
      message: 'Requested writing within range [Sheet1!A1:B1], but tried writing to column [C]',
    });
    const noOption = await googleError(
      sheets.spreadsheets.values.update({ spreadsheetId, range: 'A1', requestBody: { values: [[1]] } }),
    );
    expect(noOption).toMatchObject({
      code: 400,
      message: 'Invalid valueInputOption: INPUT_VALUE_OPTION_UNSPECIFIED',
    });
  });
});

describe('values: USER_ENTERED and render options', () => {
  it('parses typed values and renders them three ways', async () => {
    const spreadsheetId = await newSpreadsheet();
    await write(spreadsheetId, 'A1', [
      ['1,234.5', '12%', '$1,234.50', '2024-03-05', '3/5/2024', 'TRUE', "'007", '=A1*2', '-1.5e3', 'text'],
    ]);
    expect((await read(spreadsheetId, 'A1:J1')).values).toEqual([
      ['1,234.50', '12%', '$1,234.50', '2024-03-05', '3/5/2024', 'TRUE', '007', '2469', '-1.50E+03', 'text'],
    ]);
    expect((await read(spreadsheetId, 'A1:J1', { valueRenderOption: 'UNFORMATTED_VALUE' })).values).toEqual([
      [1234.5, 0.12, 1234.5, 45356, 45356, true, '007', 2469, -1500, 'text'],
    ]);
    expect((await read(spreadsheetId, 'A1:J1', { valueRenderOption: 'FORMULA' })).values?.[0]?.[7]).toBe(
      '=A1*2',
    );
    const dates = await read(spreadsheetId, 'D1:E1', {
      valueRenderOption: 'UNFORMATTED_VALUE',
      dateTimeRenderOption: 'FORMATTED_STRING',
    });
    expect(dates.values).toEqual([['2024-03-05', '3/5/2024']]);
  });

  it('stores RAW input as text', async () => {
    const spreadsheetId = await newSpreadsheet();
    await write(spreadsheetId, 'A1', [['=1+1', '12%', 5]], 'RAW');
    expect((await read(spreadsheetId, 'A1:C1', { valueRenderOption: 'UNFORMATTED_VALUE' })).values).toEqual([
      ['=1+1', '12%', 5],
    ]);
  });

  it('trims trailing empties, omits values for an empty range, and reads by columns', async () => {
    const spreadsheetId = await newSpreadsheet();
    await write(spreadsheetId, 'B2', [['x', null, 'y'], [], ['z']]);
    expect((await read(spreadsheetId, 'A1:Z10')).values).toEqual([[], ['', 'x', '', 'y'], [], ['', 'z']]);
    expect(await read(spreadsheetId, 'F10:G20')).toEqual({ range: 'Sheet1!F10:G20', majorDimension: 'ROWS' });
    expect((await read(spreadsheetId, 'B2:D4', { majorDimension: 'COLUMNS' })).values).toEqual([
      ['x', '', 'z'],
      [],
      ['y'],
    ]);
  });

  it('renders formula errors as Google does', async () => {
    const spreadsheetId = await newSpreadsheet();
    await write(spreadsheetId, 'A1', [['=1/0', '=NOPE()', '=Missing!A1', '=SUM(1']]);
    expect((await read(spreadsheetId, 'A1:D1')).values).toEqual([['#DIV/0!', '#NAME?', '#REF!', '#ERROR!']]);
  });

  it('batchGet, batchUpdate, clear and batchClear', async () => {
    const spreadsheetId = await newSpreadsheet('Batch', ['Sheet1', 'My tab']);
    const batch = await sheets.spreadsheets.values.batchUpdate({
      spreadsheetId,
      requestBody: {
        valueInputOption: 'USER_ENTERED',
        data: [
          { range: 'Sheet1!A1', values: [[1, 2]] },
          { range: "'My tab'!A1", majorDimension: 'COLUMNS', values: [['a', 'b']] },
        ],
        includeValuesInResponse: true,
      },
    });
    expect(batch.data).toMatchObject({
      totalUpdatedRows: 3,
      totalUpdatedColumns: 3,
      totalUpdatedCells: 4,
      totalUpdatedSheets: 2,
    });
    expect(batch.data.responses?.[1]?.updatedData?.values).toEqual([['a'], ['b']]);
    const got = await sheets.spreadsheets.values.batchGet({
      spreadsheetId,
      ranges: ['Sheet1!A1:B1', "'My tab'!A1:A2"],
    });
    expect(got.data.valueRanges?.map((range) => range.values)).toEqual([[['1', '2']], [['a'], ['b']]]);
    const cleared = await sheets.spreadsheets.values.clear({ spreadsheetId, range: 'Sheet1' });
    expect(cleared.data).toEqual({ spreadsheetId, clearedRange: 'Sheet1!A1:Z1000' });
    const batchCleared = await sheets.spreadsheets.values.batchClear({
      spreadsheetId,
      requestBody: { ranges: ["'My tab'!A2"] },
    });
    expect(batchCleared.data.clearedRanges).toEqual(["'My tab'!A2"]);
    const after = await sheets.spreadsheets.values.batchGet({
      spreadsheetId,
      ranges: ['Sheet1', "'My tab'"],
    });
    expect(after.data.valueRanges?.map((range) => range.values)).toEqual([undefined, [['a']]]);
  });

  it('grows the grid for a values write past its edge', async () => {
    const spreadsheetId = await newSpreadsheet();
    await write(spreadsheetId, 'AB1001', [['far']]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      fields: 'sheets.properties.gridProperties',
    });
    expect(data.sheets?.[0]?.properties?.gridProperties).toEqual({ rowCount: 1001, columnCount: 28 });
  });
});

describe('values.append', () => {
  it('appends after the table, OVERWRITE in place and INSERT_ROWS shifting what is below', async () => {
    const spreadsheetId = await newSpreadsheet();
    await write(spreadsheetId, 'A1', [['Name', 'Qty'], ['apples', 3], [], [], ['footer']]);
    const overwrite = await sheets.spreadsheets.values.append({
      spreadsheetId,
      range: 'Sheet1!A1',
      valueInputOption: 'USER_ENTERED',
      insertDataOption: 'OVERWRITE',
      requestBody: { values: [['pears', 4]] },
    });
    expect(overwrite.data).toEqual({
      spreadsheetId,
      tableRange: 'Sheet1!A1:B2',
      updates: {
        spreadsheetId,
        updatedRange: 'Sheet1!A3:B3',
        updatedRows: 1,
        updatedColumns: 2,
        updatedCells: 2,
      },
    });
    const insert = await sheets.spreadsheets.values.append({
      spreadsheetId,
      range: 'Sheet1!A:B',
      valueInputOption: 'USER_ENTERED',
      insertDataOption: 'INSERT_ROWS',
      includeValuesInResponse: true,
      requestBody: {
        values: [
          ['plums', '5'],
          ['figs', 6],
        ],
      },
    });
    expect(insert.data.tableRange).toBe('Sheet1!A1:B3');
    expect(insert.data.updates?.updatedRange).toBe('Sheet1!A4:B5');
    expect(insert.data.updates?.updatedData?.values).toEqual([
      ['plums', '5'],
      ['figs', '6'],
    ]);
    expect((await read(spreadsheetId, 'A1:B10')).values).toEqual([
      ['Name', 'Qty'],
      ['apples', '3'],
      ['pears', '4'],
      ['plums', '5'],
      ['figs', '6'],
      [],
      ['footer'],
    ]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      fields: 'sheets.properties.gridProperties.rowCount',
    });
    expect(data.sheets?.[0]?.properties?.gridProperties?.rowCount).toBe(1002);
  });

  it('appends at the range start on an empty sheet, with no tableRange', async () => {
    const spreadsheetId = await newSpreadsheet();
    const { data } = await sheets.spreadsheets.values.append({
      spreadsheetId,
      range: 'Sheet1!C3',
      valueInputOption: 'RAW',
      requestBody: { values: [['first']] },
    });
    expect(data).toEqual({
      spreadsheetId,
      updates: {
        spreadsheetId,
        updatedRange: 'Sheet1!C3',
        updatedRows: 1,
        updatedColumns: 1,
        updatedCells: 1,
      },
    });
  });
});

describe('spreadsheets.batchUpdate', () => {
  const batchUpdate = (spreadsheetId: string, requests: sheets_v4.Schema$Request[]) =>
    sheets.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } });

  it('adds, renames, duplicates and deletes sheets with Google replies', async () => {
    const spreadsheetId = await newSpreadsheet();
    await write(spreadsheetId, 'A1', [['source']]);
    const { data } = await batchUpdate(spreadsheetId, [
      { addSheet: { properties: { title: 'Added', gridProperties: { rowCount: 50, columnCount: 5 } } } },
      { updateSheetProperties: { properties: { sheetId: 0, title: 'Renamed' }, fields: 'title' } },
      { duplicateSheet: { sourceSheetId: 0 } },
    ]);
    const added = data.replies?.[0]?.addSheet?.properties;
    expect(added).toMatchObject({
      title: 'Added',
      index: 1,
      sheetType: 'GRID',
      gridProperties: { rowCount: 50, columnCount: 5 },
    });
    expect(added?.sheetId).toBeGreaterThan(0);
    expect(data.replies?.[1]).toEqual({});
    expect(data.replies?.[2]?.duplicateSheet?.properties).toMatchObject({
      title: 'Copy of Renamed',
      index: 1,
    });
    expect((await read(spreadsheetId, "'Copy of Renamed'!A1")).values).toEqual([['source']]);
    await batchUpdate(spreadsheetId, [{ deleteSheet: { sheetId: added?.sheetId as number } }]);
    const titles = (await sheets.spreadsheets.get({ spreadsheetId })).data.sheets?.map(
      (sheet) => sheet.properties?.title,
    );
    expect(titles).toEqual(['Renamed', 'Copy of Renamed']);
  });

  it('fails a whole batch atomically with an indexed Google message', async () => {
    const spreadsheetId = await newSpreadsheet();
    const error = await googleError(
      batchUpdate(spreadsheetId, [
        { addSheet: { properties: { title: 'New' } } },
        { addSheet: { properties: { title: 'Sheet1' } } },
      ]),
    );
    expect(error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message:
        'Invalid requests[1].addSheet: A sheet with the name "Sheet1" already exists. Please enter another name.',
    });
    const titles = (await sheets.spreadsheets.get({ spreadsheetId })).data.sheets?.map(
      (sheet) => sheet.properties?.title,
    );
    expect(titles).toEqual(['Sheet1']);
    const last = await googleError(batchUpdate(spreadsheetId, [{ deleteSheet: { sheetId: 0 } }]));
    expect(last.message).toBe(
      "Invalid requests[0].deleteSheet: You can't remove all the sheets in a document.",
    );
  });

  it('inserts and deletes rows and columns, moving values', async () => {
    const spreadsheetId = await newSpreadsheet();
    await write(spreadsheetId, 'A1', [
      ['a1', 'b1'],
      ['a2', 'b2'],
    ]);
    await batchUpdate(spreadsheetId, [
      { insertDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 1, endIndex: 3 } } },
      { deleteDimension: { range: { sheetId: 0, dimension: 'COLUMNS', startIndex: 0, endIndex: 1 } } },
    ]);
    expect((await read(spreadsheetId, 'A1:B5')).values).toEqual([['b1'], [], [], ['b2']]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      fields: 'sheets.properties.gridProperties',
    });
    expect(data.sheets?.[0]?.properties?.gridProperties).toEqual({ rowCount: 1002, columnCount: 25 });
  });

  it('formats with repeatCell and writes with updateCells and appendCells', async () => {
    const spreadsheetId = await newSpreadsheet();
    await write(spreadsheetId, 'A1', [[1234.5, 0.25]]);
    await batchUpdate(spreadsheetId, [
      {
        repeatCell: {
          range: { sheetId: 0, startRowIndex: 0, endRowIndex: 1, startColumnIndex: 0, endColumnIndex: 1 },
          cell: {
            userEnteredFormat: {
              numberFormat: { type: 'CURRENCY', pattern: '"$"#,##0.00' },
              textFormat: { bold: true },
            },
          },
          fields: 'userEnteredFormat(numberFormat,textFormat.bold)',
        },
      },
      {
        updateCells: {
          start: { sheetId: 0, rowIndex: 1, columnIndex: 0 },
          rows: [
            {
              values: [
                { userEnteredValue: { stringValue: 'set' } },
                { userEnteredValue: { formulaValue: '=A1*2' } },
              ],
            },
          ],
          fields: 'userEnteredValue',
        },
      },
      {
        appendCells: {
          sheetId: 0,
          rows: [{ values: [{ userEnteredValue: { numberValue: 7 } }] }],
          fields: '*',
        },
      },
    ]);
    expect((await read(spreadsheetId, 'A1:B3')).values).toEqual([
      ['$1,234.50', '0.25'],
      ['set', '2469'],
      ['7'],
    ]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: ['A1'],
      fields: 'sheets.data.rowData.values(userEnteredFormat,effectiveFormat.textFormat.bold)',
    });
    expect(data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]).toEqual({
      userEnteredFormat: {
        numberFormat: { type: 'CURRENCY', pattern: '"$"#,##0.00' },
        textFormat: { bold: true },
      },
      effectiveFormat: { textFormat: { bold: true } },
    });
    const beyond = await googleError(
      batchUpdate(spreadsheetId, [
        {
          repeatCell: {
            range: { sheetId: 0, startRowIndex: 999, endRowIndex: 1001 },
            cell: {},
            fields: 'userEnteredFormat',
          },
        },
      ]),
    );
    expect(beyond.message).toBe(
      'Invalid requests[0].repeatCell: Range (Sheet1!A1000:Z1001) exceeds grid limits. Max rows: 1000, max columns: 26',
    );
  });

  it('finds and replaces with counts in the reply', async () => {
    const spreadsheetId = await newSpreadsheet('Find', ['Sheet1', 'Two']);
    await write(spreadsheetId, 'Sheet1!A1', [
      ['cat', 'Cat cat'],
      ['dog', '=CONCATENATE("cat","s")'],
    ]);
    await write(spreadsheetId, 'Two!A1', [['concatenate']]);
    const { data } = await batchUpdate(spreadsheetId, [
      { findReplace: { find: 'cat', replacement: 'fox', allSheets: true, includeFormulas: true } },
      { findReplace: { find: 'nothing', replacement: 'x', sheetId: 0 } },
    ]);
    expect(data.replies).toEqual([
      {
        findReplace: {
          valuesChanged: 3,
          formulasChanged: 1,
          rowsChanged: 3,
          sheetsChanged: 2,
          occurrencesChanged: 6,
        },
      },
      { findReplace: {} },
    ]);
    expect((await read(spreadsheetId, 'Sheet1!A1:B2', { valueRenderOption: 'FORMULA' })).values).toEqual([
      ['fox', 'fox fox'],
      ['dog', '=CONfoxENATE("fox","s")'],
    ]);
  });
});
