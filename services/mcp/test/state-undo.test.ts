import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalWrites } from '../src/tools/kit/journal-writes.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { type Answer, callTool, callToolOk } from './support/tool-answers.ts';
import { startToolsUnderTest } from './support/tools-in-process.ts';

// Structure undo (docs/design.md §11.8) through real auth and mcp processes and the Google
// emulator: each structure tool's call, then undo_change, and the spreadsheet read back with its
// grid data exactly as before; a later edit makes undo refuse naming it, force restores anyway,
// and undoing the undo redoes the change.

type Json = Record<string, unknown>;

let stack: McpUnderTest;
let client: Client;
let userId: string;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  ({ userId } = await stack.signIn('alice@example.com'));
  client = await stack.connectClient(userId, 'state undo');
}, 120_000);
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

async function google(path: string, init: RequestInit = {}): Promise<Json> {
  const token = await stack.googleAccessToken(userId);
  const response = await fetch(`${stack.emulatorUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Json;
}

/** The whole spreadsheet as Google gives it, grid data included (the reads' computed parts left out). */
async function snapshot(spreadsheetId: string): Promise<Json> {
  const book = await google(`/v4/spreadsheets/${spreadsheetId}?includeGridData=true`);
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(
          ([key]) => !['effectiveValue', 'effectiveFormat', 'formattedValue', 'hyperlink'].includes(key),
        )
        .map(([key, inner]) => [key, strip(inner)]),
    );
  };
  return { sheets: strip(book.sheets), namedRanges: book.namedRanges ?? [] };
}

/** A fresh book: "Data" with a small table, "Other" with a line; the ids of both. */
async function freshBook() {
  const [spreadsheetId] = await stack.seed('alice@example.com', [
    {
      name: 'State undo',
      sheets: [
        {
          title: 'Data',
          values: [
            ['Item', 'Amount', 'Note'],
            ['Rent', 1200, 'monthly'],
            ['Food', 300, 'weekly'],
            ['Travel', 150, 'once'],
          ],
        },
        { title: 'Other', values: [['other']] },
      ],
    },
  ]);
  const book = await google(`/v4/spreadsheets/${spreadsheetId}?fields=sheets.properties`);
  const idOf = (title: string) =>
    (book.sheets as Array<{ properties: { sheetId: number; title: string } }>).find(
      (sheet) => sheet.properties.title === title,
    )!.properties.sheetId;
  return { spreadsheetId: spreadsheetId!, dataId: idOf('Data'), otherId: idOf('Other') };
}

const ok = (name: string, args: Json) => callToolOk(client, name, args);
const undo = (args: Json): Promise<Answer> => callTool(client, 'undo_change', args);

/** The change id of the last journaled write to the spreadsheet (the tools without their own say it). */
async function lastChange(spreadsheetId: string): Promise<Json> {
  const listed = await ok('list_changes', { spreadsheetId });
  return (listed.structured.changes as Json[])[0]!;
}

/**
 * A tool call taken back: the change is undoable, undo_change restores the book exactly, and
 * undoing the undo brings the change back exactly. Returns the change's entry.
 */
async function roundTrip(spreadsheetId: string, tool: string, args: Json): Promise<Json> {
  const before = await snapshot(spreadsheetId);
  await ok(tool, { spreadsheetId, ...args });
  const changed = await snapshot(spreadsheetId);
  expect(changed, `${tool} changed nothing`).not.toEqual(before);
  const change = await lastChange(spreadsheetId);
  expect(change.tool).toBe(tool);
  expect(change.undoable, JSON.stringify(change)).toBe(true);
  const undone = await undo({ changeId: change.changeId });
  expect(undone.isError, undone.text).toBe(false);
  expect(await snapshot(spreadsheetId)).toEqual(before);
  const redone = await undo({ changeId: undone.structured.changeId });
  expect(redone.isError, redone.text).toBe(false);
  expect(await snapshot(spreadsheetId)).toEqual(changed);
  // And back again, for the next call on the same book.
  const again = await undo({ changeId: redone.structured.changeId });
  expect(again.isError, again.text).toBe(false);
  expect(await snapshot(spreadsheetId)).toEqual(before);
  return change;
}

/** Objects the change and delete tools act on, put on a fresh book through the emulator directly. */
const FIXTURES = {
  protectedRangeId: 7701,
  filterViewId: 5501,
  chartId: 8801,
  table: 'Fixture',
  named: 'Items',
};

async function withFixtures<Book extends { spreadsheetId: string; dataId: number }>(
  book: Book,
): Promise<Book> {
  const items = {
    sheetId: book.dataId,
    startRowIndex: 1,
    endRowIndex: 4,
    startColumnIndex: 0,
    endColumnIndex: 1,
  };
  const amounts = { ...items, startColumnIndex: 1, endColumnIndex: 2 };
  const rule = (type: string, value: string, bold: boolean) => ({
    addConditionalFormatRule: {
      rule: {
        ranges: [amounts],
        booleanRule: {
          condition: { type, values: [{ userEnteredValue: value }] },
          format: { textFormat: { bold } },
        },
      },
      index: 0,
    },
  });
  await google(`/v4/spreadsheets/${book.spreadsheetId}:batchUpdate`, {
    method: 'POST',
    body: JSON.stringify({
      requests: [
        rule('NUMBER_GREATER', '1000', true),
        rule('NUMBER_LESS', '200', false),
        { addNamedRange: { namedRange: { name: FIXTURES.named, range: items } } },
        {
          addProtectedRange: {
            protectedRange: { protectedRangeId: FIXTURES.protectedRangeId, range: amounts },
          },
        },
        {
          addFilterView: {
            filter: {
              filterViewId: FIXTURES.filterViewId,
              title: 'Big',
              range: { ...items, endColumnIndex: 2 },
            },
          },
        },
        {
          addChart: {
            chart: {
              chartId: FIXTURES.chartId,
              spec: {
                title: 'Spending',
                basicChart: {
                  chartType: 'COLUMN',
                  headerCount: 1,
                  domains: [{ domain: { sourceRange: { sources: [{ ...items, startRowIndex: 0 }] } } }],
                  series: [{ series: { sourceRange: { sources: [{ ...amounts, startRowIndex: 0 }] } } }],
                },
              },
              position: {
                overlayPosition: { anchorCell: { sheetId: book.dataId, rowIndex: 0, columnIndex: 5 } },
              },
            },
          },
        },
        {
          mergeCells: {
            range: {
              sheetId: book.dataId,
              startRowIndex: 6,
              endRowIndex: 7,
              startColumnIndex: 0,
              endColumnIndex: 2,
            },
            mergeType: 'MERGE_ALL',
          },
        },
      ],
    }),
  });
  return book;
}

/** The table fixture, apart: a table and the basic filter cannot share their range. */
async function withTable<Book extends { spreadsheetId: string; dataId: number }>(book: Book): Promise<Book> {
  await google(`/v4/spreadsheets/${book.spreadsheetId}:batchUpdate`, {
    method: 'POST',
    body: JSON.stringify({
      requests: [
        {
          addTable: {
            table: {
              name: FIXTURES.table,
              range: {
                sheetId: book.dataId,
                startRowIndex: 0,
                endRowIndex: 4,
                startColumnIndex: 0,
                endColumnIndex: 3,
              },
            },
          },
        },
      ],
    }),
  });
  return book;
}

describe('undo of each structure tool restores the spreadsheet, and undoing the undo redoes it', () => {
  it('format_range', async () => {
    const { spreadsheetId } = await freshBook();
    await roundTrip(spreadsheetId, 'format_range', {
      range: 'Data!A1:C2',
      bold: true,
      backgroundColor: '#ff0000',
    });
  });

  it('set_data_validation, set and cleared', async () => {
    const { spreadsheetId } = await freshBook();
    await roundTrip(spreadsheetId, 'set_data_validation', {
      range: 'Data!B2:B4',
      condition: 'NUMBER_GREATER_THAN_EQ',
      values: [0],
    });
    await ok('set_data_validation', {
      spreadsheetId,
      range: 'Data!B2:B4',
      condition: 'NUMBER_GREATER',
      values: [5],
    });
    await roundTrip(spreadsheetId, 'set_data_validation', { range: 'Data!B2:B3', clear: true });
  });

  it('conditional formats: add, update and delete, the rule list back in its order', async () => {
    const book = await withFixtures(await freshBook());
    const { spreadsheetId, dataId } = book;
    await roundTrip(spreadsheetId, 'add_conditional_format', {
      ranges: ['Data!B2:B4'],
      condition: 'NUMBER_GREATER',
      values: [500],
      format: { backgroundColor: '#f4cccc' },
      index: 1,
    });
    await roundTrip(spreadsheetId, 'update_conditional_format', {
      sheetId: dataId,
      index: 1,
      condition: 'NUMBER_LESS',
      values: [100],
    });
    await roundTrip(spreadsheetId, 'delete_conditional_format', { sheetId: dataId, index: 0 });
  });

  it('merge_cells and unmerge_cells, with the values a merge drops', async () => {
    const book = await withFixtures(await freshBook());
    await roundTrip(book.spreadsheetId, 'merge_cells', { range: 'Data!A2:C3' });
    await roundTrip(book.spreadsheetId, 'unmerge_cells', { range: 'Data!A7:B7' });
  });

  it('freeze and set_dimension_properties', async () => {
    const { spreadsheetId, dataId } = await freshBook();
    await roundTrip(spreadsheetId, 'freeze', { sheetId: dataId, rows: 1, columns: 1 });
    await roundTrip(spreadsheetId, 'set_dimension_properties', {
      sheetId: dataId,
      dimension: 'COLUMNS',
      startIndex: 0,
      endIndex: 2,
      pixelSize: 180,
    });
    await roundTrip(spreadsheetId, 'set_dimension_properties', {
      sheetId: dataId,
      dimension: 'ROWS',
      startIndex: 1,
      endIndex: 3,
      hidden: true,
    });
  });

  it('sort_range and find_replace (a range, a tab, every tab)', async () => {
    const { spreadsheetId } = await freshBook();
    await roundTrip(spreadsheetId, 'sort_range', {
      range: 'Data!A1:C4',
      sortBy: [{ column: 'B' }],
      headerRow: true,
    });
    await roundTrip(spreadsheetId, 'find_replace', { find: 'e', replacement: 'E', range: 'Data!A1:A4' });
    await roundTrip(spreadsheetId, 'find_replace', { find: 'o', replacement: '0', range: 'Data' });
    await roundTrip(spreadsheetId, 'find_replace', { find: 'er', replacement: 'ER' });
  });

  it('copy_range (copy and cut) and autofill', async () => {
    const { spreadsheetId } = await freshBook();
    await roundTrip(spreadsheetId, 'copy_range', { source: 'Data!A1:C2', destination: 'Other!B2' });
    await roundTrip(spreadsheetId, 'copy_range', {
      source: 'Data!A3:C4',
      destination: 'Data!E1',
      mode: 'cut',
    });
    await roundTrip(spreadsheetId, 'autofill', { source: 'Data!B3:B4', direction: 'down', count: 3 });
  });

  it('add_sheet, rename_sheet and duplicate_sheet', async () => {
    const { spreadsheetId, dataId, otherId } = await freshBook();
    await roundTrip(spreadsheetId, 'add_sheet', { title: 'Extra', index: 0 });
    await roundTrip(spreadsheetId, 'rename_sheet', { sheetId: otherId, title: 'Renamed' });
    await roundTrip(spreadsheetId, 'duplicate_sheet', { sheetId: dataId, newTitle: 'Data copy' });
  });

  it('charts: add, update and delete', async () => {
    const book = await withFixtures(await freshBook());
    await roundTrip(book.spreadsheetId, 'add_chart', { type: 'column', range: 'Data!A1:B4', title: 'Costs' });
    await roundTrip(book.spreadsheetId, 'update_chart', {
      chartId: FIXTURES.chartId,
      type: 'bar',
      title: 'Costs',
    });
    await roundTrip(book.spreadsheetId, 'delete_chart', { chartId: FIXTURES.chartId });
  });

  it('the basic filter and filter views', async () => {
    const book = await withFixtures(await freshBook());
    const { spreadsheetId, dataId } = book;
    await roundTrip(spreadsheetId, 'set_basic_filter', {
      range: 'Data!A1:C4',
      criteria: [{ column: 'B', condition: 'NUMBER_GREATER', values: [200] }],
    });
    await ok('set_basic_filter', { spreadsheetId, range: 'Data!A1:C4' });
    await roundTrip(spreadsheetId, 'clear_basic_filter', { sheetId: dataId });
    await roundTrip(spreadsheetId, 'add_filter_view', {
      title: 'Cheap',
      range: 'Data!A1:B4',
      sort: [{ column: 'B' }],
    });
    await roundTrip(spreadsheetId, 'update_filter_view', {
      filterViewId: FIXTURES.filterViewId,
      title: 'Costly',
    });
    await roundTrip(spreadsheetId, 'delete_filter_view', { filterViewId: FIXTURES.filterViewId });
  });

  it('tables: add, update and delete', async () => {
    const { spreadsheetId } = await freshBook();
    await roundTrip(spreadsheetId, 'add_table', {
      name: 'Budget',
      range: 'Data!A1:C4',
      columns: [{}, { type: 'CURRENCY' }, {}],
    });
    const book = await withTable(await freshBook());
    await roundTrip(book.spreadsheetId, 'update_table', { table: FIXTURES.table, newName: 'Spending' });
    await roundTrip(book.spreadsheetId, 'delete_table', { table: FIXTURES.table });
  });

  it('named and protected ranges', async () => {
    const book = await withFixtures(await freshBook());
    const { spreadsheetId } = book;
    await roundTrip(spreadsheetId, 'add_named_range', { name: 'Amounts', range: 'Data!B2:B4' });
    await roundTrip(spreadsheetId, 'update_named_range', { name: FIXTURES.named, newName: 'Things' });
    await roundTrip(spreadsheetId, 'delete_named_range', { name: FIXTURES.named });
    await roundTrip(spreadsheetId, 'add_protected_range', { range: 'Other', warningOnly: true });
    await roundTrip(spreadsheetId, 'delete_protected_range', { protectedRangeId: FIXTURES.protectedRangeId });
  });

  it('insert_dimension', async () => {
    const { spreadsheetId, dataId } = await freshBook();
    await roundTrip(spreadsheetId, 'insert_dimension', {
      sheetId: dataId,
      dimension: 'ROWS',
      startIndex: 2,
      count: 2,
    });
    await roundTrip(spreadsheetId, 'insert_dimension', {
      sheetId: dataId,
      dimension: 'COLUMNS',
      startIndex: 1,
      count: 1,
    });
  });

  it('batch_update: several kinds in one call are one change', async () => {
    const book = await withFixtures(await freshBook());
    const { spreadsheetId, dataId, otherId } = book;
    await roundTrip(spreadsheetId, 'batch_update', {
      requests: [
        {
          repeatCell: {
            range: { sheetId: dataId, startRowIndex: 0, endRowIndex: 1 },
            cell: { userEnteredFormat: { textFormat: { italic: true } } },
            fields: 'userEnteredFormat.textFormat.italic',
          },
        },
        {
          updateCells: {
            start: { sheetId: otherId, rowIndex: 1, columnIndex: 0 },
            rows: [
              {
                values: [
                  { userEnteredValue: { numberValue: 7 }, note: 'seven' },
                  { userEnteredValue: { formulaValue: '=A2*2' } },
                ],
              },
            ],
            fields: 'userEnteredValue,note',
          },
        },
        {
          updateSheetProperties: {
            properties: { sheetId: otherId, title: 'Moved', index: 0 },
            fields: 'title,index',
          },
        },
        {
          mergeCells: {
            range: {
              sheetId: dataId,
              startRowIndex: 1,
              endRowIndex: 3,
              startColumnIndex: 2,
              endColumnIndex: 3,
            },
            mergeType: 'MERGE_ALL',
          },
        },
        {
          updateFilterView: {
            filter: { filterViewId: FIXTURES.filterViewId, title: 'Renamed' },
            fields: 'title',
          },
        },
        { addSheet: { properties: { title: 'Brand new' } } },
      ],
    });
  });
});

/** Google requests by API method, as the emulator counted them so far. */
async function emulatorCounts(): Promise<Record<string, number>> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return Object.fromEntries(Object.entries(stats.methods).map(([method, each]) => [method, each.attempts]));
}

/** The requests by method that `run` made. */
async function requestsOf(run: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await emulatorCounts();
  await run();
  const after = await emulatorCounts();
  return Object.fromEntries(
    Object.entries(after)
      .map(([method, count]) => [method, count - (before[method] ?? 0)] as const)
      .filter(([, count]) => count > 0),
  );
}

describe('what changed since, force, dry runs', () => {
  it('a later format on the same cells refuses the undo naming the cell; force restores the earlier formats', async () => {
    const { spreadsheetId } = await freshBook();
    const before = await snapshot(spreadsheetId);
    await ok('format_range', { spreadsheetId, range: 'Data!A1:B1', bold: true });
    const change = await lastChange(spreadsheetId);
    await ok('format_range', { spreadsheetId, range: 'Data!A1', backgroundColor: '#00ff00' });
    const edited = await snapshot(spreadsheetId);
    const refused = await undo({ changeId: change.changeId });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('Not undone');
    expect(refused.text).toContain('Data!A1');
    expect(refused.text).not.toContain('Data!B1');
    expect(await snapshot(spreadsheetId)).toEqual(edited);
    const forced = await undo({ changeId: change.changeId, force: true });
    expect(forced.isError, forced.text).toBe(false);
    expect(await snapshot(spreadsheetId)).toEqual(before);
  });

  it('a chart changed since refuses the undo of its addition, naming it; force deletes it', async () => {
    const { spreadsheetId } = await freshBook();
    const before = await snapshot(spreadsheetId);
    const added = await ok('add_chart', {
      spreadsheetId,
      type: 'column',
      range: 'Data!A1:B4',
      title: 'Costs',
    });
    const change = await lastChange(spreadsheetId);
    await ok('update_chart', { spreadsheetId, chartId: added.structured.chartId, title: 'Renamed' });
    const refused = await undo({ changeId: change.changeId });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/chart/i);
    const forced = await undo({ changeId: change.changeId, force: true });
    expect(forced.isError, forced.text).toBe(false);
    expect(await snapshot(spreadsheetId)).toEqual(before);
  });

  it('inserted rows that hold values refuse their undo; force deletes them, and undoing that inserts them again with their cells', async () => {
    const { spreadsheetId, dataId } = await freshBook();
    const before = await snapshot(spreadsheetId);
    const inserted = await ok('insert_dimension', {
      spreadsheetId,
      sheetId: dataId,
      dimension: 'ROWS',
      startIndex: 1,
      count: 2,
    });
    await ok('write_range', { spreadsheetId, range: 'Data!A2', values: [['typed later']] });
    const filled = await snapshot(spreadsheetId);
    const refused = await undo({ changeId: inserted.structured.changeId });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('rows 2–3');
    const forced = await undo({ changeId: inserted.structured.changeId, force: true });
    expect(forced.isError, forced.text).toBe(false);
    expect(await snapshot(spreadsheetId)).toEqual(before);
    const again = await undo({ changeId: forced.structured.changeId });
    expect(again.isError, again.text).toBe(false);
    expect(await snapshot(spreadsheetId)).toEqual(filled);
  });

  it('a dry run names the spreadsheet and what it would restore, and sends Google no write', async () => {
    const { spreadsheetId } = await freshBook();
    await ok('format_range', { spreadsheetId, range: 'Data!A1:B2', italic: true });
    const changed = await snapshot(spreadsheetId);
    const change = await lastChange(spreadsheetId);
    let dry: Answer | undefined;
    const requests = await requestsOf(async () => {
      dry = await undo({ changeId: change.changeId, dryRun: true });
    });
    expect(dry!.isError, dry!.text).toBe(false);
    expect(dry!.text).toContain(spreadsheetId);
    expect(dry!.text).toContain('Data!A1:B2');
    expect(dry!.structured).toMatchObject({ dryRun: true, spreadsheetId });
    expect(requests['sheets.spreadsheets.batchUpdate']).toBeUndefined();
    expect(await snapshot(spreadsheetId)).toEqual(changed);
  });

  it('a dry run of a structure tool reads nothing for the journal and journals nothing', async () => {
    const { spreadsheetId } = await freshBook();
    const last = await lastChange(spreadsheetId).catch(() => undefined);
    const requests = await requestsOf(() =>
      ok('format_range', { spreadsheetId, range: 'Data!A1', bold: true, dryRun: true }),
    );
    // The spreadsheet's owners, read before any write into it (dry runs alike), and the tabs.
    expect(requests).toEqual({ 'drive.files.get': 1, 'sheets.spreadsheets.get': 1 });
    expect(await lastChange(spreadsheetId).catch(() => undefined)).toEqual(last);
  });
});

describe('tabs and rows that come and go', () => {
  it('undo of add_sheet deletes the tab, keeping the cells written on it since; undoing that brings them back', async () => {
    const { spreadsheetId } = await freshBook();
    const before = await snapshot(spreadsheetId);
    await ok('add_sheet', { spreadsheetId, title: 'Scratch' });
    const change = await lastChange(spreadsheetId);
    await ok('write_range', {
      spreadsheetId,
      range: 'Scratch!A1:B2',
      values: [
        ['kept', 1],
        ['too', '=B1+1'],
      ],
    });
    const written = await snapshot(spreadsheetId);
    const undone = await undo({ changeId: change.changeId });
    expect(undone.isError, undone.text).toBe(false);
    expect(await snapshot(spreadsheetId)).toEqual(before);
    const redone = await undo({ changeId: undone.structured.changeId });
    expect(redone.isError, redone.text).toBe(false);
    expect(await snapshot(spreadsheetId)).toEqual(written);
  });

  it('re-inserted rows, a recreated tab: the undo of each undo takes them away again', async () => {
    const { spreadsheetId, dataId, otherId } = await freshBook();
    await ok('delete_dimension', {
      spreadsheetId,
      sheetId: dataId,
      dimension: 'ROWS',
      startIndex: 1,
      endIndex: 3,
    });
    const rowsGone = await snapshot(spreadsheetId);
    const rowsChange = await lastChange(spreadsheetId);
    const reinserted = await undo({ changeId: rowsChange.changeId });
    expect(reinserted.isError, reinserted.text).toBe(false);
    expect(reinserted.text).toContain('undo_change can undo it');
    const again = await undo({ changeId: reinserted.structured.changeId });
    expect(again.isError, again.text).toBe(false);
    expect(await snapshot(spreadsheetId)).toEqual(rowsGone);

    await ok('delete_sheet', { spreadsheetId, sheetId: otherId });
    const tabGone = await snapshot(spreadsheetId);
    const tabChange = await lastChange(spreadsheetId);
    const recreated = await undo({ changeId: tabChange.changeId });
    expect(recreated.isError, recreated.text).toBe(false);
    const withTab = await snapshot(spreadsheetId);
    const deletedAgain = await undo({ changeId: recreated.structured.changeId });
    expect(deletedAgain.isError, deletedAgain.text).toBe(false);
    expect(await snapshot(spreadsheetId)).toEqual(tabGone);
    const back = await undo({ changeId: deletedAgain.structured.changeId });
    expect(back.isError, back.text).toBe(false);
    expect(await snapshot(spreadsheetId)).toEqual(withTab);
  });
});

describe('batch_update', () => {
  it('refuses, before Google, a request undo cannot take back, naming the tool to use', async () => {
    const { spreadsheetId, otherId } = await freshBook();
    const before = await snapshot(spreadsheetId);
    const refused = await callTool(client, 'batch_update', {
      spreadsheetId,
      requests: [{ addSheet: { properties: { title: 'Fine' } } }, { deleteSheet: { sheetId: otherId } }],
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('request 1 (deleteSheet)');
    expect(refused.text).toContain('delete_sheet');
    const sized = await callTool(client, 'batch_update', {
      spreadsheetId,
      requests: [
        {
          updateSheetProperties: {
            properties: { sheetId: otherId, gridProperties: { rowCount: 5 } },
            fields: 'gridProperties.rowCount',
          },
        },
      ],
    });
    expect(sized.isError).toBe(true);
    expect(sized.text).toContain('Nothing was changed');
    expect(await snapshot(spreadsheetId)).toEqual(before);
  });

  it('a tab added beside cells formatted on one tab of several: undone and redone, the other tabs left as they are', async () => {
    const { spreadsheetId, dataId } = await freshBook();
    await roundTrip(spreadsheetId, 'batch_update', {
      requests: [
        {
          repeatCell: {
            range: {
              sheetId: dataId,
              startRowIndex: 0,
              endRowIndex: 2,
              startColumnIndex: 0,
              endColumnIndex: 2,
            },
            cell: { userEnteredFormat: { textFormat: { bold: true } } },
            fields: 'userEnteredFormat.textFormat.bold',
          },
        },
        { addSheet: { properties: { title: 'Side', index: 1 } } },
      ],
    });
  });

  it('its dry run says the batch can be undone', async () => {
    const { spreadsheetId, dataId } = await freshBook();
    const dry = await ok('batch_update', {
      spreadsheetId,
      requests: [{ sortRange: { range: { sheetId: dataId, startRowIndex: 1, endRowIndex: 4 } } }],
      dryRun: true,
    });
    expect(dry.text).toContain('can be undone');
  });
});

describe('the journal off', () => {
  it('reads nothing more: the tools are left as they are', async () => {
    const tools = await startToolsUnderTest();
    try {
      const [spreadsheetId] = await tools.seed([{ name: 'Off', values: [['a', 'b']] }]);
      const [formatRange] = journalWrites([tools.tool('format_range')], undefined);
      expect(formatRange).toBe(tools.tool('format_range'));
      await tools.forgetCalls();
      await formatRange!.run({ spreadsheetId, range: 'A1:B1', bold: true }, tools.context());
      const { methods } = await tools.calls();
      expect(Object.keys(methods).sort()).toEqual([
        'sheets.spreadsheets.batchUpdate',
        'sheets.spreadsheets.get',
      ]);
    } finally {
      await tools.stop();
    }
  });
});
