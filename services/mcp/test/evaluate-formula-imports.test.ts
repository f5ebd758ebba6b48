import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { callTool, callToolOk } from './support/tool-answers.ts';

// evaluate_formulas' imports: ranges of other spreadsheets read by Sheetgate and laid into hidden
// tabs of the evaluated one for the call, so formulas compare two files without the rows passing
// through the model; the import tabs go with the scratch tab, also when Google failed. Through the
// MCP SDK client against real mcp and auth processes and the Google emulator.

let stack: McpUnderTest;
let client: Client;
let userId: string;
let term1: string;
let term2: string;
let wide: string;
let bobs: string;

const TERM1 = [
  ['Student', 'Score'],
  ['Ada', 80],
  ['Ben', 60],
  ['Cy', 90],
  ['Dee', 100],
  ['Eve', 40],
];
// Another order, one student new in term 2: drops by a quarter or more are Cy (90 → 60) and Dee (100 → 75).
const TERM2 = [
  ['Student', 'Score'],
  ['Dee', 75],
  ['Eve', 35],
  ['Ada', 79],
  ['Fay', 10],
  ['Cy', 60],
  ['Ben', 61],
];

interface Answer {
  results: Array<{ values: unknown[][]; rows: number; error?: string }>;
  imports?: Array<{ name: string; cells: number }>;
}

const evaluate = (formulas: string[], imports: unknown[], id = term2) =>
  callTool(client, 'evaluate_formulas', { spreadsheetId: id, formulas, imports });

async function tabTitles(id: string): Promise<string[]> {
  const token = await stack.googleAccessToken(userId);
  const response = await fetch(
    `${stack.emulatorUrl}/v4/spreadsheets/${id}?fields=sheets(properties(title))`,
    {
      headers: { authorization: `Bearer ${token}` },
    },
  );
  const body = (await response.json()) as { sheets: Array<{ properties: { title: string } }> };
  return body.sheets.map((sheet) => sheet.properties.title);
}

