import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { driveFor, failureOf, SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

// Charts through batchUpdate (addChart, updateChartSpec, updateEmbeddedObjectPosition,
// deleteEmbeddedObject) and spreadsheets.get's sheets[].charts with field masks — through
// googleapis alone, as Sheetgate's chart tools use them.

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;
let bobsSheets: sheets_v4.Sheets;
let readOnlySheets: sheets_v4.Sheets;
let drive: ReturnType<typeof driveFor>;
let spreadsheetId: string;
const DATA = 7;
const OTHER = 8;

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, { scopes: [SCOPES.spreadsheets] });
  sheets = sheetsFor(emulator, auth);
  bobsSheets = sheetsFor(
    emulator,
    (await signIn(emulator, started.clientB, { scopes: [SCOPES.spreadsheets], account: 'bob@example.com' }))
      .auth,
  );
  drive = driveFor(emulator, (await signIn(emulator, started.clientA, { scopes: [SCOPES.drive] })).auth);
  readOnlySheets = sheetsFor(
    emulator,
    (await signIn(emulator, started.clientB, { scopes: [SCOPES.driveReadonly] })).auth,
  );
  const { data } = await sheets.spreadsheets.create({
    requestBody: {
      properties: { title: 'Charts' },
      sheets: [
        { properties: { title: 'Data', sheetId: DATA, gridProperties: { rowCount: 20, columnCount: 5 } } },
        { properties: { title: 'Other', sheetId: OTHER } },
      ],
    },
  });
  spreadsheetId = data.spreadsheetId!;
  await sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Data!A1:C4',
    valueInputOption: 'RAW',
    requestBody: {
      values: [
        ['Month', 'Sales', 'Costs'],
        ['Jan', 5, 3],
        ['Feb', 7, 4],
        ['Mar', 9, 4],
      ],
    },
  });
});

afterAll(async () => {
  await emulator?.close();
});

const update = (requests: sheets_v4.Schema$Request[]) =>
  sheets.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } });

/** Google's 400 for a refused batch: its message, with reason badRequest and status INVALID_ARGUMENT. */
async function refusal(requests: sheets_v4.Schema$Request[]): Promise<string> {
  const failure = await failureOf(update(requests));
  expect(failure.status).toBe(400);
  const error = failure.response!.data.error;
  expect(error.status).toBe('INVALID_ARGUMENT');
  expect(error.errors[0]!.reason).toBe('badRequest');
  return error.message;
}

const column = (index: number, sheetId = DATA): sheets_v4.Schema$GridRange => ({
  sheetId,
  startRowIndex: 0,
  endRowIndex: 4,
  startColumnIndex: index,
  endColumnIndex: index + 1,
});
const data = (range: sheets_v4.Schema$GridRange) => ({ sourceRange: { sources: [range] } });

function columnSpec(title: string, chartType = 'COLUMN'): sheets_v4.Schema$ChartSpec {
  return {
    title,
    basicChart: {
      chartType,
      legendPosition: 'BOTTOM_LEGEND',
      headerCount: 1,
      axis: [
        { position: 'BOTTOM_AXIS', title: 'Month' },
        { position: 'LEFT_AXIS', title: 'Amount' },
      ],
      domains: [{ domain: data(column(0)) }],
      series: [
        { series: data(column(1)), targetAxis: 'LEFT_AXIS' },
        { series: data(column(2)), targetAxis: 'LEFT_AXIS' },
      ],
    },
  };
}

const pieSpec: sheets_v4.Schema$ChartSpec = {
  title: 'Sales share',
  pieChart: {
    legendPosition: 'RIGHT_LEGEND',
    domain: data({ ...column(0), startRowIndex: 1 }),
    series: data({ ...column(1), startRowIndex: 1 }),
  },
};

const overlay = (rowIndex: number, columnIndex: number, sheetId = DATA) => ({
  overlayPosition: { anchorCell: { sheetId, rowIndex, columnIndex } },
});

async function chartsBySheet(): Promise<
  Array<{ properties: sheets_v4.Schema$SheetProperties; charts: unknown[] }>
