import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../src/errors/tool-error.ts';
import { LARGE_WRITE_CELLS } from '../src/tools/sets/core-write/values.ts';
import { type ProgressReport, startToolsUnderTest, type ToolsUnderTest } from './support/tools-in-process.ts';

// What the long tools report through context.progress (the lead's protocol turns it into
// notifications/progress) and how a cancelled signal stops them: the tools run in this process,
// "Google" is an emulator process whose stats count the calls that reached it.

let under: ToolsUnderTest;
/** Twelve tabs of 40 rows on the default 1000 × 26 grid: 4 values.batchGet calls of ≤ 100,000 cells. */
let twelveTabs: string;
const TABS = 12;
const SEARCH_CALLS = Math.ceil((TABS * 1_000 * 26) / 100_000);

function expectGrowing(reports: ProgressReport[]) {
  for (const [index, report] of reports.entries())
    if (index > 0)
      expect(report.progress, JSON.stringify(reports)).toBeGreaterThan(reports[index - 1]!.progress);
}

beforeAll(async () => {
  under = await startToolsUnderTest();
  [twelveTabs] = (await under.seed([
    {
      name: 'Twelve',
      sheets: Array.from({ length: TABS }, (_, index) => ({
        title: `Tab ${index + 1}`,
        values: Array.from({ length: 40 }, (_, row) => [
          `row ${row}`,
          index === 11 && row === 39 ? 'needle' : 'hay',
        ]),
      })),
    },
  ])) as [string];
});
afterAll(async () => {
  await under?.stop();
});

describe('find_in_spreadsheet', () => {
  it('reports tabs searched out of the number of tabs, growing after every Google call', async () => {
    const context = under.context();
    await under.forgetCalls();
    const found = await under
      .tool('find_in_spreadsheet')
      .run({ spreadsheetId: twelveTabs, query: 'needle', matchCase: false, maxResults: 50 }, context);
    expect(found.structuredContent.matches).toEqual([
      { range: "'Tab 12'!B40", cell: 'B40', value: 'needle' },
    ]);
    expect((await under.calls()).all).toBe(1 + SEARCH_CALLS);

    const reports = context.reports;
    // One before the search and one after each batchGet.
    expect(reports).toHaveLength(1 + SEARCH_CALLS);
    expect(reports.every((report) => report.total === TABS)).toBe(true);
    expectGrowing(reports);
    expect(reports[0]).toEqual({ progress: 0, total: TABS, message: 'Searching 12 tabs' });
    // The first call reads 100,000 cells: Tabs 1 to 3 and the first 846 rows of Tab 4's 1,000.
    expect(reports[1]).toEqual({ progress: 3.846, total: TABS, message: 'Searched 3 of 12 tabs' });
    expect(reports.at(-1)).toEqual({ progress: TABS, total: TABS, message: 'Searched 12 of 12 tabs' });
  });

  it('a search of one range counts one tab', async () => {
    const context = under.context();
    await under.tool('find_in_spreadsheet').run(
      {
        spreadsheetId: twelveTabs,
        query: 'hay',
        range: "'Tab 3'!A1:B40",
        matchCase: false,
        maxResults: 50,
      },
      context,
    );
    expect(context.reports).toEqual([
      { progress: 0, total: 1, message: 'Searching 1 tab' },
      { progress: 1, total: 1, message: 'Searched 1 of 1 tab' },
    ]);
  });

  it('stops before the next tabs once the request is cancelled, with the cancellation as its error', async () => {
    const controller = new AbortController();
    const reason = new Error('the client cancelled the request');
    const context = under.context({
      signal: controller.signal,
      onProgress: (report) => {
        if (report.progress > 0) controller.abort(reason);
      },
    });
    await under.forgetCalls();
    await expect(
      under
        .tool('find_in_spreadsheet')
        .run({ spreadsheetId: twelveTabs, query: 'needle', matchCase: false, maxResults: 50 }, context),
    ).rejects.toBe(reason);
    // The outline and the one batchGet before the cancellation; not the three after it.
    const calls = await under.calls();
    expect(calls.methods['sheets.spreadsheets.values.batchGet']?.attempts).toBe(1);
    expect(calls.all).toBe(2);
  });

  it('a cancellation stops the Google call in flight', async () => {
    // The first batchGet is held at "Google" long after the cancellation.
    await under.fault({ match: 'sheets.spreadsheets.values.batchGet', latencyMs: 30_000, count: 1 });
    const controller = new AbortController();
    await under.forgetCalls();
    const search = under
      .tool('find_in_spreadsheet')
      .run(
        { spreadsheetId: twelveTabs, query: 'needle', matchCase: false, maxResults: 50 },
        under.context({ signal: controller.signal }),
      );
    const outcome = search.then(
      () => 'finished',
      (error: unknown) => error,
    );
    while ((await under.calls()).methods['sheets.spreadsheets.values.batchGet']?.attempts !== 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new Error('cancelled'));
    expect(await outcome).toEqual(new ToolError('the request was cancelled'));
    expect((await under.calls()).methods['sheets.spreadsheets.values.batchGet']?.attempts).toBe(1);
  });
});

