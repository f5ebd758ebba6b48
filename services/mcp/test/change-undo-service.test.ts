import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type ChangeUndoClient,
  createAccountServiceClient,
  createChangeUndoClient,
  GrpcStatus,
  isServiceError,
  type UndoChangeResponse,
} from '@sheetgate/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// ChangeUndoService (proto/sheetgate/v1/change_undo.proto), the dashboard's Undo, on a real mcp
// process's internal gRPC port against real auth, PostgreSQL and the Google emulator: only the
// service credential gets in; the person is whoever auth says the session cookie belongs to; an
// unknown change and another person's are "not found"; an undo restores the cells in the emulator,
// is refused naming the cells changed since, restores them with force, recreates a deleted tab,
// and is journaled as the dashboard's.

let stack: McpUnderTest;
let undo: ChangeUndoClient;
let alice: Client;
let aliceCookie: string;
let bobCookie: string;
let spreadsheetId: string;
let grpcAddress: string;

interface Answer {
  isError: boolean;
  text: string;
  structured: Record<string, unknown>;
}

async function ok(name: string, args: Record<string, unknown>): Promise<Answer> {
  const result = await alice.callTool({ name, arguments: { spreadsheetId, ...args } });
  const answer = {
    isError: result.isError === true,
    text: (result.content as Array<{ text: string }>)[0]!.text,
    structured: (result.structuredContent ?? {}) as Record<string, unknown>,
  };
  expect(answer.isError, answer.text).toBe(false);
  return answer;
}

async function valuesOf(range: string): Promise<unknown[][]> {
  return (await ok('read_range', { range, valueRenderOption: 'FORMULA' })).structured.values as unknown[][];
}

async function write(range: string, values: unknown[][]): Promise<string> {
  return (await ok('write_range', { range, values })).structured.changeId as string;
}

function undoAs(sessionCookie: string, changeId: string, force = false): Promise<UndoChangeResponse> {
  return undo.undoChange({ sessionCookie, changeId, force });
}

async function refusal(call: Promise<unknown>): Promise<number | undefined> {
  try {
    await call;
    return undefined;
  } catch (error) {
    if (!isServiceError(error)) throw error;
    return error.code;
  }
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  grpcAddress = stack.mcpGrpcAddress;
  const signedIn = await stack.signIn('alice@example.com');
  aliceCookie = signedIn.sessionCookie;
  bobCookie = (await stack.signIn('bob@example.com')).sessionCookie;
  [spreadsheetId] = (await stack.seed('alice@example.com', [
    {
      name: 'Budget',
      sheets: [
        {
          title: 'Budget',
          values: [
            ['Item', 'Cost'],
            ['Pens', '3'],
            ['Paper', '007'],
          ],
        },
        { title: 'Notes', values: [['keep me']] },
      ],
    },
  ])) as [string];
  alice = await stack.connectClient(signedIn.userId, 'undo-service-alice');
  undo = createChangeUndoClient({ address: grpcAddress, serviceToken: stack.serviceToken });
});
afterAll(async () => {
  undo?.close();
  await alice?.close();
  await stack?.stop();
});

