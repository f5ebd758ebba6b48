import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// Property-based, through the real tools against the Google emulator: tabs named with any
// characters a person may type are written and read back by ranges quoted as A1 quotes them; and
// any text given as a range ends in a result or a clear tool error — never a crash or a 5xx.

let stack: McpUnderTest;
let token: string;
let userId: string;
let spreadsheetId: string;

beforeAll(async () => {
  // Both services log all they would ever log, so a credential that leaks into a log shows.
  stack = await startMcpUnderTest({ LOG_LEVEL: 'trace' }, { LOG_LEVEL: 'trace' });
  ({ userId } = await stack.signIn('alice@example.com'));
  token = await stack.sign({ sub: userId });
  const created = await callTool('create_spreadsheet', { title: 'Ranges' });
  spreadsheetId = created.structuredContent.spreadsheetId as string;
});
afterAll(async () => {
  await stack?.stop();
});

let id = 0;
async function callTool(name: string, args: Record<string, unknown>) {
  const response = await fetch(stack.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name, arguments: args },
    }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const reply = JSON.parse(text);
  expect(reply.result, text).toBeDefined();
  return reply.result as {
    isError?: boolean;
    content: Array<{ text: string }>;
    structuredContent: Record<string, unknown>;
  };
}

/** A1 quoting as a client writes it: the name in single quotes, a quote inside it doubled. */
const quoted = (title: string) => `'${title.replaceAll("'", "''")}'`;

const tabName = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
    // Mostly the characters A1 notation gives meaning to: quotes, `!`, `:`, `$`, spaces, digits.
    fc.string({
      unit: fc.constantFrom("'", '!', ':', '$', ' ', 'A', 'b', '1', '_', 'é', '表', '😀', '"'),
      minLength: 1,
      maxLength: 20,
    }),
  )
  .filter((name) => name.trim() !== '' && name.trim().toLowerCase() !== 'sheet1');

describe('ranges through the tools (property-based)', () => {
  it('a tab of any name is written and read back through quoted ranges', async () => {
    await fc.assert(
      fc.asyncProperty(tabName, fc.string({ minLength: 1, maxLength: 12 }), async (title, value) => {
        const added = await callTool('add_sheet', { spreadsheetId, title });
        expect(added.isError, added.content[0]?.text).toBeFalsy();
        try {
          expect(added.structuredContent.title).toBe(title);
          const marker = `v:${value}`;
          const written = await callTool('write_range', {
            spreadsheetId,
            range: `${quoted(title)}!B2`,
            values: [[marker]],
          });
          expect(written.isError, written.content[0]?.text).toBeFalsy();
          const cell = await callTool('read_range', { spreadsheetId, range: `${quoted(title)}!B2` });
          expect(cell.structuredContent.values).toEqual([[marker]]);
          // The whole tab, named alone.
          const tab = await callTool('read_range', { spreadsheetId, range: quoted(title) });
          expect(tab.isError, tab.content[0]?.text).toBeFalsy();
          expect(tab.structuredContent.values).toEqual([[], ['', marker]]);
        } finally {
          await callTool('delete_sheet', { spreadsheetId, sheetId: added.structuredContent.sheetId });
        }
      }),
      { numRuns: 30 },
    );
  }, 120_000);

  // The spreadsheet has one tab, Sheet1, here (the test above deletes each tab it adds): a range a
  // tool accepts is on it, and each tool's result names the range it acted on, as Google does.
  const TOOLS = ['read_range', 'write_range', 'clear_range'] as const;
  type RangeTool = (typeof TOOLS)[number];
  const callWith = (tool: RangeTool, range: string) =>
    callTool(tool, { spreadsheetId, range, ...(tool === 'write_range' ? { values: [['x']] } : {}) });
  const actedOn = (tool: RangeTool, result: Awaited<ReturnType<typeof callTool>>) =>
    result.structuredContent[
      tool === 'read_range' ? 'range' : tool === 'write_range' ? 'updatedRange' : 'clearedRange'
    ];
  /** A tool error the model can read; the generic answer to an exception the tool did not expect is a bug. */
  const expectClearError = (result: Awaited<ReturnType<typeof callTool>>) => {
    const text = result.content.map((part) => part.text).join(' ');
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toMatch(/failed unexpectedly/);
  };

  it('ranges with a known answer: refused with a clear error, or acted on where they say', async () => {
    const refused = [
      '',
      '!',
      '!!A1',
      "'",
      "'unterminated!A1",
      "''!A1",
      'Sheet1!A0',
      'Sheet1!ZZZZ1',
      'Sheet1!A99999999',
      'A1:B2:C3',
      'No such tab!A1',
      "'No such tab'!A1:B2",
    ];
    for (const tool of TOOLS) {
      for (const range of refused) {
        const result = await callWith(tool, range);
        expect(
          result.isError,
          `${tool} ${JSON.stringify(range)}: ${JSON.stringify(result.structuredContent)}`,
        ).toBe(true);
        expectClearError(result);
      }
      const accepted: Array<[string, RegExp]> = [
        ['Sheet1!$A$1:$B$2', /^Sheet1!A1(:B2)?$/],
        ["'Sheet1'!B3", /^Sheet1!B3$/],
        ['A1:B2', /^Sheet1!A1(:B2)?$/],
        ['Sheet1!A1:B', /^Sheet1!A1(:B\d+)?$/],
      ];
      for (const [range, where] of accepted) {
        const result = await callWith(tool, range);
        expect(result.isError, `${tool} ${range}: ${result.content[0]?.text}`).toBeFalsy();
        expect(actedOn(tool, result), `${tool} ${range}`).toMatch(where);
      }
    }
  }, 120_000);

  it('any text as a range: a result on the tab it names or a clear tool error, never a crash', async () => {
    const rangeText = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc
        .tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }))
        .map(([tab, cells]) => `${quoted(tab)}!${cells}`),
      fc.string({ maxLength: 8 }).map((cells) => `Sheet1!${cells}`),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TOOLS), rangeText, async (tool, range) => {
        const result = await callWith(tool, range);
        if (result.isError) expectClearError(result);
        // Sheet1 is the only tab: whatever was read, written or cleared is there.
        else expect(actedOn(tool, result), `${tool} ${JSON.stringify(range)}`).toMatch(/^Sheet1!/);
      }),
      { numRuns: 120 },
    );
    // Still the same healthy process.
    expect(stack.mcp.process.exitCode).toBeNull();
    const ok = await callTool('read_range', { spreadsheetId, range: 'Sheet1!A1' });
    expect(ok.isError).toBeFalsy();
  }, 120_000);

  it('logged no credential on the way', async () => {
    const googleToken = await stack.googleAccessToken(userId);
    const logs = [...stack.mcp.output, ...stack.auth.output].join('\n');
    expect(logs).toContain('/api/mcp');
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(token.split('.')[2]);
    expect(googleToken).toEqual(expect.any(String));
    expect(logs).not.toContain(googleToken);
  });
});
