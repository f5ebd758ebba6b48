import type { drive_v3 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { driveFor, SCOPES, signIn, startTestEmulator } from './support/emulator.ts';

// The trash as Drive keeps it, through googleapis alone
// (https://developers.google.com/workspace/drive/api/reference/rest/v3/files/update, the files
// resource's `trashed` and `explicitlyTrashed`, and files.list: "This method returns all files by
// default, including trashed files. If you don't want trashed files to appear in the list, use the
// trashed=false query parameter").

const FOLDER = 'application/vnd.google-apps.folder';
const SPREADSHEET = 'application/vnd.google-apps.spreadsheet';

let emulator: GoogleEmulator;
let drive: drive_v3.Drive;

beforeAll(async () => {
  const { emulator: started, clientA } = await startTestEmulator();
  emulator = started;
  const { auth } = await signIn(emulator, clientA, {
    scopes: ['openid', 'email', SCOPES.spreadsheets, SCOPES.driveReadonly, SCOPES.driveFile],
  });
  drive = driveFor(emulator, auth);
});

afterAll(async () => {
  await emulator?.close();
});

const make = async (name: string, mimeType: string, parent?: string) =>
  (
    await drive.files.create({
      requestBody: { name, mimeType, ...(parent ? { parents: [parent] } : {}) },
      fields: 'id',
    })
  ).data.id!;
const trash = (fileId: string, trashed: boolean) =>
  drive.files.update({ fileId, requestBody: { trashed }, fields: 'trashed' });
const stateOf = async (fileId: string) =>
  (await drive.files.get({ fileId, fields: 'name,trashed,explicitlyTrashed' })).data;
const listed = async (q: string) =>
  ((await drive.files.list({ q, fields: 'files(name)', pageSize: 1000 })).data.files ?? [])
    .map((file) => file.name)
    .sort();

describe('the trash', () => {
  it('files.update {trashed} moves a file to the trash and out; files.get still finds it', async () => {
    const id = await make('Scratch sums', SPREADSHEET);
    expect((await trash(id, true)).data).toEqual({ trashed: true });
    expect(await stateOf(id)).toEqual({ name: 'Scratch sums', trashed: true, explicitlyTrashed: true });
    expect((await trash(id, false)).data).toEqual({ trashed: false });
    expect(await stateOf(id)).toEqual({ name: 'Scratch sums', trashed: false, explicitlyTrashed: false });
  });

  it('files.list shows trashed files unless the query says trashed = false', async () => {
    const id = await make('Listed trash', SPREADSHEET);
    await trash(id, true);
    expect(await listed("name = 'Listed trash'")).toEqual(['Listed trash']);
    expect(await listed("name = 'Listed trash' and trashed = true")).toEqual(['Listed trash']);
    expect(await listed("name = 'Listed trash' and trashed = false")).toEqual([]);
  });

  it('trashing a folder trashes what it holds at any depth, not explicitly; restoring it restores them', async () => {
    const folder = await make('Task output', FOLDER);
    const sheet = await make('Result', SPREADSHEET, folder);
    const inner = await make('Helpers', FOLDER, folder);
    const deep = await make('Helper tab', SPREADSHEET, inner);
    const before = await make('Trashed before', SPREADSHEET, folder);
    const outside = await make('Elsewhere', SPREADSHEET);
    await trash(before, true);

    await trash(folder, true);
    expect(await stateOf(folder)).toEqual({ name: 'Task output', trashed: true, explicitlyTrashed: true });
    for (const id of [sheet, inner, deep])
      expect(await stateOf(id)).toMatchObject({ trashed: true, explicitlyTrashed: false });
    expect(await stateOf(before)).toMatchObject({ trashed: true, explicitlyTrashed: true });
    expect(await stateOf(outside)).toMatchObject({ trashed: false });
    expect(await listed(`'${folder}' in parents and trashed = false`)).toEqual([]);

    await trash(folder, false);
    for (const id of [folder, sheet, inner, deep])
      expect(await stateOf(id)).toMatchObject({ trashed: false, explicitlyTrashed: false });
    // What was trashed on its own before stays in the trash.
    expect(await stateOf(before)).toMatchObject({ trashed: true, explicitlyTrashed: true });
  });

  it('restoring a folder leaves in the trash a subfolder trashed on its own, with what it holds', async () => {
    const folder = await make('Outer', FOLDER);
    const inner = await make('Inner', FOLDER, folder);
    const held = await make('Held', SPREADSHEET, inner);
    await trash(inner, true);
    expect(await stateOf(held)).toMatchObject({ trashed: true, explicitlyTrashed: false });
    await trash(folder, true);
    await trash(folder, false);
    expect(await stateOf(inner)).toMatchObject({ trashed: true, explicitlyTrashed: true });
    expect(await stateOf(held)).toMatchObject({ trashed: true, explicitlyTrashed: false });
  });

  it('refuses a trashed value that is not a boolean, changing nothing', async () => {
    const id = await make('Kept', SPREADSHEET);
    const failure = await drive.files
      .update({ fileId: id, requestBody: { trashed: 'yes' as unknown as boolean } })
      .catch((error: { response?: { status: number } }) => error);
    expect((failure as { response?: { status: number } }).response?.status).toBe(400);
    expect(await stateOf(id)).toMatchObject({ trashed: false });
  });
});
