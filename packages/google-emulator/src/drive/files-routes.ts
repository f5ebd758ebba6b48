import Router from '@koa/router';
import type { drive_v3 } from 'googleapis';
import type { Context } from 'koa';
import { DRIVE_READ_SCOPES, DRIVE_WRITE_SCOPES } from '../access-control.ts';
import { accountFor } from '../accounts.ts';
import { type Caller, type DriveFile, GOOGLE_SCOPES, SPREADSHEET_MIME_TYPE } from '../contracts.ts';
import { googleErrors } from '../google-error.ts';
import { readJsonBody } from '../http/request-body.ts';
import { driveErrors } from './drive-errors.ts';
import type { DriveDeps, DriveLibrary } from './drive-library.ts';
import { applyFieldMask, parseFieldMask } from './fields.ts';
import { parseFileMetadata } from './file-metadata.ts';
import { fileResource, isNative, selectFileFields, selectFileListFields } from './file-resource.ts';
import { listPage, parseOrderBy, parsePageSize } from './list-files.ts';
import { parseFileQuery } from './query.ts';
import { allDrivesFlags, checkParents, listedWith, sharedDriveGate } from './shared-drives.ts';

const DRIVE_CONTENT_SCOPES = [GOOGLE_SCOPES.drive, GOOGLE_SCOPES.driveReadonly, GOOGLE_SCOPES.driveFile];

export const queryString = (ctx: Context, name: string): string | undefined => {
  const value = ctx.query[name];
  return Array.isArray(value) ? value[0] : value;
};

export async function readMetadataBody(ctx: Context) {
  let body: unknown;
  try {
    body = await readJsonBody(ctx);
  } catch {
    throw googleErrors.badRequest('Invalid JSON payload received.', 'parseError');
  }
  return parseFileMetadata(body);
}

/** Drive v3 files.list, get, create (metadata only), update, delete, copy, export, and about.get. */
export function filesRoutes(deps: DriveDeps, drive: DriveLibrary) {
  const { access, files, publicUrl } = deps;
  const router = new Router({ prefix: '/drive/v3' });
  const respondWithFile = (ctx: Context, caller: Caller, file: DriveFile) => {
    ctx.body = selectFileFields(
      fileResource(file, publicUrl, caller.account.email),
      queryString(ctx, 'fields'),
    );
  };

  router.param('fileId', sharedDriveGate(files));
  const writableBy = (caller: Caller) => (file: DriveFile) =>
    access.canAccess(caller, file, 'write', 'drive');

  router.get('/files', (ctx) => {
    const caller = access.authenticate(ctx, DRIVE_READ_SCOPES);
    const drives = allDrivesFlags(ctx);
    const q = queryString(ctx, 'q') ?? '';
    const orderBy = queryString(ctx, 'orderBy');
    const fields = queryString(ctx, 'fields');
    // Validate the fields mask before doing any work, as Google does.
    if (fields) parseFieldMask(fields);
    const page = listPage(
      files
        .listByOwner(caller.account.email)
        .filter((file) => listedWith(drives, file) && access.canAccess(caller, file, 'read', 'drive')),
      {
        query: parseFileQuery(q),
        callerEmail: caller.account.email,
        textOf: (file) => (file.mimeType === SPREADSHEET_MIME_TYPE ? deps.spreadsheets.textOf(file.id) : ''),
        order: parseOrderBy(orderBy),
        pageSize: parsePageSize(queryString(ctx, 'pageSize')),
        queryKey: `${caller.account.email}\n${q}\n${orderBy ?? ''}\n${drives.corpora}:${drives.driveId ?? ''}`,
        ...(queryString(ctx, 'pageToken') ? { pageToken: queryString(ctx, 'pageToken')! } : {}),
      },
    );
    const list: drive_v3.Schema$FileList = {
      kind: 'drive#fileList',
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
      incompleteSearch: false,
      files: page.files.map((file) => fileResource(file, publicUrl, caller.account.email)),
    };
    ctx.body = selectFileListFields(list, fields);
  });

  router.post('/files', async (ctx) => {
    const caller = access.authenticate(ctx, DRIVE_WRITE_SCOPES);
    const metadata = await readMetadataBody(ctx);
    checkParents(ctx, files, metadata, writableBy(caller));
    const file = await drive.create(caller, metadata, undefined);
    respondWithFile(ctx, caller, file);
  });

  router.get('/files/:fileId', (ctx) => {
    const alt = queryString(ctx, 'alt') ?? 'json';
    if (alt === 'media') {
      const caller = access.authenticate(ctx, DRIVE_CONTENT_SCOPES);
      const file = drive.fileFor(caller, ctx.params.fileId!, 'read');
      if (isNative(file)) throw driveErrors.fileNotDownloadable();
      ctx.type = file.mimeType;
      ctx.body = file.content ?? Buffer.alloc(0);
      return;
    }
    if (alt !== 'json')
      throw driveErrors.invalidParameter('alt', `Invalid value '${alt}'. Values must be json or media`);
    const caller = access.authenticate(ctx, DRIVE_READ_SCOPES);
    respondWithFile(ctx, caller, drive.fileFor(caller, ctx.params.fileId!, 'read'));
  });

  router.patch('/files/:fileId', async (ctx) => {
    const caller = access.authenticate(ctx, DRIVE_WRITE_SCOPES);
    const metadata = await readMetadataBody(ctx);
    const changes = parentChanges(ctx);
    checkParents(ctx, files, { parents: changes.add }, writableBy(caller));
    const file = await drive.update(caller, ctx.params.fileId!, metadata, changes, undefined);
    respondWithFile(ctx, caller, file);
  });

  router.delete('/files/:fileId', (ctx) => {
    const caller = access.authenticate(ctx, DRIVE_WRITE_SCOPES);
    drive.delete(caller, ctx.params.fileId!);
    ctx.status = 204;
  });

  router.post('/files/:fileId/copy', async (ctx) => {
    const caller = access.authenticate(ctx, DRIVE_WRITE_SCOPES);
    const metadata = await readMetadataBody(ctx);
    checkParents(ctx, files, metadata, writableBy(caller));
    const file = await drive.copy(caller, ctx.params.fileId!, metadata);
    respondWithFile(ctx, caller, file);
  });

  router.get('/files/:fileId/export', async (ctx) => {
    const caller = access.authenticate(ctx, DRIVE_CONTENT_SCOPES);
    const mimeType = queryString(ctx, 'mimeType');
    const bytes = await drive.export(caller, ctx.params.fileId!, mimeType);
    ctx.type = mimeType!;
    ctx.body = bytes;
  });

  router.get('/about', (ctx) => {
    const caller = access.authenticate(ctx, DRIVE_READ_SCOPES);
    const fields = queryString(ctx, 'fields');
    if (!fields) throw driveErrors.required('fields', "The 'fields' parameter is required for this method.");
    const account = accountFor(caller.account.email);
    const about: drive_v3.Schema$About = {
      kind: 'drive#about',
      user: {
        kind: 'drive#user',
        displayName: account.name,
        emailAddress: account.email,
        me: true,
        permissionId: account.sub,
      },
      storageQuota: { limit: '16106127360', usage: '0', usageInDrive: '0', usageInDriveTrash: '0' },
    };
    ctx.body = applyFieldMask(about, parseFieldMask(fields), {});
  });
  return router;
}

export function parentChanges(ctx: Context) {
  const list = (name: string) =>
    (queryString(ctx, name) ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean);
  return { add: list('addParents'), remove: list('removeParents') };
}
