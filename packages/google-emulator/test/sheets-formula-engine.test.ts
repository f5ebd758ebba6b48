/**
 * The live formula engine (src/sheets/formula-engine.ts): after each edit, the results read from
 * the engine kept for the spreadsheet and brought up to date in place equal those of an engine
 * built from scratch for the same cells — through value writes, clears, rows inserted and
 * deleted, tabs added, renamed and deleted, formulas reading other tabs, and spilled arrays; and
 * what another spreadsheet holds is read again by IMPORTRANGE when its own spreadsheet changes.
 */
import { describe, expect, it } from 'vitest';
import { applyBatchUpdate } from '../src/sheets/batch-update.ts';
import { engineCounts } from '../src/sheets/formula-engine.ts';
import { type Evaluation, evaluateSpreadsheet } from '../src/sheets/formulas.ts';
import { addImportSources } from '../src/sheets/import-range.ts';
import type { SpreadsheetModel } from '../src/sheets/model.ts';
import { SpreadsheetStore } from '../src/sheets/spreadsheet-store.ts';
import { parseUserEntered } from '../src/sheets/user-entered.ts';
import { clearValueRange, writeValueRange } from '../src/sheets/values-api.ts';
import { registerThrowingFunctions } from './support/throwing-functions.ts';

const typed = (rows: string[][]) => rows.map((row) => row.map((text) => parseUserEntered(text)));

function newBook(): SpreadsheetModel {
  const data = Array.from({ length: 30 }, (_, index) => {
    const row = index + 1;
    return [String((row * 7) % 11), `=A${row}*2`, `=SUM($A$1:A${row})`, `=COUNTIF(A:A,A${row})`];
  });
  data[0]?.push('=FILTER(A1:A30,A1:A30>8)', '=UNIQUE(A1:A12)');
  return new SpreadsheetStore().create('live-engine-book', {
    title: 'Book',
    sheets: [
      { title: 'Data', rows: typed(data), rowCount: 60, columnCount: 10 },
      {
        title: 'Summary',
        rows: typed([
          [
            '=SUM(Data!B:B)',
            '=Data!C20',
            '=COUNTIF(Data!A2:A,">3")',
            "='My tab'!A1",
            '=VLOOKUP(3,Data!A:B,2,FALSE)',
            '=AVERAGE(Data!D1:D30)',
          ],
        ]),
      },
    ],
  });
}

/** Every result of `evaluation` on the spreadsheet's grids, by position. */
function results(spreadsheet: SpreadsheetModel, evaluation: Evaluation): Record<string, unknown> {
  const seen: Record<string, unknown> = {};
  for (const [index, sheet] of spreadsheet.sheets.entries()) {
    const grid = sheet.properties.gridProperties;
    for (let row = 0; row < grid.rowCount; row++)
      for (let column = 0; column < grid.columnCount; column++) {
        const result = evaluation.formulaResult(index, row, column);
        if (result) seen[`${sheet.properties.title}!${row}:${column}`] = result;
      }
    seen[`${sheet.properties.title} spilled`] = [...evaluation.spilledCells(index)].sort();
  }
  return seen;
}

let freshBuilds = 0;

/** The same cells under another id: its engine is built from them alone. */
function fromScratch(spreadsheet: SpreadsheetModel): Record<string, unknown> {
  const copy = structuredClone(spreadsheet);
  copy.spreadsheetId = `fresh-${Math.random()}`;
  const built = results(copy, evaluateSpreadsheet(copy));
  freshBuilds++;
  return built;
}

/** Engines built for the spreadsheet under test, not for the copies it is compared with. */
const liveBuilds = () => engineCounts().builds - freshBuilds;

function expectSameAsFromScratch(spreadsheet: SpreadsheetModel): void {
  const live = results(spreadsheet, evaluateSpreadsheet(spreadsheet));
  expect(live).toEqual(fromScratch(spreadsheet));
}

const write = (spreadsheet: SpreadsheetModel, range: string, values: unknown[][]) =>
  writeValueRange(spreadsheet, range, values, { valueInputOption: 'USER_ENTERED', majorDimension: 'ROWS' });

function batch(spreadsheet: SpreadsheetModel, requests: unknown[]): SpreadsheetModel {
  const { updated } = applyBatchUpdate(spreadsheet, requests);
  // As the store keeps it: the same spreadsheet, a new revision.
  return updated;
}

