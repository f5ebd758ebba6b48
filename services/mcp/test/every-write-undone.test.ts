import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredTools } from '../src/tools/registry.ts';
import { freshCallOf, type ToolCallTarget } from './support/every-tool-call.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { callTool, callToolOk } from './support/tool-answers.ts';

// Issue 34, "every write can be taken back": the registry walked, every write tool called once on
// a fresh book (every-tool-call.ts), then undo_change — and the spreadsheet (values, kinds, formats,
// notes, validation, merges, tab properties, rules, filters, views, protections, tables, charts,
// named ranges) and its Drive side (permissions, comments, the person's files) read back through
// the emulator exactly as before the call.

let stack: McpUnderTest;
let client: Client;
let userId: string;

/** The parts of a cell a change can alter. */
const CELL_PARTS = [
  'userEnteredValue',
  'userEnteredFormat',
  'note',
  'dataValidation',
  'textFormatRuns',
  'pivotTable',
] as const;

type Json = Record<string, unknown>;

async function google(path: string): Promise<Json> {
  const token = await stack.googleAccessToken(userId);
  const response = await fetch(`${stack.emulatorUrl}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Json;
}

/** Every cell's writable parts by address, empty cells left out. */
function cellsOf(sheet: Json): Record<string, Json> {
  const cells: Record<string, Json> = {};
  for (const grid of (sheet.data as Json[] | undefined) ?? []) {
    const top = (grid.startRow as number | undefined) ?? 0;
    const left = (grid.startColumn as number | undefined) ?? 0;
    for (const [r, row] of ((grid.rowData as Json[] | undefined) ?? []).entries())
      for (const [c, cell] of ((row.values as Json[] | undefined) ?? []).entries()) {
        const kept = Object.fromEntries(
          CELL_PARTS.filter((part) => cell[part] != null).map((part) => [part, cell[part]]),
        );
        if (Object.keys(kept).length > 0) cells[`${top + r},${left + c}`] = kept;
      }
  }
  return cells;
}

/** What a write tool may change, as Google reports it. */
async function snapshot(target: ToolCallTarget): Promise<Json> {
  const book = await google(`/v4/spreadsheets/${target.spreadsheetId}?includeGridData=true`);
  const sheets = ((book.sheets as Json[] | undefined) ?? []).map((sheet) => {
    const { data: _data, ...aspects } = sheet;
    const sized = ['rowMetadata', 'columnMetadata'].map((key) =>
      ((sheet.data as Json[] | undefined) ?? []).flatMap((grid) => (grid[key] as Json[] | undefined) ?? []),
    );
    return { ...aspects, cells: cellsOf(sheet), rowSizes: sized[0], columnSizes: sized[1] };
  });
  const drive = await google(
    `/drive/v3/files?q=${encodeURIComponent('trashed = false')}&fields=files(id,name)&pageSize=1000`,
  );
  const permissions = await google(`/drive/v3/files/${target.spreadsheetId}/permissions?fields=*`);
  const comments = await google(`/drive/v3/files/${target.spreadsheetId}/comments?fields=*`);
  return {
    namedRanges: book.namedRanges ?? [],
    sheets,
    files: ((drive.files as Json[] | undefined) ?? []).map((file) => file.id).sort(),
    // A permission restored is a new one: its id differs, what it grants must not.
    permissions: ((permissions.permissions as Json[] | undefined) ?? [])
      .map(({ type, role, emailAddress, domain }) => ({ type, role, emailAddress, domain }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    comments: ((comments.comments as Json[] | undefined) ?? [])
      .filter((comment) => comment.deleted !== true)
      .map((comment) => ({
        content: comment.content,
        resolved: comment.resolved ?? false,
        replies: ((comment.replies as Json[] | undefined) ?? [])
          .filter((reply) => reply.deleted !== true && !reply.action)
          .map((reply) => reply.content),
      })),
  };
}

/** The newest changes of the person, newest first. */
async function latestChanges(count: number): Promise<Array<{ changeId: string; tool: string }>> {
  const { structured } = await callToolOk(client, 'list_changes', { pageSize: count });
  return structured.changes as Array<{ changeId: string; tool: string }>;
}

const WRITE_TOOLS = registeredTools()
  .filter((tool) => tool.scope === 'sheets:write' && tool.name !== 'undo_change')
  .map((tool) => tool.name);

beforeAll(async () => {
  stack = await startMcpUnderTest();
  ({ userId } = await stack.signIn('alice@example.com'));
  client = await stack.connectClient(userId, 'every write undone');
}, 120_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('every write tool, then undo_change', () => {
  it('covers every write tool of the registry', () => {
    expect(WRITE_TOOLS.length).toBeGreaterThan(40);
  });

  it.each(WRITE_TOOLS)('%s: the spreadsheet reads back as before', async (tool) => {
    const { target, args } = await freshCallOf(stack, userId, tool);
    const before = await snapshot(target);
    const done = await callToolOk(client, tool, args);
    // A call that changed nothing would prove nothing about undo.
    expect(await snapshot(target), `${tool} changed nothing`).not.toEqual(before);
    // One entry per call: a tool that journals itself and is journaled again by the wrapper shows twice.
    const [newest, previous] = await latestChanges(2);
    expect(newest?.tool).toBe(tool);
    expect(previous?.tool, `${tool} was journaled twice`).not.toBe(tool);
    // The answer names its change, as the journal lists it, and ends saying undo_change can undo it.
    expect(done.structured.changeId, `${tool}: ${done.text}`).toBe(newest?.changeId);
    expect(done.text).toMatch(new RegExp(` Change ${newest?.changeId} \\(undo_change can undo it\\)\\.$`));
    const undone = await callTool(client, 'undo_change', { changeId: done.structured.changeId });
    expect(undone.isError, `${tool}: ${done.text} → ${undone.text}`).toBe(false);
    expect(await snapshot(target)).toEqual(before);
  });
});
