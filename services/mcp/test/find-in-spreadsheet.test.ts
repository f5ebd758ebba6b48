import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// find_in_spreadsheet over a workbook of many tabs, through the MCP SDK client, real mcp and auth
// processes and the Google emulator, whose stats count the calls that reached "Google": the search
// must pack several tabs into each values.batchGet rather than spend a call (and a unit of the
// person's per-minute read quota) per tab.

/** The emulator's grid for a seeded tab (Google's default for a new sheet): 1000 × 26. */
const CELLS_PER_TAB = 1_000 * 26;
/** find_in_spreadsheet's cells per Google call and in all (src/tools/read-tools.ts). */
const CELLS_PER_CALL = 100_000;
const CELLS_IN_ALL = 500_000;

let stack: McpUnderTest;
let client: Client;
let email: string;

interface Found {
  matches: Array<{ range: string; value: string }>;
  truncated: boolean;
  stoppedAt: string | null;
  scannedCells: number;
}

/** A workbook of `count` tabs, each holding `values(index)`. */
async function seedWorkbook(
  count: number,
  title: (index: number) => string,
  values: (index: number) => string[][],
) {
  const [id] = await stack.seed(email, [
    {
      name: `Workbook of ${count}`,
      sheets: Array.from({ length: count }, (_, index) => ({
        title: title(index),
        values: values(index),
      })),
    },
  ]);
  return id!;
}

interface MethodStats {
  attempts: number;
}
async function googleCalls(): Promise<{ all: number; methods: Record<string, MethodStats> }> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, MethodStats>;
    allMethods: MethodStats;
  };
  return { all: stats.allMethods.attempts, methods: stats.methods };
}

async function find(args: Record<string, unknown>): Promise<Found> {
  await fetch(`${stack.emulatorUrl}/__emulator/stats`, { method: 'DELETE' });
  const result = await client.callTool({ name: 'find_in_spreadsheet', arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as unknown as Found;
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  email = 'alice@example.com';
  const { userId } = await stack.signIn(email);
  client = await stack.connectClient(userId, 'find-in-spreadsheet-test');
});
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('find_in_spreadsheet across many tabs', () => {
  it('finds matches on later tabs in a few Google calls, several tabs per values.batchGet', async () => {
    const tabs = 12;
    const spreadsheetId = await seedWorkbook(
      tabs,
      (index) => (index === 10 ? "Q's notes" : `Tab ${index + 1}`),
      (index) =>
        Array.from({ length: 40 }, (_, row) => [
          `row ${row}`,
          index % 5 === 0 && row === 30 ? `needle on tab ${index + 1}` : 'hay',
        ]),
    );
    const found = await find({ spreadsheetId, query: 'NEEDLE' });

    expect(found.matches.map((match) => match.range)).toEqual([
      "'Tab 1'!B31",
      "'Tab 6'!B31",
      "'Q''s notes'!B31",
    ]);
    expect(found.matches.at(-1)!.value).toBe('needle on tab 11');
    expect(found).toMatchObject({ truncated: false, stoppedAt: null, scannedCells: tabs * CELLS_PER_TAB });
    // One spreadsheets.get for the tabs, then calls of ≤ 100,000 cells each: 4 here, where a call
    // per tab made 12.
    const calls = await googleCalls();
    expect(calls.methods['sheets.spreadsheets.get']?.attempts).toBe(1);
    expect(calls.methods['sheets.spreadsheets.values.get']).toBeUndefined();
    expect(calls.all).toBe(1 + Math.ceil((tabs * CELLS_PER_TAB) / CELLS_PER_CALL));
    expect(calls.all).toBeLessThan(1 + tabs);
  });

  it('stops a 40-tab search at the cell budget, in bounded calls, and names the first cell it did not read', async () => {
    const tabs = 40;
    const spreadsheetId = await seedWorkbook(
      tabs,
      (index) => `Tab ${index + 1}`,
      (index) => [[`needle ${index + 1}`]],
    );
    const found = await find({ spreadsheetId, query: 'needle', maxResults: 100 });

    // Each call takes whole 26-cell rows, and the search stops before a row past 500,000 cells:
    // 19 whole tabs (494,000 cells) and the first rows of the 20th.
    expect(found.scannedCells).toBeLessThanOrEqual(CELLS_IN_ALL);
    expect(found.scannedCells).toBeGreaterThan(CELLS_IN_ALL - 26);
    const wholeTabs = Math.floor(found.scannedCells / CELLS_PER_TAB);
    expect(wholeTabs).toBe(19);
    const rowsOfNext = (found.scannedCells - wholeTabs * CELLS_PER_TAB) / 26;
    expect(found.matches.map((match) => match.value)).toEqual(
      Array.from({ length: wholeTabs + 1 }, (_, index) => `needle ${index + 1}`),
    );
    expect(found).toMatchObject({ truncated: true, stoppedAt: `'Tab 20'!A${rowsOfNext + 1}` });
    // One spreadsheets.get and five batchGets, where a call per tab made 21.
    expect((await googleCalls()).all).toBeLessThanOrEqual(1 + CELLS_IN_ALL / CELLS_PER_CALL);
  });

  it('stops at maxResults without reading the tabs after the last match it needed', async () => {
    const tabs = 12;
    const spreadsheetId = await seedWorkbook(
      tabs,
      (index) => `Tab ${index + 1}`,
      (index) => [[`needle ${index + 1}`]],
    );
    const found = await find({ spreadsheetId, query: 'needle', maxResults: 3 });
    expect(found.matches.map((match) => match.range)).toEqual(["'Tab 1'!A1", "'Tab 2'!A1", "'Tab 3'!A1"]);
    // The one batchGet read tabs 1 to 3 and the top of tab 4, whose match is where the search
    // stopped; nothing after it was fetched.
    expect(found).toMatchObject({ truncated: true, stoppedAt: "'Tab 4'!A1" });
    expect(found.scannedCells).toBeLessThanOrEqual(CELLS_PER_CALL);
    expect((await googleCalls()).all).toBe(2);
  });
});