describe('the live formula engine', () => {
  it('answers as an engine built from scratch after each edit', () => {
    let book = newBook();
    const dataId = book.sheets[0]?.properties.sheetId as number;
    expectSameAsFromScratch(book);

    const built = liveBuilds();
    write(book, 'Data!A5', [[100]]);
    expectSameAsFromScratch(book);
    expect(results(book, evaluateSpreadsheet(book))['Summary!0:0']).toEqual({
      effectiveValue: { numberValue: fromScratchSum(book) },
    });

    write(book, 'Data!A10:A12', [[1], [2], [3]]);
    expectSameAsFromScratch(book);
    write(book, 'Data!G2', [['=SUM(A1:A5)&" total"'], ['=Summary!A1/2']]);
    expectSameAsFromScratch(book);
    clearValueRange(book, 'Data!A3:A4');
    expectSameAsFromScratch(book);
    // A value in the way of a spilled array, then taken away.
    write(book, 'Data!E3', [['x']]);
    expectSameAsFromScratch(book);
    clearValueRange(book, 'Data!E3');
    expectSameAsFromScratch(book);
    // Each of those edits was made in the live engine, none built it afresh.
    expect(liveBuilds()).toBe(built);

    const dimension = (kind: string, start: number, end: number) => ({
      [kind]: { range: { sheetId: dataId, dimension: 'ROWS', startIndex: start, endIndex: end } },
    });
    book = batch(book, [dimension('insertDimension', 2, 4)]);
    expectSameAsFromScratch(book);
    book = batch(book, [dimension('deleteDimension', 7, 10)]);
    expectSameAsFromScratch(book);
    const builtBeforeTabs = liveBuilds();
    book = batch(book, [{ addSheet: { properties: { title: 'My tab' } } }]);
    write(book, "'My tab'!A1", [['=Data!A1+1']]);
    expectSameAsFromScratch(book);
    book = batch(book, [
      { updateSheetProperties: { properties: { sheetId: dataId, title: 'Facts' }, fields: 'title' } },
    ]);
    expectSameAsFromScratch(book);
    const myTab = book.sheets.find((sheet) => sheet.properties.title === 'My tab')?.properties.sheetId;
    book = batch(book, [{ deleteSheet: { sheetId: myTab } }]);
    expectSameAsFromScratch(book);
    // Tabs added, renamed and deleted in the live engine too.
    expect(liveBuilds()).toBe(builtBeforeTabs);
    write(book, 'Facts!A1:A2', [[9], ['=1/0']]);
    expectSameAsFromScratch(book);
  });
  it('stays equal to a fresh build through formulas the engine throws on', () => {
    registerThrowingFunctions();
    const book = newBook();
    expectSameAsFromScratch(book);
    // Throwing while evaluated, while sized, and an array literal holding a function call.
    write(book, 'Data!G1', [['=TESTTHROW()', '=TESTTHROWSIZE()+1', '={SUM(A1:A2),1}']]);
    expectSameAsFromScratch(book);
    const shown = results(book, evaluateSpreadsheet(book));
    expect(shown['Data!0:6']).toEqual({
      effectiveValue: { errorValue: { type: 'ERROR', message: 'Formula parse error.' } },
    });
    expect(shown['Data!0:7']).toEqual(shown['Data!0:6']);
    expect(shown['Data!0:9']).toEqual({ effectiveValue: { numberValue: 1 } });
    write(book, 'Data!A1', [[40]]);
    expectSameAsFromScratch(book);
    expect(results(book, evaluateSpreadsheet(book))['Data!0:8']).toEqual({
      effectiveValue: { numberValue: 40 + ((2 * 7) % 11) },
    });
    write(book, 'Data!G1:H1', [['=A1+1', '=G1*2']]);
    expectSameAsFromScratch(book);
    expect(results(book, evaluateSpreadsheet(book))['Data!0:7']).toEqual({
      effectiveValue: { numberValue: 82 },
    });
  });

  it('imports another spreadsheet again when the importing one changes, as a fresh build did', () => {
    const store = new SpreadsheetStore();
    const source = store.create('import-source', {
      title: 'Source',
      sheets: [{ title: 'Sheet1', rows: typed([['5']]) }],
    });
    const book = store.create('import-book', {
      title: 'Book',
      sheets: [{ title: 'Sheet1', rows: typed([['=IMPORTRANGE("import-source","Sheet1!A1")+1', '1']]) }],
    });
    const stop = addImportSources({ spreadsheet: (id) => store.get(id), owner: () => 'alice@example.com' });
    const imported = () => evaluateSpreadsheet(book).formulaResult(0, 0, 0)?.effectiveValue;
    try {
      expect(imported()).toEqual({ numberValue: 6 });
      write(source, 'Sheet1!A1', [[7]]);
      // A write elsewhere in the importing spreadsheet: the import is read again with it.
      write(book, 'Sheet1!B1', [[2]]);
      expect(imported()).toEqual({ numberValue: 8 });
    } finally {
      stop();
    }
  });
});

/** Twice the sum of Data's column A, as Summary!A1 (`=SUM(Data!B:B)`) should show. */
function fromScratchSum(spreadsheet: SpreadsheetModel): number {
  let sum = 0;
  for (const row of spreadsheet.sheets[0]?.rows ?? []) sum += row?.[0]?.userEnteredValue?.numberValue ?? 0;
  return sum * 2;
}
