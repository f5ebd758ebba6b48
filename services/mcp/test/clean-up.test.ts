import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { callTool, callToolOk } from './support/tool-answers.ts';

// Issue 35, "clean-up in place": 300 contacts with repeated people, padded and run-together
// spaces and shouting case, cleaned by remove_duplicates, trim_whitespace and change_case without
// the rows passing through the model — each read back through the emulator, each undone exactly
// (values and formats), dry runs changing nothing, and bad input refused before any write. Real
// auth and mcp processes against the Google emulator.

let stack: McpUnderTest;
let client: Client;
let userId: string;

type Json = Record<string, unknown>;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  ({ userId } = await stack.signIn('alice@example.com'));
  client = await stack.connectClient(userId, 'clean-up');
}, 120_000);
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

const CITIES = ['  paris', 'LONDON ', 'new   york', 'Lima'];

/** The 270 people, as typed with care or not. */
function person(i: number): [string, string, string, number] {
  const name = [`  ada${i}   lovelace `, `GRACE${i} HOPPER`, `alan${i} turing`][i % 3]!;
  const email = i % 5 === 0 ? `PERSON${i}@EXAMPLE.COM` : `person${i}@example.com`;
  return [name, email, CITIES[i % 4]!, i];
}

/**
 * 300 contacts under a header: 270 people, and 30 of them again further down with their email in
 * another case and another score, so they repeat an earlier row by email only.
 */
function contacts(): Array<[string, string, string, number | string]> {
  const rows: Array<[string, string, string, number | string]> = [['Name', 'Email', 'City', 'Score']];
  for (let i = 0; i < 270; i++) {
    rows.push(person(i));
    if (i % 9 === 8) {
      const [name, email, city] = person(i - 4);
      rows.push([
        name,
        email.toUpperCase() === email ? email.toLowerCase() : email.toUpperCase(),
        city,
        1000 + i,
      ]);
    }
  }
  return rows;
}

