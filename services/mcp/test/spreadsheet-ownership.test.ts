import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../src/errors/tool-error.ts';
import type { GoogleAccessTokens } from '../src/google/google-access.ts';
import { NOT_REACHED, spreadsheetOwnership } from '../src/tools/guards/spreadsheet-owners.ts';
import { startToolsUnderTest, type ToolsUnderTest } from './support/tools-in-process.ts';

// Who owns a spreadsheet, read before a write (issue 37): one Drive files.get per person and file,
// kept a minute from its answer (none with keptMs 0, bar the calls asking while it is under way)
// and at most `maxKept` answers, against a Google emulator process. A file Drive does
// not find is left to the write to say so, unless the grant lets Sheets reach more than Drive; a
// failed read is not kept, and says why nothing was written.

let google: ToolsUnderTest;
let ids: string[];
const auth = { userId: 'user-1', scopes: new Set(['sheets:write']), credential: 'access_token' as const };
const signal = new AbortController().signal;
let clock = 0;

const reads = async () => (await google.calls()).methods['drive.files.get']?.attempts ?? 0;

beforeAll(async () => {
  google = await startToolsUnderTest();
  ids = await google.seed([
    { name: 'One', values: [['1']] },
    { name: 'Two', values: [['2']] },
    { name: 'Three', values: [['3']] },
  ]);
}, 60_000);
afterAll(async () => {
  await google?.stop();
});
beforeEach(async () => {
  await google.forgetCalls();
});

describe('spreadsheetOwnership', () => {
  const dashboardUrl = 'http://127.0.0.1/dashboard';
  const make = (tokens: GoogleAccessTokens = google.deps.tokens) =>
    spreadsheetOwnership(
      { ...google.deps, tokens, dashboardUrl },
      { keptMs: 60_000, maxKept: 2, now: () => clock },
    );

  it('reads the owners once for a burst, again once a minute has passed', async () => {
    const ownershipOf = make();
    const answers = await Promise.all([1, 2, 3].map(() => ownershipOf(auth, ids[0]!, signal)));
    expect(answers[0]).toEqual({
      name: 'One',
      owners: [{ emailAddress: 'alice@example.com', me: true }],
      driveId: undefined,
    });
    clock += 59_999;
    await ownershipOf(auth, ids[0]!, signal);
    expect(await reads()).toBe(1);
    clock += 1;
    await ownershipOf(auth, ids[0]!, signal);
    expect(await reads()).toBe(2);
  });

  it('kept from its answer, not from when it was asked; keptMs 0 keeps none, the calls meanwhile still share it', async () => {
    const kept = make();
    const slow = kept(auth, ids[1]!, signal);
    // The read is answered a minute after it was asked (the clock moves while it is under way).
    clock += 60_000;
    await slow;
    clock += 59_999;
    await kept(auth, ids[1]!, signal);
    expect(await reads()).toBe(1);

    const none = spreadsheetOwnership({ ...google.deps, dashboardUrl }, { keptMs: 0, now: () => clock });
    await Promise.all([1, 2, 3].map(() => none(auth, ids[1]!, signal)));
    expect(await reads()).toBe(2);
    await none(auth, ids[1]!, signal);
    expect(await reads()).toBe(3);
  });

  it('keeps answers per person and file, at most maxKept, the oldest dropped first', async () => {
    const ownershipOf = make();
    for (const id of ids) await ownershipOf(auth, id, signal);
    expect(await reads()).toBe(3);
    await ownershipOf(auth, ids[2]!, signal);
    expect(await reads()).toBe(3);
    await ownershipOf(auth, ids[0]!, signal);
    expect(await reads()).toBe(4);
    await ownershipOf({ ...auth, userId: 'user-2' }, ids[0]!, signal);
    expect(await reads()).toBe(5);
  });

  it('leaves a file Drive does not find to the write, unless the grant reaches more through Sheets', async () => {
    expect(await make()(auth, 'no-such-file', signal)).toBe(NOT_REACHED);
    // The broker's answer for a partial grant: spreadsheets without drive.readonly.
    const partial: GoogleAccessTokens = {
      get: async () => ({
        ...((await google.deps.tokens.get('user-1')) as Extract<
          Awaited<ReturnType<GoogleAccessTokens['get']>>,
          { ok: true }
        >),
        scopes: [
          'https://www.googleapis.com/auth/spreadsheets',
          'https://www.googleapis.com/auth/drive.file',
        ],
      }),
    };
    const refused = await make(partial)(auth, 'no-such-file', signal).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ToolError);
    expect((refused as Error).message).toBe(
      `Nothing was changed: Sheetgate could not check who owns no-such-file, which it does before writing into a spreadsheet: its Google connection lacks Drive read access. Reconnect Google at ${dashboardUrl} and allow every requested access.`,
    );
    // Neither answer is kept.
    expect(await reads()).toBe(2);
  });

  it('refuses with Google’s answer when the read fails, and keeps no failure', async () => {
    const ownershipOf = make();
    await google.fault({ match: 'drive.files.get', status: 403, reason: 'forbidden' });
    const refused = await ownershipOf(auth, ids[1]!, signal).catch((error: unknown) => error);
    expect((refused as Error).message).toBe(
      `Nothing was changed: Sheetgate could not check who owns ${ids[1]}, which it does before writing into a spreadsheet: Google refused access to this file: The caller does not have permission`,
    );
    // Not kept: the next write reads again, and Google answers now.
    expect(await ownershipOf(auth, ids[1]!, signal)).toMatchObject({ name: 'Two' });
    expect(await reads()).toBe(2);
  });

  it('stops waiting for a cancelled call, not the read the others wait on', async () => {
    const ownershipOf = make();
    const cancelled = new AbortController();
    const waiting = ownershipOf(auth, ids[2]!, cancelled.signal).catch((error: unknown) => error);
    const other = ownershipOf(auth, ids[2]!, signal);
    cancelled.abort();
    expect(((await waiting) as Error).message).toBe('the request was cancelled');
    expect(await other).toMatchObject({ name: 'Three' });
    expect(await reads()).toBe(1);
  });
});
