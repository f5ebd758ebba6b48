import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AuthInfo } from '../src/auth/auth-info.ts';
import type { ChangeEntry, ChangeJournal } from '../src/journal/change-journal.ts';
import {
  bounded,
  type ChangePayload,
  MAX_PAYLOAD_BYTES,
  MAX_UNDO_CELLS,
  tooLargeReason,
} from '../src/journal/change-payloads.ts';
import { tooLargeBeforeWrite } from '../src/journal/state/state-bounds.ts';
import { dryRun, dryRunOutput } from '../src/tools/kit/common-schemas.ts';
import { journalWrites } from '../src/tools/kit/journal-writes.ts';
import { spreadsheetBatchUpdate } from '../src/tools/kit/spreadsheet-batch-update.ts';
import { defineTool, type ToolDefinition } from '../src/tools/kit/tool-definition.ts';
import type { ToolDeps } from '../src/tools/kit/tool-deps.ts';
import { area, image } from './support/state-images.ts';
import { startToolsUnderTest, type ToolsUnderTest } from './support/tools-in-process.ts';

// The bounds of what undo keeps of a structure change (docs/design.md §11.8), told as early as
// they can be (journal/state/state-bounds.ts): before the write from the before-image and the
// requests, after it from the cells the images hold, then from the altered cells' keys. Past one,
// the images are not compared (no cell of them is read), the entry says which bound and counts the
// cells once; `bounded` measures UTF-8 bytes.

const AUTH: AuthInfo = {
  userId: 'u1',
  scopes: new Set(['sheets:write']),
  credential: 'api_key',
  apiKeyId: 'k1',
};

function recordingJournal(): ChangeJournal & { entries: ChangeEntry[] } {
  const entries: ChangeEntry[] = [];
  return {
    entries,
    record(_auth, entry) {
      entries.push(entry);
      return `change-${entries.length}`;
    },
    flush: async () => {},
    list: async () => ({ changes: [], nextPageToken: '' }),
    get: async () => undefined,
    markUndone: async () => 'ok',
    close: async () => {},
  };
}

/** Values that count how often they are read: a comparison of the images reads every one. */
function counted(reads: { count: number }, value: Record<string, unknown>): Record<string, unknown> {
  const counting = {};
  for (const [key, inner] of Object.entries(value))
    Object.defineProperty(counting, key, {
      enumerable: true,
      get() {
        reads.count++;
        return inner;
      },
    });
  return counting;
}

const tab = (rowCount: number, columnCount: number, rowData: sheets_v4.Schema$RowData[]) => ({
  properties: { sheetId: 0, title: 'Sheet1', gridProperties: { rowCount, columnCount } },
  data: [{ startRow: 0, startColumn: 0, rowData }],
});

/**
 * Google as a stub: the before-read answers `before`, a batchUpdate asking for its after-image
 * answers `after`; each batchUpdate's parameters are kept.
 */
function stubGoogle(before: sheets_v4.Schema$Spreadsheet, after: sheets_v4.Schema$Spreadsheet) {
  const batchUpdates: sheets_v4.Params$Resource$Spreadsheets$Batchupdate[] = [];
  const sheets = {
    spreadsheets: {
      getByDataFilter: async () => ({ data: before }),
      get: async () => ({ data: before }),
      batchUpdate: async (params: sheets_v4.Params$Resource$Spreadsheets$Batchupdate) => {
        batchUpdates.push(params);
        const replies = (params.requestBody?.requests ?? []).map(() => ({}));
        return {
          data: params.requestBody?.includeSpreadsheetInResponse
            ? { replies, updatedSpreadsheet: after }
            : { replies },
        };
      },
    },
  };
  const callGoogle = (_user: string, _signal: AbortSignal, run: (options: object) => unknown) => run({});
  return { deps: { sheets, callGoogle } as unknown as ToolDeps, batchUpdates };
}

/** A write tool sending `requests` through the shared batchUpdate, journaled by the wrapper. */
function journaledTool(
  name: string,
  deps: ToolDeps,
  requests: sheets_v4.Schema$Request[],
  journal: ChangeJournal,
) {
  const batchUpdate = spreadsheetBatchUpdate(deps);
  const tool = defineTool({
    name,
    toolset: 'structure',
    title: name,
    description: 'Sends its requests.',
    scope: 'sheets:write',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    inputSchema: z.object({ spreadsheetId: z.string(), dryRun }),
    outputSchema: z.object({ done: z.boolean(), dryRun: dryRunOutput }),
    async run(input, { auth, signal }) {
      await batchUpdate(auth.userId, signal, input.spreadsheetId, requests);
      return { structuredContent: { done: true }, text: 'Done.' };
    },
  });
  const [wrapped] = journalWrites([tool], journal) as [ToolDefinition];
  return () =>
    wrapped.run(
      { spreadsheetId: 'book-1', dryRun: false },
      { auth: AUTH, signal: new AbortController().signal, progress() {} },
    );
}