async function googleCalls(method: string): Promise<number> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return stats.methods[method]?.attempts ?? 0;
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  ({ userId } = await stack.signIn('alice@example.com'));
  [term1, term2, wide] = (await stack.seed('alice@example.com', [
    { name: 'Term 1', sheets: [{ title: 'Scores', values: TERM1 }] },
    {
      name: 'Term 2',
      sheets: [
        { title: 'Scores', values: TERM2 },
        { title: 'Notes', values: [['']] },
      ],
    },
    {
      name: 'Wide',
      sheets: [{ title: 'Data', values: Array.from({ length: 1_001 }, (_, index) => [index]) }],
    },
  ])) as [string, string, string];
  [bobs] = (await stack.seed('bob@example.com', [
    { name: 'Private', sheets: [{ title: 'Scores', values: TERM1 }] },
  ])) as [string];
  client = await stack.connectClient(userId, 'evaluate-formula-imports-test');
});
afterEach(async () => {
  await stack.clearFaults();
});
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('a lookup across files', () => {
  it('names the students whose term 2 score is at most 75% of term 1, the rows never in the answer', async () => {
    const before = await tabTitles(term2);
    const answer = await evaluate(
      [
        '=FILTER(Scores!A2:A7, Scores!B2:B7 <= 0.75 * IFERROR(VLOOKUP(Scores!A2:A7, Term1!A:B, 2, FALSE), 0))',
        '=VLOOKUP("Ben", Term1!A:B, 2, FALSE)',
      ],
      [
        {
          name: 'Term1',
          spreadsheetId: `https://docs.google.com/spreadsheets/d/${term1}/edit`,
          range: 'Scores!A:B',
        },
      ],
    );
    expect(answer.isError, answer.text).toBe(false);
    const { results, imports } = answer.structured as unknown as Answer;
    expect(results[0]!.values).toEqual([['Dee'], ['Cy']]);
    expect(results[1]!.values).toEqual([[60]]);
    expect(imports).toEqual([{ name: 'Term1', cells: 12 }]);
    expect(answer.text).toMatch(/^Imported: Term1 12 cells\./);
    expect(answer.text).not.toContain('Eve');
    expect(await tabTitles(term2)).toEqual(before);
    for (const id of [term1, term2]) {
      const changes = await callToolOk(client, 'list_changes', { spreadsheetId: id });
      expect(changes.structured.changes).toEqual([]);
    }
  });

  it('carries numbers as numbers, text as text (a leading = too), from the range’s top-left to A1', async () => {
    await callToolOk(client, 'write_range', {
      spreadsheetId: term1,
      range: 'Scores!D2',
      values: [["'=1+1", '=DATE(2024, 1, 2)']],
    });
    const answer = await evaluate(
      ['=Marks!A1', '=ISTEXT(Marks!A1)', '=Marks!B1 + 1', '=ROWS(Marks!A:A)'],
      [{ name: 'Marks', spreadsheetId: term1, range: 'Scores!D2:E' }],
    );
    expect(answer.isError, answer.text).toBe(false);
    const { results, imports } = answer.structured as unknown as Answer;
    expect(results.map((result) => result.values[0]![0])).toEqual(['=1+1', true, 45294, 1]);
    expect(imports).toEqual([{ name: 'Marks', cells: 2 }]);
  });

  it('takes up to three imports, one of them of the same file', async () => {
    const answer = await evaluate(
      ['=COUNTA(First!A:A) + COUNTA(B_2!A:A) + COUNTA(Third!A:A)'],
      [
        { name: 'First', spreadsheetId: term1, range: 'Scores!A:A' },
        { name: 'B_2', spreadsheetId: term1, range: 'Scores!A2:A3' },
        { name: 'Third', spreadsheetId: term2, range: 'Scores!A1:A2' },
      ],
    );
    expect(answer.isError, answer.text).toBe(false);
    const { results, imports } = answer.structured as unknown as Answer;
    expect(results[0]!.values).toEqual([[6 + 2 + 2]]);
    expect(imports!.map((entry) => entry.cells)).toEqual([6, 2, 2]);
  });
});

