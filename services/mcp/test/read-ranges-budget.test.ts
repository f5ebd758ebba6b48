import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// read_ranges shares one page budget across its ranges, through the MCP SDK client, real mcp and
// auth processes and the Google emulator: ranges after the budget is spent return no rows, only
// the read_range call that fetches them.

let stack: McpUnderTest;
let client: Client;
let spreadsheetId: string;
const long = 'L'.repeat(20_000);

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const email = 'alice@example.com';
  const { userId } = await stack.signIn(email);
  const seeded = await fetch(`${stack.emulatorUrl}/__emulator/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email,
      files: [{ name: 'Long rows', values: Array.from({ length: 50 }, (_, row) => [`${row}:${long}`]) }],
    }),
  });
  spreadsheetId = ((await seeded.json()) as { files: Array<{ id: string }> }).files[0]!.id;
  client = new Client({ name: 'read-ranges-budget-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(stack.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${await stack.sign({ sub: userId })}` } },
    }),
  );
});
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('read_ranges page budget', () => {
  it('returns rows of 50 ranges only while the shared budget lasts, and names read_range for the rest', async () => {
    const ranges = Array.from({ length: 50 }, (_, row) => `Sheet1!A${row + 1}`);
    const result = await client.callTool({ name: 'read_ranges', arguments: { spreadsheetId, ranges } });
    expect(result.isError).toBeFalsy();
    const { valueRanges } = result.structuredContent as {
      valueRanges: Array<{ range: string; returnedRows: number; nextOffset: number | null }>;
    };
    expect(valueRanges).toHaveLength(50);
    const returned = valueRanges.map((each) => each.returnedRows);
    // 60,000 characters: two 20,000-character rows fit, a third goes over the rest of the budget.
    expect(returned.slice(0, 3)).toEqual([1, 1, 1]);
    expect(returned.slice(3)).toEqual(Array(47).fill(0));
    expect(valueRanges[3]).toMatchObject({ range: 'Sheet1!A4', nextOffset: 0 });
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text.length).toBeLessThan(100_000);
    expect(text).toContain(
      'Sheet1!A50\n(not returned: this call reached its size budget)\n… the page stopped at the answer\'s size budget; call read_range with range="Sheet1!A50" and offset=0.',
    );
  });
});
