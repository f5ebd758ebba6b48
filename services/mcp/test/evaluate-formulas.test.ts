import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { callTool, callToolOk } from './support/tool-answers.ts';

// evaluate_formulas (issue 36, item 1): formulas computed by Google over the person's spreadsheet
// and answered, with nothing left in it — the hidden scratch tab is added, written and read in one
// batchUpdate and deleted by another, also when the call fails (an injected Google failure), and
// the call is no change in the journal. Through the MCP SDK client against real mcp and auth
// processes and the Google emulator.

let stack: McpUnderTest;
let client: Client;
let userId: string;
let spreadsheetId: string;

const ORDERS = [
  ['Order', 'Customer', 'Region', 'Amount'],
  [1, 'Ada', 'North', 700],
  [2, 'Bob', 'South', 300],
  [3, 'Ada', 'North', 900],
  [4, 'Cy', 'East', 0],
];

const evaluate = (formulas: string[], id = spreadsheetId) =>
  callTool(client, 'evaluate_formulas', { spreadsheetId: id, formulas });
const evaluateOk = (formulas: string[]) =>
  callToolOk(client, 'evaluate_formulas', { spreadsheetId, formulas });

interface Result {
  values: unknown[][];
  rows: number;
  columns: number;
  error?: string;
  message?: string;
  cut?: string;
}
const resultsOf = (structured: Record<string, unknown>) => structured.results as Result[];

