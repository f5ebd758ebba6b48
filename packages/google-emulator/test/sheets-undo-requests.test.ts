import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { failureOf, SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

// Request kinds structure undo writes back with: banded ranges, updateProtectedRange, a tab's
// position as Google counts it, rich text read back, updateCells over a range — through googleapis.

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;
let spreadsheetId: string;
const DATA = 7;

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      properties: { title: 'Undo requests' },
      sheets: [
        { properties: { title: 'Data', sheetId: DATA, gridProperties: { rowCount: 20, columnCount: 6 } } },
        { properties: { title: 'B', sheetId: 1 } },
        { properties: { title: 'C', sheetId: 2 } },
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

async function refusal(requests: sheets_v4.Schema$Request[]): Promise<string> {
  const failure = await failureOf(update(requests));
  expect(failure.response?.status).toBe(400);
  return failure.response!.data.error.message;
}

const range = (startRowIndex: number, endRowIndex: number, startColumnIndex = 0, endColumnIndex = 3) => ({
  sheetId: DATA,
  startRowIndex,
  endRowIndex,
  startColumnIndex,
  endColumnIndex,
});

async function dataSheet(fields: string) {
  const { data } = await sheets.spreadsheets.get({ spreadsheetId, fields, ranges: ['Data'] });
  return data.sheets?.[0];
}

describe('banded ranges', () => {
  const colours = {
    firstBandColorStyle: { rgbColor: { red: 1 } },
    secondBandColorStyle: { rgbColor: { blue: 1 } },
  };

  it('adds one with a given id or a generated one, updates it by mask, moves it with rows, and deletes it', async () => {
    const { data } = await update([
      { addBanding: { bandedRange: { bandedRangeId: 42, range: range(0, 10), rowProperties: colours } } },
      { addBanding: { bandedRange: { range: range(12, 15), columnProperties: colours } } },
    ]);
    expect(data.replies?.[0]?.addBanding?.bandedRange).toEqual({
      bandedRangeId: 42,
      range: range(0, 10),
      rowProperties: colours,
    });
    const generated = data.replies?.[1]?.addBanding?.bandedRange?.bandedRangeId;
    expect(generated).toBeGreaterThan(0);
    expect((await dataSheet('sheets.bandedRanges'))?.bandedRanges).toHaveLength(2);

    await update([
      {
        updateBanding: {
          bandedRange: { bandedRangeId: 42, range: range(0, 5), rowProperties: {} },
          fields: 'range',
        },
      },
    ]);
    await update([
      { insertDimension: { range: { sheetId: DATA, dimension: 'ROWS', startIndex: 0, endIndex: 1 } } },
    ]);
    const moved = (await dataSheet('sheets.bandedRanges'))?.bandedRanges?.find(
      (each) => each.bandedRangeId === 42,
    );
    expect(moved).toEqual({ bandedRangeId: 42, range: range(1, 6), rowProperties: colours });

    await update([{ deleteBanding: { bandedRangeId: 42 } }, { deleteBanding: { bandedRangeId: generated } }]);
    expect((await dataSheet('sheets.bandedRanges'))?.bandedRanges).toBeUndefined();
    await update([
      { deleteDimension: { range: { sheetId: DATA, dimension: 'ROWS', startIndex: 0, endIndex: 1 } } },
    ]);
  });

  it('refuses a taken id, no properties, an unknown id and an empty mask', async () => {
    await update([
      { addBanding: { bandedRange: { bandedRangeId: 5, range: range(0, 2), rowProperties: colours } } },
    ]);
    expect(
      await refusal([
        { addBanding: { bandedRange: { bandedRangeId: 5, range: range(3, 4), rowProperties: colours } } },
      ]),
    ).toBe('Invalid requests[0].addBanding: A banded range with id 5 already exists.');
    expect(await refusal([{ addBanding: { bandedRange: { range: range(3, 4) } } }])).toBe(
      'Invalid requests[0].addBanding: At least one of rowProperties or columnProperties must be specified.',
    );
    expect(await refusal([{ deleteBanding: { bandedRangeId: 99 } }])).toBe(
      'Invalid requests[0].deleteBanding: No banded range with id: 99',
    );
    expect(await refusal([{ updateBanding: { bandedRange: { bandedRangeId: 5 } } }])).toBe(
      "Invalid requests[0].updateBanding: At least one field must be updated, but 'fields' is empty.",
    );
    await update([{ deleteBanding: { bandedRangeId: 5 } }]);
  });
});

describe('updateProtectedRange', () => {
  it('sets the masked fields, keeps its place in the list, and a range replaces a named range', async () => {
    await update([
      { addNamedRange: { namedRange: { namedRangeId: 'totals', name: 'Totals', range: range(0, 2) } } },
      {
        addProtectedRange: {
          protectedRange: { protectedRangeId: 11, range: range(0, 2), description: 'first' },
        },
      },
      {
        addProtectedRange: {
          protectedRange: { protectedRangeId: 12, namedRangeId: 'totals', warningOnly: true },
        },
      },
    ]);
    await update([
      {
        updateProtectedRange: {
          protectedRange: {
            protectedRangeId: 11,
            range: range(4, 9),
            description: 'wider',
            warningOnly: true,
          },
          fields: 'range,description',
        },
      },
      {
        updateProtectedRange: {
          protectedRange: { protectedRangeId: 12, range: range(10, 11) },
          fields: 'range',
        },
      },
    ]);
    const protectedRanges = (await dataSheet('sheets.protectedRanges'))?.protectedRanges;
    expect(protectedRanges).toEqual([
      { protectedRangeId: 11, range: range(4, 9), description: 'wider', requestingUserCanEdit: true },
      { protectedRangeId: 12, range: range(10, 11), warningOnly: true, requestingUserCanEdit: true },
    ]);
    expect(
      await refusal([
        { updateProtectedRange: { protectedRange: { protectedRangeId: 99 }, fields: 'description' } },
      ]),
    ).toBe('Invalid requests[0].updateProtectedRange: No protected range with id: 99');
    expect(
      await refusal([
        { updateProtectedRange: { protectedRange: { protectedRangeId: 11 }, fields: 'colour' } },
      ]),
    ).toBe('Invalid requests[0].updateProtectedRange: Invalid field mask: colour');
  });
});

describe("a tab's position", () => {
  const order = async () =>
    (await sheets.spreadsheets.get({ spreadsheetId, fields: 'sheets.properties.title' })).data.sheets?.map(
      (sheet) => sheet.properties?.title,
    );
  const move = (sheetId: number, index: number) =>
    update([{ updateSheetProperties: { properties: { sheetId, index }, fields: 'index' } }]);

  it('counts indexes before the move, as Google does', async () => {
    expect(await order()).toEqual(['Data', 'B', 'C']);
    await move(DATA, 1); // its own index + 1: nothing moves
    expect(await order()).toEqual(['Data', 'B', 'C']);
    await move(DATA, 2); // ahead of B
    expect(await order()).toEqual(['B', 'Data', 'C']);
    await move(DATA, 3);
    expect(await order()).toEqual(['B', 'C', 'Data']);
    await move(DATA, 0);
    expect(await order()).toEqual(['Data', 'B', 'C']);
  });
});

describe('cells written back', () => {
  it('reads back rich text, and updateCells over a range clears what its rows leave out', async () => {
    await sheets.spreadsheets.values.update({
      spreadsheetId,
      range: 'B!A1:B2',
      valueInputOption: 'RAW',
      requestBody: {
        values: [
          ['ab', 'x'],
          ['y', 'z'],
        ],
      },
    });
    const runs = [{ format: { bold: true } }, { startIndex: 1, format: { italic: true } }];
    await update([
      {
        updateCells: {
          range: { sheetId: 1, startRowIndex: 0, endRowIndex: 2, startColumnIndex: 0, endColumnIndex: 2 },
          rows: [{ values: [{ userEnteredValue: { stringValue: 'ab' }, textFormatRuns: runs }] }],
          fields: 'userEnteredValue,textFormatRuns',
        },
      },
    ]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: ['B!A1:B2'],
      fields: 'sheets.data.rowData.values(userEnteredValue,textFormatRuns)',
    });
    expect(data.sheets?.[0]?.data?.[0]?.rowData).toEqual([
      { values: [{ userEnteredValue: { stringValue: 'ab' }, textFormatRuns: runs }] },
    ]);
  });
});
