import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { callToolOk } from './support/tool-answers.ts';

// A range without a tab name is on the first *visible* tab, as Google's A1 notation says (issue
// 32): with an empty hidden tab first, clear_range of `A1:B2` must describe — and ask to confirm —
// the cells it clears on the first visible tab, not find nothing on the hidden one. The tools that
// size such a range, and the emulator answering them, resolve it alike.

let stack: McpUnderTest;
let client: Client;
let spreadsheetId: string;

const ok = (name: string, args: Record<string, unknown>) =>
  callToolOk(client, name, { spreadsheetId, ...args });

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const { userId } = await stack.signIn('alice@example.com');
  [spreadsheetId] = (await stack.seed('alice@example.com', [
    {
      name: 'Hidden first',
      sheets: [
        { title: 'Hidden', values: [] },
        {
          title: 'Visible',
          values: [
            ['a', 'b'],
            ['c', '=1+1'],
          ],
        },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'hidden-first-tab');
  const sheets = (await ok('get_spreadsheet', {})).structured.sheets as Array<{
    sheetId: number;
    title: string;
  }>;
  const hidden = sheets.find((sheet) => sheet.title === 'Hidden')!;
  await ok('batch_update', {
    requests: [
      { updateSheetProperties: { properties: { sheetId: hidden.sheetId, hidden: true }, fields: 'hidden' } },
    ],
  });
});
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('a range without a tab name, with a hidden first tab', () => {
  it('is read from the first visible tab (the emulator answers as Google)', async () => {
    const read = await ok('read_range', { range: 'A1:B2', valueRenderOption: 'FORMULA' });
    expect(read.structured.values).toEqual([
      ['a', 'b'],
      ['c', '=1+1'],
    ]);
  });

  it('is searched and named on the first visible tab', async () => {
    const found = await ok('find_in_spreadsheet', { query: 'c', range: 'A1:B2' });
    expect(found.structured.matches).toEqual([expect.objectContaining({ range: 'Visible!A2' })]);
    await ok('add_named_range', { name: 'Corner', range: 'A1:B2' });
    const named = (await ok('list_named_ranges', {})).structured.namedRanges as Array<
      Record<string, unknown>
    >;
    expect(named).toEqual([expect.objectContaining({ name: 'Corner', range: 'Visible!A1:B2' })]);
  });

  it('clear_range describes the first visible tab before it clears it, and clears only it', async () => {
    const dry = await ok('clear_range', { range: 'A1:B2', dryRun: true });
    expect(dry.structured.wouldLose).toBe(
      'Clears A1:B2 of the tab "Visible" of "Hidden first": 4 non-empty cells.',
    );
    expect((await ok('read_range', { range: 'Visible!A1:B2' })).structured.values).toHaveLength(2);

    await ok('clear_range', { range: 'A1:B2' });
    expect((await ok('read_range', { range: 'Visible!A1:B2' })).structured.values).toEqual([]);
  });
});
