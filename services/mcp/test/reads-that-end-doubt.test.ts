import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// Reads that end doubt (issue 35, item 10), through the MCP SDK client, real mcp and auth processes
// and the Google emulator. Each reproduction the issue quotes is a test here:
// - read_range of a 1,000-row tab stopped after 500 blank rows (data further down went unseen, and
//   "nothing below row 14" could not be told from it); with limit 2,000 a page stopped short of it
//   without saying why;
// - a tab named BOM (or A1, R1C1, ABC) given alone was read as cells, not as the tab;
// - ifRevision matched only the literal range read (`Contacts` vs `Contacts!A1:D303`, a read of
//   `products!B1:F4` vs a write of `products!F2:F4`).
// They rely on documented behaviour of spreadsheets.values.get: "Empty trailing rows and columns
// are omitted" from `values` (ValueRange), and a read starting below a tab's grid is refused.

let stack: McpUnderTest;
let client: Client;
let spreadsheetId: string;

interface Page {
  range: string;
  values: unknown[][];
  totalRows: number | null;
  offset: number;
  returnedRows: number;
  nextOffset: number | null;
  lastRow: number | null;
  lastColumn: string | null;
  stoppedBy: 'end' | 'limit' | 'budget' | 'scan';
}

const row = (index: number) => [`name ${index}`, `mail${index}@example.com`, index, 'x'];
/** Rows 1–14 of data, a blank stretch, and one more row at `late` (1-based). */
function withGap(late: number): unknown[][] {
  const values: unknown[][] = Array.from({ length: 14 }, (_, index) => row(index + 1));
  while (values.length < late - 1) values.push([]);
  values.push(['late', 'row']);
  return values;
}

async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: { spreadsheetId, ...args } });
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  expect(result.isError, text).toBeFalsy();
  return { structured: result.structuredContent as Record<string, unknown>, text };
}

async function readRange(args: Record<string, unknown>) {
  const { structured, text } = await call('read_range', args);
  return { page: structured as unknown as Page, text };
}

async function googleCalls(): Promise<Record<string, number>> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return Object.fromEntries(Object.entries(stats.methods).map(([name, { attempts }]) => [name, attempts]));
}