const range = (rows: number, columns: number) => ({
  sheetId: 0,
  startRowIndex: 0,
  endRowIndex: rows,
  startColumnIndex: 0,
  endColumnIndex: columns,
});

describe('the reason an entry too large gives', () => {
  it('names the cell bound past it, counting the cells once', () => {
    const reason = tooLargeReason(60_000);
    expect(reason).toBe(
      'Undo is not available: the change replaced 60,000 cells; Sheetgate keeps the replaced contents of at most 50,000 cells per change.',
    );
    expect(reason).not.toContain('KB');
  });

  it('names the byte bound when the cells are within theirs', () => {
    const reason = tooLargeReason(10_000, 1_300_000);
    expect(reason).toBe(
      'Undo is not available: what the change replaced (10,000 cells) takes about 1,270 KB, more than the 480 KB Sheetgate keeps per change.',
    );
    expect(reason).not.toContain('50,000');
  });
});

describe('bounded', () => {
  const payload = (text: string): ChangePayload => ({
    v: 1,
    kind: 'values',
    areas: [{ sheet: 'Sheet1', top: 0, left: 0, before: [[text]], after: [['x']] }],
  });

  it('counts UTF-8 bytes: text within the bound in characters but past it in bytes is not kept', () => {
    const characters = Math.floor(MAX_PAYLOAD_BYTES / 2);
    const ascii = bounded(payload('e'.repeat(characters)), 1);
    expect(ascii.payload).toBeDefined();
    // "€" is one character of JSON and three bytes.
    const euros = bounded(payload('€'.repeat(characters)), 1);
    expect(euros.payload).toBeUndefined();
    expect(euros.undoUnavailableReason).toMatch(/\(1 cell\) takes about 7\d\d KB, more than the 480 KB/);
  });

  it('names the cell bound past it', () => {
    expect(bounded(payload('x'), MAX_UNDO_CELLS + 1).undoUnavailableReason).toContain(
      'at most 50,000 cells per change',
    );
  });
});

describe('before the write', () => {
  const format = { textFormat: { bold: true }, backgroundColor: { red: 1, green: 0.93, blue: 0.67 } };
  const repeat = (rows: number): sheets_v4.Schema$Request => ({
    repeatCell: { range: range(rows, 10), cell: { userEnteredFormat: format }, fields: 'userEnteredFormat' },
  });
  const tabs = [{ sheetId: 0, title: 'Sheet1', rowCount: 1_000, columnCount: 10 }];
  const footprint = {
    cells: [
      {
        sheetId: 0,
        startRow: 0,
        endRow: 1_000,
        startColumn: 0,
        endColumn: 10,
        fields: ['userEnteredFormat' as const],
      },
    ],
    dimensions: [],
    sheets: [],
    namedRanges: false,
    addsTabs: false,
  };

  it('a format over more cells than the bytes undo keeps is past it, by what it writes in each', () => {
    expect(tooLargeBeforeWrite([repeat(1_000)], footprint, image(), tabs)).toEqual({
      reason: expect.stringMatching(
        /^Undo is not available: what the change replaced \(10,000 cells\) takes about .* the 480 KB/,
      ),
      cells: 10_000,
      ranges: ['Sheet1!A1:J1000'],
    });
    expect(tooLargeBeforeWrite([repeat(100)], footprint, image(), tabs)).toBeUndefined();
  });

  it('a before-image of more cells than undo keeps is past the cell bound', () => {
    const rows = Array.from({ length: 5_001 }, () => Array.from({ length: 10 }, () => 'x'));
    const found = tooLargeBeforeWrite([], footprint, image({ cells: [area(rows)] }), tabs);
    expect(found?.cells).toBe(50_010);
    expect(found?.reason).toContain('at most 50,000 cells');
  });

  it('a 10,000-cell format is journaled as not undoable without reading its after-image or comparing a cell', async () => {
    const reads = { count: 0 };
    // Every cell italic before: a comparison would read each format.
    const rowData = Array.from({ length: 1_000 }, () => ({
      values: Array.from({ length: 10 }, () => ({
        userEnteredFormat: counted(reads, { textFormat: { italic: true } }),
      })),
    }));
    const before = { sheets: [tab(1_000, 10, rowData)] };
    const { deps, batchUpdates } = stubGoogle(before, before);
    const journal = recordingJournal();
    const answer = await journaledTool('format_range', deps, [repeat(1_000)], journal)();
    expect(batchUpdates).toHaveLength(1);
    expect(batchUpdates[0]?.requestBody?.includeSpreadsheetInResponse).toBeUndefined();
    expect(batchUpdates[0]?.fields).toBeUndefined();
    expect(reads.count).toBe(0);
    const [entry] = journal.entries;
    expect(entry?.payload).toBeUndefined();
    expect(entry).toMatchObject({ cells: 10_000, ranges: ['Sheet1!A1:J1000'] });
    expect(entry?.undoUnavailableReason).toMatch(
      /\(10,000 cells\) takes about [\d,]+ KB, more than the 480 KB/,
    );
    expect(answer.text).toContain('the 480 KB Sheetgate keeps per change');
  });
});

