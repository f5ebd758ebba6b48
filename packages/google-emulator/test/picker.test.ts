import type { drive_v3 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import {
  admin,
  driveFor,
  SCOPES,
  sheetsFor,
  signIn,
  startTestEmulator,
  statusOf,
} from './support/emulator.ts';

// The Google Picker as an app sees it (GOOGLE_SCOPE_MODE=picked-files): with drive.file alone a
// token reaches, through Drive and Sheets, only the files its app created or that the person picked
// for it; the picker's selection (the call its page makes with the app's token) records that grant
// and answers the callback's data. googleapis alone, no Sheetgate code.

const PICKED_FILES_SCOPES = ['openid', 'email', 'profile', SCOPES.driveFile];

let emulator: GoogleEmulator;
let token: string;
let otherAppToken: string;
let drive: drive_v3.Drive;
let sheets: ReturnType<typeof sheetsFor>;
const ids: Record<string, string> = {};

function pickerCall(path: string, bearer: string, body?: unknown) {
  return fetch(`${emulator.url}/picker/v1/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  const signedIn = await signIn(emulator, started.clientA, { scopes: PICKED_FILES_SCOPES });
  token = signedIn.tokens.access_token!;
  drive = driveFor(emulator, signedIn.auth);
  sheets = sheetsFor(emulator, signedIn.auth);
  otherAppToken = (await signIn(emulator, started.clientB, { scopes: PICKED_FILES_SCOPES })).tokens
    .access_token!;
  const seeded = await admin(emulator, 'POST', '/seed', {
    email: 'alice@example.com',
    files: [
      { name: 'Budget', values: [['Rent', 1200]] },
      { name: 'Plans', values: [['Trip']] },
      { name: 'Team budget', values: [['Q1']], driveId: '0ATeamDrive' },
    ],
  });
  expect(seeded.status).toBe(201);
  for (const file of (seeded.body as { files: drive_v3.Schema$File[] }).files) ids[file.name!] = file.id!;
  const bobs = await admin(emulator, 'POST', '/seed', {
    email: 'bob@example.com',
    files: [{ name: 'Bob only', values: [[1]] }],
  });
  ids['Bob only'] = (bobs.body as { files: drive_v3.Schema$File[] }).files[0]!.id!;
});
afterAll(async () => {
  await emulator?.close();
});

describe('drive.file alone, and the Google Picker', () => {
  it('reaches no existing file before a pick: Sheets and Drive answer 404, and files.list is empty', async () => {
    expect(await statusOf(sheets.spreadsheets.get({ spreadsheetId: ids.Budget! }))).toBe(404);
    expect(await statusOf(sheets.spreadsheets.values.get({ spreadsheetId: ids.Budget!, range: 'A1' }))).toBe(
      404,
    );
    expect(await statusOf(drive.files.get({ fileId: ids.Budget! }))).toBe(404);
    expect((await drive.files.list({})).data.files).toEqual([]);
  });

  it('lists the account’s spreadsheets to the picker page, shared-drive ones when the view enables drives', async () => {
    const mine = (await (await pickerCall('files', token)).json()) as { files: Array<{ name: string }> };
    expect(mine.files.map((file) => file.name).sort()).toEqual(['Budget', 'Plans']);
    const all = (await (
      await fetch(`${emulator.url}/picker/v1/files?drives=true`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { files: Array<{ name: string; driveId?: string }> };
    expect(all.files.map((file) => file.name).sort()).toEqual(['Budget', 'Plans', 'Team budget']);
    expect(all.files.find((file) => file.name === 'Team budget')?.driveId).toBe('0ATeamDrive');
    expect((await pickerCall('files', 'not-a-token')).status).toBe(401);
  });

  it('records the drive.file grant for the picked file only, and answers the callback’s data', async () => {
    const answer = await pickerCall('select', token, { ids: [ids.Budget] });
    expect(answer.status).toBe(200);
    const data = (await answer.json()) as { action: string; docs: Array<Record<string, unknown>> };
    expect(data.action).toBe('picked');
    expect(data.docs).toEqual([
      expect.objectContaining({
        id: ids.Budget,
        name: 'Budget',
        mimeType: 'application/vnd.google-apps.spreadsheet',
        serviceId: 'spread',
        url: expect.stringContaining(ids.Budget!),
      }),
    ]);
    const got = await sheets.spreadsheets.values.get({ spreadsheetId: ids.Budget!, range: 'A1:B1' });
    expect(got.data.values).toEqual([['Rent', '1200']]);
    expect((await drive.files.list({})).data.files?.map((file) => file.name)).toEqual(['Budget']);
    // The other spreadsheet is still out of reach, and so is Budget for another app.
    expect(await statusOf(sheets.spreadsheets.get({ spreadsheetId: ids.Plans! }))).toBe(404);
    const other = await fetch(`${emulator.url}/v4/spreadsheets/${ids.Budget}`, {
      headers: { authorization: `Bearer ${otherAppToken}` },
    });
    expect(other.status).toBe(404);
  });

  it('picks a shared-drive file, and refuses files of another account or ids that name nothing', async () => {
    expect((await pickerCall('select', token, { ids: [ids['Team budget']], drives: true })).status).toBe(200);
    expect(
      (await sheets.spreadsheets.get({ spreadsheetId: ids['Team budget']!, fields: 'properties.title' })).data
        .properties?.title,
    ).toBe('Team budget');
    const bobFile = ids['Bob only']!;
    expect((await pickerCall('select', token, { ids: [bobFile] })).status).toBe(404);
    expect((await pickerCall('select', token, { ids: [] })).status).toBe(400);
    expect((await pickerCall('select', token, { ids: ['1NoSuchFile'] })).status).toBe(404);
    expect(await statusOf(sheets.spreadsheets.get({ spreadsheetId: bobFile }))).toBe(404);
  });

  it('serves the stand-in api.js and the picker page', async () => {
    const script = await fetch(`${emulator.url}/js/api.js`);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(await script.text()).toContain('PickerBuilder');
    const page = await fetch(`${emulator.url}/picker`);
    expect(await page.text()).toContain('/picker/page.js');
  });
});
