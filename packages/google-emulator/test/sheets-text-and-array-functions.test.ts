/**
 * Sheets-only functions agents reach for, through googleapis alone, as Google's function list
 * (https://support.google.com/docs/table/25273) and each function's page define them: LET
 * (https://support.google.com/docs/answer/13190535), JOIN (/3094077), SPLIT (/3094136),
 * REGEXMATCH (/3098292), REGEXEXTRACT (/3098244), REGEXREPLACE (/3098245), TO_TEXT (/3094285),
 * ISBETWEEN (/10538337), FLATTEN (/10307761), CHOOSECOLS (/13197914), CHOOSEROWS, TOCOL, TOROW;
 * and those HyperFormula already has as Sheets does (TEXTJOIN, ARRAY_CONSTRAIN, SUMSQ, STDEV.S,
 * VAR.S, UNIQUE by column, HSTACK, VSTACK).
 */
import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;
let spreadsheetId: string;

/** Data!A1:C4. */
const DATA = [
  [1, 'a', 'x'],
  [2, 'b', 'y'],
  [2, 'a', 'x'],
  [4, '', 'z'],
];

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
  const { data } = await sheets.spreadsheets.create({
    requestBody: { sheets: [{ properties: { title: 'Out' } }, { properties: { title: 'Data' } }] },
  });
  spreadsheetId = data.spreadsheetId as string;
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Data!A1',
    valueInputOption: 'USER_ENTERED',
    requestBody: { values: DATA },
  });
});

afterAll(async () => {
  await emulator?.close();
});

/** Writes one formula into Out!A1 (the rest of Out cleared) and reads what it spills, unformatted. */
async function spill(formula: string): Promise<unknown[][]> {
  await sheets.spreadsheets.values.clear({ spreadsheetId, range: 'Out' });
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Out!A1',
    valueInputOption: 'USER_ENTERED',
    requestBody: { values: [[formula]] },
  });
  const { data } = await sheets.spreadsheets.values.get({
    spreadsheetId,
    range: 'Out!A1:F10',
    valueRenderOption: 'UNFORMATTED_VALUE',
  });
  return data.values ?? [];
}

async function cell(formula: string): Promise<sheets_v4.Schema$ExtendedValue | undefined> {
  await spill(formula);
  const { data } = await sheets.spreadsheets.get({
    spreadsheetId,
    ranges: ['Out!A1'],
    includeGridData: true,
  });
  return data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]?.effectiveValue ?? undefined;
}

describe('LET', () => {
  it('names values for the formula expression, later values using earlier names', async () => {
    expect(await spill('=LET(x,2,x*3)')).toEqual([[6]]);
    expect(await spill('=LET(values,Data!A1:A4,total,SUM(values),total/COUNT(values))')).toEqual([[2.25]]);
    expect(await spill('=LET(x,1,LET(x,2,x)+x)')).toEqual([[3]]);
    expect(await spill('=LET(n,2,FILTER(Data!A1:B4,Data!A1:A4=n))')).toEqual([
      [2, 'b'],
      [2, 'a'],
    ]);
  });

  it('leaves a name inside text, a function of the same name and a tab alone', async () => {
    expect(await spill('=LET(sum,1,SUM(sum,Data!A1)&" sum")')).toEqual([['2 sum']]);
  });

  it('is an error, not a value, when its arguments are not names and values', async () => {
    expect((await cell('=LET(x,2)'))?.errorValue).toBeDefined();
    expect((await cell('=LET(x,1,x,2,x)'))?.errorValue).toBeDefined();
  });
});