> {
  const { data: read } = await sheets.spreadsheets.get({
    spreadsheetId,
    fields: 'sheets(properties(sheetId,title,sheetType,gridProperties(rowCount)),charts)',
  });
  return (read.sheets ?? []).map((sheet) => ({ properties: sheet.properties!, charts: sheet.charts ?? [] }));
}

describe('addChart', () => {
  it('overlays a chart at an anchor cell with Google’s default size and answers its id and position', async () => {
    const { data: reply } = await update([
      { addChart: { chart: { spec: columnSpec('Sales'), position: overlay(5, 3) } } },
    ]);
    const chart = reply.replies?.[0]?.addChart?.chart;
    expect(chart?.chartId).toEqual(expect.any(Number));
    expect(chart?.chartId).toBeGreaterThan(0);
    expect(chart?.position).toEqual({
      overlayPosition: {
        anchorCell: { sheetId: DATA, rowIndex: 5, columnIndex: 3 },
        widthPixels: 600,
        heightPixels: 371,
      },
    });
    // A field mask selects parts of each chart, as Sheetgate's list reads it.
    const { data: read } = await sheets.spreadsheets.get({
      spreadsheetId,
      fields:
        'sheets(properties(sheetId),charts(chartId,spec(title,basicChart(chartType,series(series))),position))',
    });
    const onData = read.sheets?.find((sheet) => sheet.properties?.sheetId === DATA);
    expect(onData?.charts).toEqual([
      {
        chartId: chart?.chartId,
        spec: {
          title: 'Sales',
          basicChart: {
            chartType: 'COLUMN',
            series: [{ series: data(column(1)) }, { series: data(column(2)) }],
          },
        },
        position: chart?.position,
      },
    ]);
    expect(read.sheets?.find((sheet) => sheet.properties?.sheetId === OTHER)?.charts).toBeUndefined();
    await update([{ deleteEmbeddedObject: { objectId: chart?.chartId } }]);
  });

  it('puts a chart on a sheet of its own: a new sheet of type OBJECT, without a grid, gone with its chart', async () => {
    const { data: reply } = await update([
      { addChart: { chart: { chartId: 4242, spec: pieSpec, position: { newSheet: true } } } },
    ]);
    const position = reply.replies?.[0]?.addChart?.chart?.position;
    expect(reply.replies?.[0]?.addChart?.chart?.chartId).toBe(4242);
    const objectSheetId = position?.sheetId;
    expect(objectSheetId).toEqual(expect.any(Number));
    const listed = await chartsBySheet();
    expect(listed.map((sheet) => sheet.properties)).toEqual([
      { sheetId: DATA, title: 'Data', sheetType: 'GRID', gridProperties: { rowCount: 20 } },
      { sheetId: OTHER, title: 'Other', sheetType: 'GRID', gridProperties: { rowCount: 1000 } },
      { sheetId: objectSheetId, title: 'Chart1', sheetType: 'OBJECT' },
    ]);
    expect(listed[2]!.charts).toEqual([
      { chartId: 4242, spec: pieSpec, position: { sheetId: objectSheetId } },
    ]);
    // A Drive copy is of the cells: the chart's own sheet is not copied as an empty grid.
    const { data: copy } = await drive.files.copy({ fileId: spreadsheetId, requestBody: { name: 'Copy' } });
    const copied = await sheets.spreadsheets.get({
      spreadsheetId: copy.id!,
      fields: 'sheets.properties.title',
    });
    expect(copied.data.sheets?.map((sheet) => sheet.properties?.title)).toEqual(['Data', 'Other']);
    // Ids are the spreadsheet's: a second object with 4242 is refused.
    expect(
      await refusal([{ addChart: { chart: { chartId: 4242, spec: pieSpec, position: overlay(0, 4) } } }]),
    ).toBe('Invalid requests[0].addChart: An object with id 4242 already exists.');
    await update([{ deleteEmbeddedObject: { objectId: 4242 } }]);
    expect((await chartsBySheet()).map((sheet) => sheet.properties.title)).toEqual(['Data', 'Other']);
  });

  it('refuses, as Google does, a source off the grid or of two dimensions, an anchor outside, a bad enum and two kinds, adding nothing', async () => {
    const before = await chartsBySheet();
    const wide = { ...column(0), endColumnIndex: 3 };
    const spec = (change: Partial<sheets_v4.Schema$BasicChartSpec>) => ({
      ...columnSpec('x'),
      basicChart: { ...columnSpec('x').basicChart, ...change },
    });
    expect(
      await refusal([
        {
          addChart: { chart: { spec: spec({ series: [{ series: data(wide) }] }), position: overlay(0, 4) } },
        },
      ]),
    ).toBe(
      'Invalid requests[0].addChart: ChartSourceRange ranges require all rows or all columns to have length of 1',
    );
    expect(
      await refusal([
        {
          addChart: {
            chart: {
              spec: spec({ series: [{ series: data({ ...column(1), endRowIndex: 30 }) }] }),
              position: overlay(0, 4),
            },
          },
        },
      ]),
    ).toBe(
      'Invalid requests[0].addChart: Range (Data!B1:B30) exceeds grid limits. Max rows: 20, max columns: 5',
    );
    expect(
      await refusal([{ addChart: { chart: { spec: columnSpec('x'), position: overlay(25, 0) } } }]),
    ).toContain('The anchor cell (row 25, column 0) is outside the grid of sheet 7');
    expect(
      await refusal([
        { addChart: { chart: { spec: spec({ chartType: 'DONUT' }), position: overlay(0, 4) } } },
      ]),
    ).toBe(
      `Invalid requests[0].addChart: Invalid value at 'spec.basic_chart.chart_type' (TYPE_ENUM), "DONUT"`,
    );
    expect(
      await refusal([
        {
          addChart: {
            chart: { spec: { ...columnSpec('x'), pieChart: pieSpec.pieChart }, position: overlay(0, 4) },
          },
        },
      ]),
    ).toContain('exactly one kind of chart');
    expect(
      await refusal([
        {
          addChart: {
            chart: { spec: spec({ chartType: 'LINE', stackedType: 'STACKED' }), position: overlay(0, 4) },
          },
        },
      ]),
    ).toContain('Stacking is not supported for LINE charts.');
    expect(
      await refusal([
        { addChart: { chart: { spec: columnSpec('x'), position: { newSheet: true, ...overlay(0, 4) } } } },
      ]),
    ).toContain('Exactly one of newSheet, sheetId or overlayPosition must be set.');
    expect(
      await refusal([{ addChart: { chart: { spec: columnSpec('x'), position: overlay(0, 0, 99) } } }]),
    ).toBe('Invalid requests[0].addChart: No grid with id: 99');
    // A batch is atomic: the first chart of a refused batch is not kept.
    expect(
      await refusal([
        { addChart: { chart: { spec: columnSpec('kept?'), position: overlay(0, 4) } } },
        { addChart: { chart: { spec: columnSpec('x'), position: { newSheet: true }, chartId: -1 } } },
      ]),
    ).toContain('Invalid requests[1].addChart: chartId must be a non-negative whole number.');
    expect(await chartsBySheet()).toEqual(before);
  });
});

