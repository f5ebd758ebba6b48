import { describe, expect, it } from 'vitest';
import {
  columnToLetters,
  formatRange,
  lettersToColumn,
  parseA1,
  quoteSheetTitle,
  resolveRange,
} from '../src/sheets/a1-notation.ts';
import { SpreadsheetStore } from '../src/sheets/spreadsheet-store.ts';

function spreadsheet() {
  return new SpreadsheetStore().create('id', {
    title: 'Book',
    sheets: [
      { title: 'Sheet1', rows: [] },
      { title: 'My tab', rows: [] },
      { title: "It's", rows: [] },
      { title: 'A1', rows: [] },
    ],
  });
}

const bounds = (text: string) => {
  const { sheet, bounds } = resolveRange(spreadsheet(), text);
  return { sheet: sheet.properties.title, ...bounds };
};

describe('A1 notation', () => {
  it('converts column letters both ways', () => {
    expect(columnToLetters(0)).toBe('A');
    expect(columnToLetters(25)).toBe('Z');
    expect(columnToLetters(26)).toBe('AA');
    expect(columnToLetters(701)).toBe('ZZ');
    expect(columnToLetters(702)).toBe('AAA');
    for (const column of [0, 25, 26, 51, 701, 702, 18277])
      expect(lettersToColumn(columnToLetters(column))).toBe(column);
  });

  it('reads quoted tab names with doubled quotes', () => {
    expect(bounds("'My tab'!A1:C9")).toEqual({
      sheet: 'My tab',
      startRow: 0,
      endRow: 9,
      startColumn: 0,
      endColumn: 3,
    });
    expect(bounds("'It''s'!B2")).toEqual({
      sheet: "It's",
      startRow: 1,
      endRow: 2,
      startColumn: 1,
      endColumn: 2,
    });
    expect(parseA1("'It''s'!B2")).toEqual([
      { sheetName: "It's", area: { startRow: 1, endRow: 2, startColumn: 1, endColumn: 2 } },
    ]);
  });

  it('reads unquoted names, lower case, $ anchors and reversed corners', () => {
    expect(bounds('Sheet1!$b$2:a1')).toEqual({
      sheet: 'Sheet1',
      startRow: 0,
      endRow: 2,
      startColumn: 0,
      endColumn: 2,
    });
    expect(bounds('My tab!A1')).toMatchObject({ sheet: 'My tab', startRow: 0, endRow: 1 });
    expect(bounds('sheet1!A1')).toMatchObject({ sheet: 'Sheet1' });
  });

  it('fills whole columns, whole rows and open ends from the grid', () => {
    expect(bounds('Sheet1!A:C')).toEqual({
      sheet: 'Sheet1',
      startRow: 0,
      endRow: 1000,
      startColumn: 0,
      endColumn: 3,
    });
    expect(bounds('Sheet1!2:5')).toEqual({
      sheet: 'Sheet1',
      startRow: 1,
      endRow: 5,
      startColumn: 0,
      endColumn: 26,
    });
    expect(bounds('Sheet1!A2:C')).toEqual({
      sheet: 'Sheet1',
      startRow: 1,
      endRow: 1000,
      startColumn: 0,
      endColumn: 3,
    });
    expect(bounds('Sheet1!B2:5')).toEqual({
      sheet: 'Sheet1',
      startRow: 1,
      endRow: 5,
      startColumn: 1,
      endColumn: 26,
    });
  });

  it('takes a sheet name alone as the whole sheet, and a bare area as the first sheet', () => {
    expect(bounds('My tab')).toEqual({
      sheet: 'My tab',
      startRow: 0,
      endRow: 1000,
      startColumn: 0,
      endColumn: 26,
    });
    expect(bounds("'My tab'")).toMatchObject({ sheet: 'My tab', endRow: 1000 });
    expect(bounds('B3')).toEqual({ sheet: 'Sheet1', startRow: 2, endRow: 3, startColumn: 1, endColumn: 2 });
    // An unquoted `A1` is a cell, as in Google; the sheet named A1 needs quotes.
    expect(bounds("'A1'!B1")).toMatchObject({ sheet: 'A1' });
  });

  it('puts a bare area on the first visible sheet, skipping hidden ones, as Google does', () => {
    const book = spreadsheet();
    book.sheets[0]!.properties.hidden = true;
    book.sheets[1]!.properties.hidden = true;
    expect(resolveRange(book, 'A1:B2').sheet.properties.title).toBe("It's");
    // A hidden sheet named is still that sheet.
    expect(resolveRange(book, 'Sheet1!A1').sheet.properties.title).toBe('Sheet1');
  });

  it("refuses unknown sheets and bad syntax with Google's message", () => {
    for (const text of ['Sheet9!A1', 'Sheet1!A1:B2:C3', 'Sheet1!A:5', "'My tab!A1", 'Sheet1!A0']) {
      expect(() => resolveRange(spreadsheet(), text)).toThrow(`Unable to parse range: ${text}`);
    }
  });

  it('quotes tab names in responses when Google does', () => {
    expect(quoteSheetTitle('Sheet1')).toBe('Sheet1');
    expect(quoteSheetTitle('My tab')).toBe("'My tab'");
    expect(quoteSheetTitle("It's")).toBe("'It''s'");
    expect(quoteSheetTitle('A1')).toBe("'A1'");
    expect(quoteSheetTitle('2024')).toBe("'2024'");
    expect(formatRange('My tab', { startRow: 0, endRow: 9, startColumn: 0, endColumn: 3 })).toBe(
      "'My tab'!A1:C9",
    );
    expect(formatRange('Sheet1', { startRow: 4, endRow: 5, startColumn: 27, endColumn: 28 })).toBe(
      'Sheet1!AB5',
    );
  });
});
