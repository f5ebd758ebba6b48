import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../src/errors/tool-error.ts';
import { LOSS_COUNT_MAX_CELLS } from '../src/tools/guards/loss-reads.ts';
import { startToolsUnderTest, type ToolsUnderTest } from './support/tools-in-process.ts';

// describeLoss of the destructive tools (the sentence a person confirms before a delete or clear),
// run in this process against a Google emulator process holding real data: the sizes and counts
// must be exact, reads frugal (one spreadsheets.get, at most one values.batchGet), nothing
// changed, and names written by anyone rendered so they cannot disguise the sentence.

let under: ToolsUnderTest;

type Cell = string | number | null;
/** Q3: 1,200 rows. A: a label on every row; B: a number except on every third row; C1: `=""`. */
const q3: Cell[][] = Array.from({ length: 1_200 }, (_, row) => [
  `r${row + 1}`,
  row % 3 === 0 ? '' : row,
  ...(row === 0 ? ['=""'] : []),
]);
/** The non-empty cells of `values` in rows [top, bottom) and columns [left, right), zero-based. */
function nonEmpty(values: Cell[][], top: number, bottom: number, left: number, right: number): number {
  return values
    .slice(top, bottom)
    .reduce(
      (sum, row) => sum + row.slice(left, right).filter((cell) => cell !== '' && cell !== null).length,
      0,
    );
}
/** Big: 4,500 rows (117,000 cells, past the count's budget): "x" in A1:A4000, "far" in B4500. */
const big: Cell[][] = [
  ...Array.from({ length: 4_000 }, () => ['x']),
  ...Array.from({ length: 499 }, () => []),
  ['', 'far'],
];

let spreadsheetId: string;
const sheetIds: Record<string, number> = {};

async function describeLoss(name: string, input: Record<string, unknown>) {
  const tool = under.tool(name);
  const parsed = tool.inputSchema.parse(input);
  await under.forgetCalls();
  const sentence = await tool.describeLoss!(parsed, under.context());
  const calls = await under.calls();
  // Never more than the outline and one read of values, and never a change.
  expect(calls.methods['sheets.spreadsheets.get']?.attempts ?? 0).toBeLessThanOrEqual(1);
  expect(calls.methods['sheets.spreadsheets.values.batchGet']?.attempts ?? 0).toBeLessThanOrEqual(1);
  expect(calls.all).toBe(
    (calls.methods['sheets.spreadsheets.get']?.attempts ?? 0) +
      (calls.methods['sheets.spreadsheets.values.batchGet']?.attempts ?? 0),
  );
  return { sentence, calls: calls.all };
}

async function tabsOf(id: string): Promise<Record<string, number>> {
  const result = await under.tool('get_spreadsheet').run({ spreadsheetId: id }, under.context());
  const tabs = result.structuredContent.sheets as Array<{ title: string; sheetId: number }>;
  return Object.fromEntries(tabs.map((tab) => [tab.title, tab.sheetId]));
}

beforeAll(async () => {
  under = await startToolsUnderTest();
  [spreadsheetId] = (await under.seed([
    {
      name: 'Budget 2026',
      sheets: [
        { title: 'Summary', values: [['total']] },
        { title: 'Q3', values: q3 },
        { title: 'Big', values: big },
      ],
    },
  ])) as [string];
  Object.assign(sheetIds, await tabsOf(spreadsheetId));
});
afterAll(async () => {
  await under?.stop();
});

