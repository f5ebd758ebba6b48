import type { drive_v3, sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountFor } from '../src/accounts.ts';
import type { GoogleEmulator } from '../src/index.ts';
import {
  admin,
  driveFor,
  failureOf,
  SCOPES,
  sheetsFor,
  signIn,
  startTestEmulator,
  type TestClient,
} from './support/emulator.ts';

// A file's owners as Drive answers them to the requesting account
// (https://developers.google.com/workspace/drive/api/reference/rest/v3/files, …/v3/User), and a
// file shared with another account: seeded with its permissions, opened to that account by them.

const SHEETGATE_SCOPES = ['openid', 'email', SCOPES.spreadsheets, SCOPES.driveReadonly, SCOPES.driveFile];
const OWNERS = 'owners(kind,displayName,emailAddress,permissionId,me),ownedByMe,driveId';

let emulator: GoogleEmulator;
let clientB: TestClient;
const drives: Record<string, drive_v3.Drive> = {};
const sheets: Record<string, sheets_v4.Sheets> = {};
const ids: Record<string, string> = {};

async function seed(email: string, files: unknown[]) {
  const seeded = await admin(emulator, 'POST', '/seed', { email, files });
  expect(seeded.status).toBe(201);
  for (const file of (seeded.body as { files: drive_v3.Schema$File[] }).files) ids[file.name!] = file.id!;
  return seeded.body as { files: drive_v3.Schema$File[] };
}

const user = (email: string, me: boolean) => ({
  kind: 'drive#user',
  displayName: accountFor(email).name,
  emailAddress: email,
  permissionId: accountFor(email).sub,
  me,
});

beforeAll(async () => {
  const started = await startTestEmulator({
    accounts: ['alice@example.com', 'bob@example.com', 'carol@other.org', 'erin@gmail.com'],
  });
  emulator = started.emulator;
  clientB = started.clientB;
  for (const account of ['alice@example.com', 'bob@example.com', 'carol@other.org', 'erin@gmail.com']) {
    const { auth } = await signIn(emulator, started.clientA, { scopes: SHEETGATE_SCOPES, account });
    drives[account] = driveFor(emulator, auth);
    sheets[account] = sheetsFor(emulator, auth);
  }
  await seed('alice@example.com', [{ name: 'Mine', values: [['a']] }]);
  await seed('bob@example.com', [
    {
      name: 'Bob shares',
      values: [['b']],
      permissions: [
        { type: 'user', role: 'writer', emailAddress: 'alice@example.com' },
        { type: 'user', role: 'reader', emailAddress: 'erin@gmail.com' },
      ],
    },
    { name: 'Bob keeps', values: [['kept']] },
    { name: 'Team plan', values: [['t']], driveId: '0ATeam' },
  ]);
  await seed('carol@other.org', [
    {
      name: 'Carol to example.com',
      values: [['c']],
      permissions: [{ type: 'domain', role: 'writer', domain: 'example.com' }],
    },
  ]);
});
afterAll(async () => {
  await emulator?.close();
});

describe('owners', () => {
  it('names the owner with me true for the owner', async () => {
    const { data } = await drives['alice@example.com']!.files.get({ fileId: ids.Mine!, fields: OWNERS });
    expect(data).toEqual({ owners: [user('alice@example.com', true)], ownedByMe: true });
  });

  it('names the owner with me false for an account the file is shared with', async () => {
    const fileId = ids['Bob shares']!;
    const { data } = await drives['alice@example.com']!.files.get({ fileId, fields: OWNERS });
    expect(data).toEqual({ owners: [user('bob@example.com', false)], ownedByMe: false });
    const own = await drives['bob@example.com']!.files.get({ fileId, fields: 'owners(emailAddress,me)' });
    expect(own.data).toEqual({ owners: [{ emailAddress: 'bob@example.com', me: true }] });
  });

  it('gives a shared drive’s file no owners, and its driveId', async () => {
    const { data } = await drives['bob@example.com']!.files.get({
      fileId: ids['Team plan']!,
      supportsAllDrives: true,
      fields: OWNERS,
    });
    expect(data).toEqual({ driveId: '0ATeam' });
  });

  it('lists files with owners as the caller sees them', async () => {
    const { data } = await drives['bob@example.com']!.files.list({ fields: 'files(name,owners(me))' });
    expect(data.files).toContainEqual({ name: 'Bob keeps', owners: [{ me: true }] });
  });
});

