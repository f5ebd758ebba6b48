import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

// Data validation, conditional formats, named ranges and protected ranges through batchUpdate and
// spreadsheets.get with field masks — through googleapis alone, as Sheetgate's rule tools use them.

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
      properties: { title: 'Rules' },
      sheets: [
        { properties: { title: 'Data', sheetId: DATA, gridProperties: { rowCount: 20, columnCount: 5 } } },
        { properties: { title: 'Lists', sheetId: 8 } },
      ],
    },
  });
  spreadsheetId = data.spreadsheetId!;
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Data!A1:B3',
    valueInputOption: 'RAW',
    requestBody: {
      values: [
        ['Name', 'Total'],
        ['Ada', 5],
        ['Bob', 7],
      ],
    },
  });
});

afterAll(async () => {
  await emulator?.close();
});

const update = (requests: sheets_v4.Schema$Request[]) =>
  sheets.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } });

async function refusal(requests: sheets_v4.Schema$Request[]): Promise<string> {
  try {
    await update(requests);
  } catch (error) {
    const failure = error as { status?: number; message: string };
    expect(failure.status).toBe(400);
    return failure.message;
  }
  throw new Error('the batch was accepted');
}

const column = (startColumnIndex: number, startRowIndex = 1, endRowIndex = 20) => ({
  sheetId: DATA,
  startRowIndex,
  endRowIndex,
  startColumnIndex,
  endColumnIndex: startColumnIndex + 1,
});

describe('setDataValidation', () => {
  it('stores a rule on each cell, visible through get with includeGridData, and clears it', async () => {
    const rule = {
      condition: { type: 'ONE_OF_LIST', values: [{ userEnteredValue: 'Yes' }, { userEnteredValue: 'No' }] },
      strict: true,
      showCustomUi: true,
    };
    await update([{ setDataValidation: { range: column(2, 1, 3), rule } }]);
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: ['Data!C1:C4'],
      fields: 'sheets(data(rowData(values(dataValidation))))',
    });
    const rows = data.sheets?.[0]?.data?.[0]?.rowData ?? [];
    expect(rows.map((row) => row.values?.[0]?.dataValidation ?? null)).toEqual([null, rule, rule]);
    await update([{ setDataValidation: { range: column(2, 1, 3) } }]);
    const cleared = await sheets.spreadsheets.get({
      spreadsheetId,
      ranges: ['Data!C1:C4'],
      fields: 'sheets(data(rowData(values(dataValidation))))',
    });
    expect(JSON.stringify(cleared.data)).not.toContain('dataValidation');
  });

  it('refuses a rule missing its values, a formatting-only condition, and a range off the grid', async () => {
    expect(
      await refusal([
        {
          setDataValidation: {
            range: column(2),
            rule: { condition: { type: 'NUMBER_BETWEEN', values: [{ userEnteredValue: '1' }] } },
          },
        },
      ]),
    ).toMatch(
      /^Invalid requests\[0\]\.setDataValidation: Condition NUMBER_BETWEEN requires 2 condition values/,
    );
    expect(
      await refusal([{ setDataValidation: { range: column(2), rule: { condition: { type: 'BLANK' } } } }]),
    ).toContain('Invalid data validation condition type: BLANK');
    expect(
      await refusal([{ setDataValidation: { range: column(9), rule: { condition: { type: 'BOOLEAN' } } } }]),
    ).toContain('exceeds grid limits. Max rows: 20, max columns: 5');
  });
});

