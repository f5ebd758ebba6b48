import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { ToolDeps } from '../src/tools/kit/tool-deps.ts';
import { sheetgateTools } from '../src/tools/registry.ts';
import { oneCallOfEachTool } from './support/every-tool-call.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// Every read tool's answer has a bound, whatever the spreadsheet holds (docs/design.md §11.3): a
// book of 500 cells of 20,000 characters, each with a note of 50,000, long tab and range names,
// read by every tool the registry marks read-only with its page options at their largest. And
// find_in_spreadsheet, which answered whole cells (20 MB for this book), answers the text around
// each match and stops at an answer cap, saying where. Through the MCP SDK client against real mcp
// and auth processes and the Google emulator.

/** What any one answer may weigh, serialised: read_range's budget is 60,000 characters. */
const ANSWER_BOUND = 1_000_000;
const ROWS = 20;
const COLUMNS = 25;
const CELL_CHARACTERS = 20_000;
const NOTE_CHARACTERS = 50_000;
/** Not letters alone: `Big` is also column BIG in A1. */
const BIG = 'Big tab';
const LONG_TAB = `Tab ${'x'.repeat(95)}`;

const readTools = sheetgateTools({} as ToolDeps).filter((tool) => tool.annotations.readOnlyHint);

let stack: McpUnderTest;
let client: Client;
let userId: string;
let spreadsheetId: string;

/** A cell of CELL_CHARACTERS with "needle" in its middle, and its address in its text. */
function bigCell(row: number, column: number): string {
  const half = 'a'.repeat(CELL_CHARACTERS / 2 - 20);
  return `${half}needle ${row}:${column}${half}`.padEnd(CELL_CHARACTERS, 'z');
}

