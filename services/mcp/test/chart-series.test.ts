import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Structured, spreadsheetToolChecks } from './support/spreadsheet-tool-checks.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// Charts from the columns a person means (issue 35, item 7): series from non-adjacent columns, by
// letter or header, from several ranges on one tab or several, the domain chosen — through the MCP
// client, the real mcp and auth processes and the Google emulator. Each chart is read back through
// list_charts and as Google keeps it; each refusal is the same in a dry run and the real call and
// sends Google no write. Google allows a series anywhere, one source each, as tall as the domain:
// "domain sources: A1:A5, series1 sources: B1:B5, series2 sources: D6:D10" is its own example of a
// valid chart (ChartSourceRange.sources in the Sheets API reference,
// https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/charts).

let stack: McpUnderTest;
let client: Client;
let userId: string;
let spreadsheetId: string;
let budgetId: number;
let targetsId: number;

const { call, refused, dryRun } = spreadsheetToolChecks({
  client: () => client,
  spreadsheetId: () => spreadsheetId,
  emulatorUrl: () => stack.emulatorUrl,
});

const charts = async () => (await call('list_charts', {})).structured.charts as Structured[];
const view = ({ changeId: _changeId, ...chart }: Structured) => chart;
const ranges = (chart: Structured) => ({ domain: chart.domain, series: chart.series });

/** The specs of the spreadsheet's charts as Google keeps them, read with the person's own token. */
async function googleSpecs(): Promise<Structured[]> {
  const token = await stack.googleAccessToken(userId);
  const response = await fetch(
    `${stack.emulatorUrl}/v4/spreadsheets/${spreadsheetId}?fields=sheets(charts)`,
    {
      headers: { authorization: `Bearer ${token}` },
    },
  );
  const body = (await response.json()) as { sheets: Array<{ charts?: Array<{ spec: Structured }> }> };
  return body.sheets.flatMap((sheet) => (sheet.charts ?? []).map((chart) => chart.spec));
}

/** A column's GridRange as Google keeps a source. */
const column = (sheetId: number, column: number, startRow: number, endRow: number) => ({
  sheetId,
  startRowIndex: startRow,
  endRowIndex: endRow,
  startColumnIndex: column,
  endColumnIndex: column + 1,
});

/** Refused with the same words in a dry run and in the real call, no write sent to Google by either. */
async function refusedAlike(name: string, args: Record<string, unknown>): Promise<string> {
  const dry = await refused(name, { ...args, dryRun: true });
  const real = await refused(name, args);
  expect(dry).toBe(real);
  return real;
}