async function google(path: string, init?: { method: string; body: unknown }): Promise<Json> {
  const token = await stack.googleAccessToken(userId);
  const response = await fetch(`${stack.emulatorUrl}${path}`, {
    method: init?.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(init ? { body: JSON.stringify(init.body) } : {}),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Json;
}

/** A book with "Contacts" (a bold header, a coloured column) and an "Other" tab beside it. */
async function contactBook(): Promise<{ spreadsheetId: string; contactsId: number }> {
  const [spreadsheetId] = await stack.seed('alice@example.com', [
    {
      name: 'Contacts',
      sheets: [
        { title: 'Contacts', values: contacts() },
        { title: 'Other', values: [['keep me']] },
      ],
    },
  ]);
  const book = await google(`/v4/spreadsheets/${spreadsheetId}?fields=sheets.properties`);
  const contactsId = (book.sheets as Array<{ properties: { sheetId: number; title: string } }>).find(
    (sheet) => sheet.properties.title === 'Contacts',
  )!.properties.sheetId;
  const grid = (rows: [number, number], columns: [number, number]) => ({
    sheetId: contactsId,
    startRowIndex: rows[0],
    endRowIndex: rows[1],
    startColumnIndex: columns[0],
    endColumnIndex: columns[1],
  });
  await google(`/v4/spreadsheets/${spreadsheetId}:batchUpdate`, {
    method: 'POST',
    body: {
      requests: [
        {
          repeatCell: {
            range: grid([0, 1], [0, 4]),
            cell: { userEnteredFormat: { textFormat: { bold: true } } },
            fields: 'userEnteredFormat.textFormat.bold',
          },
        },
        {
          repeatCell: {
            range: grid([1, 301], [3, 4]),
            cell: { userEnteredFormat: { backgroundColor: { red: 1, green: 0.9, blue: 0.8 } } },
            fields: 'userEnteredFormat.backgroundColor',
          },
        },
      ],
    },
  });
  return { spreadsheetId: spreadsheetId!, contactsId };
}

/** Every cell of every tab: what it holds as entered and its format, empty cells left out. */
async function snapshot(spreadsheetId: string): Promise<Json> {
  const book = await google(
    `/v4/spreadsheets/${spreadsheetId}?includeGridData=true&fields=${encodeURIComponent('sheets(properties(title,gridProperties),data(startRow,startColumn,rowData(values(userEnteredValue,userEnteredFormat,textFormatRuns))))')}`,
  );
  const cells: Json = {};
  for (const sheet of book.sheets as Json[]) {
    const title = (sheet.properties as Json).title as string;
    cells[`${title} grid`] = (sheet.properties as Json).gridProperties;
    for (const block of (sheet.data as Json[] | undefined) ?? [])
      for (const [r, row] of ((block.rowData as Json[] | undefined) ?? []).entries())
        for (const [c, cell] of ((row.values as Json[] | undefined) ?? []).entries())
          if (cell && Object.keys(cell).length > 0)
            cells[
              `${title}!${((block.startRow as number) ?? 0) + r},${((block.startColumn as number) ?? 0) + c}`
            ] = cell;
  }
  return cells;
}

/** A range's values as entered (FORMULA rendering), rows trailing empties cut. */
async function values(spreadsheetId: string, range: string): Promise<unknown[][]> {
  const data = await google(
    `/v4/spreadsheets/${spreadsheetId}/values/${encodeURIComponent(range)}?valueRenderOption=FORMULA`,
  );
  return (data.values as unknown[][] | undefined) ?? [];
}

/** What a cell holds as entered: `{ stringValue }`, `{ formulaValue }`, … */
async function entered(spreadsheetId: string, cell: string): Promise<Json | undefined> {
  const book = await google(
    `/v4/spreadsheets/${spreadsheetId}?ranges=${encodeURIComponent(cell)}&fields=${encodeURIComponent('sheets(data(rowData(values(userEnteredValue))))')}`,
  );
  const sheets = book.sheets as Array<{ data: Array<{ rowData?: Array<{ values?: Json[] }> }> }>;
  return sheets[0]?.data[0]?.rowData?.[0]?.values?.[0]?.userEnteredValue as Json | undefined;
}

async function undo(changeId: unknown): Promise<void> {
  const answer = await callTool(client, 'undo_change', { changeId });
  expect(answer.isError, answer.text).toBe(false);
}

describe('remove_duplicates', () => {
  it('removes the 30 repeated people by email, keeps the first of each, and undo brings them back', async () => {
    const { spreadsheetId } = await contactBook();
    const before = await snapshot(spreadsheetId);
    const args = { spreadsheetId, range: 'Contacts', columns: ['email'], headerRow: true };

    const dry = await callToolOk(client, 'remove_duplicates', { ...args, dryRun: true });
    expect(dry.structured).toMatchObject({
      range: 'Contacts!A2:D301',
      compared: ['B (Email)'],
      rowsCompared: 300,
      duplicatesRemoved: 30,
      rowsLeft: 270,
      dryRun: true,
    });
    expect((dry.structured.examples as unknown[])[0]).toEqual({ row: 11, sameAs: 6 });
    expect(dry.text).toMatch(
      /^Dry run: would remove 30 duplicate rows of 300 rows in Contacts!A2:D301, comparing B \(Email\) \(row 11 repeats row 6, /,
    );
    expect(await snapshot(spreadsheetId)).toEqual(before);

    const done = await callToolOk(client, 'remove_duplicates', args);
    expect(done.structured).toMatchObject({ duplicatesRemoved: 30, rowsLeft: 270 });
    expect(done.text).toMatch(
      /^Removed 30 duplicate rows from Contacts!A2:D301, comparing B \(Email\): 270 rows left below the header\. Change \S+ \(undo_change can undo it\)\.$/,
    );
    const left = await values(spreadsheetId, 'Contacts!A1:D301');
    expect(left.length).toBe(271);
    expect(left.slice(1)).toEqual(Array.from({ length: 270 }, (_, i) => person(i)));
    // The header stays bold; the score column's colour stays on the rows that moved up.
    const after = await snapshot(spreadsheetId);
    expect((after['Contacts!0,0'] as Json).userEnteredFormat).toEqual(
      (before['Contacts!0,0'] as Json).userEnteredFormat,
    );
    expect(after['Other!0,0']).toEqual(before['Other!0,0']);

    await undo(done.structured.changeId);
    expect(await snapshot(spreadsheetId)).toEqual(before);
  });

  it('compares every column when none is named: rows differing in score stay', async () => {
    const { spreadsheetId } = await contactBook();
    const done = await callToolOk(client, 'remove_duplicates', {
      spreadsheetId,
      range: 'Contacts!A1:D301',
      headerRow: true,
    });
    expect(done.structured).toMatchObject({ compared: [], duplicatesRemoved: 0, rowsLeft: 300 });
    // Names and emails only: the second of each pair differs in email case, which is no difference.
    const byTwo = await callToolOk(client, 'remove_duplicates', {
      spreadsheetId,
      range: 'Contacts!A1:B301',
      columns: ['A', 'b'],
      headerRow: true,
      dryRun: true,
    });
    expect(byTwo.structured).toMatchObject({ compared: ['A (Name)', 'B (Email)'], duplicatesRemoved: 30 });
  });
});

describe('trim_whitespace', () => {
  it('trims the padded names and cities, leaves numbers alone, and undo puts the spaces back', async () => {
    const { spreadsheetId } = await contactBook();
    const before = await snapshot(spreadsheetId);
    const rows = contacts();
    const messy = rows
      .flat()
      .filter((cell) => typeof cell === 'string' && cell !== cell.replace(/\s+/g, ' ').trim());

    const dry = await callToolOk(client, 'trim_whitespace', {
      spreadsheetId,
      range: 'Contacts',
      dryRun: true,
    });
    expect(dry.structured).toMatchObject({
      range: 'Contacts!A1:Z1000',
      cellsChanged: messy.length,
      dryRun: true,
    });
    expect((dry.structured.examples as Json[])[0]).toEqual({
      cell: 'A2',
      before: '  ada0   lovelace ',
      after: 'ada0 lovelace',
    });
    expect(await snapshot(spreadsheetId)).toEqual(before);

    const done = await callToolOk(client, 'trim_whitespace', { spreadsheetId, range: 'Contacts' });
    expect(done.structured).toMatchObject({ range: 'Contacts!A1:Z1000', cellsChanged: messy.length });
    expect(await values(spreadsheetId, 'Contacts!A1:D301')).toEqual(
      rows.map((row) =>
        row.map((cell) => (typeof cell === 'string' ? cell.replace(/\s+/g, ' ').trim() : cell)),
      ),
    );
    await undo(done.structured.changeId);
    expect(await snapshot(spreadsheetId)).toEqual(before);
  });
});

describe('change_case', () => {
  it('title-cases the names and lower-cases the emails, and undo restores them', async () => {
    const { spreadsheetId } = await contactBook();
    const before = await snapshot(spreadsheetId);
    const rows = contacts().slice(1);
    const titled = (text: string) =>
      text.replace(/\p{L}+/gu, (word) => word[0]!.toUpperCase() + word.slice(1).toLowerCase());
    const changed = rows.filter(([name]) => titled(name) !== name).length;
    expect(changed).toBeGreaterThan(150);

    const dry = await callToolOk(client, 'change_case', {
      spreadsheetId,
      range: 'Contacts!A2:A301',
      case: 'title',
      dryRun: true,
    });
    expect(dry.structured).toMatchObject({ cellsChanged: changed, dryRun: true });
    expect((dry.structured.examples as Json[])[0]).toEqual({
      cell: 'A2',
      before: '  ada0   lovelace ',
      after: '  Ada0   Lovelace ',
    });
    expect(await snapshot(spreadsheetId)).toEqual(before);

    const title = await callToolOk(client, 'change_case', {
      spreadsheetId,
      range: 'Contacts!A2:A301',
      case: 'title',
    });
    expect(title.structured).toMatchObject({
      range: 'Contacts!A2:A301',
      case: 'title',
      cellsChanged: changed,
    });
    const names = (await values(spreadsheetId, 'Contacts!A2:A301')).map((row) => row[0]);
    expect(names).toEqual(rows.map(([name]) => titled(name)));
    // Only column A was written: the emails beside it are as they were.
    expect((await values(spreadsheetId, 'Contacts!B2:B301')).map((row) => row[0])).toEqual(
      rows.map((row) => row[1]),
    );
    await undo(title.structured.changeId);
    expect(await snapshot(spreadsheetId)).toEqual(before);

    const lower = await callToolOk(client, 'change_case', {
      spreadsheetId,
      range: 'Contacts!B:B',
      case: 'lower',
    });
    expect(lower.structured.cellsChanged).toBe(
      1 + rows.filter(([, email]) => email !== email.toLowerCase()).length,
    );
    expect(await values(spreadsheetId, 'Contacts!B1:B3')).toEqual([
      ['email'],
      ['person0@example.com'],
      ['person1@example.com'],
    ]);
    await undo(lower.structured.changeId);
    expect(await snapshot(spreadsheetId)).toEqual(before);
  });

  it('leaves formulas, numbers and booleans alone, and text that looks like a formula stays text', async () => {
    const [spreadsheetId] = await stack.seed('alice@example.com', [
      {
        name: 'Mixed',
        values: [
          ['=LOWER("ABC")', "'=not a formula", 'mixed Case here. and more', 12, true, '="x"&C1', 'done'],
        ],
      },
    ]);
    const before = await snapshot(spreadsheetId!);
    const done = await callToolOk(client, 'change_case', {
      spreadsheetId,
      range: 'Sheet1!A1:G1',
      case: 'upper',
    });
    expect(done.structured.cellsChanged).toBe(3);
    expect(await values(spreadsheetId!, 'Sheet1!A1:G1')).toEqual([
      ['=LOWER("ABC")', '=NOT A FORMULA', 'MIXED CASE HERE. AND MORE', 12, true, '="x"&C1', 'DONE'],
    ]);
    expect(await entered(spreadsheetId!, 'Sheet1!A1')).toEqual({ formulaValue: '=LOWER("ABC")' });
    expect(await entered(spreadsheetId!, 'Sheet1!B1')).toEqual({ stringValue: '=NOT A FORMULA' });
    expect(await entered(spreadsheetId!, 'Sheet1!F1')).toEqual({ formulaValue: '="x"&C1' });
    const sentence = await callToolOk(client, 'change_case', {
      spreadsheetId,
      range: 'Sheet1!C1',
      case: 'sentence',
    });
    expect(sentence.structured.cellsChanged).toBe(1);
    expect(await values(spreadsheetId!, 'Sheet1!C1')).toEqual([['Mixed case here. And more']]);
    await undo(sentence.structured.changeId);
    await undo(done.structured.changeId);
    expect(await snapshot(spreadsheetId!)).toEqual(before);
  });
});

describe('bad input, refused before any write', () => {
  it('names the tabs, the headers and the bound', async () => {
    const { spreadsheetId } = await contactBook();
    const before = await snapshot(spreadsheetId);

    const unknownTab = await callTool(client, 'trim_whitespace', { spreadsheetId, range: 'Contacs!A1:B2' });
    expect(unknownTab.isError).toBe(true);
    expect(unknownTab.text).toMatch(/names no tab of this spreadsheet .*get_spreadsheet lists the tabs/);

    const unknownColumn = await callTool(client, 'remove_duplicates', {
      spreadsheetId,
      range: 'Contacts',
      columns: ['Emial'],
      headerRow: true,
    });
    expect(unknownColumn.isError).toBe(true);
    expect(unknownColumn.text).toContain(
      '"Emial" is neither a column letter inside Contacts nor a header of its first row ("Name", "Email", "City" and "Score").',
    );
    const nameWithoutHeader = await callTool(client, 'remove_duplicates', {
      spreadsheetId,
      range: 'Contacts',
      columns: ['Email'],
    });
    expect(nameWithoutHeader.text).toMatch(/with headerRow: true the first row names the columns/);

    await google(`/v4/spreadsheets/${spreadsheetId}:batchUpdate`, {
      method: 'POST',
      body: {
        requests: [
          { addSheet: { properties: { title: 'Big', gridProperties: { rowCount: 3000, columnCount: 26 } } } },
        ],
      },
    });
    const afterAdd = await snapshot(spreadsheetId);
    for (const tool of ['remove_duplicates', 'trim_whitespace', 'change_case']) {
      const huge = await callTool(client, tool, {
        spreadsheetId,
        range: 'Big',
        ...(tool === 'change_case' ? { case: 'upper' } : {}),
      });
      expect(huge.isError, tool).toBe(true);
      expect(huge.text).toContain(
        'Big covers 78,000 cells; one call cleans at most 50,000 cells (1,923 rows of these 26 columns)',
      );
    }
    const past = await callTool(client, 'change_case', {
      spreadsheetId,
      range: 'Contacts!A1:A5000',
      case: 'upper',
    });
    expect(past.text).toMatch(/reaches past the tab "Contacts"/);
    expect(await snapshot(spreadsheetId)).toEqual(afterAdd);
    expect(Object.keys(afterAdd).filter((key) => !key.startsWith('Big'))).toEqual(Object.keys(before));
  });
});

describe('batch_update', () => {
  it('takes deleteDuplicates and trimWhitespace, and undo_change takes them back', async () => {
    const { spreadsheetId, contactsId } = await contactBook();
    const before = await snapshot(spreadsheetId);
    const range = {
      sheetId: contactsId,
      startRowIndex: 1,
      endRowIndex: 301,
      startColumnIndex: 0,
      endColumnIndex: 4,
    };
    const done = await callToolOk(client, 'batch_update', {
      spreadsheetId,
      requests: [
        { trimWhitespace: { range } },
        {
          deleteDuplicates: {
            range,
            comparisonColumns: [{ sheetId: contactsId, dimension: 'COLUMNS', startIndex: 1, endIndex: 2 }],
          },
        },
      ],
    });
    expect(done.structured.replies).toEqual([
      { trimWhitespace: { cellsChangedCount: expect.any(Number) } },
      { deleteDuplicates: { duplicatesRemovedCount: 30 } },
    ]);
    expect((await values(spreadsheetId, 'Contacts!A2'))[0]).toEqual(['ada0 lovelace']);
    await undo(done.structured.changeId);
    expect(await snapshot(spreadsheetId)).toEqual(before);
  });
});