describe('delete_sheet', () => {
  it('names the tab, its grid and its exact non-empty cells (a formula showing nothing counts)', async () => {
    expect(nonEmpty(q3, 0, 1_200, 0, 26)).toBe(2_001);
    const { sentence, calls } = await describeLoss('delete_sheet', { spreadsheetId, sheetId: sheetIds.Q3 });
    expect(sentence).toBe(
      'Deletes the tab "Q3" of "Budget 2026": 1,200 rows × 26 columns, 2,001 non-empty cells.',
    );
    expect(calls).toBe(2);
    // Describing changed nothing.
    expect(await tabsOf(spreadsheetId)).toEqual(sheetIds);
  });

  it('an empty tab still loses its rows and columns: a sentence, not null', async () => {
    const [id] = await under.seed([
      {
        name: 'Empty',
        sheets: [
          { title: 'Blank', values: [] },
          { title: 'B', values: [] },
        ],
      },
    ]);
    const tabs = await tabsOf(id!);
    const { sentence } = await describeLoss('delete_sheet', { spreadsheetId: id, sheetId: tabs.Blank });
    expect(sentence).toBe('Deletes the tab "Blank" of "Empty": 1,000 rows × 26 columns, 0 non-empty cells.');
  });

  it(`says "at least" past ${LOSS_COUNT_MAX_CELLS} cells, with how many rows it counted`, async () => {
    const rows = Math.floor(LOSS_COUNT_MAX_CELLS / 26);
    expect(rows).toBe(3_846);
    const { sentence } = await describeLoss('delete_sheet', { spreadsheetId, sheetId: sheetIds.Big });
    expect(sentence).toBe(
      'Deletes the tab "Big" of "Budget 2026": 4,500 rows × 26 columns, at least 3,846 non-empty cells (only its first 3,846 rows counted).',
    );
  });

  it('an unknown sheetId is a clear tool error', async () => {
    await expect(describeLoss('delete_sheet', { spreadsheetId, sheetId: 424242 })).rejects.toThrow(
      /^there is no tab with sheetId 424242; the tabs are "Summary" \(sheetId \d+\), "Q3"/,
    );
  });
});

describe('delete_dimension', () => {
  it('rows: one-based as the sheet shows them, with the non-empty cells in them', async () => {
    expect(nonEmpty(q3, 4, 9, 0, 26)).toBe(9);
    const { sentence } = await describeLoss('delete_dimension', {
      spreadsheetId,
      sheetId: sheetIds.Q3,
      dimension: 'ROWS',
      startIndex: 4,
      endIndex: 9,
    });
    expect(sentence).toBe('Deletes rows 5–9 of the tab "Q3" of "Budget 2026": 9 non-empty cells.');
  });

  it('columns by their letters; one empty column is still a sentence', async () => {
    const columns = await describeLoss('delete_dimension', {
      spreadsheetId,
      sheetId: sheetIds.Q3,
      dimension: 'COLUMNS',
      startIndex: 1,
      endIndex: 3,
    });
    expect(columns.sentence).toBe(
      `Deletes columns B–C of the tab "Q3" of "Budget 2026": ${nonEmpty(q3, 0, 1_200, 1, 3)} non-empty cells.`,
    );
    expect(nonEmpty(q3, 0, 1_200, 1, 3)).toBe(801);
    const empty = await describeLoss('delete_dimension', {
      spreadsheetId,
      sheetId: sheetIds.Q3,
      dimension: 'COLUMNS',
      startIndex: 3,
      endIndex: 4,
    });
    expect(empty.sentence).toBe('Deletes column D of the tab "Q3" of "Budget 2026": 0 non-empty cells.');
  });

  it('thousands in row numbers', async () => {
    const { sentence } = await describeLoss('delete_dimension', {
      spreadsheetId,
      sheetId: sheetIds.Q3,
      dimension: 'ROWS',
      startIndex: 999,
      endIndex: 1_200,
    });
    expect(sentence).toBe(
      `Deletes rows 1,000–1,200 of the tab "Q3" of "Budget 2026": ${nonEmpty(q3, 999, 1_200, 0, 26)} non-empty cells.`,
    );
  });
});