describe('text functions', () => {
  it('JOIN joins values and one-dimensional ranges, empty cells included', async () => {
    expect(await spill('=JOIN(",",Data!A1:A4)')).toEqual([['1,2,2,4']]);
    expect(await spill('=JOIN("-",Data!B1:B4,TRUE)')).toEqual([['a-b-a--TRUE']]);
    expect((await cell('=JOIN(",",Data!A1:B2)'))?.errorValue?.type).toBe('VALUE');
  });

  it('SPLIT spills the pieces across a row, numbers as numbers', async () => {
    expect(await spill('=SPLIT("a,b;;c",",;")')).toEqual([['a', 'b', 'c']]);
    expect(await spill('=SPLIT("a,,b",",",TRUE,FALSE)')).toEqual([['a', '', 'b']]);
    expect(await spill('=SPLIT("1 - 2.5 - x"," - ",FALSE)')).toEqual([[1, 2.5, 'x']]);
    expect(await spill('=SPLIT(Data!B1&"|"&Data!C2,"|")')).toEqual([['a', 'y']]);
  });

  it('REGEXMATCH, REGEXEXTRACT and REGEXREPLACE', async () => {
    expect(await spill('=REGEXMATCH("Order 12","\\d+")')).toEqual([[true]]);
    expect(await spill('=REGEXMATCH("abc","(?i)^ABC$")')).toEqual([[true]]);
    expect(await spill('=REGEXEXTRACT("ab12cd34","\\d+")')).toEqual([['12']]);
    expect(await spill('=REGEXEXTRACT("2026-12-07","(\\d+)-(\\d+)")')).toEqual([['2026', '12']]);
    expect(await spill('=REGEXREPLACE("John Smith","(\\w+) (\\w+)","$2, $1")')).toEqual([['Smith, John']]);
    const missing = await cell('=REGEXEXTRACT("abc","x")');
    expect(missing?.errorValue).toEqual({
      type: 'N_A',
      message:
        'Function REGEXEXTRACT parameter 2 value "x" does not match text of Function REGEXEXTRACT parameter 1 value "abc".',
    });
    expect((await cell('=REGEXMATCH(Data!A1,"1")'))?.errorValue?.type).toBe('VALUE');
    expect((await cell('=REGEXMATCH("a","(")'))?.errorValue?.type).toBe('REF');
  });

  it('TO_TEXT gives text and ISBETWEEN compares with either bound in or out', async () => {
    expect(await cell('=TO_TEXT(Data!A4)')).toEqual({ stringValue: '4' });
    expect(await spill('=ISBETWEEN(Data!A2,1,2)')).toEqual([[true]]);
    expect(await spill('=ISBETWEEN(Data!A2,1,2,TRUE,FALSE)')).toEqual([[false]]);
    expect(await spill('=ISBETWEEN("b","a","c")')).toEqual([[true]]);
  });

  it('TEXTJOIN leaves empty cells out when asked', async () => {
    expect(await spill('=TEXTJOIN("/",TRUE,Data!B1:B4)')).toEqual([['a/b/a']]);
  });
});

describe('array functions', () => {
  it('FLATTEN, TOCOL and TOROW put an array in one column or row', async () => {
    expect(await spill('=FLATTEN(Data!A1:B2)')).toEqual([[1], ['a'], [2], ['b']]);
    expect(await spill('=TOCOL(Data!A1:B2,0,TRUE)')).toEqual([[1], [2], ['a'], ['b']]);
    expect(await spill('=TOROW(Data!B1:B4,1)')).toEqual([['a', 'b', 'a']]);
  });

  it('CHOOSECOLS and CHOOSEROWS pick by number, negative from the end', async () => {
    expect(await spill('=CHOOSECOLS(Data!A1:C2,3,-3)')).toEqual([
      ['x', 1],
      ['y', 2],
    ]);
    expect(await spill('=CHOOSEROWS(Data!A1:C4,-1,1)')).toEqual([
      [4, '', 'z'],
      [1, 'a', 'x'],
    ]);
    expect((await cell('=CHOOSECOLS(Data!A1:C2,4)'))?.errorValue?.type).toBe('VALUE');
  });

  it('UNIQUE by column, ARRAY_CONSTRAIN, HSTACK and VSTACK', async () => {
    expect(await spill('=UNIQUE({1,1,2;3,3,4},TRUE)')).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(await spill('=ARRAY_CONSTRAIN(Data!A1:C4,2,2)')).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    expect(await spill('=HSTACK(Data!A1:A2,Data!C1:C2)')).toEqual([
      [1, 'x'],
      [2, 'y'],
    ]);
    expect(await spill('=VSTACK(Data!A1:B1,Data!A4:B4)')).toEqual([[1, 'a'], [4]]);
  });

  it('SUMSQ, STDEV.S and VAR.S', async () => {
    expect(await spill('=SUMSQ(Data!A1:A4)')).toEqual([[25]]);
    const stdev = (await spill('=STDEV.S(Data!A1:A4)')).flat()[0] as number;
    expect(stdev).toBeCloseTo(1.258305739, 8);
    const variance = (await spill('=VAR.S(Data!A1:A4)')).flat()[0] as number;
    expect(variance).toBeCloseTo(1.583333333, 8);
  });
});
