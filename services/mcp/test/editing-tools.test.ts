import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// The editing tools (docs/design.md §11) through the real MCP and auth processes against the Google
// emulator: each one's effect read back, dry runs that send Google no write, and hostile or
// malformed arguments answered as clear tool errors.

let stack: McpUnderTest;
let client: Client;
let userId: string;

beforeAll(async () => {
  stack = await startMcpUnderTest();
  ({ userId } = await stack.signIn('alice@example.com'));
  client = await stack.connectClient(userId, 'editing tools');
}, 120_000);
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

/** A fresh book: "Data" with a small table, and an empty "Other" tab; ids of both. */
async function freshBook() {
  const [spreadsheetId] = await stack.seed('alice@example.com', [
    {
      name: 'Editing',
      sheets: [
        {
          title: 'Data',
          values: [
            ['Item', 'Amount', 'Double'],
            ['Rent', 1200, ''],
            ['Food', 300, ''],
            ['Travel', 150, ''],
          ],
        },
        { title: 'Other', values: [] },
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

/** Reads the emulator directly, as the signed-in person. */
async function google(path: string): Promise<Record<string, unknown>> {
  const token = await stack.googleAccessToken(userId);
  const response = await fetch(`${stack.emulatorUrl}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return (await response.json()) as Record<string, unknown>;
}

async function call(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return {
    structured: result.structuredContent as Record<string, unknown>,
    text: (result.content[0] as { text: string }).text,
  };
}

/** The error a call is answered with: a tool error's text, or a protocol error's message. */
async function refusal(name: string, args: Record<string, unknown>): Promise<string> {
  try {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBe(true);
    return (result.content[0] as { text: string }).text;
  } catch (error) {
    return (error as Error).message;
  }
}

async function formulas(spreadsheetId: string, range: string) {
  const { structured } = await call('read_range', { spreadsheetId, range, valueRenderOption: 'FORMULA' });
  return structured.values as unknown[][];
}

async function batchUpdates(): Promise<number> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return stats.methods['sheets.spreadsheets.batchUpdate']?.attempts ?? 0;
}

/** Runs `body` and says it sent Google no batchUpdate. */
async function withoutWrites(body: () => Promise<void>) {
  const before = await batchUpdates();
  await body();
  expect(await batchUpdates()).toBe(before);
}

describe('copy_range', () => {
  it('copies formulas shifted and repeated, values only, and cuts', async () => {
    const { spreadsheetId } = await freshBook();
    await call('write_range', { spreadsheetId, range: 'Data!C2', values: [['=B2*2']] });
    const copied = await call('copy_range', { spreadsheetId, source: 'Data!C2', destination: 'Data!C3:C4' });
    expect(copied.structured).toMatchObject({ destination: 'Data!C3:C4', cells: 2, mode: 'copy' });
    expect(await formulas(spreadsheetId, 'Data!C2:C4')).toEqual([['=B2*2'], ['=B3*2'], ['=B4*2']]);

    await call('copy_range', {
      spreadsheetId,
      source: 'Data!C2:C4',
      destination: 'Other!A1',
      paste: 'values',
    });
    expect(await formulas(spreadsheetId, 'Other!A1:A3')).toEqual([[2400], [600], [300]]);

    const cut = await call('copy_range', {
      spreadsheetId,
      source: 'Data!A4:B4',
      destination: 'Other!D1',
      mode: 'cut',
    });
    expect(cut.structured.destination).toBe('Other!D1:E1');
    expect(await formulas(spreadsheetId, 'Other!D1:E1')).toEqual([['Travel', 150]]);
    expect(await formulas(spreadsheetId, 'Data!A4:C4')).toEqual([['', '', '=B4*2']]);
  });

  it('a dry run says what it would overwrite and writes nothing', async () => {
    const { spreadsheetId } = await freshBook();
    await withoutWrites(async () => {
      const dry = await call('copy_range', {
        spreadsheetId,
        source: 'Data!A1:B2',
        destination: 'Other!A1',
        dryRun: true,
      });
      expect(dry.structured).toMatchObject({ dryRun: true, destination: 'Other!A1:B2', cells: 4 });
      expect(dry.text).toMatch(/^Dry run: would copy/);
    });
    expect(await formulas(spreadsheetId, 'Other!A1:B2')).toEqual([]);
  });

  it("pastes at a tab's top-left when given the tab alone, matching its name ignoring case", async () => {
    const { spreadsheetId } = await freshBook();
    const copied = await call('copy_range', { spreadsheetId, source: 'data!A1:B1', destination: 'OTHER' });
    expect(copied.structured).toMatchObject({ source: 'Data!A1:B1', destination: 'Other!A1:B1', cells: 2 });
    expect(await formulas(spreadsheetId, 'Other!A1:B2')).toEqual([['Item', 'Amount']]);
  });

  it('refuses a cut to a range of another size, an unknown tab, and a paste past the grid', async () => {
    const { spreadsheetId } = await freshBook();
    expect(
      await refusal('copy_range', {
        spreadsheetId,
        source: 'Data!A1:B2',
        destination: 'Other!A1:C3',
        mode: 'cut',
      }),
    ).toMatch(/a cut moves Data!A1:B2 \(2 rows × 2 columns\) as it is/);
    expect(
      await refusal('copy_range', { spreadsheetId, source: 'Nope!A1', destination: 'Other!A1' }),
    ).toMatch(/names no tab of this spreadsheet \("Nope"\)/);
    expect(
      await refusal('copy_range', { spreadsheetId, source: 'Data!A1:B2', destination: 'Other!Z1' }),
    ).toMatch(/reaches past the tab "Other", which has 1,000 rows × 26 columns/);
    expect(
      await refusal('copy_range', { spreadsheetId, source: 'Data!B2:A1', destination: 'Other!A1' }),
    ).toMatch(/holds no cells/);
    expect(await refusal('copy_range', { spreadsheetId, source: 'Data!A1', destination: 42 })).toMatch(
      /destination/,
    );
  });
});

describe('autofill', () => {
  it('continues a series and a formula down, and refuses to fill off the grid', async () => {
    const { spreadsheetId } = await freshBook();
    await call('write_range', {
      spreadsheetId,
      range: 'Other!A1:B2',
      values: [
        [1, '=A1*10'],
        [2, '=A2*10'],
      ],
    });
    const filled = await call('autofill', {
      spreadsheetId,
      source: 'Other!A1:B2',
      direction: 'down',
      count: 2,
    });
    expect(filled.structured).toMatchObject({ filled: 'Other!A3:B4', cells: 4 });
    expect(await formulas(spreadsheetId, 'Other!A3:B4')).toEqual([
      [3, '=A3*10'],
      [4, '=A4*10'],
    ]);
    await withoutWrites(async () => {
      const dry = await call('autofill', {
        spreadsheetId,
        source: 'Other!A1:A2',
        direction: 'right',
        count: 3,
        dryRun: true,
      });
      expect(dry.structured).toMatchObject({ dryRun: true, filled: 'Other!B1:D2' });
    });
    expect(
      await refusal('autofill', { spreadsheetId, source: 'Other!A1:A2', direction: 'up', count: 1 }),
    ).toMatch(/before the first row or column/);
    expect(await refusal('autofill', { spreadsheetId, source: 'Other!A1', count: 'three' })).toMatch(/count/);
  });
});

describe('sort_range', () => {
  it('sorts below a header, descending, and refuses a column outside the range', async () => {
    const { spreadsheetId } = await freshBook();
    await call('write_range', {
      spreadsheetId,
      range: 'Data!C2:C4',
      values: [['=B2*2'], ['=B3*2'], ['=B4*2']],
    });
    await withoutWrites(async () => {
      const dry = await call('sort_range', {
        spreadsheetId,
        range: 'Data!A1:C4',
        sortBy: [{ column: 'B' }],
        headerRow: true,
        dryRun: true,
      });
      expect(dry.structured).toMatchObject({ dryRun: true, range: 'Data!A2:C4', rows: 3 });
    });
    const sorted = await call('sort_range', {
      spreadsheetId,
      range: 'Data!A1:C4',
      sortBy: [{ column: 'b', order: 'ascending' }],
      headerRow: true,
    });
    expect(sorted.structured).toMatchObject({ range: 'Data!A2:C4', sortBy: 'B ascending' });
    expect(await formulas(spreadsheetId, 'Data!A1:C4')).toEqual([
      ['Item', 'Amount', 'Double'],
      ['Travel', 150, '=B2*2'],
      ['Food', 300, '=B3*2'],
      ['Rent', 1200, '=B4*2'],
    ]);
    expect(
      await refusal('sort_range', { spreadsheetId, range: 'Data!A1:B4', sortBy: [{ column: 'D' }] }),
    ).toMatch(/column D is not inside Data!A1:B4/);
    expect(await refusal('sort_range', { spreadsheetId, range: 'Data!A1:B4', sortBy: [] })).toMatch(/sortBy/);
  });
});

describe('find_replace', () => {
  it('replaces in a range, a tab, or everywhere, with Google counts', async () => {
    const { spreadsheetId } = await freshBook();
    await call('write_range', { spreadsheetId, range: 'Other!A1:A2', values: [['Rent due'], ['rent']] });
    const inRange = await call('find_replace', {
      spreadsheetId,
      find: 'Rent',
      replacement: 'Lease',
      range: 'Data!A1:A4',
    });
    expect(inRange.structured).toMatchObject({
      scope: 'Data!A1:A4',
      occurrencesChanged: 1,
      valuesChanged: 1,
    });
    await withoutWrites(async () => {
      const dry = await call('find_replace', { spreadsheetId, find: 'rent', replacement: 'x', dryRun: true });
      expect(dry.structured).toMatchObject({ dryRun: true, scope: 'every tab', occurrencesChanged: null });
    });
    const exact = await call('find_replace', {
      spreadsheetId,
      find: 'rent',
      replacement: 'hire',
      range: 'Other',
      matchCase: true,
      matchEntireCell: true,
    });
    expect(exact.structured).toMatchObject({
      scope: 'the tab "Other"',
      occurrencesChanged: 1,
      rowsChanged: 1,
    });
    const everywhere = await call('find_replace', {
      spreadsheetId,
      find: '^(\\w+) due$',
      replacement: '$1 paid',
      searchByRegex: true,
    });
    expect(everywhere.structured).toMatchObject({
      scope: 'every tab',
      occurrencesChanged: 1,
      sheetsChanged: 1,
    });
    expect(await formulas(spreadsheetId, 'Other!A1:A2')).toEqual([['Rent paid'], ['hire']]);
    expect(await formulas(spreadsheetId, 'Data!A2')).toEqual([['Lease']]);
    expect(await refusal('find_replace', { spreadsheetId, find: '(', searchByRegex: true })).toMatch(
      /find is not a regular expression/,
    );
    expect(await refusal('find_replace', { spreadsheetId, find: 'x', range: 'Nope!A1' })).toMatch(
      /names no tab/,
    );
  });
});

describe('merge_cells and unmerge_cells', () => {
  it('merges, refuses an overlapping merge and a single cell, and unmerges', async () => {
    const { spreadsheetId } = await freshBook();
    await withoutWrites(async () => {
      const dry = await call('merge_cells', { spreadsheetId, range: 'Other!A1:B2', dryRun: true });
      expect(dry.structured).toMatchObject({ dryRun: true, merges: 1 });
    });
    await call('merge_cells', { spreadsheetId, range: 'Other!A1:B2' });
    await call('merge_cells', { spreadsheetId, range: 'Other!D1:E3', mergeType: 'rows' });
    const merged = await google(`/v4/spreadsheets/${spreadsheetId}?fields=sheets(properties.title,merges)`);
    const other = (merged.sheets as Array<{ properties: { title: string }; merges?: unknown[] }>).find(
      (sheet) => sheet.properties.title === 'Other',
    );
    expect(other?.merges).toHaveLength(4);
    expect(await refusal('merge_cells', { spreadsheetId, range: 'Other!B2:C3' })).toMatch(
      /overlaps the merged cells Other!A1:B2 without covering them/,
    );
    expect(await refusal('merge_cells', { spreadsheetId, range: 'Other!H1' })).toMatch(/at least two/);
    const unmerged = await call('unmerge_cells', { spreadsheetId, range: 'Other!A1:D1' });
    expect(unmerged.structured.unmerged).toEqual(['Other!A1:B2', 'Other!D1:E1']);
    await withoutWrites(async () => {
      const none = await call('unmerge_cells', { spreadsheetId, range: 'Other!A1' });
      expect(none.structured.unmerged).toEqual([]);
    });
  });

  it("passes Google's refusal of an overlapping merge on as a tool error", async () => {
    const { spreadsheetId, otherId } = await freshBook();
    const area = (rows: [number, number], columns: [number, number]) => ({
      sheetId: otherId,
      startRowIndex: rows[0],
      endRowIndex: rows[1],
      startColumnIndex: columns[0],
      endColumnIndex: columns[1],
    });
    const text = await refusal('batch_update', {
      spreadsheetId,
      requests: [
        { mergeCells: { range: area([0, 2], [0, 2]), mergeType: 'MERGE_ALL' } },
        { mergeCells: { range: area([1, 3], [1, 3]), mergeType: 'MERGE_ALL' } },
      ],
    });
    expect(text).toMatch(/You can't merge/);
  });
});

describe('freeze and set_dimension_properties', () => {
  it('freezes rows and columns, sizes, fits and hides them', async () => {
    const { spreadsheetId, dataId } = await freshBook();
    await withoutWrites(async () => {
      const dry = await call('freeze', { spreadsheetId, sheetId: dataId, rows: 1, dryRun: true });
      expect(dry.structured).toMatchObject({ dryRun: true, frozenRows: 1, frozenColumns: null });
    });
    await call('freeze', { spreadsheetId, sheetId: dataId, rows: 1, columns: 1 });
    const frozen = await google(
      `/v4/spreadsheets/${spreadsheetId}?fields=sheets.properties(sheetId,gridProperties)`,
    );
    const data = (
      frozen.sheets as Array<{ properties: { sheetId: number; gridProperties: Record<string, number> } }>
    ).find((sheet) => sheet.properties.sheetId === dataId);
    expect(data?.properties.gridProperties).toMatchObject({ frozenRowCount: 1, frozenColumnCount: 1 });

    await call('set_dimension_properties', {
      spreadsheetId,
      sheetId: dataId,
      dimension: 'ROWS',
      startIndex: 0,
      endIndex: 2,
      pixelSize: 40,
    });
    await call('set_dimension_properties', {
      spreadsheetId,
      sheetId: dataId,
      dimension: 'COLUMNS',
      startIndex: 1,
      endIndex: 2,
      hidden: true,
    });
    const sized = await google(
      `/v4/spreadsheets/${spreadsheetId}?ranges=Data!A1:C3&fields=sheets.data(rowMetadata,columnMetadata)`,
    );
    const grid = (sized.sheets as Array<{ data: Array<Record<string, Array<Record<string, unknown>>>> }>)[0]!
      .data[0]!;
    expect(grid.rowMetadata!.map((row) => row.pixelSize)).toEqual([40, 40, 21]);
    expect(grid.columnMetadata![1]).toEqual({ hiddenByUser: true, pixelSize: 100 });

    await call('merge_cells', { spreadsheetId, range: 'Data!E2:E4' });
    expect(await refusal('freeze', { spreadsheetId, sheetId: dataId, rows: 2 })).toMatch(
      /would cut through the merged cells Data!E2:E4/,
    );
    expect(await refusal('freeze', { spreadsheetId, sheetId: dataId })).toMatch(/name rows, columns or both/);
    expect(await refusal('freeze', { spreadsheetId, sheetId: dataId, rows: 1000 })).toMatch(
      /must stay unfrozen/,
    );
    expect(await refusal('freeze', { spreadsheetId, sheetId: 987654, rows: 1 })).toMatch(
      /no tab with sheetId 987654/,
    );
    expect(
      await refusal('set_dimension_properties', {
        spreadsheetId,
        sheetId: dataId,
        dimension: 'COLUMNS',
        startIndex: 20,
        endIndex: 30,
        pixelSize: 50,
      }),
    ).toMatch(/endIndex 30 is past the tab "Data", which has 26 columns/);
    expect(
      await refusal('set_dimension_properties', {
        spreadsheetId,
        sheetId: dataId,
        dimension: 'COLUMNS',
        startIndex: 0,
        endIndex: 1,
        pixelSize: 50,
        fitToData: true,
      }),
    ).toMatch(/not both/);
  });
});

describe('copy_sheet_to', () => {
  it('copies a tab into another spreadsheet; a dry run copies nothing; bad ids are tool errors', async () => {
    const { spreadsheetId, dataId } = await freshBook();
    const target = await freshBook();
    const copies = async () => {
      const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
        methods: Record<string, { attempts: number }>;
      };
      return stats.methods['sheets.spreadsheets.sheets.copyTo']?.attempts ?? 0;
    };
    const before = await copies();
    const dry = await call('copy_sheet_to', {
      spreadsheetId,
      sheetId: dataId,
      destinationSpreadsheetId: target.spreadsheetId,
      dryRun: true,
    });
    expect(dry.structured).toMatchObject({ dryRun: true, sheetId: null });
    expect(dry.text).toBe('Dry run: would copy the tab "Data" to the end of "Editing". Nothing was changed.');
    expect(await copies()).toBe(before);
    const copied = await call('copy_sheet_to', {
      spreadsheetId,
      sheetId: dataId,
      destinationSpreadsheetId: target.spreadsheetId,
    });
    expect(copied.structured).toMatchObject({
      title: 'Copy of Data',
      destinationSpreadsheetId: target.spreadsheetId,
    });
    expect(await formulas(target.spreadsheetId, "'Copy of Data'!A1:B2")).toEqual([
      ['Item', 'Amount'],
      ['Rent', 1200],
    ]);
    expect(
      await refusal('copy_sheet_to', {
        spreadsheetId,
        sheetId: 4242,
        destinationSpreadsheetId: target.spreadsheetId,
      }),
    ).toMatch(/4242/);
    expect(
      await refusal('copy_sheet_to', {
        spreadsheetId,
        sheetId: dataId,
        destinationSpreadsheetId: 'no-such-spreadsheet',
      }),
    ).toMatch(/not found|no such|cannot/i);
    expect(
      await refusal('copy_sheet_to', { spreadsheetId, sheetId: -1, destinationSpreadsheetId: spreadsheetId }),
    ).toMatch(/sheetId/);
  });
});