async function callsOf(action: () => Promise<unknown>): Promise<number> {
  const before = await googleCalls();
  await action();
  const after = await googleCalls();
  return Object.entries(after).reduce((sum, [name, count]) => sum + count - (before[name] ?? 0), 0);
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const email = 'alice@example.com';
  const { userId } = await stack.signIn(email);
  [spreadsheetId] = (await stack.seed(email, [
    {
      name: 'Doubt',
      sheets: [
        { title: 'Short', values: Array.from({ length: 14 }, (_, index) => row(index + 1)) },
        { title: 'Gap', values: withGap(700) },
        {
          title: 'Dense',
          values: Array.from({ length: 1_000 }, (_, line) =>
            Array.from({ length: 10 }, (_, column) => `r${line + 1}c${column + 1}`),
          ),
        },
        { title: 'BOM', values: [['bom']] },
        { title: 'A1', values: [['a1']] },
        { title: 'R1C1', values: [['r1c1']] },
        { title: 'ABC', values: [['abc']] },
        {
          title: 'Table',
          values: [['Name', 'Mail', 'N', 'X'], ...withGap(700).slice(0, -1), ['late', 'row']],
        },
        {
          title: 'Far',
          values: [['Name', 'Mail', 'N', 'X'], ...withGap(2_500).slice(0, -2), ['far', 'away']],
        },
        { title: 'Contacts', values: Array.from({ length: 303 }, (_, index) => row(index + 1)) },
        // Below a blank stretch, a formula whose value is empty: data only to a read of formulas.
        { title: 'Blank formula', values: [...withGap(300).slice(0, -1), ['=IF(FALSE,1,"")']] },
        {
          title: 'products',
          values: [
            [null, 'Item', 'Qty', 'Price', 'Stock'],
            [null, 'Pens', 3, 1.5, 10],
            [null, 'Paper', 2, 4, 20],
            [null, 'Ink', 1, 9, 30],
          ],
        },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'reads-that-end-doubt-test');
});
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('a read says whether the tab holds data past what it returned', () => {
  it('a whole 1,000-row tab of 14 rows: data ends at row 14, nothing below, in one call', async () => {
    let result: Awaited<ReturnType<typeof readRange>> | undefined;
    const calls = await callsOf(async () => {
      result = await readRange({ range: 'Short' });
    });
    const { page, text } = result!;
    expect(page.values).toHaveLength(14);
    expect(page).toMatchObject({
      nextOffset: null,
      totalRows: 14,
      lastRow: 14,
      lastColumn: 'D',
      stoppedBy: 'end',
    });
    expect(text).toContain('Data ends at row 14 (last column D): nothing below it in the range.');
    // The window (the page and one row more), then one spreadsheets.get of the tab's size and the
    // rows under the window: blank to the grid's end.
    expect(calls).toBe(2);
  });

  it('rows further down after more than 500 blank rows are not taken for the end', async () => {
    const { page, text } = await readRange({ range: 'Gap' });
    expect(page.values).toHaveLength(14);
    expect(page).toMatchObject({ nextOffset: 699, totalRows: null, lastRow: null, stoppedBy: 'limit' });
    expect(text).toContain('more data from row 700; call read_range with range="Gap" and offset=699.');
    const next = await readRange({ range: 'Gap', offset: 699 });
    expect(next.page.values).toEqual([['late', 'row']]);
    expect(next.page).toMatchObject({ nextOffset: null, lastRow: 700, lastColumn: 'B', stoppedBy: 'end' });
  });

  it('read_ranges looks below the window too', async () => {
    const { structured } = await call('read_ranges', { ranges: ['Gap', 'Short', 'Far'] });
    const [gap, short, far] = (structured as { valueRanges: Page[] }).valueRanges;
    expect(gap).toMatchObject({ nextOffset: 699, lastRow: null, stoppedBy: 'limit' });
    expect(short).toMatchObject({ nextOffset: null, lastRow: 14, lastColumn: 'D', stoppedBy: 'end' });
    expect(far).toMatchObject({ returnedRows: 15, nextOffset: 2_499, lastRow: null, stoppedBy: 'limit' });
  });

  it('a page cut short of its limit says it stopped at the size budget, and where to go on', async () => {
    const { page, text } = await readRange({ range: 'Dense', limit: 2_000 });
    expect(page.returnedRows).toBeLessThan(1_000);
    expect(page).toMatchObject({ nextOffset: page.returnedRows, stoppedBy: 'budget', lastRow: null });
    expect(text).toContain(
      `the page stopped at the answer's size budget; call read_range with range="Dense" and offset=${page.returnedRows}.`,
    );
    const rest = await readRange({ range: 'Dense', offset: page.returnedRows, limit: 2_000 });
    expect(rest.page).toMatchObject({ nextOffset: null, lastRow: 1_000, lastColumn: 'J', stoppedBy: 'end' });
  });

  it('a blank stretch longer than a window (1,000 rows) hides nothing either', async () => {
    const { page, text } = await readRange({ range: 'Far!A:D' });
    expect(page).toMatchObject({ returnedRows: 15, nextOffset: 2_499, stoppedBy: 'limit' });
    expect(text).toContain(
      `more data from row 2500; call read_range with range="'Far'!A:D" and offset=2499.`,
    );
    const { structured } = await call('read_records', { range: 'Far', columns: ['Name'] });
    expect((structured as { records: Array<{ Name: string }> }).records.at(-1)).toEqual({ Name: 'far' });
    expect(structured).toMatchObject({ nextOffset: null, lastRow: 2_500, lastColumn: 'D' });
  });

  it('the look below counts a cell as a values read of the same rendering shows it', async () => {
    const formulas = await readRange({ range: 'Blank formula', limit: 20, valueRenderOption: 'FORMULA' });
    expect(formulas.page).toMatchObject({ returnedRows: 14, nextOffset: 299, stoppedBy: 'limit' });
    const next = await readRange({ range: 'Blank formula', offset: 299, valueRenderOption: 'FORMULA' });
    expect(next.page.values).toEqual([['=IF(FALSE,1,"")']]);
    const shown = await readRange({ range: 'Blank formula', limit: 20 });
    expect(shown.page).toMatchObject({ returnedRows: 14, nextOffset: null, lastRow: 14, stoppedBy: 'end' });
  });

  it('read_records reads past a blank stretch of more than 500 rows', async () => {
    const { structured } = await call('read_records', { range: 'Table', columns: ['Name'] });
    const records = (structured as { records: Array<{ Name: string }> }).records;
    expect(records.map((record) => record.Name)).toEqual([
      ...Array.from({ length: 14 }, (_, index) => `name ${index + 1}`),
      'late',
    ]);
    expect(structured).toMatchObject({ nextOffset: null, lastRow: 701, lastColumn: 'D' });
  });
});

describe('bad input', () => {
  it('an offset past the largest grid is an empty last page, not a Google parse error', async () => {
    for (const offset of [9_999_998, 10_000_000]) {
      const { page, text } = await readRange({ range: 'Short', offset });
      expect(page).toMatchObject({ values: [], nextOffset: null, stoppedBy: 'end' });
      expect(text).toContain(`No data in the range from row ${offset + 1} on.`);
    }
    const refused = await client.callTool({
      name: 'read_range',
      arguments: { spreadsheetId, range: 'Short', offset: 1e15 },
    });
    expect(refused.isError, JSON.stringify(refused)).toBe(true);
    expect((refused.content as Array<{ text: string }>)[0]!.text).toContain('offset');
  });
});

describe('a bare name that is a tab’s title is read as that tab', () => {
  const tabs = [
    ['BOM', 'bom'],
    ['A1', 'a1'],
    ['R1C1', 'r1c1'],
    ['ABC', 'abc'],
  ] as const;

  it.each(tabs)('read_range of %s', async (title, value) => {
    const { page } = await readRange({ range: title });
    expect(page.values).toEqual([[value]]);
    expect(page.lastRow).toBe(1);
  });

  it('read_ranges of all four at once', async () => {
    const { structured } = await call('read_ranges', { ranges: tabs.map(([title]) => title) });
    expect((structured as { valueRanges: Page[] }).valueRanges.map((each) => each.values)).toEqual(
      tabs.map(([, value]) => [[value]]),
    );
  });

  it('read_records of a tab named like a cell', async () => {
    const { structured } = await call('read_records', { range: 'A1' });
    expect(structured).toMatchObject({ columns: ['a1'], records: [] });
  });

  it('a bare cell that names no tab is still that cell of the first tab', async () => {
    const { page } = await readRange({ range: 'B2' });
    expect(page.values).toEqual([['mail2@example.com']]);
  });
});

describe('a revision covers any part of what was read', () => {
  const write = (range: string, values: unknown[][], ifRevision: string) =>
    client.callTool({ name: 'write_range', arguments: { spreadsheetId, range, values, ifRevision } });
  const textOf = (result: Awaited<ReturnType<typeof write>>) =>
    (result.content as Array<{ text: string }>)[0]!.text;

  it('a read of the tab vouches for a write spelled as its cells', async () => {
    const { page } = await readRange({ range: 'Contacts', limit: 400 });
    expect(page).toMatchObject({ returnedRows: 303, lastRow: 303, stoppedBy: 'end' });
    const revision = (page as unknown as { revision: string }).revision;
    const values = Array.from({ length: 303 }, (_, index) => [`Name ${index + 1}`]);
    const written = await write('Contacts!A1:D303', values, revision);
    expect(written.isError, textOf(written)).toBeFalsy();
    // Below the data the read saw blank rows, to the tab's end: a write there is covered too.
    const below = await write('Contacts!A304', [['new']], revision);
    expect(below.isError, textOf(below)).toBeFalsy();
  });

  it('a read of B1:F4 vouches for a write of F2:F4, and refuses once those rows changed', async () => {
    const { structured } = await call('read_range', { range: 'products!B1:F4' });
    const revision = structured.revision as string;
    const written = await write('products!F2:F4', [[11], [21], [31]], revision);
    expect(written.isError, textOf(written)).toBeFalsy();
    // That write changed F2:F4, which the revision vouched for as they were.
    const again = await write('products!F2:F4', [[12], [22], [32]], revision);
    expect(again.isError).toBe(true);
    expect(textOf(again)).toContain(
      'Nothing was written. products!F2:F4 changed since it was read: rows 2–4 differ now.',
    );
  });

  it('a read of a named range vouches for the cells it names', async () => {
    await call('add_named_range', { name: 'Stock', range: 'products!F1:F4' });
    const { page, text } = await readRange({ range: 'Stock' });
    expect(page).toMatchObject({ returnedRows: 4, lastRow: 4, lastColumn: 'F', stoppedBy: 'end' });
    expect(text).toContain('Data ends at row 4 (last column F)');
    const revision = (page as unknown as { revision: string }).revision;
    const written = await write('products!F4', [[33]], revision);
    expect(written.isError, textOf(written)).toBeFalsy();
    expect(textOf(await write('products!E4', [[1]], revision))).toContain('ifRevision does not cover');
  });

  it('a change in rows a write does not touch is no reason to refuse it; a cell outside the read is', async () => {
    const { structured } = await call('read_range', { range: 'products!B1:F4' });
    const revision = structured.revision as string;
    expect((await write('products!B1', [['Article']], revision)).isError).toBeFalsy();
    const price = await write('products!E3', [[5]], revision);
    expect(price.isError, textOf(price)).toBeFalsy();
    const outside = await write('products!G2', [['x']], revision);
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toContain(
      'ifRevision does not cover products!G2:G2: it vouches for B1:F4 of the tab that was read.',
    );
  });
});