describe('clear_range', () => {
  it('names the cells and counts what they hold', async () => {
    expect(nonEmpty(q3, 0, 10, 0, 3)).toBe(17);
    const { sentence } = await describeLoss('clear_range', { spreadsheetId, range: 'Q3!A1:C10' });
    expect(sentence).toBe('Clears A1:C10 of the tab "Q3" of "Budget 2026": 17 non-empty cells.');
  });

  it('reads ranges as Sheets does: reversed corners, a tab in any case, whole columns, no tab (the first)', async () => {
    expect((await describeLoss('clear_range', { spreadsheetId, range: "'Q3'!C10:A1" })).sentence).toBe(
      'Clears A1:C10 of the tab "Q3" of "Budget 2026": 17 non-empty cells.',
    );
    expect((await describeLoss('clear_range', { spreadsheetId, range: 'q3!B:B' })).sentence).toBe(
      'Clears B1:B1200 of the tab "Q3" of "Budget 2026": 800 non-empty cells.',
    );
    expect((await describeLoss('clear_range', { spreadsheetId, range: 'A1:B2' })).sentence).toBe(
      'Clears A1:B2 of the tab "Summary" of "Budget 2026": 1 non-empty cell.',
    );
  });

  it('is null when the cells hold nothing, so no confirmation is asked', async () => {
    const { sentence, calls } = await describeLoss('clear_range', { spreadsheetId, range: 'Q3!D1:Z1200' });
    expect(sentence).toBeNull();
    expect(calls).toBe(2);
  });

  it('past the budget, empty counted rows are not "nothing": it says what it did not count', async () => {
    // B1:Z4500 is 112,500 cells; the first 4,000 rows (100,000 cells) are empty, B4500 is not.
    const { sentence } = await describeLoss('clear_range', { spreadsheetId, range: 'Big!B1:Z4500' });
    expect(sentence).toBe(
      'Clears B1:Z4500 of the tab "Big" of "Budget 2026": no non-empty cell in its first 4,000 rows, the rest not counted.',
    );
  });

  it('a range naming no tab (Google may know it as a named range) is still asked about, uncounted', async () => {
    const { sentence } = await describeLoss('clear_range', { spreadsheetId, range: 'Totals' });
    expect(sentence).toBe('Clears "Totals" of "Budget 2026" (its cells were not counted).');
  });

  it('a range that is not A1 is a clear tool error', async () => {
    await expect(describeLoss('clear_range', { spreadsheetId, range: 'Q3!A1:B2:C3' })).rejects.toThrow(
      ToolError,
    );
  });
});

describe('hostile names', () => {
  it('quotes, newlines, bidi overrides, controls and zero-width characters are escaped, long names cut', async () => {
    const title = 'Budget "2026"\n\u202eexe.txt';
    const tab = 'Q3\'"\r\n\u0007\u2066\u200b\u0085end 👩‍💻';
    const [id] = await under.seed([
      {
        name: title,
        sheets: [
          { title: tab, values: [['a', 'b']] },
          { title: 'x'.repeat(150), values: [['c']] },
        ],
      },
    ]);
    const tabs = await tabsOf(id!);
    const { sentence } = await describeLoss('delete_sheet', { spreadsheetId: id, sheetId: tabs[tab] });
    expect(sentence).toBe(
      'Deletes the tab "Q3\'\\"\\r\\n\\u0007\\u{2066}\\u{200b}\\u{85}end 👩‍💻" of "Budget \\"2026\\"\\n\\u{202e}exe.txt": 1,000 rows × 26 columns, 2 non-empty cells.',
    );
    // Nothing a screen would hide or act on is left in the sentence.
    expect(sentence).not.toMatch(/[\p{Cc}\p{Zl}\p{Zp}]|(?!\u200d)\p{Cf}/u);

    const long = await describeLoss('clear_range', { spreadsheetId: id, range: `'${'x'.repeat(150)}'!A1` });
    expect(long.sentence).toBe(
      `Clears A1 of the tab "${'x'.repeat(100)}…" of "Budget \\"2026\\"\\n\\u{202e}exe.txt": 1 non-empty cell.`,
    );
  });
});