describe('ChangeUndoService', () => {
  it('refuses a call without the service credential', async () => {
    const stranger = createChangeUndoClient({ address: grpcAddress, serviceToken: 'x'.repeat(43) });
    try {
      const changeId = await write('Budget!B2', [['four']]);
      expect(await refusal(stranger.undoChange({ sessionCookie: aliceCookie, changeId, force: false }))).toBe(
        GrpcStatus.UNAUTHENTICATED,
      );
      // Nothing was undone, and the refused call spent nothing: the change is still there to
      // undo with the credential, and that undo puts the cell back.
      expect(await valuesOf('Budget!B2')).toEqual([['four']]);
      expect((await undoAs(aliceCookie, changeId)).undone?.restored).toEqual(['Budget!B2:B2']);
      expect(await valuesOf('Budget!B2')).toEqual([[3]]);
    } finally {
      stranger.close();
    }
  });

  it('refuses a session that is not (or no longer) signed in', async () => {
    const changeId = await write('Budget!B2', [['five']]);
    expect(await refusal(undoAs('', changeId))).toBe(GrpcStatus.PERMISSION_DENIED);
    expect(await refusal(undoAs(`not-a-session-${randomUUID()}`, changeId))).toBe(
      GrpcStatus.PERMISSION_DENIED,
    );
    // A session that has signed out, with its own sign-out token, as the dashboard's form does.
    const carol = await stack.signIn('carol@example.com');
    const accounts = createAccountServiceClient({
      address: stack.grpcAddress,
      serviceToken: stack.serviceToken,
    });
    try {
      const { signOutCsrfToken } = await accounts.getSession({ sessionCookie: carol.sessionCookie });
      const signedOut = await fetch(`${stack.baseUrl}/api/auth/sign-out`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: stack.baseUrl,
          cookie: `sg_session=${carol.sessionCookie}`,
        },
        body: new URLSearchParams({ csrf: signOutCsrfToken }).toString(),
      });
      expect(signedOut.status).toBe(303);
      expect((await accounts.getSession({ sessionCookie: carol.sessionCookie })).user).toBeUndefined();
    } finally {
      accounts.close();
    }
    expect(await refusal(undoAs(carol.sessionCookie, changeId))).toBe(GrpcStatus.PERMISSION_DENIED);
    expect(await valuesOf('Budget!B2')).toEqual([['five']]);
  });

  it("answers an unknown change and another person's alike: not found", async () => {
    const changeId = await write('Budget!B3', [['eight']]);
    expect(await undoAs(aliceCookie, randomUUID())).toEqual({ notFound: {} });
    expect(await undoAs(aliceCookie, 'not-a-change-id')).toEqual({ notFound: {} });
    expect(await undoAs(bobCookie, changeId)).toEqual({ notFound: {} });
    expect(await valuesOf('Budget!B3')).toEqual([['eight']]);
  });

  it("restores the cells in Google and journals the undo as the dashboard's; a second undo is not possible", async () => {
    const before = await valuesOf('Budget!A2:B3');
    const changeId = await write('Budget!A2:B3', [
      ['Ink', '=1+1'],
      ['Glue', 12],
    ]);
    const answer = await undoAs(aliceCookie, changeId);
    expect(answer.undone).toMatchObject({ restored: ['Budget!A2:B3'], replacedChangedCells: [] });
    expect(answer.undone!.summary).toContain(`Undid change ${changeId}`);
    // '007' stays text: the before-image exactly.
    expect(await valuesOf('Budget!A2:B3')).toEqual(before);
    const listed = (await ok('list_changes', {})).structured.changes as Array<Record<string, unknown>>;
    expect(listed[0]).toMatchObject({
      changeId: answer.undone!.undoChangeId,
      tool: 'undo_change',
      undoesChangeId: changeId,
      credential: { kind: 'dashboard', id: '' },
    });
    expect(listed.find((change) => change.changeId === changeId)).toMatchObject({
      undoneByChangeId: answer.undone!.undoChangeId,
    });
    expect((await undoAs(aliceCookie, changeId)).notPossible?.message).toBe(
      'This change was undone already.',
    );
  });

  it('refuses, naming the cells changed since; force restores anyway', async () => {
    const before = await valuesOf('Budget!A2:B2');
    const changeId = await write('Budget!A2:B2', [['Stamps', 'nine']]);
    // A later edit of one of the two cells (another write, as a person in Google Sheets would).
    await write('Budget!B2', [['ten']]);
    const refused = await undoAs(aliceCookie, changeId);
    expect(refused).toEqual({ changedSince: { cells: ['Budget!B2'], total: 1 } });
    expect(await valuesOf('Budget!A2:B2')).toEqual([['Stamps', 'ten']]);

    const forced = await undoAs(aliceCookie, changeId, true);
    expect(forced.undone?.replacedChangedCells).toEqual(['Budget!B2']);
    expect(await valuesOf('Budget!A2:B2')).toEqual(before);
  });

  it('names at most 20 of the cells changed since, and says how many', async () => {
    const values = Array.from({ length: 25 }, (_, row) => [`v${row}`]);
    const changeId = await write('Budget!D1:D25', values);
    await write(
      'Budget!D1:D25',
      values.map(([value]) => [`${value}!`]),
    );
    const refused = await undoAs(aliceCookie, changeId);
    expect(refused.changedSince?.total).toBe(25);
    expect(refused.changedSince?.cells).toHaveLength(20);
    expect(refused.changedSince?.cells[0]).toBe('Budget!D1');
  });

  it('runs two undos of one change one after the other: the tab is recreated once', async () => {
    const titles = async () =>
      ((await ok('get_spreadsheet', {})).structured.sheets as Array<{ title: string }>).map(
        (tab) => tab.title,
      );
    const scratch = await ok('add_sheet', { title: 'Scratch' });
    const deleted = await ok('delete_sheet', { sheetId: scratch.structured.sheetId });
    const changeId = deleted.structured.changeId as string;
    // A double click: both requests arrive before either has finished.
    const answers = await Promise.all([undoAs(aliceCookie, changeId), undoAs(aliceCookie, changeId)]);
    expect(answers.filter((answer) => answer.undone)).toHaveLength(1);
    expect(
      answers.filter((answer) => answer.notPossible?.message === 'This change was undone already.'),
    ).toHaveLength(1);
    expect((await titles()).filter((title) => title.startsWith('Scratch'))).toEqual(['Scratch']);
  });

  it('recreates a deleted tab', async () => {
    const tabs = (await ok('get_spreadsheet', {})).structured.sheets as Array<{
      sheetId: number;
      title: string;
    }>;
    const notes = tabs.find((tab) => tab.title === 'Notes')!;
    const deleted = await ok('delete_sheet', { sheetId: notes.sheetId });
    const answer = await undoAs(aliceCookie, deleted.structured.changeId as string);
    expect(answer.undone?.restored).toEqual(['Notes']);
    expect(await valuesOf('Notes!A1')).toEqual([['keep me']]);
  });

  it('recreates a deleted tab whose name is taken now: refused without force, with it under "<title> (restored)"', async () => {
    const plans = await ok('add_sheet', { title: 'Plans' });
    await write('Plans!A1', [['old plan']]);
    const deleted = await ok('delete_sheet', { sheetId: plans.structured.sheetId });
    const changeId = deleted.structured.changeId as string;
    // Another tab takes the name meanwhile.
    await ok('add_sheet', { title: 'Plans' });
    await write('Plans!A1', [['new plan']]);
    const refused = await undoAs(aliceCookie, changeId);
    expect(refused.undone).toBeUndefined();
    expect(refused.changedSince?.cells).toEqual(['the tab name "Plans" (a tab of that name exists now)']);
    const forced = await undoAs(aliceCookie, changeId, true);
    expect(forced.undone?.restored).toEqual(['Plans (restored)']);
    expect(await valuesOf("'Plans (restored)'!A1")).toEqual([['old plan']]);
    // The tab that took the name is left as it is.
    expect(await valuesOf('Plans!A1')).toEqual([['new plan']]);
  });
});
