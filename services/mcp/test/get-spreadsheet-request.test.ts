import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolsUnderTest, type ToolsUnderTest } from './support/tools-in-process.ts';

// get_spreadsheet is the most called tool: its one spreadsheets.get asks for the rows' and columns'
// sizes and never for a cell, because any cell field in the mask (a pivot table's, say) makes
// Google answer an object for every cell of every tab. The tools run in this process with a fetch
// that records each request's URL and the bytes Google answered.

const ROWS = 10_000;
const COLUMNS = 10;

let under: ToolsUnderTest;
let spreadsheetId: string;
const answers: Array<{ url: URL; bytes: number }> = [];

const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const url = new URL(input instanceof Request ? input.url : input);
  answers.push({ url, bytes: (await response.clone().arrayBuffer()).byteLength });
  return response;
};

beforeAll(async () => {
  under = await startToolsUnderTest('alice@example.com', { fetch: recordingFetch });
  [spreadsheetId] = (await under.seed([
    {
      name: 'Tall',
      sheets: [
        {
          title: 'Numbers',
          values: Array.from({ length: ROWS }, (_, row) =>
            Array.from({ length: COLUMNS }, (_, column) => row * COLUMNS + column),
          ),
        },
      ],
    },
  ])) as [string];
}, 120_000);
afterAll(async () => {
  await under?.stop();
});

describe('get_spreadsheet asks Google for no cell', () => {
  it(`on a ${ROWS.toLocaleString('en')} × ${COLUMNS} tab: a mask without rowData, an answer sized by rows, not cells`, async () => {
    answers.length = 0;
    const result = await under.tool('get_spreadsheet').run({ spreadsheetId }, under.context());
    expect(result.text).toContain(`Numbers (sheetId 0, ${ROWS}×`);
    expect(answers).toHaveLength(1);
    const [{ url, bytes }] = answers as [{ url: URL; bytes: number }];
    expect(url.pathname).toBe(`/v4/spreadsheets/${spreadsheetId}`);
    const fields = url.searchParams.get('fields') ?? '';
    expect(fields).toContain('rowMetadata');
    expect(fields).not.toContain('rowData');
    // The rows' metadata is read whole, a few bytes a row; an object per cell (the pivot-table
    // mask this tool once had) more than triples the answer (docs/benchmarks.md).
    expect(bytes).toBeLessThan(ROWS * 25);
  }, 60_000);
});