/** The tabs as Google holds them: every title, hidden ones too. */
async function tabTitles(): Promise<string[]> {
  const token = await stack.googleAccessToken(userId);
  const response = await fetch(
    `${stack.emulatorUrl}/v4/spreadsheets/${spreadsheetId}?fields=sheets(properties(title))`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  const body = (await response.json()) as { sheets: Array<{ properties: { title: string } }> };
  return body.sheets.map((sheet) => sheet.properties.title);
}

async function batchUpdateAttempts(): Promise<number> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return stats.methods['sheets.spreadsheets.batchUpdate']?.attempts ?? 0;
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  ({ userId } = await stack.signIn('alice@example.com'));
  [spreadsheetId] = (await stack.seed('alice@example.com', [
    {
      name: 'Evaluate',
      sheets: [
        { title: 'Orders', values: ORDERS },
        {
          title: 'Regions',
          values: [
            ['Region', 'Manager'],
            ['North', 'Nia'],
            ['South', 'Sam'],
          ],
        },
        { title: 'Summary', values: [['']] },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'evaluate-formulas-test');
});
afterEach(async () => {
  await stack.clearFaults();
});
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('results', () => {
  it('a scalar, a spilled array and a lookup across tabs, each whole, and the tabs as they were', async () => {
    const before = await tabTitles();
    const answer = await evaluateOk([
      '=SUMIFS(Orders!D2:D, Orders!B2:B, "Ada")',
      '=FILTER(Orders!B2:D5, Orders!D2:D5 > 100)',
      '=VLOOKUP(INDEX(Orders!C2:C5, 2), Regions!A2:B3, 2, FALSE)',
    ]);
    const [sum, filtered, lookup] = resultsOf(answer.structured);
    expect(sum).toEqual({ values: [[1600]], rows: 1, columns: 1 });
    expect(filtered).toEqual({
      values: [
        ['Ada', 'North', 700],
        ['Bob', 'South', 300],
        ['Ada', 'North', 900],
      ],
      rows: 3,
      columns: 3,
    });
    expect(lookup).toEqual({ values: [['Sam']], rows: 1, columns: 1 });
    expect(answer.text).toContain('1600');
    expect(await tabTitles()).toEqual(before);
  });

  it("QUERY's grouped table", async () => {
    const answer = await evaluateOk(['=QUERY(Orders!A1:D5, "select B, sum(D) group by B order by B", 1)']);
    const [query] = resultsOf(answer.structured);
    expect(query!.values).toEqual([
      ['Customer', 'sum Amount'],
      ['Ada', 1600],
      ['Bob', 300],
      ['Cy', 0],
    ]);
  });

  it("an error result comes back with Google's message", async () => {
    const answer = await evaluateOk(['=VLOOKUP("Zed", Orders!B2:D5, 2, FALSE)', '=1/0']);
    const [missing, divided] = resultsOf(answer.structured);
    expect(missing).toMatchObject({ error: '#N/A', rows: 1, columns: 1 });
    // Google's message names the value ("Did not find value 'Zed' in VLOOKUP evaluation."); the
    // emulator's is HyperFormula's (its README, Known differences).
    expect(missing!.message).not.toBe('');
    expect(divided).toMatchObject({ error: '#DIV/0!' });
    expect(divided!.message).not.toBe('');
    expect(answer.text).toContain('#N/A');
  });

  it('a result past the answer budget is cut, saying its size and how to narrow it', async () => {
    const answer = await evaluateOk(['=SEQUENCE(1500, 20)']);
    const [big] = resultsOf(answer.structured);
    expect(big!.rows).toBe(1500);
    expect(big!.columns).toBe(20);
    expect(big!.values.length).toBeLessThan(1500);
    expect(big!.values.length * 20).toBeLessThanOrEqual(10_000);
    expect(big!.values[0]).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    expect(big!.cut).toMatch(/^Shown: the first [\d,]+ rows of 1,500\. For the rest, narrow the formula/);
    expect(JSON.stringify(answer.structured).length).toBeLessThan(200_000);
  });
});

describe('nothing left in the spreadsheet', () => {
  it('the scratch tab is gone after a success, and nothing is in the change journal', async () => {
    const before = await tabTitles();
    const writesBefore = await batchUpdateAttempts();
    await evaluateOk(['=SUM(Orders!D2:D5)']);
    // One batchUpdate adds, writes and reads the scratch tab; one deletes it.
    expect((await batchUpdateAttempts()) - writesBefore).toBe(2);
    expect(await tabTitles()).toEqual(before);
    const changes = await callToolOk(client, 'list_changes', { spreadsheetId });
    expect(changes.structured.changes).toEqual([]);
  });

  it('the scratch tab is gone when Google failed after adding it (its answer lost), and the call says Google failed', async () => {
    const before = await tabTitles();
    // The batchUpdate is carried out, then answered 500: the tab exists, the answer never comes.
    await stack.fault({ match: 'sheets.spreadsheets.batchUpdate', status: 500, afterCall: true, count: 1 });
    const answer = await evaluate(['=SUM(Orders!D2:D5)']);
    expect(answer).toMatchObject({
      isError: true,
      text: 'Google failed while evaluating the formulas (its answer was lost). Try again.',
    });
    expect(await tabTitles()).toEqual(before);
  });

  it('the scratch tab is gone when the client cancelled while Google was adding it', async () => {
    const before = await tabTitles();
    const stats = async () =>
      (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
        methods: Record<string, { attempts: number; inFlight: number }>;
        allMethods: { inFlight: number };
      };
    const writesBefore = await batchUpdateAttempts();
    await stack.fault({ match: 'sheets.spreadsheets.batchUpdate', latencyMs: 1_000, count: 1 });
    const controller = new AbortController();
    const call = client
      .callTool(
        { name: 'evaluate_formulas', arguments: { spreadsheetId, formulas: ['=SUM(Orders!D2:D5)'] } },
        undefined,
        { signal: controller.signal },
      )
      .then(
        () => 'answered',
        () => 'cancelled',
      );
    // Cancelled while the emulator holds the batchUpdate that adds the tab. (The emulator reads a
    // body after the hold, so it never carries out a request its client abandoned; Google, holding
    // the body, could — which is why the tool does not abandon it: formula-scratch.ts.)
    while (((await stats()).methods['sheets.spreadsheets.batchUpdate']?.inFlight ?? 0) === 0);
    controller.abort();
    expect(await call).toBe('cancelled');
    // The server goes on: the add finishes, then the delete; nothing of Google's is left in flight.
    for (;;) {
      const now = await stats();
      const done = (now.methods['sheets.spreadsheets.batchUpdate']?.attempts ?? 0) >= writesBefore + 2;
      if (done && now.allMethods.inFlight === 0) break;
    }
    expect(await tabTitles()).toEqual(before);
  });

  it('the scratch tab is not there when Google refused every attempt', async () => {
    const before = await tabTitles();
    await stack.fault({ match: 'sheets.spreadsheets.batchUpdate', status: 503, count: 4 });
    const answer = await evaluate(['=SUM(Orders!D2:D5)']);
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/Google/);
    expect(await tabTitles()).toEqual(before);
  });
});

describe('input refused before Google is asked', () => {
  it.each([
    [['Orders!A1'], /is not a formula: it must start with =/],
    [['=IMPORTXML("https://example.com", "//a")'], /IMPORTXML fetches from outside the spreadsheet/],
    [['=image("https://example.com/x.png")'], /IMAGE fetches from outside/],
    [['=IMPORTRANGE("abc", "Sheet1!A1")'], /IMPORTRANGE fetches/],
    [['=SUM(B2:B9)'], /B2:B9 has no tab name/],
    [['=SUM(Orders!A1)+1)'], /parentheses do not balance/],
    [[`=LEN("${'x'.repeat(1_000_000)}")`], /40000/],
    [Array.from({ length: 11 }, () => '=1'), /10/],
    [[], /1/],
  ])('%#: refused in words, Google not asked', async (formulas, message) => {
    const writesBefore = await batchUpdateAttempts();
    const answer = await evaluate(formulas as string[]);
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/^invalid arguments:/);
    expect(answer.text).toMatch(message);
    expect(await batchUpdateAttempts()).toBe(writesBefore);
  });

  it('text and tab names in quotes are not taken for references or outbound calls', async () => {
    const answer = await evaluateOk(['=COUNTIF(Orders!B2:B5, "B2") + LEN("IMPORTXML(x)")']);
    expect(resultsOf(answer.structured)[0]!.values).toEqual([[12]]);
  });

  it('an unknown spreadsheet is a tool error', async () => {
    const answer = await evaluate(['=1+1'], '1NoSuchSpreadsheetAtAllxxxxxxxxxxxxxxxxxxxx');
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/not found|not exist|Sheetgate may/i);
  });
});