describe('after the write', () => {
  it('after-images of more cells than undo keeps are not compared: the cell bound, the cells once', async () => {
    const reads = { count: 0 };
    const rowData = Array.from({ length: 10_000 }, (_, row) => ({
      values: Array.from({ length: 6 }, (_, column) => ({
        userEnteredValue: counted(reads, { stringValue: `r${row}c${column}` }),
      })),
    }));
    const { deps, batchUpdates } = stubGoogle(
      { sheets: [tab(10_000, 6, [])] },
      { sheets: [tab(10_000, 6, rowData)] },
    );
    const journal = recordingJournal();
    // A paste into empty cells: nothing before, 60,000 cells after.
    await journaledTool(
      'copy_range',
      deps,
      [{ copyPaste: { source: range(1, 1), destination: range(10_000, 6), pasteType: 'PASTE_VALUES' } }],
      journal,
    )();
    expect(batchUpdates[0]?.requestBody?.includeSpreadsheetInResponse).toBe(true);
    expect(reads.count).toBe(0);
    const [entry] = journal.entries;
    expect(entry?.payload).toBeUndefined();
    expect(entry).toMatchObject({ cells: 60_000, ranges: ['Sheet1!A1:F10000'] });
    expect(entry?.undoUnavailableReason).toBe(
      'Undo is not available: the change replaced 60,000 cells; Sheetgate keeps the replaced contents of at most 50,000 cells per change.',
    );
  });

  it('altered cells past the bytes undo keeps: the byte bound, each altered cell counted once', async () => {
    const text = (row: number, column: number) =>
      `row ${String(row).padStart(5, '0')} column ${column} of the book`;
    const rowData = Array.from({ length: 4_000 }, (_, row) => ({
      values: Array.from({ length: 3 }, (_, column) => ({
        userEnteredValue: { stringValue: text(row, column) },
      })),
    }));
    const { deps } = stubGoogle({ sheets: [tab(4_000, 3, [])] }, { sheets: [tab(4_000, 3, rowData)] });
    const journal = recordingJournal();
    // A paste of 12,000 cells: within the cell bound, past the bytes.
    await journaledTool(
      'copy_range',
      deps,
      [{ copyPaste: { source: range(1, 1), destination: range(4_000, 3), pasteType: 'PASTE_VALUES' } }],
      journal,
    )();
    const [entry] = journal.entries;
    expect(entry?.payload).toBeUndefined();
    // Counted once, not once in each image.
    expect(entry).toMatchObject({
      cells: 12_000,
      summary: 'pasted onto 12000 cells of Sheet1!A1:C4000 (values)',
    });
    expect(entry?.undoUnavailableReason).toMatch(
      /^Undo is not available: what the change replaced \(12,000 cells\) takes about [\d,]+ KB, more than the 480 KB/,
    );
  });
});

