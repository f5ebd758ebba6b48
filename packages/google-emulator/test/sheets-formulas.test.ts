import { describe, expect, it } from 'vitest';
import { effectiveCell, formattedValue } from '../src/sheets/cell-values.ts';
import { engineFormula, evaluateSpreadsheet } from '../src/sheets/formulas.ts';
import type { CellData } from '../src/sheets/model.ts';
import { SpreadsheetStore } from '../src/sheets/spreadsheet-store.ts';
import { parseUserEntered } from '../src/sheets/user-entered.ts';

/** Evaluates formulas typed into row 1 of Sheet1, beside the data given. */
function evaluate(formulas: string[], data: string[][] = [], other: string[][] = [[]]) {
  const typed = (rows: string[][]) =>
    rows.map((row) =>
      row.map((text): CellData | undefined => (text === '' ? undefined : parseUserEntered(text))),
    );
  const spreadsheet = new SpreadsheetStore().create('id', {
    title: 'Book',
    sheets: [
      { title: 'Sheet1', rows: [typed([formulas])[0] ?? [], ...typed(data)] },
      { title: 'My tab', rows: typed(other) },
    ],
  });
  const evaluation = evaluateSpreadsheet(spreadsheet);
  return formulas.map((_, column) => {
    const cell = spreadsheet.sheets[0]?.rows[0]?.[column];
    const effective = effectiveCell(evaluation, 0, 0, column, cell);
    return { value: effective.effectiveValue, text: formattedValue(effective) };
  });
}

describe('formula evaluation', () => {
  it('computes the common functions over cells and ranges', () => {
    const data = [
      ['1', '2', 'x'],
      ['3', '4', ''],
    ];
    const results = evaluate(
      [
        '=SUM(A2:B3)',
        '=AVERAGE(A2:B3)',
        '=COUNT(A2:C3)',
        '=COUNTA(A2:C3)',
        '=MIN(A2:B3)',
        '=MAX(A2:B3)',
        '=A2*B2+B3/2-1',
        '=ROUND(10/3,2)',
      ],
      data,
    );
    expect(results.map((result) => result.value?.numberValue)).toEqual([10, 2.5, 4, 5, 1, 4, 3, 3.33]);
  });

  it('handles IF, CONCATENATE, & and booleans', () => {
    const results = evaluate(
      ['=IF(A2>2,"big","small")', '=CONCATENATE("a",A2,"b")', '=A2&"-"&B2', '=AND(TRUE,FALSE)', '=A2>1'],
      [['5', '6']],
    );
    expect(results.map((result) => result.text)).toEqual(['big', 'a5b', '5-6', 'FALSE', 'TRUE']);
    expect(results[3]?.value).toEqual({ boolValue: false });
  });

  it('follows references to other sheets, quoted or not', () => {
    const results = evaluate(["='My tab'!A1*2", "=SUM('My tab'!A1:B1)"], [], [['21', '4']]);
    expect(results.map((result) => result.value?.numberValue)).toEqual([42, 25]);
  });

  it('renders errors as Google does', () => {
    const results = evaluate(['=1/0', '=NOSUCHFUNCTION(1)', '=Sheet9!A1', '=SUM(1', '=E1']);
    expect(results.map((result) => result.text)).toEqual(['#DIV/0!', '#NAME?', '#REF!', '#ERROR!', '#REF!']);
    expect(results[0]?.value).toEqual({
      errorValue: { type: 'DIVIDE_BY_ZERO', message: 'Function DIVIDE parameter 2 cannot be zero.' },
    });
    expect(results[1]?.value?.errorValue).toEqual({
      type: 'NAME',
      message: "Unknown function: 'nosuchfunction'.",
    });
    expect(results[3]?.value?.errorValue?.type).toBe('ERROR');
    expect(results[4]?.value?.errorValue?.message).toMatch(/Circular dependency/);
  });

  it('names the tab a #REF! cannot resolve, as Google does', () => {
    const results = evaluate([
      '=Sheet9!A1',
      "='No tab'!A1+'My tab'!A1",
      '=CONCATENATE("Sheet1!",Gone!B2)',
      "='It''s gone'!A1",
    ]);
    expect(results.map((result) => result.value?.errorValue)).toEqual([
      { type: 'REF', message: "Unresolved sheet name 'Sheet9'." },
      { type: 'REF', message: "Unresolved sheet name 'No tab'." },
      { type: 'REF', message: "Unresolved sheet name 'Gone'." },
      { type: 'REF', message: "Unresolved sheet name 'It's gone'." },
    ]);
  });

  it('formats a DATE() result as a date', () => {
    expect(evaluate(['=DATE(2024,3,5)'])[0]).toEqual({ value: { numberValue: 45356 }, text: '3/5/2024' });
  });

  it('keeps text that looks like a number as text', () => {
    const results = evaluate(['=ISTEXT(A2)', '=A2&""'], [["'123"]]);
    expect(results.map((result) => result.text)).toEqual(['TRUE', '123']);
  });

  it('rewrites bare TRUE and FALSE outside strings only', () => {
    expect(engineFormula('=IF(TRUE,"TRUE",false)')).toBe('=IF(TRUE(),"TRUE",FALSE())');
    expect(engineFormula("='TRUE'!A1")).toBe("='TRUE'!A1");
  });
});