async function google(path: string, body: unknown): Promise<void> {
  const token = await stack.googleAccessToken(userId);
  const response = await fetch(`${stack.emulatorUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`the emulator refused ${path}: ${await response.text()}`);
}

async function call(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    result,
    size: JSON.stringify(result).length,
    text: (result.content[0] as { text: string }).text,
  };
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const email = 'alice@example.com';
  ({ userId } = await stack.signIn(email));
  const rows = Array.from({ length: ROWS }, (_, row) =>
    Array.from({ length: COLUMNS }, (_, column) => bigCell(row, column)),
  );
  [spreadsheetId] = (await stack.seed(email, [
    {
      name: 'Big',
      sheets: [
        { title: BIG, values: rows },
        { title: LONG_TAB, values: rows.slice(0, 4) },
      ],
    },
  ])) as [string];
  client = await stack.connectClient(userId, 'answer-bounds-test');
  const tabs = (await call('get_spreadsheet', { spreadsheetId })).result.structuredContent as {
    sheets: Array<{ sheetId: number; title: string }>;
  };
  const big = tabs.sheets.find((tab) => tab.title === 'Big tab')!.sheetId;
  const grid = {
    sheetId: big,
    startRowIndex: 0,
    endRowIndex: ROWS,
    startColumnIndex: 0,
    endColumnIndex: COLUMNS,
  };
  await google(`/v4/spreadsheets/${spreadsheetId}:batchUpdate`, {
    requests: [
      { repeatCell: { range: grid, cell: { note: 'n'.repeat(NOTE_CHARACTERS) }, fields: 'note' } },
      // Range objects with the longest names and descriptions Google takes.
      ...Array.from({ length: 50 }, (_, index) => ({
        addNamedRange: {
          namedRange: {
            name: `N${index}_${'n'.repeat(200)}`,
            range: { ...grid, startRowIndex: index % ROWS },
          },
        },
      })),
      ...Array.from({ length: 50 }, (_, index) => ({
        addProtectedRange: {
          protectedRange: {
            description: 'd'.repeat(5_000),
            range: { ...grid, startRowIndex: index % ROWS },
            warningOnly: true,
          },
        },
      })),
    ],
  });
}, 120_000);
afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

/** The largest value a number argument takes (a page size, a limit), from the tool's own schema. */
function largest(schema: z.ZodType): number | undefined {
  let node = schema as unknown as { maxValue?: number | null; unwrap?: () => unknown };
  while (node.unwrap && !('maxValue' in node)) node = node.unwrap() as typeof node;
  return typeof node.maxValue === 'number' && Number.isFinite(node.maxValue) ? node.maxValue : undefined;
}

describe('every read tool', () => {
  it('answers this book within the bound, asked for as much as it gives', async () => {
    const ordinary = new Map(oneCallOfEachTool({ spreadsheetId, planId: 0, notesId: 1 }));
    const sizes: Record<string, number> = {};
    for (const tool of readTools) {
      const shape = tool.inputSchema.shape as Record<string, z.ZodType>;
      const args: Record<string, unknown> = { ...ordinary.get(tool.name) };
      // The whole of the big tab wherever a range is read, every page option at its largest.
      if ('range' in shape) args.range = BIG;
      if ('ranges' in shape) args.ranges = [BIG, `'${LONG_TAB}'`, `'${BIG}'!A1:Y10`];
      if ('query' in shape) args.query = 'needle';
      if ('formulas' in shape) args.formulas = [`='${BIG}'!A1:Y${ROWS}`, `=SEQUENCE(1000, 26)`];
      for (const option of ['limit', 'limitPerRange', 'maxResults', 'pageSize']) {
        const most = option in shape ? largest(shape[option]!) : undefined;
        if (most !== undefined) args[option] = most;
      }
      const { result, size, text } = await call(tool.name, args);
      expect(result.isError, `${tool.name}: ${text.slice(0, 300)}`).toBeFalsy();
      sizes[tool.name] = size;
    }
    const over = Object.entries(sizes).filter(([, size]) => size > ANSWER_BOUND);
    expect(over, JSON.stringify(sizes)).toEqual([]);
  }, 180_000);
});

describe('find_in_spreadsheet', () => {
  interface Found {
    matches: Array<{ range: string; cell: string; value: string; fullLength?: number }>;
    truncated: boolean;
    stoppedAt: string | null;
  }

  it('answers the text around each match, says it was cut and how long the cell is', async () => {
    const { result, text } = await call('find_in_spreadsheet', {
      spreadsheetId,
      range: `'${BIG}'!C2`,
      query: 'NEEDLE 1:2',
    });
    const found = result.structuredContent as unknown as Found;
    expect(found.matches).toHaveLength(1);
    const [match] = found.matches;
    expect(match!.fullLength).toBe(CELL_CHARACTERS);
    expect(match!.value).toMatch(/^…a{100}needle 1:2a{100}…$/);
    expect(text).toContain(
      `(cut from ${CELL_CHARACTERS} characters; read_range 'Big tab'!C2 gives it whole)`,
    );
  });

  it('answers a short cell whole, with no length', async () => {
    const { result } = await call('write_range', {
      spreadsheetId,
      range: `'${BIG}'!Z1`,
      values: [['a short needle']],
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const found = (
      await call('find_in_spreadsheet', { spreadsheetId, range: `'${BIG}'!Z1`, query: 'needle' })
    ).result.structuredContent as unknown as Found;
    expect(found.matches).toEqual([{ range: "'Big tab'!Z1", cell: 'Z1', value: 'a short needle' }]);
  });

  it('stops at the answer cap, saying where, and the search goes on from there', async () => {
    const first = await call('find_in_spreadsheet', {
      spreadsheetId,
      range: BIG,
      query: 'needle',
      maxResults: 500,
    });
    const found = first.result.structuredContent as unknown as Found;
    expect(found.truncated).toBe(true);
    expect(found.matches.length).toBeGreaterThan(100);
    expect(found.matches.length).toBeLessThan(500);
    expect(first.size).toBeLessThan(200_000);
    expect(found.stoppedAt).toMatch(/^'Big tab'![A-Y]\d+$/);
    expect(first.text).toContain(`(stopped at ${found.stoppedAt} after ${found.matches.length} matches`);
    expect(first.text).toContain('at the size limit of one answer');
    // The cell it stopped at was not returned; a search from its row on finds it first.
    const stop = found.stoppedAt!.slice("'Big tab'!".length);
    expect(found.matches.map((match) => match.cell)).not.toContain(stop);
    const row = Number(stop.replace(/^[A-Z]+/, ''));
    const next = (
      await call('find_in_spreadsheet', {
        spreadsheetId,
        range: `'${BIG}'!A${row}:Y${ROWS}`,
        query: 'needle',
      })
    ).result.structuredContent as unknown as Found;
    expect(next.matches.map((match) => match.cell)).toContain(stop);
  });
});