describe('batch_update', () => {
  /** Clears the values of Q3 in zero-based rows [top, bottom) and columns [left, right). */
  const clearQ3 = (top: number, bottom: number, left = 0, right = 1) => ({
    updateCells: {
      range: {
        sheetId: sheetIds.Q3,
        startRowIndex: top,
        endRowIndex: bottom,
        startColumnIndex: left,
        endColumnIndex: right,
      },
      fields: 'userEnteredValue',
    },
  });
  const boldQ3 = () => ({
    repeatCell: {
      range: { sheetId: sheetIds.Q3, startRowIndex: 0, endRowIndex: 1 },
      cell: { userEnteredFormat: { textFormat: { bold: true } } },
      fields: 'userEnteredFormat.textFormat.bold',
    },
  });

  it('lists every loss of the batch in one sentence, counted in one read', async () => {
    expect(nonEmpty(q3, 0, 5, 0, 2)).toBe(8);
    const { sentence, calls } = await describeLoss('batch_update', {
      spreadsheetId,
      requests: [
        clearQ3(0, 5, 0, 2),
        boldQ3(),
        {
          repeatCell: {
            range: {
              sheetId: sheetIds.Summary,
              startRowIndex: 0,
              endRowIndex: 1,
              startColumnIndex: 0,
              endColumnIndex: 1,
            },
            cell: { userEnteredValue: { stringValue: 'sum' } },
            fields: 'userEnteredValue',
          },
        },
      ],
    });
    expect(sentence).toBe(
      'In "Budget 2026", this batch clears the values of A1:B5 of the tab "Q3" (8 non-empty cells) and replaces the values of A1 of the tab "Summary" (1 non-empty cell).',
    );
    expect(calls).toBe(2);
  });

  it('is null, without asking Google, when no request can destroy anything', async () => {
    const { sentence, calls } = await describeLoss('batch_update', {
      spreadsheetId,
      requests: [
        { addSheet: { properties: { title: 'New' } } },
        boldQ3(),
        {
          updateBorders: {
            range: {
              sheetId: sheetIds.Q3,
              startRowIndex: 0,
              endRowIndex: 2,
              startColumnIndex: 0,
              endColumnIndex: 2,
            },
            top: { style: 'SOLID' },
          },
        },
        {
          updateSheetProperties: {
            properties: { sheetId: sheetIds.Q3, gridProperties: { frozenRowCount: 1 } },
            fields: 'gridProperties.frozenRowCount',
          },
        },
        {
          updateDimensionProperties: {
            range: { sheetId: sheetIds.Q3, dimension: 'COLUMNS', startIndex: 0, endIndex: 1 },
            properties: { pixelSize: 150 },
            fields: 'pixelSize',
          },
        },
        {
          sortRange: {
            range: {
              sheetId: sheetIds.Q3,
              startRowIndex: 1,
              endRowIndex: 20,
              startColumnIndex: 0,
              endColumnIndex: 2,
            },
            sortSpecs: [{ dimensionIndex: 1, sortOrder: 'DESCENDING' }],
          },
        },
      ],
    });
    expect(sentence).toBeNull();
    expect(calls).toBe(0);
  });

  it('counts value clears and replacements, and leaves out the ones over empty cells', async () => {
    const { sentence } = await describeLoss('batch_update', {
      spreadsheetId,
      requests: [
        clearQ3(0, 10, 0, 3),
        {
          repeatCell: {
            range: { sheetId: sheetIds.Q3, startColumnIndex: 5, endColumnIndex: 8 },
            cell: { userEnteredValue: { stringValue: 'n/a' } },
            fields: '*',
          },
        },
        {
          repeatCell: {
            range: { sheetId: sheetIds.Summary },
            cell: { userEnteredValue: { numberValue: 0 } },
            fields: 'userEnteredValue',
          },
        },
      ],
    });
    expect(sentence).toBe(
      'In "Budget 2026", this batch clears the values of A1:C10 of the tab "Q3" (17 non-empty cells) and replaces the values of A1:Z1000 of the tab "Summary" (1 non-empty cell).',
    );
  });

  it('formats, frozen rows and sizes before a clear change no content: the clear is still counted', async () => {
    const { sentence } = await describeLoss('batch_update', {
      spreadsheetId,
      requests: [
        {
          updateSheetProperties: {
            properties: { sheetId: sheetIds.Q3, gridProperties: { frozenRowCount: 2 } },
            fields: 'gridProperties.frozenRowCount',
          },
        },
        boldQ3(),
        {
          autoResizeDimensions: {
            dimensions: { sheetId: sheetIds.Q3, dimension: 'COLUMNS', startIndex: 0, endIndex: 3 },
          },
        },
        clearQ3(0, 10, 0, 3),
      ],
    });
    expect(sentence).toBe(
      'In "Budget 2026", this batch clears the values of A1:C10 of the tab "Q3" (17 non-empty cells).',
    );
  });

  it('a grid resize, which deleted rows undo cannot keep, is refused before any Google call', async () => {
    await expect(
      describeLoss('batch_update', {
        spreadsheetId,
        requests: [
          {
            updateSheetProperties: {
              properties: { sheetId: sheetIds.Q3, gridProperties: { rowCount: 1_000 } },
              fields: 'gridProperties.rowCount',
            },
          },
        ],
      }),
    ).rejects.toThrow(/^Nothing was changed: request 0 \(updateSheetProperties\) sets the grid size/);
    expect((await under.calls()).all).toBe(0);
  });

  it('a clear of cells an earlier sort, find-and-replace or merge moved is named, not counted', async () => {
    expect(nonEmpty(q3, 20, 30, 0, 1)).toBe(10);
    const { sentence } = await describeLoss('batch_update', {
      spreadsheetId,
      requests: [
        {
          sortRange: {
            range: {
              sheetId: sheetIds.Q3,
              startRowIndex: 0,
              endRowIndex: 20,
              startColumnIndex: 0,
              endColumnIndex: 2,
            },
            sortSpecs: [{ dimensionIndex: 0 }],
          },
        },
        clearQ3(0, 10),
        clearQ3(20, 30),
        {
          mergeCells: {
            range: {
              sheetId: sheetIds.Q3,
              startRowIndex: 40,
              endRowIndex: 42,
              startColumnIndex: 0,
              endColumnIndex: 2,
            },
            mergeType: 'MERGE_ALL',
          },
        },
        clearQ3(41, 42, 1, 2),
        { findReplace: { find: 'total', replacement: 'sum', allSheets: true } },
        {
          repeatCell: {
            range: { sheetId: sheetIds.Summary },
            cell: { userEnteredValue: { numberValue: 0 } },
            fields: 'userEnteredValue',
          },
        },
      ],
    });
    expect(sentence).toBe(
      'In "Budget 2026", this batch clears the values of A1:A10 of the tab "Q3" (as the requests before it leave it; not counted), clears the values of A21:A30 of the tab "Q3" (10 non-empty cells), clears the values of B42 of the tab "Q3" (as the requests before it leave it; not counted) and replaces the values of A1:Z1000 of the tab "Summary" (as the requests before it leave it; not counted).',
    );
  });

  it('an earlier value change shields only the cells it touches', async () => {
    const { sentence } = await describeLoss('batch_update', {
      spreadsheetId,
      requests: [clearQ3(0, 10), clearQ3(10, 20), clearQ3(5, 15)],
    });
    expect(sentence).toBe(
      'In "Budget 2026", this batch clears the values of A1:A10 of the tab "Q3" (10 non-empty cells), clears the values of A11:A20 of the tab "Q3" (10 non-empty cells) and clears the values of A6:A15 of the tab "Q3" (as the requests before it leave it; not counted).',
    );
  });

  it('indices as digit strings read as the API reads them; anything else is a tool error before any Google call', async () => {
    expect(nonEmpty(q3, 4, 9, 0, 2)).toBe(9);
    const asText = await describeLoss('batch_update', {
      spreadsheetId,
      requests: [
        {
          repeatCell: {
            range: {
              sheetId: String(sheetIds.Q3),
              startRowIndex: '4',
              endRowIndex: '9',
              startColumnIndex: '0',
              endColumnIndex: '2',
            },
            fields: 'userEnteredValue',
          },
        },
      ],
    });
    expect(asText.sentence).toBe(
      'In "Budget 2026", this batch clears the values of A5:B9 of the tab "Q3" (9 non-empty cells).',
    );
    for (const startRowIndex of [-1, 1.5, 'four', { $gt: 0 }, 1e300]) {
      await under.forgetCalls();
      await expect(
        describeLoss('batch_update', {
          spreadsheetId,
          requests: [
            { addSheet: { properties: { title: 'x' } } },
            {
              repeatCell: {
                range: { sheetId: sheetIds.Q3, startRowIndex, endRowIndex: 9 },
                fields: 'userEnteredValue',
              },
            },
          ],
        }),
      ).rejects.toThrow(
        new ToolError('requests[1]: range.startRowIndex must be a whole number of zero or more'),
      );
      expect((await under.calls()).all).toBe(0);
    }
  });

  it('a tab the batch adds loses nothing when its cells are cleared; a sheetId that names no tab is a tool error', async () => {
    const clearTab = (sheetId: number) => ({
      repeatCell: { range: { sheetId }, fields: 'userEnteredValue' },
    });
    const added = await describeLoss('batch_update', {
      spreadsheetId,
      requests: [{ addSheet: { properties: { sheetId: 777, title: 'Scratch' } } }, clearTab(777)],
    });
    expect(added.sentence).toBeNull();
    await expect(describeLoss('batch_update', { spreadsheetId, requests: [clearTab(778)] })).rejects.toThrow(
      new ToolError(
        'requests[0] names sheetId 778, and there is no tab with that id; get_spreadsheet lists the tabs',
      ),
    );
  });
});

