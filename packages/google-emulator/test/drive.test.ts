import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { drive_v3 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const SPREADSHEET = 'application/vnd.google-apps.spreadsheet';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** Sheetgate's own grant: Sheets, read-only Drive, and files the app made. */
const SHEETGATE_SCOPES = ['openid', 'email', SCOPES.spreadsheets, SCOPES.driveReadonly, SCOPES.driveFile];

let emulator: GoogleEmulator;
let clientA: TestClient;
let clientB: TestClient;
/** Alice through client A with Sheetgate's scopes. */
let drive: drive_v3.Drive;
let auth: Awaited<ReturnType<typeof signIn>>['auth'];
let uploadOptions: { rootUrl: string };
const seeded: Record<string, string> = {};

beforeAll(async () => {
  ({ emulator, clientA, clientB } = await startTestEmulator());
  ({ auth } = await signIn(emulator, clientA, { scopes: SHEETGATE_SCOPES }));
  drive = driveFor(emulator, auth);
  // googleapis builds upload URLs from the per-call rootUrl only (see the README).
  uploadOptions = { rootUrl: `${emulator.url}/` };

  const aliceSeed = await admin(emulator, 'POST', '/seed', {
    email: 'alice@example.com',
    files: [
      {
        name: 'Budget 2024',
        values: [
          ['Item', 'Cost'],
          ['Rent', 1200],
          ['Food', '=2*150'],
        ],
        modifiedTime: '2024-03-01T10:00:00Z',
      },
      {
        name: 'Budget notes.csv',
        mimeType: 'text/csv',
        contentBase64: Buffer.from('a,b\n1,2\n').toString('base64'),
        modifiedTime: '2024-02-01T10:00:00Z',
      },
      { name: 'Old budget', values: [['x']], trashed: true, modifiedTime: '2023-01-01T10:00:00Z' },
      { name: "Alice's plan", values: [['plan']], modifiedTime: '2024-04-01T10:00:00Z' },
      { name: 'Superbudget', values: [['y']], modifiedTime: '2024-05-01T10:00:00Z' },
    ],
  });
  expect(aliceSeed.status).toBe(201);
  for (const file of (aliceSeed.body as { files: drive_v3.Schema$File[] }).files)
    seeded[file.name!] = file.id!;
  const bobSeed = await admin(emulator, 'POST', '/seed', {
    email: 'bob@example.com',
    files: [{ name: 'Bob budget', values: [['b']] }],
  });
  seeded['Bob budget'] = (bobSeed.body as { files: drive_v3.Schema$File[] }).files[0]!.id!;
});
afterAll(async () => {
  await emulator?.close();
});

const names = (files: drive_v3.Schema$File[] | undefined) => (files ?? []).map((file) => file.name).sort();

describe('files.list', () => {
  it('filters with the q grammar', async () => {
    const list = async (q: string) => names((await drive.files.list({ q, pageSize: 100 })).data.files);
    expect(await list(`mimeType = '${SPREADSHEET}' and trashed = false`)).toEqual([
      "Alice's plan",
      'Budget 2024',
      'Superbudget',
    ]);
    // `contains` matches word prefixes, as Drive documents: not "Superbudget".
    expect(await list("name contains 'budget'")).toEqual(['Budget 2024', 'Budget notes.csv', 'Old budget']);
    expect(await list("name contains 'budget' and not trashed = true")).toEqual([
      'Budget 2024',
      'Budget notes.csv',
    ]);
    expect(
      await list(`'me' in owners and (name = 'Alice\\'s plan' or mimeType != '${SPREADSHEET}')`),
    ).toEqual(["Alice's plan", 'Budget notes.csv']);
    expect(
      await list("modifiedTime > '2024-02-15T00:00:00Z' and modifiedTime < '2024-04-15T00:00:00'"),
    ).toEqual(["Alice's plan", 'Budget 2024']);
    expect(await list('trashed = true')).toEqual(['Old budget']);
  });

  it('answers a bad query with a 400 invalid error naming q', async () => {
    for (const q of [
      "name = 'unterminated",
      'name contains',
      "size > '3'",
      "trashed = 'yes'",
      "(name = 'a'",
      "name = 'a' and",
    ]) {
      const error = await failureOf(drive.files.list({ q }));
      expect(error.response?.status, q).toBe(400);
      expect(error.response?.data.error.errors[0]).toMatchObject({
        reason: 'invalid',
        location: 'q',
        locationType: 'parameter',
      });
    }
    expect((await failureOf(drive.files.list({ orderBy: 'size' }))).response?.status).toBe(400);
    expect((await failureOf(drive.files.list({ fields: 'files(id,nmae)' }))).response?.status).toBe(400);
    expect((await failureOf(drive.files.list({ pageSize: 5000 }))).response?.status).toBe(400);
  });

  it('pages with pageSize and nextPageToken, in orderBy order, with only the asked fields', async () => {
    const seen: drive_v3.Schema$File[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const { data } = await drive.files.list({
        q: "'me' in owners",
        orderBy: 'name',
        pageSize: 2,
        fields: 'nextPageToken, files(id,name,mimeType,modifiedTime)',
        ...(pageToken ? { pageToken } : {}),
      });
      seen.push(...(data.files ?? []));
      pageToken = data.nextPageToken ?? undefined;
      pages += 1;
    } while (pageToken);
    expect(pages).toBe(3);
    expect(seen.map((file) => file.name)).toEqual([
      "Alice's plan",
      'Budget 2024',
      'Budget notes.csv',
      'Old budget',
      'Superbudget',
    ]);
    expect(Object.keys(seen[0]!).sort()).toEqual(['id', 'mimeType', 'modifiedTime', 'name']);

    const newest = await drive.files.list({ orderBy: 'modifiedTime desc', pageSize: 1, fields: '*' });
    expect(newest.data.files?.[0]?.name).toBe('Superbudget');
    expect(newest.data.files?.[0]?.owners?.[0]?.emailAddress).toBe('alice@example.com');
    expect(newest.data.nextPageToken).toBeTruthy();
    // A page token belongs to its query.
    const replayed = await failureOf(
      drive.files.list({ q: 'trashed = true', pageToken: newest.data.nextPageToken! }),
    );
    expect(replayed.response?.status).toBe(400);
  });

  it('never shows another account’s files, and says 404 for them', async () => {
    const all = names((await drive.files.list({ pageSize: 1000 })).data.files);
    expect(all).not.toContain('Bob budget');
    const error = await failureOf(drive.files.get({ fileId: seeded['Bob budget']! }));
    expect(error.response?.status).toBe(404);
    expect(error.response?.data.error.errors[0]?.reason).toBe('notFound');
  });
});

describe('files.get', () => {
  it('returns metadata, the bytes with alt=media, and fileNotDownloadable for a native file', async () => {
    const { data } = await drive.files.get({
      fileId: seeded['Budget notes.csv']!,
      fields: 'id,name,mimeType,size,md5Checksum',
    });
    expect(data).toMatchObject({ name: 'Budget notes.csv', mimeType: 'text/csv', size: '8' });
    const plain = await drive.files.get({ fileId: seeded['Budget notes.csv']! });
    expect(Object.keys(plain.data).sort()).toEqual(['id', 'kind', 'mimeType', 'name']);
    const media = await drive.files.get(
      { fileId: seeded['Budget notes.csv']!, alt: 'media' },
      { responseType: 'text' },
    );
    expect(media.data).toBe('a,b\n1,2\n');
    const native = await failureOf(drive.files.get({ fileId: seeded['Budget 2024']!, alt: 'media' }));
    expect(native.response?.status).toBe(403);
    expect(native.response?.data.error.errors[0]?.reason).toBe('fileNotDownloadable');
  });
});

describe('files.create', () => {
  it('creates from metadata alone, including an empty native spreadsheet', async () => {
    const { data } = await drive.files.create({
      requestBody: { name: 'Blank', mimeType: SPREADSHEET },
      fields: 'id,name,mimeType',
    });
    expect(data).toMatchObject({ name: 'Blank', mimeType: SPREADSHEET });
    const sheet = await sheetsFor(emulator, auth).spreadsheets.get({ spreadsheetId: data.id! });
    expect(sheet.data.properties?.title).toBe('Blank');
  });

  it('uploads multipart, keeping the bytes', async () => {
    const { data } = await drive.files.create(
      {
        requestBody: { name: 'notes.txt' },
        media: { mimeType: 'text/plain', body: 'hello\r\n--world' },
        fields: 'id,mimeType,size',
      },
      uploadOptions,
    );
    expect(data).toMatchObject({ mimeType: 'text/plain', size: '14' });
    const media = await drive.files.get({ fileId: data.id!, alt: 'media' }, { responseType: 'text' });
    expect(media.data).toBe('hello\r\n--world');
  });

  it('uploads resumably: a session at Location, then the bytes in chunks answered 308 until the last', async () => {
    const start = await auth.request<string>({
      url: `${emulator.url}/upload/drive/v3/files`,
      method: 'POST',
      params: { uploadType: 'resumable', fields: 'id,name,mimeType,size' },
      headers: { 'x-upload-content-type': 'text/csv', 'content-type': 'application/json; charset=UTF-8' },
      data: { name: 'big.csv' },
    });
    const location = start.headers.get('location')!;
    expect(location).toContain('upload_id=');
    const bytes = Buffer.from('id,value\n1,one\n2,two\n');
    const first = await auth.request({
      url: location,
      method: 'PUT',
      headers: { 'content-range': `bytes 0-9/${bytes.length}` },
      data: bytes.subarray(0, 10),
      validateStatus: (status) => status === 308,
    });
    expect(first.status).toBe(308);
    expect(first.headers.get('range')).toBe('bytes=0-9');
    const last = await auth.request<drive_v3.Schema$File>({
      url: location,
      method: 'PUT',
      headers: { 'content-range': `bytes 10-${bytes.length - 1}/${bytes.length}` },
      data: bytes.subarray(10),
    });
    expect(last.data).toMatchObject({ name: 'big.csv', mimeType: 'text/csv', size: String(bytes.length) });
    const media = await drive.files.get({ fileId: last.data.id!, alt: 'media' }, { responseType: 'text' });
    expect(media.data).toBe(bytes.toString());
  });

  it('converts an uploaded csv into a native spreadsheet, and exports it back', async () => {
    const { data } = await drive.files.create(
      {
        requestBody: { name: 'Imported', mimeType: SPREADSHEET },
        media: { mimeType: 'text/csv', body: 'Name,Score\nAda,3\nLin,5\n' },
      },
      uploadOptions,
    );
    expect(data.mimeType).toBe(SPREADSHEET);
    const values = await sheetsFor(emulator, auth).spreadsheets.values.get({
      spreadsheetId: data.id!,
      range: 'A1:B3',
      valueRenderOption: 'UNFORMATTED_VALUE',
    });
    expect(values.data.values).toEqual([
      ['Name', 'Score'],
      ['Ada', 3],
      ['Lin', 5],
    ]);
    const csv = await drive.files.export(
      { fileId: data.id!, mimeType: 'text/csv' },
      { responseType: 'text' },
    );
    expect(String(csv.data).replace(/\r\n/g, '\n').trim()).toBe('Name,Score\nAda,3\nLin,5');
    const pdf = await drive.files.export(
      { fileId: data.id!, mimeType: 'application/pdf' },
      { responseType: 'arraybuffer' },
    );
    expect(
      Buffer.from(pdf.data as ArrayBuffer)
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    const ods = await drive.files.export(
      { fileId: data.id!, mimeType: 'application/vnd.oasis.opendocument.spreadsheet' },
      { responseType: 'arraybuffer' },
    );
    expect(
      Buffer.from(ods.data as ArrayBuffer)
        .subarray(0, 2)
        .toString(),
    ).toBe('PK');
    const unsupported = await failureOf(drive.files.export({ fileId: data.id!, mimeType: 'image/png' }));
    expect(unsupported.response?.status).toBe(400);
    const notNative = await failureOf(
      drive.files.export({ fileId: seeded['Budget notes.csv']!, mimeType: 'text/csv' }),
    );
    expect(notNative.response?.data.error.errors[0]?.reason).toBe('fileNotExportable');
  });

  it('round-trips real xlsx bytes through conversion and export', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Q1');
    sheet.addRows([
      ['Region', 'Sales'],
      ['North', 120],
      ['South', 80],
    ]);
    sheet.getCell('B4').value = { formula: 'SUM(B2:B3)' };
    const xlsx = Buffer.from(await workbook.xlsx.writeBuffer());
    const { data } = await drive.files.create(
      {
        requestBody: { name: 'Sales', mimeType: SPREADSHEET },
        media: { mimeType: XLSX, body: Readable.from([xlsx]) },
      },
      uploadOptions,
    );
    expect(data.mimeType).toBe(SPREADSHEET);
    const values = await sheetsFor(emulator, auth).spreadsheets.values.get({
      spreadsheetId: data.id!,
      range: 'Q1!A1:B4',
      valueRenderOption: 'UNFORMATTED_VALUE',
    });
    expect(values.data.values).toEqual([
      ['Region', 'Sales'],
      ['North', 120],
      ['South', 80],
      ['', 200],
    ]);

    const exported = await drive.files.export(
      { fileId: data.id!, mimeType: XLSX },
      { responseType: 'arraybuffer' },
    );
    const back = new ExcelJS.Workbook();
    await back.xlsx.load(exported.data as ArrayBuffer);
    const q1 = back.getWorksheet('Q1')!;
    expect(q1.getCell('A2').value).toBe('North');
    expect(q1.getCell('B3').value).toBe(80);
    expect(q1.getCell('B4').formula ?? (q1.getCell('B4').value as { formula?: string }).formula).toMatch(
      /SUM\(B2:B3\)/i,
    );
  });

  it('refuses a conversion Drive does not offer', async () => {
    const error = await failureOf(
      drive.files.create(
        { requestBody: { name: 'x', mimeType: SPREADSHEET }, media: { mimeType: 'image/png', body: 'png' } },
        uploadOptions,
      ),
    );
    expect(error.response?.status).toBe(400);
  });
});

describe('files.copy', () => {
  it('copies a native spreadsheet, and converts an xlsx file into one', async () => {
    const copy = await drive.files.copy({
      fileId: seeded['Budget 2024']!,
      requestBody: {},
      fields: 'id,name,mimeType',
    });
    expect(copy.data).toMatchObject({ name: 'Copy of Budget 2024', mimeType: SPREADSHEET });
    const values = await sheetsFor(emulator, auth).spreadsheets.values.get({
      spreadsheetId: copy.data.id!,
      range: 'A3:B3',
    });
    expect(values.data.values).toEqual([['Food', '300']]);

    const converted = await drive.files.copy({
      fileId: seeded['Budget notes.csv']!,
      requestBody: { name: 'Notes sheet', mimeType: SPREADSHEET },
    });
    expect(converted.data.mimeType).toBe(SPREADSHEET);
    const cells = await sheetsFor(emulator, auth).spreadsheets.values.get({
      spreadsheetId: converted.data.id!,
      range: 'A1:B2',
    });
    expect(cells.data.values).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });
});

describe('scopes and drive.file visibility', () => {
  it('shows a file made by client A to client A only when the other client has only drive.file', async () => {
    const { data } = await drive.files.create({ requestBody: { name: 'Made by A', mimeType: SPREADSHEET } });
    const b = await signIn(emulator, clientB, { scopes: ['openid', SCOPES.driveFile] });
    const driveB = driveFor(emulator, b.auth);
    expect(names((await driveB.files.list({ pageSize: 1000 })).data.files)).not.toContain('Made by A');
    expect((await failureOf(driveB.files.get({ fileId: data.id! }))).response?.status).toBe(404);
    // Client A with drive.file alone still sees what it made, and nothing else.
    const a = await signIn(emulator, clientA, { scopes: ['openid', SCOPES.driveFile] });
    const listedForA = names((await driveFor(emulator, a.auth).files.list({ pageSize: 1000 })).data.files);
    expect(listedForA).toContain('Made by A');
    expect(listedForA).not.toContain('Budget 2024');
    // Client B's own file is visible to B.
    const own = await driveB.files.create({ requestBody: { name: 'Made by B' } });
    expect((await driveB.files.get({ fileId: own.data.id! })).data.name).toBe('Made by B');
  });

  it('lets drive.readonly list and read but not create', async () => {
    const readOnly = await signIn(emulator, clientB, { scopes: [SCOPES.driveReadonly] });
    const driveRo = driveFor(emulator, readOnly.auth);
    expect(names((await driveRo.files.list({ pageSize: 1000 })).data.files)).toContain('Budget 2024');
    const error = await failureOf(driveRo.files.create({ requestBody: { name: 'nope' } }));
    expect(error.response?.status).toBe(403);
    expect(error.response?.data.error.errors[0]?.reason).toBe('insufficientPermissions');
    // With drive.file too, it still may not change a file it did not make.
    const mixed = await signIn(emulator, clientB, { scopes: [SCOPES.driveReadonly, SCOPES.driveFile] });
    const rename = await failureOf(
      driveFor(emulator, mixed.auth).files.update({
        fileId: seeded['Budget 2024']!,
        requestBody: { name: 'x' },
      }),
    );
    expect(rename.response?.status).toBe(403);
    expect(rename.response?.data.error.errors[0]?.reason).toBe('insufficientFilePermissions');
  });

  it('lists a spreadsheet made through the Sheets API', async () => {
    const created = await sheetsFor(emulator, auth).spreadsheets.create({
      requestBody: { properties: { title: 'From Sheets' } },
    });
    const { data } = await drive.files.list({ q: "name = 'From Sheets'", fields: 'files(id,mimeType)' });
    expect(data.files).toEqual([{ id: created.data.spreadsheetId, mimeType: SPREADSHEET }]);
  });
});

describe('files.update and files.delete', () => {
  it('renames, trashes and deletes a file the app made', async () => {
    const { data } = await drive.files.create({ requestBody: { name: 'Draft', mimeType: SPREADSHEET } });
    const renamed = await drive.files.update({
      fileId: data.id!,
      requestBody: { name: 'Final', trashed: true },
      fields: 'name,trashed',
    });
    expect(renamed.data).toEqual({ name: 'Final', trashed: true });
    const sheet = await sheetsFor(emulator, auth).spreadsheets.get({ spreadsheetId: data.id! });
    expect(sheet.data.properties?.title).toBe('Final');
    expect((await drive.files.delete({ fileId: data.id! })).status).toBe(204);
    expect((await failureOf(drive.files.get({ fileId: data.id! }))).response?.status).toBe(404);
  });
});