describe("revisions of the person's ranges", () => {
  it("an evaluation between a read and a write leaves the read's revision good", async () => {
    const read = await callToolOk(client, 'read_range', { spreadsheetId, range: 'Regions!A1:C3' });
    await evaluateOk(['=COUNTA(Regions!A1:B3)']);
    const written = await callTool(client, 'write_range', {
      spreadsheetId,
      range: 'Regions!C1',
      values: [['Seen']],
      ifRevision: read.structured.revision,
    });
    expect(written.isError, written.text).toBe(false);
  });
});

describe('write_range valuesOnly: the results land, not the formulas', () => {
  const cells = async (range: string, valueRenderOption = 'FORMULA') =>
    (await callToolOk(client, 'read_range', { spreadsheetId, range, valueRenderOption })).structured
      .values as unknown[][];
  const write = (args: Record<string, unknown>) =>
    callTool(client, 'write_range', { spreadsheetId, valuesOnly: true, ...args });

  it('a label, a scalar and a spilled array are written as values; undo restores what was there', async () => {
    await callToolOk(client, 'write_range', { spreadsheetId, range: 'Summary!A1', values: [['old']] });
    const written = await write({
      range: 'Summary!A1',
      values: [
        ['Total', '=SUM(Orders!D2:D5)'],
        ['Big', '=FILTER(Orders!B2:C5, Orders!D2:D5 > 100)'],
      ],
    });
    expect(written.isError, written.text).toBe(false);
    expect(written.structured).toMatchObject({ updatedRange: 'Summary!A1:C4', updatedCells: 9 });
    expect(await cells('Summary!A1:C4')).toEqual([
      ['Total', 1900],
      ['Big', 'Ada', 'North'],
      ['', 'Bob', 'South'],
      ['', 'Ada', 'North'],
    ]);
    const undone = await callTool(client, 'undo_change', { changeId: written.structured.changeId });
    expect(undone.isError, undone.text).toBe(false);
    expect(await cells('Summary!A1:C4')).toEqual([['old']]);
  });

  it('text that looks like a number or a formula stays text, and a date stays a date', async () => {
    const written = await write({
      range: 'Summary!E1',
      values: [['="00"&"7"', '="="&"1+1"', '=DATE(2024, 1, 2)']],
    });
    expect(written.isError, written.text).toBe(false);
    const [row] = await cells('Summary!E1:G1', 'UNFORMATTED_VALUE');
    expect(row).toEqual(['007', '=1+1', 45293]);
    const shown = resultsOf((await evaluateOk(['=DATE(2024, 1, 2)'])).structured)[0]!.values[0]![0];
    expect((await cells('Summary!G1', 'FORMATTED_VALUE'))[0]![0]).toBe(shown);
  });

  it('a dry run computes and writes nothing', async () => {
    const before = await tabTitles();
    const dry = await write({ range: 'Summary!A10', values: [['=SEQUENCE(3)']], dryRun: true });
    expect(dry.isError, dry.text).toBe(false);
    expect(dry.structured).toMatchObject({ dryRun: true, updatedCells: 3, updatedRange: 'Summary!A10:A12' });
    expect(await cells('Summary!A10:A12')).toEqual([]);
    expect(await tabTitles()).toEqual(before);
  });

  it("keeps write_range's guards: a formula is not replaced without overwriteFormulas", async () => {
    await callToolOk(client, 'write_range', { spreadsheetId, range: 'Summary!J1', values: [['=1+1']] });
    const refused = await write({ range: 'Summary!J1', values: [['=SUM(Orders!D2:D5)']] });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/overwriteFormulas/);
    expect(await cells('Summary!J1')).toEqual([['=1+1']]);
    await callToolOk(client, 'write_range', {
      spreadsheetId,
      range: 'Summary!J1',
      values: [['=SUM(Orders!D2:D5)']],
      valuesOnly: true,
      overwriteFormulas: true,
    });
    expect(await cells('Summary!J1')).toEqual([[1900]]);
  });

  it.each([
    [{ values: [['=SEQUENCE(2)'], ['in the way']] }, /would cover values\[1\]\[0\]/],
    [{ values: [['=1/0']] }, /evaluates to #DIV\/0!/],
    [{ values: [['=SUM(D2:D5)']] }, /D2:D5 has no tab name/],
    [{ values: [['=IMPORTDATA("https://example.com/a.csv")']] }, /IMPORTDATA fetches from outside/],
    [{ values: [['no formula']] }, /values holds none/],
    [{ values: [['=SEQUENCE(1)']], valueInputOption: 'RAW' }, /RAW writes as text/],
    [{ values: [['=SEQUENCE(1500)']] }, /computes 1500 rows × 1 columns/],
  ])('%#: refused, nothing written', async (args, message) => {
    const answer = await write({ range: 'Summary!M1', ...args });
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(message);
    expect(await cells('Summary!M1:M3')).toEqual([]);
  });
});
