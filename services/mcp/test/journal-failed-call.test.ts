import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// A write tool journaled by the wrapper (kit/journal-writes.ts) that fails after Google accepted
// its batchUpdate: the change is in the person's spreadsheet, so it is journaled all the same and
// the error names it — through the MCP SDK client, real mcp and auth processes, PostgreSQL and the
// Google emulator. add_chart with newSheet reads the charts back after its batchUpdate (to say
// which tab Google made); that read is made to fail with an emulator fault. Faults answer the
// matching calls in the order they were added, and one with only `latencyMs: 0` lets a call
// through: so the reads before the write pass and the one after it fails, however many they are.

let stack: McpUnderTest;
let client: Client;
let spreadsheetId: string;

type Structured = Record<string, unknown>;

async function call(name: string, args: Structured) {
  const result = await client.callTool({ name, arguments: { spreadsheetId, ...args } });
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  return { isError: result.isError === true, text, structured: result.structuredContent as Structured };
}

async function ok(name: string, args: Structured) {
  const answer = await call(name, args);
  expect(answer.isError, answer.text).toBe(false);
  return answer;
}

async function googleCalls(method: string): Promise<number> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return stats.methods[method]?.attempts ?? 0;
}

const tabs = async () =>
  ((await ok('get_spreadsheet', {})).structured.sheets as Array<{ title: string }>).map((tab) => tab.title);
const charts = async () => (await ok('list_charts', {})).structured.charts as Structured[];

const newSheetChart = { type: 'pie', range: 'Sales!A1:B4', newSheet: true };

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const email = 'alice@example.com';
  const { userId } = await stack.signIn(email);
  [spreadsheetId] = (await stack.seed(email, [
    {
      name: 'Failing book',
      sheets: [
        {
          title: 'Sales',
          values: [
            ['Month', 'North'],
            ['Jan', 120],
            ['Feb', 135],
            ['Mar', 150],
          ],
        },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'journal failed call');
}, 120_000);

afterAll(async () => {
  await stack?.clearFaults();
  await client?.close();
  await stack?.stop();
});

describe('a call that fails after Google accepted its change', () => {
  it('is journaled, its error names the change, and undo_change takes it back', async () => {
    // How many spreadsheets.get one such call makes, its read-back last; then undone.
    const reads = await googleCalls('sheets.spreadsheets.get');
    const first = await ok('add_chart', newSheetChart);
    const getsPerCall = (await googleCalls('sheets.spreadsheets.get')) - reads;
    expect(getsPerCall).toBeGreaterThan(1);
    await ok('undo_change', { changeId: first.structured.changeId });
    const tabsBefore = await tabs();
    expect(await charts()).toEqual([]);

    await stack.fault({ match: 'sheets.spreadsheets.get', latencyMs: 0, count: getsPerCall - 1 });
    await stack.fault({ match: 'sheets.spreadsheets.get', status: 403, reason: 'forbidden' });
    const writes = await googleCalls('sheets.spreadsheets.batchUpdate');
    const failed = await call('add_chart', newSheetChart);
    await stack.clearFaults();
    expect(failed.isError, failed.text).toBe(true);
    // The write went through before the read-back failed: the chart and its tab are there.
    expect((await googleCalls('sheets.spreadsheets.batchUpdate')) - writes).toBe(1);
    expect(await charts()).toHaveLength(1);
    expect((await tabs()).length).toBe(tabsBefore.length + 1);

    const named =
      / Part of the change was made before that: change ([0-9a-f-]{36})\. undo_change can undo it\.$/.exec(
        failed.text,
      );
    expect(named, failed.text).not.toBeNull();
    expect(failed.text).toMatch(/^Google refused access to this file: .+\. Part of the change/);
    const changeId = named![1]!;
    const listed = (await ok('list_changes', { spreadsheetId })).structured.changes as Structured[];
    expect(listed[0]).toMatchObject({ changeId, tool: 'add_chart' });

    await ok('undo_change', { changeId });
    expect(await charts()).toEqual([]);
    expect(await tabs()).toEqual(tabsBefore);
  });

  it('a call that fails before any change is made is not journaled', async () => {
    const before = (await ok('list_changes', { spreadsheetId })).structured.changes as Structured[];
    await stack.fault({ match: 'sheets.spreadsheets.get', status: 403, reason: 'forbidden' });
    const failed = await call('add_chart', newSheetChart);
    await stack.clearFaults();
    expect(failed.isError).toBe(true);
    expect(failed.text).not.toContain('Part of the change');
    const after = (await ok('list_changes', { spreadsheetId })).structured.changes as Structured[];
    expect(after.map((change) => change.changeId)).toEqual(before.map((change) => change.changeId));
  });
});