describe('set_notes', () => {
  it('names the notes it would replace or clear from one spreadsheets.get (sizes and notes together)', async () => {
    await under.tool('set_notes').run(
      {
        spreadsheetId,
        notes: [
          { range: 'Summary!A1', note: 'the total' },
          { range: 'Q3!B2:B3', note: 'checked' },
        ],
      },
      under.context(),
    );
    const { sentence, calls } = await describeLoss('set_notes', {
      spreadsheetId,
      notes: [
        { range: 'summary!A1:B2', note: null },
        { range: 'Q3!B2:B3', note: 'checked' },
        { range: 'Q3!B3', note: 'changed' },
        { range: "'Q3'", note: '' },
      ],
    });
    expect(calls).toBe(1);
    expect(sentence).toBe("the text of 4 notes (on Summary!A1, 'Q3'!B3, 'Q3'!B2, 'Q3'!B3)");
    expect(
      (await describeLoss('set_notes', { spreadsheetId, notes: [{ range: 'Big!C1', note: 'x' }] })).sentence,
    ).toBeNull();
    // A range outside the grid, or naming no tab, is refused as the tool refuses it.
    await expect(
      describeLoss('set_notes', { spreadsheetId, notes: [{ range: 'Q3!A5000', note: 'x' }] }),
    ).rejects.toThrow(new ToolError('"Q3!A5000" is outside the tab\'s grid'));
    await expect(
      describeLoss('set_notes', { spreadsheetId, notes: [{ range: 'Nope!A1', note: 'x' }] }),
    ).rejects.toThrow(/there is no tab named "Nope"/);
  });
});

