import type { drive_v3 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { admin, driveFor, failureOf, SCOPES, signIn, startTestEmulator } from './support/emulator.ts';

// Shared drives' flags, parents of new files, and fullText over a spreadsheet's cells, through
// googleapis alone with Sheetgate's own grant (spreadsheets, drive.readonly, drive.file).

const SPREADSHEET = 'application/vnd.google-apps.spreadsheet';
const FOLDER = 'application/vnd.google-apps.folder';
const SHEETGATE_SCOPES = ['openid', 'email', SCOPES.spreadsheets, SCOPES.driveReadonly, SCOPES.driveFile];
const ALL = { supportsAllDrives: true, includeItemsFromAllDrives: true, corpora: 'allDrives' } as const;

let emulator: GoogleEmulator;
let drive: drive_v3.Drive;
const ids: Record<string, string> = {};

const names = (files: drive_v3.Schema$File[] | undefined) => (files ?? []).map((file) => file.name).sort();

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const { auth } = await signIn(emulator, started.clientA, { scopes: SHEETGATE_SCOPES });
  drive = driveFor(emulator, auth);
  const seeded = await admin(emulator, 'POST', '/seed', {
    email: 'alice@example.com',
    files: [
      { name: 'Mine', values: [['Rent', 1200]] },
      { name: 'Team budget', values: [['Quarterly "forecast"', 'c:\\temp']], driveId: '0ATeamDrive' },
      { name: 'Team folder', mimeType: FOLDER, driveId: '0ATeamDrive', openedBy: [started.clientA.clientId] },
      { name: 'Not opened', mimeType: FOLDER },
    ],
  });
  expect(seeded.status).toBe(201);
  for (const file of (seeded.body as { files: drive_v3.Schema$File[] }).files) ids[file.name!] = file.id!;
});
afterAll(async () => {
  await emulator?.close();
});

describe('shared drives', () => {
  it('lists a shared drive’s files only with includeItemsFromAllDrives and the allDrives corpus', async () => {
    expect(names((await drive.files.list({})).data.files)).toEqual(['Mine', 'Not opened']);
    expect(names((await drive.files.list({ ...ALL, fields: 'files(name,driveId)' })).data.files)).toEqual([
      'Mine',
      'Not opened',
      'Team budget',
      'Team folder',
    ]);
    const inDrive = await drive.files.list({
      supportsAllDrives: true,
      includeItemsFromAllDrives: true,
      corpora: 'drive',
      driveId: '0ATeamDrive',
      fields: 'files(name,driveId,parents)',
    });
    expect(inDrive.data.files).toContainEqual({
      name: 'Team budget',
      driveId: '0ATeamDrive',
      parents: ['0ATeamDrive'],
    });
    expect(names(inDrive.data.files)).toEqual(['Team budget', 'Team folder']);
  });

  it('answers a bad combination of the flags with a 400', async () => {
    const cases: Array<[drive_v3.Params$Resource$Files$List, string]> = [
      [{ corpora: 'drive' }, 'driveId'],
      [{ corpora: 'allDrives', supportsAllDrives: true }, 'includeItemsFromAllDrives'],
      [{ includeItemsFromAllDrives: true }, 'supportsAllDrives'],
      [{ corpora: 'everything' }, 'corpora'],
    ];
    for (const [params, location] of cases) {
      const failure = await failureOf(drive.files.list(params));
      expect(failure.response?.status, JSON.stringify(params)).toBe(400);
      expect(failure.response?.data.error.errors[0]?.location).toBe(location);
    }
  });

  it('finds a shared drive’s file only for a request that supports all drives', async () => {
    const failure = await failureOf(drive.files.get({ fileId: ids['Team budget']! }));
    expect(failure.response?.status).toBe(404);
    expect(failure.response?.data.error.message).toBe(`File not found: ${ids['Team budget']}.`);
    const { data } = await drive.files.get({
      fileId: ids['Team budget']!,
      supportsAllDrives: true,
      fields: 'name,driveId',
    });
    expect(data).toEqual({ name: 'Team budget', driveId: '0ATeamDrive' });
    expect(
      (await failureOf(drive.files.copy({ fileId: ids['Team budget']!, requestBody: {} }))).response?.status,
    ).toBe(404);
  });

  it('puts a copy in a shared drive’s folder, and in the shared drive', async () => {
    const parents = { requestBody: { name: 'Mine, shared', parents: [ids['Team folder']!] } };
    expect(
      (await failureOf(drive.files.copy({ fileId: ids.Mine!, ...parents }))).response?.status,
      'the folder is not found without supportsAllDrives',
    ).toBe(404);
    const { data } = await drive.files.copy({
      fileId: ids.Mine!,
      ...parents,
      supportsAllDrives: true,
      fields: 'name,parents,driveId',
    });
    expect(data).toEqual({ name: 'Mine, shared', parents: [ids['Team folder']], driveId: '0ATeamDrive' });
  });
});

describe('parents of a new file', () => {
  it('answers 404 for a parent that does not exist, and accepts root and a folder', async () => {
    const failure = await failureOf(
      drive.files.create({ requestBody: { name: 'x', mimeType: SPREADSHEET, parents: ['1NoSuchFolder'] } }),
    );
    expect(failure.response?.status).toBe(404);
    expect(failure.response?.data.error.message).toBe('File not found: 1NoSuchFolder.');
    const notOpened = await failureOf(
      drive.files.create({
        requestBody: { name: 'x', mimeType: SPREADSHEET, parents: [ids['Not opened']!] },
      }),
    );
    expect(notOpened.response?.status, 'drive.file cannot write into a folder the app did not make').toBe(
      404,
    );
    const { data: folder } = await drive.files.create({ requestBody: { name: 'Reports', mimeType: FOLDER } });
    const { data } = await drive.files.create({
      requestBody: { name: 'In reports', mimeType: SPREADSHEET, parents: [folder.id!] },
      fields: 'parents',
    });
    expect(data.parents).toEqual([folder.id]);
    const { data: inRoot } = await drive.files.create({
      requestBody: { name: 'In root', mimeType: SPREADSHEET, parents: ['root'] },
      fields: 'id,name',
    });
    expect(inRoot.name).toBe('In root');
    const listed = await drive.files.list({ q: `'${folder.id}' in parents` });
    expect(names(listed.data.files)).toEqual(['In reports']);
    const move = (into: string) =>
      drive.files.update({ fileId: inRoot.id!, addParents: into, removeParents: 'root', fields: 'parents' });
    expect((await failureOf(move(ids['Not opened']!))).response?.status).toBe(404);
    expect((await move(folder.id!)).data.parents).toEqual([folder.id]);
  });
});

describe('fullText', () => {
  it('searches a spreadsheet’s cells, with quotes and backslashes escaped in q', async () => {
    const search = async (q: string) => names((await drive.files.list({ q, ...ALL })).data.files);
    expect(await search("fullText contains 'rent'")).toEqual(['Mine', 'Mine, shared']);
    expect(await search(`fullText contains '"forecast"'`)).toEqual(['Team budget']);
    expect(await search("fullText contains 'c:\\\\temp'")).toEqual(['Team budget']);
    expect(await search("fullText contains 'nothing like this'")).toEqual([]);
  });
});