describe('refused, nothing left', () => {
  it('an import named as a tab the spreadsheet has (in any case)', async () => {
    const before = await tabTitles(term2);
    const answer = await evaluate(['=1'], [{ name: 'notes', spreadsheetId: term1, range: 'Scores!A:B' }]);
    expect(answer).toMatchObject({
      isError: true,
      text: 'imports "notes": the spreadsheet already has a tab of that name; name the import otherwise.',
    });
    expect(await tabTitles(term2)).toEqual(before);
  });

  it('imports past 100,000 cells, before anything is written', async () => {
    const writes = await googleCalls('sheets.spreadsheets.batchUpdate');
    const answer = await evaluate(['=1'], [{ name: 'Wide_1', spreadsheetId: wide, range: 'Data!A:CV' }]);
    expect(answer.isError).toBe(true);
    expect(answer.text).toBe(
      'imports "Wide_1": Data!A:CV holds more than 1,000 rows of 100 columns; imports carry at most 100,000 cells in all. Narrow its rows or columns.',
    );
    expect(await googleCalls('sheets.spreadsheets.batchUpdate')).toBe(writes);
  });

  it('the cells of all imports together', async () => {
    const answer = await evaluate(
      ['=1'],
      [
        { name: 'A_half', spreadsheetId: wide, range: 'Data!A1:BX1000' },
        { name: 'B_half', spreadsheetId: wide, range: 'Data!A1:BX1000' },
      ],
    );
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(
      /^imports "B_half": .* more than 315 rows of 76 columns; .* at most 100,000 cells in all/,
    );
  });

  it('a range without its columns', async () => {
    const answer = await evaluate(['=1'], [{ name: 'Source', spreadsheetId: term1, range: 'Scores' }]);
    expect(answer).toMatchObject({
      isError: true,
      text: 'imports "Source": name the columns of Scores, as Scores!A:D or Scores!A2:D500.',
    });
  });

  it('an unknown source, in the words of any unknown spreadsheet', async () => {
    const answer = await evaluate(
      ['=1'],
      [{ name: 'Source', spreadsheetId: '1NoSuchSpreadsheetAtAllxxxxxxxxxxxxxxxxxxxx', range: 'Scores!A:B' }],
    );
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/^imports "Source": Not found: .*list_spreadsheets/);
  });

  it("another person's spreadsheet the person cannot read", async () => {
    const answer = await evaluate(['=1'], [{ name: 'Source', spreadsheetId: bobs, range: 'Scores!A:B' }]);
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/^imports "Source": /);
    expect(answer.text).not.toContain('Ada');
  });

  it.each([
    ["Term'1", /plain tab name/],
    ['Term1!A1', /plain tab name/],
    ['Te rm', /plain tab name/],
    ['A1', /plain tab name/],
    ['R1C1', /plain tab name/],
    ['SUM', /plain tab name/],
    ['Sum_1', undefined],
    ['x'.repeat(51), /plain tab name/],
    ['x'.repeat(200), /plain tab name/],
    ['x'.repeat(201), /200/],
    ['', /plain tab name/],
  ])('the name %j is refused before Google is asked, or taken', async (name, message) => {
    const reads = await googleCalls('sheets.spreadsheets.values.get');
    const answer = await evaluate(
      [`=COUNTA('${name.replaceAll("'", "''")}'!A:A)`],
      [{ name, spreadsheetId: term1, range: 'Scores!A:A' }],
    );
    if (!message) {
      expect(answer.isError, answer.text).toBe(false);
      return;
    }
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/^invalid arguments:/);
    expect(answer.text).toMatch(message);
    expect(await googleCalls('sheets.spreadsheets.values.get')).toBe(reads);
  });

  it.each([
    [
      Array.from({ length: 4 }, (_, index) => ({
        name: `T${index}`,
        spreadsheetId: 'x'.repeat(20),
        range: 'A:A',
      })),
      /at most 3 imports/,
    ],
    [
      [
        { name: 'Same', spreadsheetId: 'x'.repeat(20), range: 'A:A' },
        { name: 'same', spreadsheetId: 'x'.repeat(20), range: 'A:A' },
      ],
      /"same" is named twice/,
    ],
    [[{ name: 'Source', spreadsheetId: 'x'.repeat(20), range: 'A:A', extra: 1 }], /extra|Unrecognized/i],
    [[{ name: 'Source', spreadsheetId: 'https://example.com/d/abc', range: 'A:A' }], /docs\.google\.com/],
  ])('%#: malformed imports refused in words', async (imports, message) => {
    const answer = await evaluate(['=1'], imports);
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(message);
  });
});

describe('the import tabs go with the scratch tab', () => {
  it('when Google carried out the batchUpdate and its answer was lost', async () => {
    const before = await tabTitles(term2);
    await stack.fault({ match: 'sheets.spreadsheets.batchUpdate', status: 500, afterCall: true, count: 1 });
    const answer = await evaluate(
      ['=COUNTA(Term1!A:A)'],
      [{ name: 'Term1', spreadsheetId: term1, range: 'Scores!A:B' }],
    );
    expect(answer).toMatchObject({
      isError: true,
      text: 'Google failed while evaluating the formulas (its answer was lost). Try again.',
    });
    expect(await tabTitles(term2)).toEqual(before);
    const changes = await callToolOk(client, 'list_changes', { spreadsheetId: term2 });
    expect(changes.structured.changes).toEqual([]);
  });

  it('when Google refused every attempt', async () => {
    const before = await tabTitles(term2);
    await stack.fault({ match: 'sheets.spreadsheets.batchUpdate', status: 503, count: 4 });
    const answer = await evaluate(['=1'], [{ name: 'Term1', spreadsheetId: term1, range: 'Scores!A:B' }]);
    expect(answer.isError).toBe(true);
    expect(await tabTitles(term2)).toEqual(before);
  });
});