describe('conditional format rules', () => {
  const red = { backgroundColor: { red: 1 } };
  const over = (value: string): sheets_v4.Schema$ConditionalFormatRule => ({
    ranges: [column(1)],
    booleanRule: {
      condition: { type: 'NUMBER_GREATER', values: [{ userEnteredValue: value }] },
      format: red,
    },
  });
  const rulesOf = async () => {
    const { data } = await sheets.spreadsheets.get({
      spreadsheetId,
      fields: 'sheets(properties(sheetId),conditionalFormats)',
    });
    return data.sheets?.find((sheet) => sheet.properties?.sheetId === DATA)?.conditionalFormats ?? [];
  };

  it('adds at an index, updates, moves and deletes, with Google replies', async () => {
    const scale: sheets_v4.Schema$ConditionalFormatRule = {
      ranges: [column(1)],
      gradientRule: {
        minpoint: { type: 'MIN', color: { red: 1 } },
        midpoint: { type: 'PERCENTILE', value: '50', color: { green: 1 } },
        maxpoint: { type: 'MAX', color: { blue: 1 } },
      },
    };
    const formula: sheets_v4.Schema$ConditionalFormatRule = {
      ranges: [column(0)],
      booleanRule: {
        condition: { type: 'CUSTOM_FORMULA', values: [{ userEnteredValue: '=$B2>6' }] },
        format: red,
      },
    };
    const added = await update([
      { addConditionalFormatRule: { rule: over('5'), index: 0 } },
      { addConditionalFormatRule: { rule: scale, index: 0 } },
      { addConditionalFormatRule: { rule: formula, index: 5 } },
    ]);
    expect(added.data.replies).toEqual([{}, {}, {}]);
    expect(await rulesOf()).toEqual([scale, over('5'), formula]);

    const replaced = await update([
      { updateConditionalFormatRule: { index: 1, sheetId: DATA, rule: over('9') } },
    ]);
    expect(replaced.data.replies?.[0]?.updateConditionalFormatRule).toEqual({
      newRule: over('9'),
      newIndex: 1,
      oldRule: over('5'),
      oldIndex: 1,
    });
    await update([{ updateConditionalFormatRule: { index: 2, sheetId: DATA, newIndex: 0 } }]);
    expect(await rulesOf()).toEqual([formula, scale, over('9')]);

    const deleted = await update([{ deleteConditionalFormatRule: { index: 1, sheetId: DATA } }]);
    expect(deleted.data.replies?.[0]?.deleteConditionalFormatRule).toEqual({ rule: scale });
    expect(await rulesOf()).toEqual([formula, over('9')]);
  });

  it('a duplicated sheet takes the conditional formats, on its own ranges', async () => {
    const rules = await rulesOf();
    const { data } = await update([{ duplicateSheet: { sourceSheetId: DATA, newSheetId: 70 } }]);
    expect(data.replies?.[0]?.duplicateSheet?.properties?.sheetId).toBe(70);
    const copied = await sheets.spreadsheets.get({
      spreadsheetId,
      fields: 'sheets(properties(sheetId),conditionalFormats)',
    });
    const copy = copied.data.sheets?.find((sheet) => sheet.properties?.sheetId === 70);
    expect(copy?.conditionalFormats).toEqual(
      rules.map((rule) => ({ ...rule, ranges: rule.ranges?.map((range) => ({ ...range, sheetId: 70 })) })),
    );
    await update([{ deleteSheet: { sheetId: 70 } }]);
  });

  it('refuses an index that does not exist and a rule without a kind, changing nothing', async () => {
    const before = await rulesOf();
    expect(await refusal([{ deleteConditionalFormatRule: { index: 99, sheetId: DATA } }])).toContain(
      `No conditional format on sheet: ${DATA} at index: 99`,
    );
    expect(
      await refusal([
        { deleteConditionalFormatRule: { index: 0, sheetId: DATA } },
        { addConditionalFormatRule: { rule: { ranges: [column(1)] } } },
      ]),
    ).toMatch(
      /^Invalid requests\[1\]\.addConditionalFormatRule: .*exactly one of booleanRule or gradientRule/,
    );
    expect(
      await refusal([
        {
          addConditionalFormatRule: {
            rule: { ...over('1'), booleanRule: { condition: { type: 'TEXT_IS_EMAIL' }, format: red } },
          },
        },
      ]),
    ).toContain('Invalid conditional format condition type: TEXT_IS_EMAIL');
    expect(await rulesOf()).toEqual(before);
  });
});

