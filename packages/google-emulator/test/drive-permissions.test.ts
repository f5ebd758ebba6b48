import type { drive_v3 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { admin, driveFor, failureOf, SCOPES, signIn, startTestEmulator } from './support/emulator.ts';

// Drive v3 permissions through googleapis alone, with Sheetgate's grant (spreadsheets,
// drive.readonly, drive.file): a file the app made can be shared, one it did not make can be read
// (its permissions listed) but not shared — not found, as Google answers under drive.file.

const SPREADSHEET = 'application/vnd.google-apps.spreadsheet';
const SHEETGATE_SCOPES = ['openid', 'email', SCOPES.spreadsheets, SCOPES.driveReadonly, SCOPES.driveFile];

let emulator: GoogleEmulator;
let drive: drive_v3.Drive;
let bobDrive: drive_v3.Drive;
let made: string;
let seeded: string;

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  drive = driveFor(emulator, (await signIn(emulator, started.clientA, { scopes: SHEETGATE_SCOPES })).auth);
  bobDrive = driveFor(
    emulator,
    (await signIn(emulator, started.clientA, { scopes: SHEETGATE_SCOPES, account: 'bob@example.com' })).auth,
  );
  made = (await drive.files.create({ requestBody: { name: 'Made', mimeType: SPREADSHEET } })).data.id!;
  const seed = await admin(emulator, 'POST', '/seed', {
    email: 'alice@example.com',
    files: [{ name: 'Not opened', values: [['x']] }],
  });
  seeded = (seed.body as { files: Array<{ id: string }> }).files[0]!.id;
});
afterAll(async () => {
  await emulator?.close();
});

const fields = 'id,type,role,emailAddress,domain,allowFileDiscovery';

