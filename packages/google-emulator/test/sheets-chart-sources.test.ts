import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { failureOf, SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

// A chart's data from the columns a person means, as Google's reference allows it
// (ChartSourceRange.sources, https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets/charts#ChartSourceRange):
// a series from any column, rows or sheet, one source each; a domain and series of several sources
// each, as many as one another — "domain sources: A1:A5, C10:C12 / series1 sources: B1:B5,
// D10:D12" — and refused when their counts differ.

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;
let spreadsheetId: string;
const DATA = 7;
const OTHER = 8;

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  sheets = sheetsFor(
    emulator,
    (await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] })).auth,
  );
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      sheets: [
        { properties: { title: 'Data', sheetId: DATA } },
        { properties: { title: 'Other', sheetId: OTHER } },
      ],
    },
  });
  spreadsheetId = data.spreadsheetId!;
});

afterAll(async () => {
  await emulator?.close();
});

const column = (index: number, startRow: number, endRow: number, sheetId = DATA) => ({
  sheetId,
  startRowIndex: startRow,
  endRowIndex: endRow,
  startColumnIndex: index,
  endColumnIndex: index + 1,
});
const data = (...sources: sheets_v4.Schema$GridRange[]) => ({ sourceRange: { sources } });
const lineOf = (domain: sheets_v4.Schema$ChartData, ...series: sheets_v4.Schema$ChartData[]) => ({
  basicChart: {
    chartType: 'LINE',
    headerCount: 1,
    domains: [{ domain }],
    series: series.map((each) => ({ series: each, targetAxis: 'LEFT_AXIS' })),
  },
});
const add = (spec: sheets_v4.Schema$ChartSpec) =>
  sheets.spreadsheets.batchUpdate({
    spreadsheetId,
    requestBody: {
      requests: [
        { addChart: { chart: { spec, position: { overlayPosition: { anchorCell: { sheetId: DATA } } } } } },
      ],
    },
  });

describe('chart sources', () => {
  it('takes series from non-adjacent columns, other rows and another sheet, and keeps them as given', async () => {
    const spec = lineOf(
      data(column(0, 0, 5)),
      data(column(4, 0, 5)),
      data(column(3, 5, 10)),
      data(column(1, 0, 5, OTHER)),
    );
    const { data: reply } = await add(spec);
    const chartId = reply.replies![0]!.addChart!.chart!.chartId!;
    const { data: read } = await sheets.spreadsheets.get({
      spreadsheetId,
      fields: 'sheets(charts(chartId,spec))',
    });
    const stored = read.sheets![0]!.charts!.find((chart) => chart.chartId === chartId)!;
    expect(stored.spec!.basicChart!.series!.map((each) => each.series!.sourceRange!.sources)).toEqual([
      [column(4, 0, 5)],
      [column(3, 5, 10)],
      [column(1, 0, 5, OTHER)],
    ]);
  });

  it('takes a domain and series of several sources each when they have as many', async () => {
    const spec = lineOf(
      data(column(0, 0, 5), column(2, 9, 12)),
      data(column(1, 0, 5), column(3, 9, 12)),
      data(column(2, 0, 5), column(4, 9, 12)),
    );
    const { data: reply } = await add(spec);
    const chartId = reply.replies![0]!.addChart!.chart!.chartId!;
    const changed = lineOf(data(column(0, 0, 5)), data(column(4, 0, 5)));
    await sheets.spreadsheets.batchUpdate({
      spreadsheetId,
      requestBody: { requests: [{ updateChartSpec: { chartId, spec: changed } }] },
    });
    const { data: read } = await sheets.spreadsheets.get({
      spreadsheetId,
      fields: 'sheets(charts(chartId,spec))',
    });
    expect(read.sheets![0]!.charts!.find((chart) => chart.chartId === chartId)!.spec).toEqual(changed);
  });

  it('refuses a domain and series with different numbers of sources, in addChart and updateChartSpec', async () => {
    const uneven = lineOf(data(column(0, 0, 5), column(2, 9, 12)), data(column(1, 0, 5)));
    const failure = await failureOf(add(uneven));
    expect(failure.status).toBe(400);
    expect(failure.response!.data.error.message).toBe(
      'Invalid requests[0].addChart: The domain and all series must have the same number of source ranges.',
    );
    const pie = {
      pieChart: { domain: data(column(0, 1, 5)), series: data(column(1, 1, 3), column(1, 3, 5)) },
    };
    expect((await failureOf(add(pie))).status).toBe(400);
    const { data: reply } = await add(lineOf(data(column(0, 0, 5)), data(column(1, 0, 5))));
    const chartId = reply.replies![0]!.addChart!.chart!.chartId!;
    const update = await failureOf(
      sheets.spreadsheets.batchUpdate({
        spreadsheetId,
        requestBody: { requests: [{ updateChartSpec: { chartId, spec: uneven } }] },
      }),
    );
    expect(update.response!.data.error.message).toBe(
      'Invalid requests[0].updateChartSpec: The domain and all series must have the same number of source ranges.',
    );
  });
});