describe('named ranges', () => {
  it('adds with a generated id, resolves the name in the values API, renames and deletes', async () => {
    const { data } = await update([
      {
        addNamedRange: {
          namedRange: {
            name: 'Totals',
            range: {
              sheetId: DATA,
              startRowIndex: 1,
              endRowIndex: 3,
              startColumnIndex: 1,
              endColumnIndex: 2,
            },
          },
        },
      },
    ]);
    const namedRange = data.replies?.[0]?.addNamedRange?.namedRange;
    expect(namedRange?.namedRangeId).toMatch(/^\w+$/);
    expect(namedRange?.name).toBe('Totals');

    const read = await sheets.spreadsheets.values.get({ spreadsheetId, range: 'Totals' });
    expect(read.data).toMatchObject({ range: 'Data!B2:B3', values: [['5'], ['7']] });
    await sheets.spreadsheets.values.update({
      spreadsheetId,
      range: 'totals',
      valueInputOption: 'RAW',
      requestBody: { values: [[6]] },
    });
    expect((await sheets.spreadsheets.values.get({ spreadsheetId, range: 'Data!B2' })).data.values).toEqual([
      ['6'],
    ]);

    const listed = await sheets.spreadsheets.get({ spreadsheetId, fields: 'namedRanges' });
    expect(listed.data.namedRanges).toEqual([namedRange]);

    await update([
      {
        updateNamedRange: {
          namedRange: { namedRangeId: namedRange!.namedRangeId, name: 'Sums' },
          fields: 'name',
        },
      },
    ]);
    expect((await sheets.spreadsheets.values.get({ spreadsheetId, range: 'Sums' })).data.range).toBe(
      'Data!B2:B3',
    );
    await expect(sheets.spreadsheets.values.get({ spreadsheetId, range: 'Totals' })).rejects.toThrow(
      'Unable to parse range: Totals',
    );

    await update([{ deleteNamedRange: { namedRangeId: namedRange!.namedRangeId } }]);
    const after = await sheets.spreadsheets.get({ spreadsheetId, fields: 'namedRanges' });
    expect(after.data.namedRanges).toBeUndefined();
  });

  it('refuses a duplicate name (any case), a name like a cell, and an unknown id', async () => {
    await update([{ addNamedRange: { namedRange: { name: 'Names', range: column(0) } } }]);
    expect(await refusal([{ addNamedRange: { namedRange: { name: 'NAMES', range: column(1) } } }])).toContain(
      'A named range with the name "NAMES" already exists.',
    );
    expect(await refusal([{ addNamedRange: { namedRange: { name: 'AB12', range: column(1) } } }])).toContain(
      'Invalid name for a named range: "AB12"',
    );
    expect(await refusal([{ deleteNamedRange: { namedRangeId: 'nope' } }])).toContain(
      'No named range with id: nope',
    );
  });
});

describe('protected ranges', () => {
  it('protects a range and a whole sheet with generated ids, lists them, and removes one', async () => {
    const { data } = await update([
      {
        addProtectedRange: { protectedRange: { range: column(0), description: 'names', warningOnly: true } },
      },
      { addProtectedRange: { protectedRange: { range: { sheetId: 8 } } } },
    ]);
    const [first, second] = (data.replies ?? []).map((reply) => reply.addProtectedRange?.protectedRange);
    expect(first).toMatchObject({
      range: column(0),
      description: 'names',
      warningOnly: true,
      requestingUserCanEdit: true,
    });
    expect(first?.protectedRangeId).toBeTypeOf('number');
    expect(second).toMatchObject({ range: { sheetId: 8 } });

    const listed = await sheets.spreadsheets.get({
      spreadsheetId,
      fields: 'sheets(properties(sheetId,title),protectedRanges)',
    });
    expect(listed.data.sheets?.map((sheet) => sheet.protectedRanges)).toEqual([[first], [second]]);

    await update([{ deleteProtectedRange: { protectedRangeId: first!.protectedRangeId } }]);
    const after = await sheets.spreadsheets.get({ spreadsheetId, fields: 'sheets(protectedRanges)' });
    expect(after.data.sheets).toEqual([{}, { protectedRanges: [second] }]);
    expect(
      await refusal([{ deleteProtectedRange: { protectedRangeId: first!.protectedRangeId } }]),
    ).toContain(`No protected range with id: ${first!.protectedRangeId}`);
  });
});

