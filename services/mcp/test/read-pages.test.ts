import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// read_range and read_ranges ask Google for a page's rows, not the whole range (a page of a long
// tab costs what a page of a short one costs): through the MCP SDK client, real mcp and auth
// processes and the Google emulator. The `range` Google answers with is the range that was asked,
// so it shows what was fetched; the emulator's stats count the calls.

const ROWS = 5_000;
let stack: McpUnderTest;
let client: Client;
let spreadsheetId: string;

interface ValueRange {
  range: string;
  values: unknown[][];
  totalRows: number | null;
  offset: number;
  returnedRows: number;
  nextOffset: number | null;
}

async function valuesGets(): Promise<number> {
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return stats.methods['sheets.spreadsheets.values.get']?.attempts ?? 0;
}

async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: { spreadsheetId, ...args } });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  return { structured: result.structuredContent as Record<string, unknown>, text };
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const email = 'alice@example.com';
  const { userId } = await stack.signIn(email);
  [spreadsheetId] = (await stack.seed(email, [
    {
      name: 'Long',
      sheets: [
        {
          title: 'Big tab',
          values: Array.from({ length: ROWS }, (_, row) => [`r${row + 1}`, `${row + 1}`]),
        },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'read-pages-test');
});
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('read_range fetches only the page it returns', () => {
  it('the first page of a long tab: a window of rows, and where the next data is', async () => {
    const before = await valuesGets();
    const { structured, text } = await call('read_range', { range: 'Big tab', limit: 20 });
    const page = structured as unknown as ValueRange;
    expect(await valuesGets()).toBe(before + 1);
    // The page's rows and one more, which holds data: the read itself says more follows.
    expect(page.range).toBe("'Big tab'!A1:Z21");
    expect(page.values).toHaveLength(20);
    expect(page.values[19]).toEqual(['r20', '20']);
    expect(page.totalRows).toBeNull();
    expect(page.nextOffset).toBe(20);
    expect(text).toContain('more data from row 21; call read_range with range="Big tab" and offset=20.');
  });

  it('a page deep in the tab asks for its own rows, and the last page knows the total', async () => {
    const deep = (await call('read_range', { range: 'Big tab!A:B', offset: 3_000, limit: 50 }))
      .structured as unknown as ValueRange;
    expect(deep.range).toBe("'Big tab'!A3001:B3051");
    expect(deep.values[0]).toEqual(['r3001', '3001']);
    expect(deep.nextOffset).toBe(3_050);

    const last = (await call('read_range', { range: 'Big tab!A:B', offset: 4_990, limit: 50 }))
      .structured as unknown as ValueRange;
    expect(last.values).toEqual(
      Array.from({ length: 10 }, (_, index) => [`r${4991 + index}`, `${4991 + index}`]),
    );
    expect(last.nextOffset).toBeNull();
    expect(last.totalRows).toBe(ROWS);
  });

  it('an offset below the tab’s last row is an empty last page, not an error', async () => {
    const past = (await call('read_range', { range: 'Big tab', offset: 20_000, limit: 10 }))
      .structured as unknown as ValueRange;
    expect(past.values).toEqual([]);
    expect(past.nextOffset).toBeNull();
  });

  it('a bounded range pages within its bounds', async () => {
    const first = (await call('read_range', { range: 'Big tab!B10:B30', offset: 5, limit: 5 }))
      .structured as unknown as ValueRange;
    expect(first.range).toBe("'Big tab'!B15:B30");
    expect(first.values).toEqual([['15'], ['16'], ['17'], ['18'], ['19']]);
    expect(first.totalRows).toBe(21);
    expect(first.nextOffset).toBe(10);
    const past = (await call('read_range', { range: 'Big tab!B10:B30', offset: 21 }))
      .structured as unknown as ValueRange;
    expect(past.values).toEqual([]);
    expect(past.nextOffset).toBeNull();
  });

  it('read_ranges reads each range’s first page only', async () => {
    const { structured } = await call('read_ranges', {
      ranges: ['Big tab', 'Big tab!A4999:B5000'],
      limitPerRange: 3,
    });
    const [whole, tail] = (structured as { valueRanges: ValueRange[] }).valueRanges;
    expect(whole!.range).toBe("'Big tab'!A1:Z4");
    expect(whole!.values).toHaveLength(3);
    expect(whole!.totalRows).toBeNull();
    expect(whole!.nextOffset).toBe(3);
    expect(tail!.values).toEqual([
      ['r4999', '4999'],
      ['r5000', '5000'],
    ]);
    expect(tail!.totalRows).toBe(2);
    expect(tail!.nextOffset).toBeNull();
  });

  it('a bare name that is no tab is asked again whole (a named range has no row window)', async () => {
    const before = await valuesGets();
    const result = await client.callTool({
      name: 'read_range',
      arguments: { spreadsheetId, range: 'Totals_2026' },
    });
    expect(result.isError).toBe(true);
    // Google's "Unable to parse range", said with the tabs there are (kit/range-refusals.ts).
    expect((result.content as Array<{ text: string }>)[0]!.text).toContain(
      'there is no tab or named range named "Totals_2026" (in the range "Totals_2026"); the tabs are "Big tab"',
    );
    expect(await valuesGets()).toBe(before + 2);
  });
});
