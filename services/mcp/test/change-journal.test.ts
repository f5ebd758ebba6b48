import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createChangeJournalClient } from '@sheetgate/proto';
import { createLogger } from '@sheetgate/service-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChangeJournal } from '../src/journal/change-journal.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// The change journal (docs/design.md §11.8) through the MCP SDK client, against real auth and mcp
// processes, PostgreSQL and the Google emulator: every write is journaled with what it replaced,
// list_changes shows it, undo_change restores it unless the cells changed since (force), and
// another person's changes are not found.

let stack: McpUnderTest;
let alice: Client;
let bob: Client;
let spreadsheetId: string;
let aliceId: string;

interface Answer {
  isError: boolean;
  text: string;
  structured: Record<string, unknown>;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const result = await client.callTool({ name, arguments: args });
  return {
    isError: result.isError === true,
    text: (result.content as Array<{ text: string }>)[0]!.text,
    structured: (result.structuredContent ?? {}) as Record<string, unknown>,
  };
}

async function ok(name: string, args: Record<string, unknown>, client = alice): Promise<Answer> {
  const answer = await call(client, name, { spreadsheetId, ...args });
  expect(answer.isError, answer.text).toBe(false);
  return answer;
}

async function undo(args: Record<string, unknown>, client = alice): Promise<Answer> {
  return call(client, 'undo_change', args);
}

async function valuesOf(range: string): Promise<unknown[][]> {
  return (await ok('read_range', { range, valueRenderOption: 'FORMULA' })).structured.values as unknown[][];
}

async function tabs(): Promise<Array<{ sheetId: number; title: string }>> {
  return (await ok('get_spreadsheet', {})).structured.sheets as Array<{ sheetId: number; title: string }>;
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const { userId } = await stack.signIn('alice@example.com');
  const bobId = (await stack.signIn('bob@example.com')).userId;
  [spreadsheetId] = (await stack.seed('alice@example.com', [
    {
      name: 'Ledger',
      sheets: [
        {
          title: 'Ledger',
          values: [
            ['Item', 'Qty', 'Total'],
            ['Pens', '3', '=B2*2'],
            ['Paper', '007', 'kept'],
          ],
        },
        { title: 'Log', values: [['line 1'], ['line 2']] },
        {
          title: 'Old',
          values: [
            ['keep', 1],
            ['this', 2],
          ],
        },
        { title: 'Rows', values: [['r1'], ['r2', '=1+1'], ['r3']] },
      ],
    },
  ])) as [string];
  aliceId = userId;
  alice = await stack.connectClient(userId, 'journal-alice');
  bob = await stack.connectClient(bobId, 'journal-bob');
});
afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await stack?.stop();
});