describe('inserting and deleting rows and columns', () => {
  it('moves, grows and shrinks conditional formats, named ranges and protected ranges, dropping emptied ones', async () => {
    const { data: created } = await sheets.spreadsheets.create({
      requestBody: { sheets: [{ properties: { title: 'Grid', sheetId: 3 } }] },
    });
    const id = created.spreadsheetId!;
    const rows = (startRowIndex: number, endRowIndex: number) => ({
      sheetId: 3,
      startRowIndex,
      endRowIndex,
      startColumnIndex: 0,
      endColumnIndex: 2,
    });
    const batch = (requests: sheets_v4.Schema$Request[]) =>
      sheets.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests } });
    const format = { textFormat: { bold: true } };
    await batch([
      {
        addConditionalFormatRule: {
          rule: {
            ranges: [rows(4, 8), rows(1, 2)],
            booleanRule: { condition: { type: 'NOT_BLANK' }, format },
          },
        },
      },
      { addNamedRange: { namedRange: { name: 'Block', range: rows(4, 8) } } },
      { addNamedRange: { namedRange: { name: 'Top', range: rows(0, 1) } } },
      { addProtectedRange: { protectedRange: { protectedRangeId: 5, range: rows(6, 7) } } },
      { addProtectedRange: { protectedRange: { protectedRangeId: 6, range: { sheetId: 3 } } } },
    ]);
    const state = async () => {
      const { data } = await sheets.spreadsheets.get({
        spreadsheetId: id,
        fields:
          'namedRanges(name,range),sheets(conditionalFormats(ranges),protectedRanges(protectedRangeId,range))',
      });
      return data;
    };

    // Two rows before row 6 (index 5): inside Block and the first rule range, above the protection.
    await batch([
      { insertDimension: { range: { sheetId: 3, dimension: 'ROWS', startIndex: 5, endIndex: 7 } } },
    ]);
    let now = await state();
    expect(now.sheets?.[0]?.conditionalFormats?.[0]?.ranges).toEqual([rows(4, 10), rows(1, 2)]);
    expect(now.namedRanges).toEqual([
      { name: 'Block', range: rows(4, 10) },
      { name: 'Top', range: rows(0, 1) },
    ]);
    expect(now.sheets?.[0]?.protectedRanges).toEqual([
      { protectedRangeId: 5, range: rows(8, 9) },
      { protectedRangeId: 6, range: { sheetId: 3 } },
    ]);

    // Rows 1–3 (indices 0–2) go: Top and the rule's second range are emptied, Block moves up.
    await batch([
      { deleteDimension: { range: { sheetId: 3, dimension: 'ROWS', startIndex: 0, endIndex: 3 } } },
    ]);
    now = await state();
    expect(now.sheets?.[0]?.conditionalFormats?.[0]?.ranges).toEqual([rows(1, 7)]);
    expect(now.namedRanges).toEqual([{ name: 'Block', range: rows(1, 7) }]);
    expect(now.sheets?.[0]?.protectedRanges).toEqual([
      { protectedRangeId: 5, range: rows(5, 6) },
      { protectedRangeId: 6, range: { sheetId: 3 } },
    ]);

    // A column inserted at A moves every column bound; the whole-sheet protection stays whole.
    await batch([
      { insertDimension: { range: { sheetId: 3, dimension: 'COLUMNS', startIndex: 0, endIndex: 1 } } },
    ]);
    now = await state();
    expect(now.namedRanges?.[0]?.range).toEqual({ ...rows(1, 7), startColumnIndex: 1, endColumnIndex: 3 });
    expect(now.sheets?.[0]?.protectedRanges?.[1]).toEqual({ protectedRangeId: 6, range: { sheetId: 3 } });
  });
});