describe('a file shared with another account', () => {
  it('opens to a writer: read and write through Sheets', async () => {
    const spreadsheetId = ids['Bob shares']!;
    await sheets['alice@example.com']!.spreadsheets.values.update({
      spreadsheetId,
      range: 'Sheet1!A2',
      valueInputOption: 'RAW',
      requestBody: { values: [['from alice']] },
    });
    const { data } = await sheets['bob@example.com']!.spreadsheets.values.get({
      spreadsheetId,
      range: 'Sheet1!A1:A2',
    });
    expect(data.values).toEqual([['b'], ['from alice']]);
  });

  it('opens to a reader for reading only (403 for a write)', async () => {
    const spreadsheetId = ids['Bob shares']!;
    const read = await sheets['erin@gmail.com']!.spreadsheets.values.get({ spreadsheetId, range: 'A1' });
    expect(read.data.values).toEqual([['b']]);
    const failure = await failureOf(
      sheets['erin@gmail.com']!.spreadsheets.values.update({
        spreadsheetId,
        range: 'A3',
        valueInputOption: 'RAW',
        requestBody: { values: [['from erin']] },
      }),
    );
    expect(failure.response?.status).toBe(403);
  });

  it('opens to the accounts of a domain it is shared with, and to no other', async () => {
    const fileId = ids['Carol to example.com']!;
    const { data } = await drives['bob@example.com']!.files.get({
      fileId,
      fields: 'owners(emailAddress,me)',
    });
    expect(data).toEqual({ owners: [{ emailAddress: 'carol@other.org', me: false }] });
    expect((await failureOf(drives['erin@gmail.com']!.files.get({ fileId }))).response?.status).toBe(404);
  });

  it('stays closed to accounts it is not shared with (404); a Drive write under read scopes is refused', async () => {
    const kept = ids['Bob keeps']!;
    expect((await failureOf(drives['alice@example.com']!.files.get({ fileId: kept }))).response?.status).toBe(
      404,
    );
    expect(
      (
        await failureOf(
          sheets['alice@example.com']!.spreadsheets.values.get({ spreadsheetId: kept, range: 'A1' }),
        )
      ).response?.status,
    ).toBe(404);
    // drive.readonly reads it; drive.file does not reach a file shared with the account.
    const rename = await failureOf(
      drives['alice@example.com']!.files.update({ fileId: ids['Bob shares']!, requestBody: { name: 'x' } }),
    );
    expect(rename.response?.status).toBe(403);
  });

  it('lets a writer with the drive scope rename it, but only its owner delete it', async () => {
    const { auth } = await signIn(emulator, clientB, { scopes: ['openid', SCOPES.drive] });
    const fullDrive = driveFor(emulator, auth);
    const fileId = ids['Bob shares']!;
    await fullDrive.files.update({ fileId, requestBody: { name: 'Renamed by alice' } });
    const deleted = await failureOf(fullDrive.files.delete({ fileId }));
    expect(deleted.response?.status).toBe(403);
    expect(deleted.response?.data.error.errors[0]?.reason).toBe('insufficientFilePermissions');
    const { data } = await drives['bob@example.com']!.files.get({ fileId, fields: 'name' });
    expect(data.name).toBe('Renamed by alice');
  });

  it('refuses a seed that shares a file with its own owner, or a user without an address', async () => {
    expect(
      (
        await admin(emulator, 'POST', '/seed', {
          email: 'bob@example.com',
          files: [{ name: 'x', permissions: [{ role: 'writer', emailAddress: 'bob@example.com' }] }],
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await admin(emulator, 'POST', '/seed', {
          email: 'bob@example.com',
          files: [{ name: 'x', permissions: [{ type: 'user', role: 'writer' }] }],
        })
      ).status,
    ).toBe(400);
  });
});