describe('changing and removing charts', () => {
  it('replaces a spec, moves a chart between an overlay and its own sheet, and deletes it', async () => {
    const { data: reply } = await update([
      { addChart: { chart: { spec: columnSpec('Sales'), position: overlay(5, 3) } } },
    ]);
    const chartId = reply.replies?.[0]?.addChart?.chart?.chartId as number;
    const line = columnSpec('Sales by month', 'LINE');
    expect((await update([{ updateChartSpec: { chartId, spec: line } }])).data.replies).toEqual([{}]);

    const resized = await update([
      {
        updateEmbeddedObjectPosition: {
          objectId: chartId,
          newPosition: {
            overlayPosition: {
              anchorCell: { sheetId: OTHER, rowIndex: 2 },
              widthPixels: 400,
              heightPixels: 300,
            },
          },
          fields: 'overlayPosition',
        },
      },
    ]);
    const moved = {
      overlayPosition: { anchorCell: { sheetId: OTHER, rowIndex: 2 }, widthPixels: 400, heightPixels: 300 },
    };
    expect(resized.data.replies?.[0]?.updateEmbeddedObjectPosition).toEqual({ position: moved });
    let listed = await chartsBySheet();
    expect(listed[0]!.charts).toEqual([]);
    expect(listed[1]!.charts).toEqual([{ chartId, spec: line, position: moved }]);

    // Only the masked field changes: the anchor moves, the size stays.
    await update([
      {
        updateEmbeddedObjectPosition: {
          objectId: chartId,
          newPosition: { overlayPosition: { anchorCell: { sheetId: OTHER, columnIndex: 1 } } },
          fields: 'overlayPosition.anchorCell',
        },
      },
    ]);
    expect((await chartsBySheet())[1]!.charts).toEqual([
      {
        chartId,
        spec: line,
        position: {
          overlayPosition: {
            anchorCell: { sheetId: OTHER, columnIndex: 1 },
            widthPixels: 400,
            heightPixels: 300,
          },
        },
      },
    ]);

    const alone = await update([
      {
        updateEmbeddedObjectPosition: {
          objectId: chartId,
          newPosition: { newSheet: true },
          fields: 'newSheet',
        },
      },
    ]);
    const objectSheetId = alone.data.replies?.[0]?.updateEmbeddedObjectPosition?.position?.sheetId;
    listed = await chartsBySheet();
    expect(listed.map((sheet) => [sheet.properties.sheetType, sheet.charts.length])).toEqual([
      ['GRID', 0],
      ['GRID', 0],
      ['OBJECT', 1],
    ]);
    expect(listed[2]!.properties.sheetId).toBe(objectSheetId);

    // Back over a grid: the chart's own sheet goes.
    await update([
      {
        updateEmbeddedObjectPosition: {
          objectId: chartId,
          newPosition: overlay(0, 4),
          fields: 'overlayPosition',
        },
      },
    ]);
    listed = await chartsBySheet();
    expect(listed.map((sheet) => sheet.properties.title)).toEqual(['Data', 'Other']);
    expect(listed[0]!.charts).toHaveLength(1);

    await update([{ deleteEmbeddedObject: { objectId: chartId } }]);
    expect((await chartsBySheet()).flatMap((sheet) => sheet.charts)).toEqual([]);
  });

  it('refuses an unknown id, a spec that does not check, and an empty field mask', async () => {
    const { data: reply } = await update([
      { addChart: { chart: { spec: columnSpec('Kept'), position: overlay(5, 3) } } },
    ]);
    const chartId = reply.replies?.[0]?.addChart?.chart?.chartId as number;
    expect(await refusal([{ updateChartSpec: { chartId: 1, spec: columnSpec('x') } }])).toBe(
      'Invalid requests[0].updateChartSpec: No chart with id: 1',
    );
    expect(await refusal([{ deleteEmbeddedObject: { objectId: 1 } }])).toBe(
      'Invalid requests[0].deleteEmbeddedObject: No object with id: 1',
    );
    expect(
      await refusal([
        {
          updateEmbeddedObjectPosition: { objectId: 1, newPosition: { newSheet: true }, fields: 'newSheet' },
        },
      ]),
    ).toBe('Invalid requests[0].updateEmbeddedObjectPosition: No object with id: 1');
    expect(
      await refusal([
        { updateEmbeddedObjectPosition: { objectId: chartId, newPosition: { newSheet: true } } },
      ]),
    ).toContain("At least one field must be updated, but 'fields' is empty.");
    expect(
      await refusal([
        { updateChartSpec: { chartId, spec: { title: 'x', pieChart: { domain: data(column(0)) } } } },
      ]),
    ).toContain('pieChart.series must have a sourceRange with at least one source.');
    expect(
      await refusal([{ updateChartSpec: { chartId, spec: { title: 'x', histogramChart: {} } } }]),
    ).toContain('histogramChart is not supported by the Sheetgate Google emulator.');
    const listed = await chartsBySheet();
    expect(listed[0]!.charts).toEqual([{ chartId, spec: columnSpec('Kept'), position: expect.any(Object) }]);
    await update([{ deleteEmbeddedObject: { objectId: chartId } }]);
  });

  it('another person gets 404 for the spreadsheet and a read-only token 403, and nothing is added', async () => {
    const failure = await failureOf(
      bobsSheets.spreadsheets.batchUpdate({
        spreadsheetId,
        requestBody: {
          requests: [{ addChart: { chart: { spec: columnSpec('Mallory'), position: overlay(0, 4) } } }],
        },
      }),
    );
    expect(failure.status).toBe(404);
    expect(failure.response!.data.error.status).toBe('NOT_FOUND');
    // A token without a write scope: 403 insufficientPermissions, before anything is looked at.
    const readOnly = await failureOf(
      readOnlySheets.spreadsheets.batchUpdate({
        spreadsheetId,
        requestBody: { requests: [{ deleteEmbeddedObject: { objectId: 1 } }] },
      }),
    );
    expect(readOnly.status).toBe(403);
    expect(readOnly.response!.data.error.errors[0]!.reason).toBe('insufficientPermissions');
    expect((await chartsBySheet()).flatMap((sheet) => sheet.charts)).toEqual([]);
  });
});