describe('copy_range and autofill: the cells they overwrite', () => {
  it('a paste from one cell is described by the cells the source covers there; a multiple repeats it', async () => {
    // Summary holds "total" in A1; Q3 holds labels in A and numbers in B (every third row empty).
    const once = await describeLoss('copy_range', {
      spreadsheetId,
      source: 'Summary!A1:B2',
      destination: 'Q3!A2',
    });
    expect(once.sentence).toBe(
      `Overwrites A2:B3 of the tab "Q3": ${nonEmpty(q3, 1, 3, 0, 2)} non-empty cells.`,
    );
    const repeated = await describeLoss('copy_range', {
      spreadsheetId,
      source: 'Summary!A1',
      destination: 'Q3!A1:A9',
    });
    expect(repeated.sentence).toBe(
      `Overwrites A1:A9 of the tab "Q3": ${nonEmpty(q3, 0, 9, 0, 1)} non-empty cells.`,
    );
    // Over empty cells nothing is lost, so nobody is asked.
    expect(
      (await describeLoss('copy_range', { spreadsheetId, source: 'Q3!A1:B2', destination: 'Summary!D5' }))
        .sentence,
    ).toBeNull();
  });

  it('an autofill is described by the rows or columns it fills, not its source', async () => {
    const down = await describeLoss('autofill', {
      spreadsheetId,
      source: 'Q3!A1:B2',
      direction: 'down',
      count: 4,
    });
    expect(down.sentence).toBe(
      `Overwrites A3:B6 of the tab "Q3": ${nonEmpty(q3, 2, 6, 0, 2)} non-empty cells.`,
    );
    expect(
      (await describeLoss('autofill', { spreadsheetId, source: 'Q3!B2:B3', direction: 'right', count: 2 }))
        .sentence,
    ).toBeNull();
  });
});