describe('the change journal through the tools', () => {
  it('journals a write, lists it, and undoes it (the last change by default), restoring text, numbers and formulas exactly', async () => {
    const before = await valuesOf('Ledger!A2:C3');
    const written = await ok('write_range', {
      range: 'Ledger!B2:C3',
      values: [
        [10, 'new'],
        ['=1+1', null],
      ],
      overwriteFormulas: true,
    });
    const changeId = written.structured.changeId as string;
    expect(changeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(written.text).toContain(`Change ${changeId}`);

    const listed = await ok('list_changes', { spreadsheetId });
    const entry = (listed.structured.changes as Array<Record<string, unknown>>)[0]!;
    expect(entry).toMatchObject({
      changeId,
      tool: 'write_range',
      spreadsheetId,
      ranges: ['Ledger!B2:C3'],
      cells: 3,
      undoable: true,
      credential: { kind: 'app', id: 'client-1' },
    });

    const dry = await undo({ dryRun: true });
    expect(dry.isError, dry.text).toBe(false);
    expect(dry.structured).toMatchObject({ undoneChangeId: changeId, dryRun: true });
    expect(await valuesOf('Ledger!B2:C3')).toEqual([
      [10, 'new'],
      ['=1+1', 'kept'],
    ]);

    const undone = await undo({});
    expect(undone.isError, undone.text).toBe(false);
    expect(undone.structured.undoneChangeId).toBe(changeId);
    // '007' stays text, the formula comes back as a formula, the untouched C3 stays.
    expect(await valuesOf('Ledger!A2:C3')).toEqual(before);
    const after = (await ok('list_changes', { spreadsheetId })).structured.changes as Array<
      Record<string, unknown>
    >;
    expect(after[0]).toMatchObject({ tool: 'undo_change', undoesChangeId: changeId, undoable: true });
    expect(after.find((change) => change.changeId === changeId)).toMatchObject({
      undoable: false,
      undoneByChangeId: undone.structured.changeId,
    });
    // Undone once: a second undo of it is refused.
    const again = await undo({ changeId });
    expect(again.isError).toBe(true);
    expect(again.text).toContain('undone already');
  });

  it('refuses an undo over cells changed since, naming them; force restores anyway; an undo can be undone', async () => {
    const first = await ok('write_range', { range: 'Log!A1:A2', values: [['first 1'], ['first 2']] });
    await ok('write_range', { range: 'Log!A2', values: [['later edit']] });
    const refused = await undo({ changeId: first.structured.changeId });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('changed since');
    // 'Log' is quoted: unquoted it would read as a column and row.
    expect(refused.text).toContain("'Log'!A2");
    // Only A2 changed since (the answer names the change's own range, Log!A1:A2, apart).
    expect(refused.text.split('Pass force')[0]).not.toContain('!A1');
    expect(refused.text).toContain('force: true');
    expect(await valuesOf('Log!A1:A2')).toEqual([['first 1'], ['later edit']]);

    const forced = await undo({ changeId: first.structured.changeId, force: true });
    expect(forced.isError, forced.text).toBe(false);
    expect(forced.structured.changedSince).toEqual(["'Log'!A2"]);
    expect(await valuesOf('Log!A1:A2')).toEqual([['line 1'], ['line 2']]);

    // The undo is a change of its own: undoing it puts back what it replaced.
    const redo = await undo({ changeId: forced.structured.changeId });
    expect(redo.isError, redo.text).toBe(false);
    expect(await valuesOf('Log!A1:A2')).toEqual([['first 1'], ['later edit']]);
  });

  it('undoes write_ranges, clear_range and append_rows (the appended rows are deleted again, and come back when that is undone)', async () => {
    const ranges = await ok('write_ranges', {
      data: [
        { range: 'Old!A1', values: [['x']] },
        { range: 'Old!B2', values: [[99]] },
      ],
    });
    expect((await undo({ changeId: ranges.structured.changeId })).isError).toBe(false);
    expect(await valuesOf('Old!A1:B2')).toEqual([
      ['keep', 1],
      ['this', 2],
    ]);

    const cleared = await ok('clear_range', { range: 'Old!A1:B2' });
    expect(await valuesOf('Old!A1:B2')).toEqual([]);
    expect((await undo({ changeId: cleared.structured.changeId })).isError).toBe(false);
    expect(await valuesOf('Old!A1:B2')).toEqual([
      ['keep', 1],
      ['this', 2],
    ]);

    const appended = await ok('append_rows', { range: 'Old!A:B', values: [['new', 3]] });
    expect(await valuesOf('Old!A1:B3')).toEqual([
      ['keep', 1],
      ['this', 2],
      ['new', 3],
    ]);
    expect(appended.text).toMatch(/^Appended 1 row at /);
    const undone = await undo({ changeId: appended.structured.changeId });
    expect(undone.isError, undone.text).toBe(false);
    expect(await valuesOf('Old!A1:B3')).toEqual([
      ['keep', 1],
      ['this', 2],
    ]);
    // The undo kept the rows it deleted: undoing it inserts them again.
    expect(undone.text).toContain('undo_change can undo it');
    const redone = await undo({ changeId: undone.structured.changeId });
    expect(redone.isError, redone.text).toBe(false);
    expect(await valuesOf('Old!A1:B3')).toEqual([
      ['keep', 1],
      ['this', 2],
      ['new', 3],
    ]);
    expect((await undo({ changeId: redone.structured.changeId })).isError).toBe(false);
  });

  it('recreates a deleted tab with its values, formats and notes', async () => {
    const old = (await tabs()).find((tab) => tab.title === 'Old')!;
    await ok('format_range', { range: 'Old!A1', bold: true });
    await ok('set_notes', { notes: [{ range: 'Old!B2', note: 'checked' }] });
    const deleted = await ok('delete_sheet', { sheetId: old.sheetId });
    expect((await tabs()).some((tab) => tab.title === 'Old')).toBe(false);
    const restored = await undo({ changeId: deleted.structured.changeId });
    expect(restored.isError, restored.text).toBe(false);
    expect((await tabs()).find((tab) => tab.title === 'Old')?.sheetId).toBe(old.sheetId);
    expect(await valuesOf('Old!A1:B2')).toEqual([
      ['keep', 1],
      ['this', 2],
    ]);
    const details = await ok('read_cell_details', { range: 'Old!A1:B2', fields: ['notes'] });
    expect(JSON.stringify(details.structured)).toContain('checked');
    // The format, as Google itself holds it.
    const token = await stack.googleAccessToken(aliceId);
    const response = await fetch(
      `${stack.emulatorUrl}/v4/spreadsheets/${spreadsheetId}?ranges=Old!A1&fields=sheets.data.rowData.values.userEnteredFormat.textFormat.bold`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    expect(JSON.stringify(await response.json())).toContain('"bold":true');
  });

  it('undoes set_notes: the notes replaced come back, and a note changed since refuses the undo', async () => {
    const notes = async () =>
      JSON.stringify((await ok('read_cell_details', { range: 'Log!C1:C2', fields: ['notes'] })).structured);
    await ok('set_notes', { notes: [{ range: 'Log!C1', note: 'original' }] });
    const replaced = await ok('set_notes', { notes: [{ range: 'Log!C1:C2', note: 'agent wrote this' }] });
    expect(await notes()).not.toContain('original');
    const undone = await undo({ changeId: replaced.structured.changeId });
    expect(undone.isError, undone.text).toBe(false);
    expect(await notes()).toContain('original');
    expect(await notes()).not.toContain('agent wrote this');

    const again = await ok('set_notes', { notes: [{ range: 'Log!C2', note: 'second' }] });
    await ok('set_notes', { notes: [{ range: 'Log!C2', note: 'edited by hand' }] });
    const refused = await undo({ changeId: again.structured.changeId });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("'Log'!C2");
    expect(await notes()).toContain('edited by hand');
  });

  it('inserts deleted rows again with their cells', async () => {
    const rows = (await tabs()).find((tab) => tab.title === 'Rows')!;
    const deleted = await ok('delete_dimension', {
      sheetId: rows.sheetId,
      dimension: 'ROWS',
      startIndex: 1,
      endIndex: 2,
    });
    expect(await valuesOf('Rows!A1:B3')).toEqual([['r1'], ['r3']]);
    const undone = await undo({ changeId: deleted.structured.changeId });
    expect(undone.isError, undone.text).toBe(false);
    expect(await valuesOf('Rows!A1:B3')).toEqual([['r1'], ['r2', '=1+1'], ['r3']]);
  });

  it('journals a write that changed nothing as nothing to undo, and says so', async () => {
    await ok('unmerge_cells', { range: 'Log!A1:B2' });
    const listed = (await ok('list_changes', { spreadsheetId })).structured.changes as Array<
      Record<string, unknown>
    >;
    expect(listed[0]).toMatchObject({ tool: 'unmerge_cells', undoable: false });
    expect(String(listed[0]!.undoUnavailableReason)).toContain(
      'Nothing to undo: unmerge_cells sent Google no change',
    );
    const refused = await undo({ changeId: listed[0]!.changeId });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('cannot be undone');
    // Dry runs change nothing and are not journaled.
    await ok('write_range', { range: 'Log!A1', values: [['dry']], dryRun: true });
    const still = (await ok('list_changes', { spreadsheetId })).structured.changes as Array<
      Record<string, unknown>
    >;
    expect(still[0]!.changeId).toBe(listed[0]!.changeId);
  });

  it("answers another person's change and an unknown one as not found", async () => {
    const mine = await ok('write_range', { range: 'Log!B1', values: [['mine']] });
    for (const changeId of [mine.structured.changeId, randomUUID(), 'not-an-id']) {
      const answer = await undo({ changeId }, bob);
      expect(answer.isError).toBe(true);
      expect(answer.text).toContain('was not found among your changes');
    }
    const bobs = await call(bob, 'list_changes', {});
    expect(bobs.structured.changes).toEqual([]);
    expect(await valuesOf('Log!B1')).toEqual([['mine']]);
  });

  it('pages list_changes and filters by time', async () => {
    const first = await ok('list_changes', { spreadsheetId, pageSize: 2 });
    expect((first.structured.changes as unknown[]).length).toBe(2);
    const token = first.structured.nextPageToken as string;
    expect(token).toBeTruthy();
    const second = await ok('list_changes', { spreadsheetId, pageSize: 2, pageToken: token });
    const ids = (answer: Answer) =>
      (answer.structured.changes as Array<{ changeId: string }>).map((c) => c.changeId);
    expect(ids(second).some((id) => ids(first).includes(id))).toBe(false);
    const future = await ok('list_changes', { since: new Date(Date.now() + 60_000).toISOString() });
    expect(future.structured.changes).toEqual([]);
    const bad = await call(alice, 'list_changes', { pageToken: 'garbage' });
    expect(bad.isError).toBe(true);
  });
});

describe('logs', () => {
  it('of mcp and auth hold none of the cell contents or notes the journal kept', async () => {
    const logs = [...stack.mcp.output, ...stack.auth.output].join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const content of ['later edit', 'agent wrote this', 'edited by hand', 'first 2'])
      expect(logs, content).not.toContain(content);
  });
});

describe('the journal client', () => {
  it('counts entries auth does not take as lost, and never fails the caller', async () => {
    let lost = 0;
    const journal = createChangeJournal({
      client: createChangeJournalClient({ address: stack.grpcAddress, serviceToken: 'w'.repeat(43) }),
      logger: createLogger({ service: 'test', level: 'silent' }),
      onLost: (entries) => {
        lost += entries;
      },
    });
    const auth = {
      userId: randomUUID(),
      scopes: new Set<string>(),
      credential: 'api_key' as const,
      apiKeyId: 'k',
    };
    const id = journal.record(auth, {
      tool: 'write_range',
      spreadsheetId: 's',
      ranges: ['A1'],
      cells: 1,
      rows: 1,
    });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    journal.record(auth, { tool: 'write_range', spreadsheetId: 's', ranges: ['A1'], cells: 1, rows: 1 });
    await journal.close();
    expect(lost).toBe(2);
  });
});