async function deleteAll() {
  for (const chart of await charts()) await call('delete_chart', { chartId: chart.chartId });
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const email = 'alice@example.com';
  ({ userId } = await stack.signIn(email));
  [spreadsheetId] = (await stack.seed(email, [
    {
      name: 'Household',
      sheets: [
        {
          title: 'Budget',
          values: [
            ['Month', 'Rent', 'Food', 'Note', 'Total'],
            ['Jan', 1000, 300, 'ok', 1300],
            ['Feb', 1000, 320, 'ok', 1320],
            ['Mar', 1000, 280, 'low', 1280],
            ['Apr', 1050, 310, 'ok', 1360],
            ['May', 1050, 330, 'high', 1380],
          ],
        },
        {
          title: 'Targets',
          values: [
            ['Month', 'Target', '', ''],
            ['Jan', 1250, '', ''],
            ['Feb', 1250, '', 'Stretch'],
            ['Mar', 1300, '', 1200],
            ['Apr', 1300, '', 1200],
            ['May', 1300, '', 1250],
            ['', '', '', 1250],
            ['', '', '', 1300],
          ],
        },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'chart series');
  const tabs = (await call('get_spreadsheet', {})).structured.sheets as Array<{
    sheetId: number;
    title: string;
  }>;
  budgetId = tabs.find((tab) => tab.title === 'Budget')!.sheetId;
  targetsId = tabs.find((tab) => tab.title === 'Targets')!.sheetId;
}, 120_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('add_chart from the columns a person means', () => {
  it('reads the reproduction, Budget!A1:A6,Budget!E1:E6, as the labels and one series', async () => {
    const dry = await dryRun('add_chart', { type: 'column', range: 'Budget!A1:A6,Budget!E1:E6' });
    expect(ranges(dry.structured)).toEqual({ domain: 'Budget!A1:A6', series: ['Budget!E1:E6'] });
    expect(await charts()).toEqual([]);

    const added = await call('add_chart', { type: 'column', range: 'Budget!A1:A6,Budget!E1:E6' });
    expect(added.structured).toMatchObject({
      domain: 'Budget!A1:A6',
      series: ['Budget!E1:E6'],
      tab: 'Budget',
      // Right of the data: the data ends at column E.
      anchorCell: 'Budget!G1',
    });
    expect(added.text).toContain('from Budget!A1:A6 and Budget!E1:E6');
    expect(await charts()).toEqual([view(added.structured)]);
    const [spec] = await googleSpecs();
    expect(spec!.basicChart).toMatchObject({
      headerCount: 1,
      domains: [{ domain: { sourceRange: { sources: [column(budgetId, 0, 0, 6)] } } }],
      series: [{ series: { sourceRange: { sources: [column(budgetId, 4, 0, 6)] } } }],
    });
    await deleteAll();

    // A range after the first without a tab name is on the first one's tab.
    const bare = await call('add_chart', { type: 'line', range: 'Budget!A1:A6, E1:E6,C1:C6' });
    expect(ranges(bare.structured)).toEqual({
      domain: 'Budget!A1:A6',
      series: ['Budget!E1:E6', 'Budget!C1:C6'],
    });
    await deleteAll();
  });

  it('takes non-adjacent columns of a block by letter and by header, the first the labels unless domain is given', async () => {
    const byLetter = await call('add_chart', {
      type: 'column',
      range: 'Budget!A1:E6',
      columns: ['A', 'E', 'c'],
    });
    expect(ranges(byLetter.structured)).toEqual({
      domain: 'Budget!A1:A6',
      series: ['Budget!E1:E6', 'Budget!C1:C6'],
    });
    const byHeader = await call('add_chart', {
      type: 'line',
      range: 'Budget!A:E',
      columns: ['Month', 'total'],
    });
    // An open range stops at the data.
    expect(ranges(byHeader.structured)).toEqual({ domain: 'Budget!A1:A6', series: ['Budget!E1:E6'] });
    const domainGiven = await call('add_chart', {
      type: 'scatter',
      range: 'Budget!A1:E6',
      domain: 'Food',
      columns: ['Food', 'Rent'],
    });
    expect(ranges(domainGiven.structured)).toEqual({ domain: 'Budget!C1:C6', series: ['Budget!B1:B6'] });
    expect((await charts()).map(ranges)).toEqual([
      { domain: 'Budget!A1:A6', series: ['Budget!E1:E6', 'Budget!C1:C6'] },
      { domain: 'Budget!A1:A6', series: ['Budget!E1:E6'] },
      { domain: 'Budget!C1:C6', series: ['Budget!B1:B6'] },
    ]);
    const specs = await googleSpecs();
    expect(specs[0]!.basicChart.series.map((each: Structured) => each.series.sourceRange.sources)).toEqual([
      [column(budgetId, 4, 0, 6)],
      [column(budgetId, 2, 0, 6)],
    ]);
    expect(specs[2]!.basicChart.domains[0].domain.sourceRange.sources).toEqual([column(budgetId, 2, 0, 6)]);
    await deleteAll();
  });

  it('draws series from ranges of their own, on other tabs and other rows, with the domain chosen', async () => {
    const added = await call('add_chart', {
      type: 'line',
      domain: 'Budget!A1:A6',
      series: ['Budget!E1:E6', 'Targets!B1:B6', 'Targets!D3:D8'],
    });
    expect(added.structured).toMatchObject({
      tab: 'Budget',
      anchorCell: 'Budget!G1',
      domain: 'Budget!A1:A6',
      series: ['Budget!E1:E6', 'Targets!B1:B6', 'Targets!D3:D8'],
    });
    expect(await charts()).toEqual([view(added.structured)]);
    const [spec] = await googleSpecs();
    expect(spec!.basicChart.series.map((each: Structured) => each.series.sourceRange.sources)).toEqual([
      [column(budgetId, 4, 0, 6)],
      [column(targetsId, 1, 0, 6)],
      [column(targetsId, 3, 2, 8)],
    ]);
    // Open ranges end as the data does; a pie chart's sources start below the header.
    const pie = await call('add_chart', { type: 'pie', domain: 'Budget!A:A', series: ['Budget!E:E'] });
    expect(ranges(pie.structured)).toEqual({ domain: 'Budget!A2:A6', series: ['Budget!E2:E6'] });
    // Several ranges of one series argument, each column a series.
    const several = await call('add_chart', {
      type: 'column',
      domain: 'Budget!A1:A6',
      series: ['Budget!B1:C6'],
    });
    expect(several.structured.series).toEqual(['Budget!B1:B6', 'Budget!C1:C6']);
    await deleteAll();
  });

  it('refuses, in a dry run as in the real call, lengths that differ, unknown columns and tabs, and a series without numbers', async () => {
    expect(
      await refusedAlike('add_chart', { type: 'line', domain: 'Budget!A1:A6', series: ['Budget!E1:E5'] }),
    ).toContain(
      'the domain Budget!A1:A6 has 6 rows and the series Budget!E1:E5 5 rows: the domain and each series need as many rows',
    );
    expect(await refusedAlike('add_chart', { type: 'line', range: 'Budget!A1:A6,Targets!D3:D9' })).toContain(
      'the domain Budget!A1:A6 has 6 rows and the series Targets!D3:D9 7 rows',
    );
    expect(
      await refusedAlike('add_chart', { type: 'column', range: 'Budget!A1:E6', columns: ['Month', 'Totl'] }),
    ).toContain(
      'the range has no column "Totl"; its columns are A "Month", B "Rent", C "Food", D "Note", E "Total", named by header or letter',
    );
    expect(
      await refusedAlike('add_chart', {
        type: 'column',
        range: 'Budget!A1:E6',
        domain: 'Day',
        columns: ['Total'],
      }),
    ).toContain('the range has no column "Day"');
    expect(
      await refusedAlike('add_chart', {
        type: 'column',
        range: 'Budget!A1:E6',
        columns: ['F'],
        headerRow: false,
      }),
    ).toContain('its columns are A, B, C, D, E, named by letter');
    expect(
      await refusedAlike('add_chart', { type: 'line', domain: 'Budget!A1:A6', series: ['Nope!A1:A6'] }),
    ).toContain('there is no tab named "Nope"; get_spreadsheet lists the tabs ("Budget", "Targets")');
    expect(await refusedAlike('add_chart', { type: 'line', range: 'Budget!A1:A6,Nope!E1:E6' })).toContain(
      'there is no tab named "Nope"',
    );
    expect(
      await refusedAlike('add_chart', { type: 'line', domain: 'Budget!A1:A6', series: ['Budget!D1:D6'] }),
    ).toContain('the series Budget!D1:D6 ("Note") has no numbers: a chart plots numbers');
    // A block whose columns include one of words: the person is told how to leave it out.
    expect(await refusedAlike('add_chart', { type: 'column', range: 'Budget!A1:E6' })).toContain(
      'the series Budget!D1:D6 ("Note") has no numbers: a chart plots numbers; columns chooses the columns to plot',
    );
    expect(
      await refusedAlike('add_chart', { type: 'line', domain: 'Budget!A1:B6', series: ['Budget!E1:E6'] }),
    ).toContain('the domain is one column (the labels or x values); Budget!A1:B6 has 2');
    expect(
      await refusedAlike('add_chart', { type: 'line', domain: 'Budget!A1:A6', series: ['Targets!C1:C6'] }),
    ).toContain('Targets!C1:C6 is empty');
    expect(await refusedAlike('add_chart', { type: 'line', series: ['Budget!E1:E6'] })).toContain(
      'series goes with domain',
    );
    expect(await refusedAlike('add_chart', { type: 'line', domain: 'Budget!A1:A6' })).toContain(
      'domain goes with series',
    );
    expect(await refusedAlike('add_chart', { type: 'line', columns: ['Month', 'Total'] })).toContain(
      'columns chooses among the columns of range: give range too',
    );
    expect(
      await refusedAlike('add_chart', { type: 'line', range: 'Budget!A1:E6', series: ['Budget!E1:E6'] }),
    ).toContain('not both');
    expect(await refusedAlike('add_chart', { type: 'line' })).toContain('give the data: range');
    expect(
      await refusedAlike('add_chart', {
        type: 'pie',
        domain: 'Budget!A1:A6',
        series: ['Budget!B1:B6', 'Budget!E1:E6'],
      }),
    ).toContain('a pie chart shows one series');
    expect(await charts()).toEqual([]);
  });
});

describe('update_chart with new series, and undo', () => {
  it('changes the series, keeps the domain, and list_charts reads it back', async () => {
    const { structured: added } = await call('add_chart', { type: 'column', range: 'Budget!A1:B6' });
    const chartId = added.chartId as number;

    const dry = await dryRun('update_chart', { chartId, series: ['Budget!E1:E6', 'Targets!B1:B6'] });
    expect(dry.structured).toMatchObject({
      domain: 'Budget!A1:A6',
      series: ['Budget!E1:E6', 'Targets!B1:B6'],
      previous: { series: ['Budget!B1:B6'] },
    });
    expect(await charts()).toEqual([view(added)]);

    const changed = await call('update_chart', { chartId, series: ['Budget!E1:E6', 'Targets!B1:B6'] });
    expect(ranges(changed.structured)).toEqual({
      domain: 'Budget!A1:A6',
      series: ['Budget!E1:E6', 'Targets!B1:B6'],
    });
    expect(ranges((await charts())[0]!)).toEqual(ranges(changed.structured));

    const byColumns = await call('update_chart', {
      chartId,
      range: 'Budget!A1:E6',
      columns: ['Month', 'Food'],
    });
    expect(ranges(byColumns.structured)).toEqual({ domain: 'Budget!A1:A6', series: ['Budget!C1:C6'] });
    const newDomain = await call('update_chart', { chartId, domain: 'Targets!A1:A6' });
    expect(ranges(newDomain.structured)).toEqual({ domain: 'Targets!A1:A6', series: ['Budget!C1:C6'] });
    expect(ranges((await charts())[0]!)).toEqual(ranges(newDomain.structured));

    expect(await refusedAlike('update_chart', { chartId, series: ['Budget!E1:E4'] })).toContain(
      'the domain Targets!A1:A6 has 6 rows and the series Budget!E1:E4 4 rows',
    );
    expect(
      await refusedAlike('update_chart', { chartId, range: 'Budget!A1:E6', columns: ['Nope'] }),
    ).toContain('the range has no column "Nope"');
    expect(await refusedAlike('update_chart', { chartId, columns: ['Month'] })).toContain('give range too');
    expect(await refusedAlike('update_chart', { chartId, headerRow: false })).toContain(
      'headerRow goes with range, domain or series',
    );
    await deleteAll();
  });

  it('undo_change after add_chart and after update_chart restores the chart as it was', async () => {
    const added = await call('add_chart', {
      type: 'column',
      domain: 'Budget!A1:A6',
      series: ['Budget!E1:E6'],
    });
    const chartId = added.structured.chartId as number;
    const before = await charts();
    const specsBefore = await googleSpecs();
    const changed = await call('update_chart', {
      chartId,
      type: 'line',
      range: 'Budget!A1:E6',
      columns: ['Month', 'Rent', 'Food'],
    });
    expect(ranges((await charts())[0]!)).toEqual({
      domain: 'Budget!A1:A6',
      series: ['Budget!B1:B6', 'Budget!C1:C6'],
    });
    const undoneUpdate = await call('undo_change', { changeId: changed.structured.changeId });
    expect(undoneUpdate.text).not.toMatch(/cannot|not undone/i);
    expect(await charts()).toEqual(before);
    expect(await googleSpecs()).toEqual(specsBefore);

    const undoneAdd = await call('undo_change', { changeId: added.structured.changeId });
    expect(undoneAdd.text).not.toMatch(/cannot|not undone/i);
    expect(await charts()).toEqual([]);
  });
});