describe('convert_file', () => {
  it('a csv into a spreadsheet: its type read, then the converting copy', async () => {
    const [csv] = await under.seed([
      { name: 'data.csv', mimeType: 'text/csv', contentBase64: Buffer.from('a,b\n1,2\n').toString('base64') },
    ]);
    const context = under.context();
    const result = await under.tool('convert_file').run({ fileId: csv, to: 'spreadsheet' }, context);
    expect(result.structuredContent).toMatchObject({
      name: 'data',
      mimeType: 'application/vnd.google-apps.spreadsheet',
    });
    expect(context.reports).toEqual([
      { progress: 1, total: 2, message: 'Converting the file into a Google spreadsheet' },
      { progress: 2, total: 2, message: 'Converted' },
    ]);
  });

  it('a spreadsheet into xlsx: its type read, the export, the upload', async () => {
    const context = under.context();
    await under.forgetCalls();
    const result = await under.tool('convert_file').run({ fileId: twelveTabs, to: 'xlsx' }, context);
    expect(result.structuredContent).toMatchObject({ name: 'Twelve.xlsx' });
    expect(context.reports).toEqual([
      { progress: 1, total: 3, message: 'Exporting the spreadsheet as xlsx' },
      { progress: 2, total: 3, message: 'Uploading the xlsx file to Drive' },
      { progress: 3, total: 3, message: 'Converted' },
    ]);
    // Progress costs no Google call: files.get, files.export, files.create.
    expect((await under.calls()).all).toBe(3);
  });

  it('cancelled after the export, it does not upload', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled');
    const context = under.context({
      signal: controller.signal,
      onProgress: (report) => {
        if (report.progress === 2) controller.abort(reason);
      },
    });
    await under.forgetCalls();
    await expect(under.tool('convert_file').run({ fileId: twelveTabs, to: 'csv' }, context)).rejects.toBe(
      reason,
    );
    const calls = await under.calls();
    expect(calls.methods['drive.files.export']?.attempts).toBe(1);
    expect(calls.methods['drive.files.create']).toBeUndefined();
    expect(calls.all).toBe(2);
  });
});

describe('writes and batch_update', () => {
  const rowsOf = (cells: number) =>
    Array.from({ length: cells / 10 }, (_, row) => Array.from({ length: 10 }, () => row));

  it(`write_ranges of ${LARGE_WRITE_CELLS} cells reports before and after its write (one call after the formula check's one read); a small one does not`, async () => {
    const [id] = await under.seed([{ name: 'Writes', values: [] }]);
    const large = under.context();
    await under.forgetCalls();
    await under.tool('write_ranges').run(
      {
        spreadsheetId: id,
        data: [
          { range: 'Sheet1!A1', values: rowsOf(LARGE_WRITE_CELLS / 2) },
          { range: 'Sheet1!L1', values: rowsOf(LARGE_WRITE_CELLS / 2) },
        ],
        valueInputOption: 'RAW',
      },
      large,
    );
    expect(large.reports).toEqual([
      { progress: 0, total: 1, message: 'Writing 5,000 cells in 2 ranges' },
      { progress: 1, total: 1, message: 'Written' },
    ]);
    // values.batchGet (cells holding formulas are not replaced unawares), then values.batchUpdate.
    expect((await under.calls()).all).toBe(2);

    const small = under.context();
    await under
      .tool('write_ranges')
      .run(
        { spreadsheetId: id, data: [{ range: 'Sheet1!A1', values: [[1]] }], valueInputOption: 'RAW' },
        small,
      );
    expect(small.reports).toEqual([]);
  });

  it('append_rows when large', async () => {
    const [id] = await under.seed([{ name: 'Appends', values: [['head']] }]);
    const context = under.context();
    await under.tool('append_rows').run(
      {
        spreadsheetId: id,
        range: 'Sheet1!A:J',
        values: rowsOf(LARGE_WRITE_CELLS),
        valueInputOption: 'RAW',
        insertDataOption: 'INSERT_ROWS',
      },
      context,
    );
    expect(context.reports).toEqual([
      { progress: 0, total: 1, message: 'Appending 500 rows' },
      { progress: 1, total: 1, message: 'Appended' },
    ]);
  });

  it('batch_update reports its one call', async () => {
    const [id] = await under.seed([{ name: 'Batch', values: [['a']] }]);
    const context = under.context();
    await under.tool('batch_update').run(
      {
        spreadsheetId: id,
        requests: [
          { addSheet: { properties: { title: 'B' } } },
          { addSheet: { properties: { title: 'C' } } },
        ],
      },
      context,
    );
    expect(context.reports).toEqual([
      { progress: 0, total: 1, message: 'Applying 2 requests' },
      { progress: 1, total: 1, message: 'Applied' },
    ]);
  });
});
