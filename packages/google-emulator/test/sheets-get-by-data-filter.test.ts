import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

// spreadsheets.getByDataFilter (src/sheets/data-filters.ts): a get whose ranges are data filters,
// grid ranges by sheetId or A1, answered with the same resource spreadsheets.get gives.

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;
let readOnly: sheets_v4.Sheets;
let spreadsheetId: string;
let planId: number;

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  sheets = sheetsFor(
    emulator,
    (await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] })).auth,
  );
  readOnly = sheetsFor(
    emulator,
    (await signIn(emulator, started.clientA, { scopes: [SCOPES.driveReadonly] })).auth,
  );
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      properties: { title: 'Filters' },
      sheets: [{ properties: { title: 'Notes' } }, { properties: { title: 'Plan' } }],
    },
  });
  spreadsheetId = data.spreadsheetId!;
  planId = data.sheets![1]!.properties!.sheetId!;
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Plan!A1:C3',
    valueInputOption: 'RAW',
    requestBody: {
      values: [
        ['a', 'b', 'c'],
        ['d', 'e', 'f'],
        ['g', 'h', 'i'],
      ],
    },
  });
});

afterAll(async () => {
  await emulator?.close();
});

const valuesOf = (data: sheets_v4.Schema$GridData | undefined) =>
  (data?.rowData ?? []).map((row) => (row.values ?? []).map((cell) => cell.userEnteredValue?.stringValue));

describe('spreadsheets.getByDataFilter', () => {
  it('answers the tabs a grid range or an A1 range names, with the grid data of each range in order', async () => {
    const { data } = await sheets.spreadsheets.getByDataFilter({
      spreadsheetId,
      fields: 'sheets(properties(sheetId,title),data(startRow,startColumn,rowData.values.userEnteredValue))',
      requestBody: {
        dataFilters: [
          {
            gridRange: {
              sheetId: planId,
              startRowIndex: 1,
              endRowIndex: 3,
              startColumnIndex: 1,
              endColumnIndex: 3,
            },
          },
          { a1Range: 'Plan!A1:A1' },
        ],
      },
    });
    expect(data.sheets?.map((sheet) => sheet.properties?.title)).toEqual(['Plan']);
    const [first, second] = data.sheets![0]!.data!;
    expect(first).toMatchObject({ startRow: 1, startColumn: 1 });
    expect(valuesOf(first)).toEqual([
      ['e', 'f'],
      ['h', 'i'],
    ]);
    expect(valuesOf(second)).toEqual([['a']]);
  });

  it('returns grid data only when the field mask asks for it, else when includeGridData is true', async () => {
    const filters = [{ gridRange: { sheetId: planId } }];
    const masked = await sheets.spreadsheets.getByDataFilter({
      spreadsheetId,
      fields: 'sheets.properties.title',
      requestBody: { dataFilters: filters, includeGridData: true },
    });
    expect(masked.data.sheets?.[0]).toEqual({ properties: { title: 'Plan' } });
    const unmasked = await sheets.spreadsheets.getByDataFilter({
      spreadsheetId,
      requestBody: { dataFilters: filters, includeGridData: true },
    });
    expect(valuesOf(unmasked.data.sheets?.[0]?.data?.[0])[2]).toEqual(['g', 'h', 'i']);
    const without = await sheets.spreadsheets.getByDataFilter({
      spreadsheetId,
      requestBody: { dataFilters: filters },
    });
    expect(without.data.sheets?.[0]?.data).toBeUndefined();
  });

  it('answers the part of a grid range on the grid ("the portions that intersect")', async () => {
    const { data } = await sheets.spreadsheets.getByDataFilter({
      spreadsheetId,
      fields: 'sheets.data(rowMetadata,rowData.values.userEnteredValue)',
      requestBody: {
        dataFilters: [{ gridRange: { sheetId: planId, startRowIndex: 998, endRowIndex: 1002 } }],
      },
    });
    expect(data.sheets?.[0]?.data?.[0]?.rowMetadata).toHaveLength(2);
  });

  it('refuses a developer metadata lookup, an unknown sheetId, and a token without a write scope', async () => {
    await expect(
      sheets.spreadsheets.getByDataFilter({
        spreadsheetId,
        requestBody: { dataFilters: [{ developerMetadataLookup: { metadataKey: 'k' } }] },
      }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      sheets.spreadsheets.getByDataFilter({
        spreadsheetId,
        requestBody: { dataFilters: [{ gridRange: { sheetId: 424242 } }] },
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('No grid with id: 424242') });
    await expect(
      readOnly.spreadsheets.getByDataFilter({ spreadsheetId, requestBody: { dataFilters: [] } }),
    ).rejects.toMatchObject({ status: 403 });
  });
});
