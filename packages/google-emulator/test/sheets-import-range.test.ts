/**
 * IMPORTRANGE through googleapis alone (https://support.google.com/docs/answer/3093340): a range
 * of another of the person's spreadsheets, by URL or id; another account's spreadsheet is `#REF!`
 * until its sheets are connected, a step the emulator does not have (README-sheets.md).
 */
import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

let emulator: GoogleEmulator;
let alice: sheets_v4.Sheets;
let bob: sheets_v4.Sheets;

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  alice = sheetsFor(
    emulator,
    (await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] })).auth,
  );
  bob = sheetsFor(
    emulator,
    (await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets], account: 'bob@example.com' }))
      .auth,
  );
});

afterAll(async () => {
  await emulator?.close();
});

async function book(sheets: sheets_v4.Sheets, tabs: string[], values?: unknown[][]): Promise<string> {
  const { data } = await sheets.spreadsheets.create({
    requestBody: { sheets: tabs.map((title) => ({ properties: { title } })) },
  });
  const spreadsheetId = data.spreadsheetId as string;
  if (values)
    await sheets.spreadsheets.values.update({
      spreadsheetId,
      range: `${tabs[0]}!A1`,
      valueInputOption: 'USER_ENTERED',
      requestBody: { values },
    });
  return spreadsheetId;
}

const TEAMS = [
  ['Team', 'Wins'],
  ['Oilers', 3],
  ['Flames', 5],
  ['Jets', '=B2+B3'],
];

async function formulaIn(spreadsheetId: string, formula: string, range = 'A1:C6') {
  await alice.spreadsheets.values.clear({ spreadsheetId, range: 'Sheet1' });
  await alice.spreadsheets.values.update({
    spreadsheetId,
    range: 'Sheet1!A1',
    valueInputOption: 'USER_ENTERED',
    requestBody: { values: [[formula]] },
  });
  const { data } = await alice.spreadsheets.get({
    spreadsheetId,
    ranges: [`Sheet1!${range}`],
    includeGridData: true,
  });
  const rows = data.sheets?.[0]?.data?.[0]?.rowData ?? [];
  return {
    values: rows.map((row) =>
      (row.values ?? []).map((cell) => {
        const value = cell.effectiveValue;
        return value?.numberValue ?? value?.stringValue ?? value?.boolValue ?? null;
      }),
    ),
    error: rows[0]?.values?.[0]?.effectiveValue?.errorValue,
  };
}

describe('IMPORTRANGE', () => {
  it('imports a range of the person’s own spreadsheet by URL or id, with computed values', async () => {
    const source = await book(alice, ['Teams'], TEAMS);
    const target = await book(alice, ['Sheet1']);
    const url = `https://docs.google.com/spreadsheets/d/${source}/edit#gid=0`;
    expect((await formulaIn(target, `=IMPORTRANGE("${url}", "Teams!A1:B4")`)).values).toEqual([
      ['Team', 'Wins'],
      ['Oilers', 3],
      ['Flames', 5],
      ['Jets', 8],
    ]);
    // An id, an open range, and the first sheet when the range names none.
    expect((await formulaIn(target, `=IMPORTRANGE("${source}", "B2:B")`, 'A1:A4')).values).toEqual([
      [3],
      [5],
      [8],
    ]);
    expect((await formulaIn(target, `=SUM(IMPORTRANGE("${source}", "Teams!B2:B4"))`)).values).toEqual([[16]]);
    // Its result is an array like any other: QUERY names its columns Col1, Col2.
    expect(
      (
        await formulaIn(
          target,
          `=QUERY(IMPORTRANGE("${source}", "Teams!A1:B4"), "select Col1 where Col2 > 4", 1)`,
        )
      ).values,
    ).toEqual([['Team'], ['Flames'], ['Jets']]);
  });

  it('gives #REF! for another account’s spreadsheet, one that does not exist, or a bad range', async () => {
    const bobs = await book(bob, ['Secret'], [['hidden']]);
    const own = await book(alice, ['Teams'], TEAMS);
    const target = await book(alice, ['Sheet1']);
    const notConnected = { type: 'REF', message: 'You need to connect these sheets.' };
    expect((await formulaIn(target, `=IMPORTRANGE("${bobs}", "Secret!A1")`)).error).toEqual(notConnected);
    expect((await formulaIn(target, '=IMPORTRANGE("no-such-spreadsheet", "A1")')).error).toEqual(
      notConnected,
    );
    expect((await formulaIn(target, `=IMPORTRANGE("${own}", "Nope!A1")`)).error).toEqual({
      type: 'REF',
      message: 'Unable to parse range: Nope!A1',
    });
  });
});