describe('a sort, before the write', () => {
  it('its cells kept twice past the bytes: not sent for its after-image, the cells it covers counted once', async () => {
    const text = (row: number, column: number) =>
      `row ${String(row).padStart(5, '0')} column ${column} of the book`;
    const rows = (order: (row: number) => number) =>
      Array.from({ length: 2_000 }, (_, row) => ({
        values: Array.from({ length: 6 }, (_, column) => ({
          userEnteredValue: { stringValue: text(order(row), column) },
        })),
      }));
    const { deps, batchUpdates } = stubGoogle(
      {
        sheets: [
          tab(
            2_000,
            6,
            rows((row) => row),
          ),
        ],
      },
      {
        sheets: [
          tab(
            2_000,
            6,
            rows((row) => 1_999 - row),
          ),
        ],
      },
    );
    const journal = recordingJournal();
    await journaledTool(
      'sort_range',
      deps,
      [
        {
          sortRange: { range: range(2_000, 6), sortSpecs: [{ dimensionIndex: 0, sortOrder: 'DESCENDING' }] },
        },
      ],
      journal,
    )();
    expect(batchUpdates[0]?.requestBody?.includeSpreadsheetInResponse).toBeUndefined();
    const [entry] = journal.entries;
    expect(entry?.payload).toBeUndefined();
    expect(entry).toMatchObject({ cells: 12_000, ranges: ['Sheet1!A1:F2000'] });
    expect(entry?.undoUnavailableReason).toMatch(
      /^Undo is not available: what the change replaced \(12,000 cells\) takes about [\d,]+ KB, more than the 480 KB/,
    );
  });

  it('a sort of fewer cells is kept, only the cells that moved', async () => {
    const rows = (order: (row: number) => number) =>
      Array.from({ length: 20 }, (_, row) => ({
        values: [
          { userEnteredValue: { numberValue: order(row) } },
          { userEnteredValue: { stringValue: 'same' } },
        ],
      }));
    const { deps } = stubGoogle(
      {
        sheets: [
          tab(
            20,
            2,
            rows((row) => row),
          ),
        ],
      },
      {
        sheets: [
          tab(
            20,
            2,
            rows((row) => 19 - row),
          ),
        ],
      },
    );
    const journal = recordingJournal();
    await journaledTool(
      'sort_range',
      deps,
      [{ sortRange: { range: range(20, 2), sortSpecs: [{ dimensionIndex: 0, sortOrder: 'DESCENDING' }] } }],
      journal,
    )();
    const [entry] = journal.entries;
    expect(entry).toMatchObject({ cells: 20, payload: { v: 2, kind: 'state' } });
  });
});

describe('the tools against the emulator', () => {
  let under: ToolsUnderTest;
  beforeAll(async () => {
    under = await startToolsUnderTest();
  }, 60_000);
  afterAll(async () => {
    await under?.stop();
  });

  it('format_range on 10,000 cells: not undoable, the byte bound named, the cells and range said', async () => {
    const journal = recordingJournal();
    const [tool] = journalWrites([under.tool('format_range')], journal) as [ToolDefinition];
    const [spreadsheetId] = await under.seed([
      {
        name: 'Bounds',
        values: Array.from({ length: 1_000 }, (_, row) => Array.from({ length: 10 }, () => row)),
      },
    ]);
    const args = { spreadsheetId, range: 'Sheet1!A1:J1000', bold: true, backgroundColor: '#ffeeaa' };
    await under.forgetCalls();
    const answer = await tool.run(tool.inputSchema.parse(args), under.context());
    const calls = await under.calls();
    // The tab's id, the before-read, the batchUpdate.
    expect(calls.methods['sheets.spreadsheets.getByDataFilter']?.attempts).toBe(1);
    expect(calls.methods['sheets.spreadsheets.batchUpdate']?.attempts).toBe(1);
    const [entry] = journal.entries;
    expect(entry).toMatchObject({ tool: 'format_range', cells: 10_000, ranges: ['Sheet1!A1:J1000'] });
    expect(entry?.payload).toBeUndefined();
    expect(entry?.undoUnavailableReason).toMatch(
      /\(10,000 cells\) takes about [\d,]+ KB, more than the 480 KB/,
    );
    expect(answer.text).toContain('480 KB');
  }, 60_000);

  it('format_range on 1,000 cells: kept, only the cells it altered', async () => {
    const journal = recordingJournal();
    const [tool] = journalWrites([under.tool('format_range')], journal) as [ToolDefinition];
    const [spreadsheetId] = await under.seed([
      {
        name: 'Bounds',
        values: Array.from({ length: 100 }, (_, row) => Array.from({ length: 10 }, () => row)),
      },
    ]);
    const args = { spreadsheetId, range: 'Sheet1!A1:J100', bold: true, backgroundColor: '#ffeeaa' };
    await tool.run(tool.inputSchema.parse(args), under.context());
    const [entry] = journal.entries;
    const payload = entry?.payload as Extract<ChangePayload, { kind: 'state' }>;
    expect(payload).toMatchObject({ v: 2, kind: 'state' });
    expect(entry).toMatchObject({
      cells: 1_000,
      summary: 'bold, background colour on 1000 cells of Sheet1!A1:J100',
    });
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThan(MAX_PAYLOAD_BYTES);
  }, 60_000);
});
