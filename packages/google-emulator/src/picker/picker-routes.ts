import Router from '@koa/router';
import type { Context } from 'koa';
import { DRIVE_READ_SCOPES } from '../access-control.ts';
import { type AccessControl, type DriveFile, GOOGLE_SCOPES, SPREADSHEET_MIME_TYPE } from '../contracts.ts';
import type { MemoryFileStore } from '../drive/file-store.ts';
import { googleErrors } from '../google-error.ts';
import { readJsonBody } from '../http/request-body.ts';
import { PICKER_PAGE, PICKER_PAGE_SCRIPT, PICKER_STAND_IN_SCRIPT } from './picker-scripts.ts';

/** Where the stand-in for `https://apis.google.com/js/api.js` is served: Google's own path. */
export const PICKER_SCRIPT_PATH = '/js/api.js';
export const PICKER_PAGE_PATH = '/picker';

/** The most files one selection may name (Google's Picker bounds a multiple selection too). */
const MAX_PICKED = 100;

/**
 * One picked file as Google's Picker hands it to the callback (`data.docs[i]`): the fields of
 * google.picker.Document (id, serviceId, mimeType, name, description, type, lastEditedUtc,
 * iconUrl, url, embedUrl, sizeBytes, parentId, isShared, driveSuccess), with `driveId` for a file
 * in a shared drive.
 */
export function pickerDocument(file: DriveFile, publicUrl: string) {
  const spreadsheet = file.mimeType === SPREADSHEET_MIME_TYPE;
  return {
    id: file.id,
    serviceId: spreadsheet ? 'spread' : 'docs',
    mimeType: file.mimeType,
    name: file.name,
    description: '',
    type: 'document',
    lastEditedUtc: Date.parse(file.modifiedTime),
    iconUrl: `${publicUrl}/picker/icon.svg`,
    url: spreadsheet
      ? `${publicUrl}/spreadsheets/d/${file.id}/edit?usp=drive_web`
      : `${publicUrl}/file/d/${file.id}/view?usp=drive_web`,
    embedUrl: `${publicUrl}/spreadsheets/d/${file.id}/htmlembed`,
    sizeBytes: file.content?.length ?? 0,
    parentId: file.parents[0] ?? '',
    isShared: file.driveId !== undefined,
    driveSuccess: true,
    ...(file.driveId ? { driveId: file.driveId } : {}),
  };
}

const noStore = (ctx: Context) => ctx.set('cache-control', 'no-store');

/**
 * The Google Picker, as far as an app sees it: the loader script (`gapi.load('picker')` and the
 * `google.picker` builder API) served at Google's path, the picker page it frames, and the two
 * calls that page makes with the app's OAuth token (the token `setOAuthToken` gave, which names
 * the account and the app): the account's files, and the selection. Selecting a file records
 * the `drive.file` grant for the token's OAuth client, exactly what Google's Picker does: from
 * then on a `drive.file` token of that app reaches the file through Drive and Sheets.
 */
export function pickerRoutes(deps: { files: MemoryFileStore; access: AccessControl; publicUrl: string }) {
  const router = new Router();
  // The Picker works for a token with drive.file (or a broader Drive scope).
  const pickerScopes = [GOOGLE_SCOPES.driveFile, ...DRIVE_READ_SCOPES];

  const visible = (ctx: Context, includeSharedDrives: boolean) => {
    const caller = deps.access.authenticate(ctx, pickerScopes);
    const files = deps.files
      .listByOwner(caller.account.email)
      .filter((file) => !file.trashed && file.mimeType === SPREADSHEET_MIME_TYPE)
      .filter((file) => includeSharedDrives || file.driveId === undefined);
    return { caller, files };
  };

  router.get(PICKER_SCRIPT_PATH, (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('cache-control', 'no-cache');
    ctx.body = PICKER_STAND_IN_SCRIPT;
  });
  router.get(PICKER_PAGE_PATH, (ctx) => {
    noStore(ctx);
    ctx.type = 'html';
    ctx.set(
      'content-security-policy',
      "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'",
    );
    ctx.body = PICKER_PAGE;
  });
  router.get(`${PICKER_PAGE_PATH}/page.js`, (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('cache-control', 'no-cache');
    ctx.body = PICKER_PAGE_SCRIPT;
  });

  /** The account's spreadsheets, newest first, as the picker page lists them. */
  router.get(`${PICKER_PAGE_PATH}/v1/files`, (ctx) => {
    noStore(ctx);
    const { files } = visible(ctx, ctx.query.drives === 'true');
    files.sort((a, b) => b.modifiedTime.localeCompare(a.modifiedTime));
    ctx.body = { files: files.map((file) => pickerDocument(file, deps.publicUrl)) };
  });

  /** The selection: grants the token's app drive.file access to each file, and answers the callback's data. */
  router.post(`${PICKER_PAGE_PATH}/v1/select`, async (ctx) => {
    noStore(ctx);
    const body = (await readJsonBody(ctx).catch(() => undefined)) as
      | { ids?: unknown; drives?: unknown }
      | undefined;
    const ids = Array.isArray(body?.ids) ? body.ids.filter((id): id is string => typeof id === 'string') : [];
    if (ids.length === 0 || ids.length > MAX_PICKED)
      throw googleErrors.badRequest(`Select between 1 and ${MAX_PICKED} files.`);
    const { caller, files } = visible(ctx, body?.drives === true);
    const byId = new Map(files.map((file) => [file.id, file]));
    const picked = ids.map((id) => byId.get(id));
    if (picked.some((file) => file === undefined)) throw googleErrors.notFound();
    for (const file of picked as DriveFile[]) file.appClientIds.add(caller.clientId);
    ctx.body = {
      action: 'picked',
      docs: (picked as DriveFile[]).map((file) => pickerDocument(file, deps.publicUrl)),
    };
  });
  return router;
}