describe('charts and the grid', () => {
  it('move with inserted and deleted rows, are copied with a duplicated tab, and go with a deleted tab', async () => {
    const { data: reply } = await update([
      { addChart: { chart: { spec: columnSpec('Sales'), position: overlay(5, 3) } } },
    ]);
    const chartId = reply.replies?.[0]?.addChart?.chart?.chartId as number;
    await update([
      { insertDimension: { range: { sheetId: DATA, dimension: 'ROWS', startIndex: 0, endIndex: 2 } } },
    ]);
    const shifted = (await chartsBySheet())[0]!.charts[0] as sheets_v4.Schema$EmbeddedChart;
    expect(shifted.spec?.basicChart?.domains?.[0]?.domain?.sourceRange?.sources).toEqual([
      { ...column(0), startRowIndex: 2, endRowIndex: 6 },
    ]);
    expect(shifted.position?.overlayPosition?.anchorCell).toEqual({
      sheetId: DATA,
      rowIndex: 7,
      columnIndex: 3,
    });
    await update([
      { deleteDimension: { range: { sheetId: DATA, dimension: 'ROWS', startIndex: 0, endIndex: 2 } } },
    ]);
    const back = (await chartsBySheet())[0]!.charts[0] as sheets_v4.Schema$EmbeddedChart;
    expect(back.spec).toEqual(columnSpec('Sales'));
    expect(back.position?.overlayPosition?.anchorCell).toEqual({
      sheetId: DATA,
      rowIndex: 5,
      columnIndex: 3,
    });

    const { data: duplicated } = await update([{ duplicateSheet: { sourceSheetId: DATA, newSheetId: 70 } }]);
    expect(duplicated.replies?.[0]?.duplicateSheet?.properties?.sheetId).toBe(70);
    const copy = (await chartsBySheet()).find((sheet) => sheet.properties.sheetId === 70)!;
    const copied = copy.charts[0] as sheets_v4.Schema$EmbeddedChart;
    expect(copied.chartId).not.toBe(chartId);
    expect(copied.position?.overlayPosition?.anchorCell?.sheetId).toBe(70);
    expect(copied.spec?.basicChart?.series?.[0]?.series?.sourceRange?.sources?.[0]?.sheetId).toBe(70);

    await update([{ deleteSheet: { sheetId: 70 } }]);
    expect(JSON.stringify(await chartsBySheet())).not.toContain(String(copied.chartId));
    await update([{ deleteEmbeddedObject: { objectId: chartId } }]);
  });
});