describe('permissions', () => {
  it('creates, lists, gets, updates and deletes permissions of a file the app made', async () => {
    const { data: owner } = await drive.permissions.list({ fileId: made, fields: `permissions(${fields})` });
    expect(owner.permissions).toEqual([
      {
        id: expect.stringMatching(/^\d{21}$/),
        type: 'user',
        role: 'owner',
        emailAddress: 'alice@example.com',
      },
    ]);

    const { data: carol } = await drive.permissions.create({
      fileId: made,
      sendNotificationEmail: false,
      requestBody: { type: 'user', role: 'reader', emailAddress: 'Carol@Example.com' },
      fields,
    });
    expect(carol).toEqual({
      id: expect.stringMatching(/^\d{21}$/),
      type: 'user',
      role: 'reader',
      emailAddress: 'carol@example.com',
    });
    const { data: anyone } = await drive.permissions.create({
      fileId: made,
      requestBody: { type: 'anyone', role: 'commenter' },
      fields,
    });
    expect(anyone).toEqual({
      id: 'anyoneWithLink',
      type: 'anyone',
      role: 'commenter',
      allowFileDiscovery: false,
    });
    const { data: domain } = await drive.permissions.create({
      fileId: made,
      requestBody: { type: 'domain', role: 'reader', domain: 'example.org' },
    });
    expect(domain).toEqual({ kind: 'drive#permission', id: domain.id, type: 'domain', role: 'reader' });

    // Sharing with the same person again changes the role of the same permission.
    const { data: again } = await drive.permissions.create({
      fileId: made,
      requestBody: { type: 'user', role: 'writer', emailAddress: 'carol@example.com' },
      fields: 'id,role',
    });
    expect(again).toEqual({ id: carol.id, role: 'writer' });

    const { data: updated } = await drive.permissions.update({
      fileId: made,
      permissionId: carol.id!,
      requestBody: { role: 'commenter' },
      fields: 'id,role',
    });
    expect(updated).toEqual({ id: carol.id, role: 'commenter' });
    expect(
      (await drive.permissions.get({ fileId: made, permissionId: carol.id!, fields: 'role' })).data,
    ).toEqual({
      role: 'commenter',
    });

    await drive.permissions.delete({ fileId: made, permissionId: carol.id! });
    const { data: after } = await drive.permissions.list({ fileId: made, fields: 'permissions(type,role)' });
    expect(after.permissions).toEqual([
      { type: 'user', role: 'owner' },
      { type: 'anyone', role: 'commenter' },
      { type: 'domain', role: 'reader' },
    ]);
    const page = await drive.permissions.list({
      fileId: made,
      pageSize: 2,
      fields: 'nextPageToken,permissions(id)',
    });
    expect(page.data.permissions).toHaveLength(2);
    const rest = await drive.permissions.list({
      fileId: made,
      pageSize: 2,
      pageToken: page.data.nextPageToken!,
    });
    expect(rest.data.permissions).toHaveLength(1);
  });

  it('answers bad permissions with Google’s errors', async () => {
    const create = (
      requestBody: drive_v3.Schema$Permission,
      extra: Partial<drive_v3.Params$Resource$Permissions$Create> = {},
    ) => failureOf(drive.permissions.create({ fileId: made, requestBody, ...extra }));
    const cases: Array<[Promise<Awaited<ReturnType<typeof create>>>, number, string, string | undefined]> = [
      [
        create({ type: 'user', role: 'boss', emailAddress: 'x@example.com' }),
        400,
        'invalid',
        'permission.role',
      ],
      [create({ type: 'user', role: 'reader' }), 400, 'required', 'permission.emailAddress'],
      [create({ type: 'group', role: 'reader' }), 400, 'required', 'permission.emailAddress'],
      [
        create({ type: 'user', role: 'reader', emailAddress: 'not an email' }),
        400,
        'invalid',
        'permission.emailAddress',
      ],
      [create({ type: 'domain', role: 'reader' }), 400, 'required', 'permission.domain'],
      [create({ type: 'robot', role: 'reader' }), 400, 'invalid', 'permission.type'],
      [create({ role: 'reader' }), 400, 'required', 'permission.type'],
      [create({ type: 'user', emailAddress: 'x@example.com' }), 400, 'required', 'permission.role'],
      [
        create({ type: 'user', role: 'organizer', emailAddress: 'x@example.com' }),
        400,
        'invalid',
        'permission.role',
      ],
      [
        create({ type: 'anyone', role: 'reader' }, { sendNotificationEmail: true }),
        400,
        'invalidSharingRequest',
        undefined,
      ],
      [
        create({ type: 'user', role: 'owner', emailAddress: 'x@example.com' }),
        403,
        'consentRequiredForOwnershipTransfer',
        undefined,
      ],
    ];
    for (const [failure, status, reason, location] of cases) {
      const { response } = await failure;
      expect(response?.status, JSON.stringify(response?.data)).toBe(status);
      expect(response?.data.error.errors[0]?.reason).toBe(reason);
      expect(response?.data.error.errors[0]?.location).toBe(location);
    }
    const { data } = await drive.permissions.list({ fileId: made, fields: 'permissions(id,role)' });
    const owner = data.permissions!.find((permission) => permission.role === 'owner')!;
    const removeOwner = await failureOf(drive.permissions.delete({ fileId: made, permissionId: owner.id! }));
    expect(removeOwner.response?.status).toBe(403);
    const missing = await failureOf(drive.permissions.delete({ fileId: made, permissionId: '123' }));
    expect(missing.response?.status).toBe(404);
    expect(missing.response?.data.error.message).toBe('Permission not found: 123.');
  });

  it('lists but does not change permissions of a file the app did not make (404, drive.file)', async () => {
    const { data } = await drive.permissions.list({ fileId: seeded, fields: 'permissions(role)' });
    expect(data.permissions).toEqual([{ role: 'owner' }]);
    const failure = await failureOf(
      drive.permissions.create({ fileId: seeded, requestBody: { type: 'anyone', role: 'reader' } }),
    );
    expect(failure.response?.status).toBe(404);
    expect(failure.response?.data.error.message).toBe(`File not found: ${seeded}.`);
  });

  it('does not let another account see or share the file', async () => {
    expect((await failureOf(bobDrive.permissions.list({ fileId: made }))).response?.status).toBe(404);
    const failure = await failureOf(
      bobDrive.permissions.create({ fileId: made, requestBody: { type: 'anyone', role: 'reader' } }),
    );
    expect(failure.response?.status).toBe(404);
  });

  it('counts each method by its Google id', async () => {
    const { body } = await admin(emulator, 'GET', '/stats');
    const methods = Object.keys((body as { methods: Record<string, unknown> }).methods);
    for (const method of ['create', 'list', 'get', 'update', 'delete'])
      expect(methods).toContain(`drive.permissions.${method}`);
  });
});
