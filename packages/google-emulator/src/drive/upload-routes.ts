import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { DRIVE_WRITE_SCOPES } from '../access-control.ts';
import type { Caller } from '../contracts.ts';
import { googleErrors } from '../google-error.ts';
import { readRawBody } from '../http/request-body.ts';
import { driveErrors } from './drive-errors.ts';
import type { DriveDeps, DriveLibrary, Media } from './drive-library.ts';
import type { FileMetadata } from './file-metadata.ts';
import { parseFileMetadata } from './file-metadata.ts';
import { fileResource, selectFileFields } from './file-resource.ts';
import { parentChanges, queryString, readMetadataBody } from './files-routes.ts';
import { parseMultipartRelated } from './multipart.ts';
import { checkParents, sharedDriveGate } from './shared-drives.ts';

/** A resumable upload in progress: what the initiating request said, and the bytes so far. */
interface UploadSession {
  caller: Caller;
  metadata: FileMetadata;
  /** The file being replaced, for files.update; a new file otherwise. */
  fileId: string | undefined;
  contentType: string | undefined;
  chunks: Buffer[];
  received: number;
  fields: string | undefined;
  createdAt: number;
}

/** Google keeps resumable sessions a week; the emulator a day is plenty. */
const SESSION_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Drive's upload endpoints: `uploadType=media` (bytes only), `multipart` (metadata + bytes in one
 * multipart/related body) and `resumable` (a POST that opens a session at `Location`, then PUTs of
 * the bytes, whole or in `Content-Range` chunks answered 308 until the last).
 */
export function uploadRoutes(deps: DriveDeps, drive: DriveLibrary) {
  const { access, publicUrl, files } = deps;
  const sessions = new Map<string, UploadSession>();
  const router = new Router({ prefix: '/upload/drive/v3' });
  router.param('fileId', sharedDriveGate(files));

  const finish = async (
    ctx: Context,
    caller: Caller,
    fileId: string | undefined,
    metadata: FileMetadata,
    media: Media,
    fields: string | undefined,
  ) => {
    const file = fileId
      ? await drive.update(caller, fileId, metadata, parentChanges(ctx), media)
      : await drive.create(caller, metadata, media);
    ctx.body = selectFileFields(fileResource(file, publicUrl, caller.account.email), fields);
  };

  const upload = async (ctx: Context, fileId: string | undefined) => {
    const caller = access.authenticate(ctx, DRIVE_WRITE_SCOPES);
    // Checked before any bytes are taken, as Google does.
    if (fileId) drive.fileFor(caller, fileId, 'write');
    const uploadType = queryString(ctx, 'uploadType');
    const fields = queryString(ctx, 'fields');
    if (uploadType === 'media') {
      const media = { contentType: ctx.get('content-type') || undefined, body: await readRawBody(ctx) };
      return finish(ctx, caller, fileId, {}, media, fields);
    }
    if (uploadType === 'multipart') {
      const { metadata, media } = parseMultipartRelated(ctx.get('content-type'), await readRawBody(ctx));
      const parsed = parseFileMetadata(metadata);
      checkParents(ctx, files, parsed, (file) => access.canAccess(caller, file, 'write', 'drive'));
      return finish(
        ctx,
        caller,
        fileId,
        parsed,
        { contentType: media.contentType, body: media.body },
        fields,
      );
    }
    if (uploadType === 'resumable') {
      sweep(sessions);
      const uploadId = randomBytes(36).toString('base64url');
      const metadata = await readMetadataBody(ctx);
      checkParents(ctx, files, metadata, (file) => access.canAccess(caller, file, 'write', 'drive'));
      sessions.set(uploadId, {
        caller,
        metadata,
        fileId,
        contentType: ctx.get('x-upload-content-type') || undefined,
        chunks: [],
        received: 0,
        fields,
        createdAt: Date.now(),
      });
      const location = new URL(`${publicUrl}${ctx.path}`);
      location.searchParams.set('uploadType', 'resumable');
      location.searchParams.set('upload_id', uploadId);
      if (fields) location.searchParams.set('fields', fields);
      ctx.set('location', location.toString());
      ctx.set('x-guploader-uploadid', uploadId);
      ctx.status = 200;
      ctx.body = '';
      return;
    }
    throw driveErrors.invalidParameter(
      'uploadType',
      `Invalid upload type: ${uploadType ?? '(none)'}. Use media, multipart or resumable.`,
    );
  };

  router.post('/files', (ctx) => upload(ctx, undefined));
  router.patch('/files/:fileId', (ctx) => upload(ctx, ctx.params.fileId));

  // The session URI is the credential for the rest of a resumable upload, as at Google.
  const resume = async (ctx: Context) => {
    const uploadId = queryString(ctx, 'upload_id') ?? '';
    const session = sessions.get(uploadId);
    if (!session) throw googleErrors.notFound('No such upload session.', 'notFound');
    const body = await readRawBody(ctx);
    const range = ctx.get('content-range');
    const match = /^bytes (?:(\d+)-(\d+)|\*)\/(\d+|\*)$/.exec(range.trim());
    if (range && !match) throw googleErrors.badRequest(`Invalid Content-Range: ${range}`);
    const total = match?.[3] && match[3] !== '*' ? Number(match[3]) : undefined;
    if (match?.[1] !== undefined) {
      if (Number(match[1]) !== session.received || Number(match[2]) - Number(match[1]) + 1 !== body.length) {
        throw googleErrors.badRequest(
          `Content-Range ${range} does not continue at byte ${session.received}.`,
        );
      }
    }
    if (body.length > 0) {
      session.chunks.push(body);
      session.received += body.length;
    }
    const complete = !range || (total !== undefined && session.received >= total);
    if (!complete) {
      ctx.status = 308;
      if (session.received > 0) ctx.set('range', `bytes=0-${session.received - 1}`);
      ctx.body = '';
      return;
    }
    sessions.delete(uploadId);
    const media = { contentType: session.contentType, body: Buffer.concat(session.chunks) };
    await finish(
      ctx,
      session.caller,
      session.fileId,
      session.metadata,
      media,
      session.fields ?? queryString(ctx, 'fields'),
    );
  };
  router.put('/files', resume);
  router.put('/files/:fileId', resume);
  return router;
}

function sweep(sessions: Map<string, UploadSession>) {
  const now = Date.now();
  for (const [id, session] of sessions) if (session.createdAt + SESSION_TTL_MS < now) sessions.delete(id);
}
