import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { drive_v3 } from 'googleapis';
import type { Context } from 'koa';
import { DRIVE_READ_SCOPES, DRIVE_WRITE_SCOPES } from '../access-control.ts';
import type { Account, Caller, DriveFile } from '../contracts.ts';
import { GoogleApiError, googleErrors } from '../google-error.ts';
import { readJsonBody } from '../http/request-body.ts';
import { driveErrors } from './drive-errors.ts';
import type { DriveDeps, DriveLibrary } from './drive-library.ts';
import { applyFieldMask, type KnownFields, parseFieldMask } from './fields.ts';
import { queryString } from './files-routes.ts';

interface StoredReply {
  id: string;
  author: Account;
  content: string;
  action?: 'resolve' | 'reopen';
  createdTime: string;
  modifiedTime: string;
  deleted: boolean;
}

interface StoredComment {
  id: string;
  author: Account;
  content: string;
  quotedFileContent?: { mimeType: string; value: string };
  anchor?: string;
  createdTime: string;
  modifiedTime: string;
  resolved: boolean;
  deleted: boolean;
  replies: StoredReply[];
}

/** Every file's comments and their replies, in memory. */
export class MemoryCommentStore {
  readonly #byFile = new Map<string, StoredComment[]>();

  list(fileId: string): StoredComment[] {
    let list = this.#byFile.get(fileId);
    if (!list) {
      list = [];
      this.#byFile.set(fileId, list);
    }
    return list;
  }

  clear(): void {
    this.#byFile.clear();
  }
}

const USER_KEYS = new Set(['kind', 'displayName', 'photoLink', 'me', 'permissionId', 'emailAddress']);
const REPLY_KEYS = new Set([
  'kind',
  'id',
  'createdTime',
  'modifiedTime',
  'author',
  'htmlContent',
  'content',
  'deleted',
  'action',
]);
const REPLY_FIELDS: KnownFields = { keys: REPLY_KEYS, nested: { author: { keys: USER_KEYS } } };
const COMMENT_FIELDS: KnownFields = {
  keys: new Set([
    'kind',
    'id',
    'createdTime',
    'modifiedTime',
    'author',
    'htmlContent',
    'content',
    'deleted',
    'resolved',
    'quotedFileContent',
    'anchor',
    'replies',
    'assigneeEmailAddress',
    'mentionedEmailAddresses',
  ]),
  nested: { author: { keys: USER_KEYS }, replies: REPLY_FIELDS },
};
const COMMENT_LIST_FIELDS: KnownFields = {
  keys: new Set(['kind', 'nextPageToken', 'comments']),
  nested: { comments: COMMENT_FIELDS },
};
const REPLY_LIST_FIELDS: KnownFields = {
  keys: new Set(['kind', 'nextPageToken', 'replies']),
  nested: { replies: REPLY_FIELDS },
};

const MAX_CONTENT = 30_000;

const commentErrors = {
  notFound: (kind: 'Comment' | 'Reply', id: string) =>
    new GoogleApiError({
      code: 404,
      status: 'NOT_FOUND',
      message: `${kind} not found: ${id}.`,
      reason: 'notFound',
      location: kind === 'Comment' ? 'commentId' : 'replyId',
      locationType: 'parameter',
    }),
  required: (field: string, message: string) =>
    new GoogleApiError({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message,
      reason: 'required',
      location: field,
      locationType: 'other',
    }),
  invalid: (field: string, message: string) =>
    new GoogleApiError({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message,
      reason: 'invalid',
      location: field,
      locationType: 'other',
    }),
};

function user(author: Account, caller: Caller): drive_v3.Schema$User {
  return {
    kind: 'drive#user',
    displayName: author.name,
    me: author.email === caller.account.email,
    permissionId: author.sub,
    ...(author.email === caller.account.email ? { emailAddress: author.email } : {}),
  };
}

const html = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('\n', '<br>');

function replyResource(reply: StoredReply, caller: Caller): drive_v3.Schema$Reply {
  return {
    kind: 'drive#reply',
    id: reply.id,
    createdTime: reply.createdTime,
    modifiedTime: reply.modifiedTime,
    author: user(reply.author, caller),
    deleted: reply.deleted,
    ...(reply.deleted ? {} : { content: reply.content, htmlContent: html(reply.content) }),
    ...(reply.action ? { action: reply.action } : {}),
  };
}

function commentResource(
  comment: StoredComment,
  caller: Caller,
  includeDeleted: boolean,
): drive_v3.Schema$Comment {
  return {
    kind: 'drive#comment',
    id: comment.id,
    createdTime: comment.createdTime,
    modifiedTime: comment.modifiedTime,
    author: user(comment.author, caller),
    deleted: comment.deleted,
    resolved: comment.resolved,
    ...(comment.deleted ? {} : { content: comment.content, htmlContent: html(comment.content) }),
    ...(comment.quotedFileContent ? { quotedFileContent: comment.quotedFileContent } : {}),
    ...(comment.anchor ? { anchor: comment.anchor } : {}),
    replies: comment.replies
      .filter((reply) => includeDeleted || !reply.deleted)
      .map((reply) => replyResource(reply, caller)),
  };
}

async function readObject(ctx: Context): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await readJsonBody(ctx);
  } catch {
    throw googleErrors.badRequest('Invalid JSON payload received.', 'parseError');
  }
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw googleErrors.badRequest('Invalid JSON payload received. Expected an object.', 'parseError');
  return body as Record<string, unknown>;
}

function content(value: unknown, field: string, required: boolean): string | undefined {
  if (value === undefined || value === null || value === '') {
    if (required) throw commentErrors.required(field, `The ${field} field is required.`);
    return undefined;
  }
  if (typeof value !== 'string') throw commentErrors.invalid(field, `The ${field} field must be a string.`);
  if (value.length > MAX_CONTENT)
    throw commentErrors.invalid(field, `The ${field} field is longer than ${MAX_CONTENT} characters.`);
  return value;
}

/** Google requires `fields` on every comments and replies method. */
function requiredFields(ctx: Context) {
  const fields = queryString(ctx, 'fields');
  if (!fields) throw driveErrors.required('fields', "The 'fields' parameter is required for this method.");
  return parseFieldMask(fields);
}

function page<T>(ctx: Context, items: T[], defaultSize: number): { items: T[]; nextPageToken?: string } {
  const raw = queryString(ctx, 'pageSize');
  const size = raw === undefined || raw === '' ? defaultSize : Number(raw);
  if (!Number.isInteger(size) || size < 1 || size > 100) {
    throw driveErrors.invalidParameter(
      'pageSize',
      `Invalid value '${raw}'. Values must be within the range: [1, 100]`,
    );
  }
  const token = queryString(ctx, 'pageToken');
  const offset = token ? Number(Buffer.from(token, 'base64url').toString('utf8')) : 0;
  if (!Number.isInteger(offset) || offset < 0)
    throw driveErrors.invalidParameter('pageToken', 'Invalid Value');
  const next = offset + size;
  return {
    items: items.slice(offset, next),
    ...(next < items.length ? { nextPageToken: Buffer.from(String(next)).toString('base64url') } : {}),
  };
}

const newId = () => `AAAA${randomBytes(9).toString('base64url')}`;

/**
 * Drive v3 comments and replies: create, list, get, update, delete, and a reply's `resolve` /
 * `reopen` action (which sets the comment's `resolved`: "the action the reply performed to the
 * parent comment", https://developers.google.com/workspace/drive/api/reference/rest/v3/replies).
 * A deleted comment or reply keeps its id and is listed only with includeDeleted, without its
 * content (https://developers.google.com/workspace/drive/api/reference/rest/v3/comments/list).
 * Reading needs read access to the file;
 * writing needs write access, and under `drive.file` a file the app neither made nor was opened
 * with is not found (404), as Google answers. Every method requires `fields`, as at Google.
 */
export function commentsRoutes(deps: DriveDeps, drive: DriveLibrary, comments: MemoryCommentStore) {
  // Comments take no supportsAllDrives: a shared drive's file is commented on like any other.
  const { access } = deps;
  const router = new Router({ prefix: '/drive/v3/files/:fileId/comments' });

  const readable = (ctx: Context) => {
    const caller = access.authenticate(ctx, DRIVE_READ_SCOPES);
    return { caller, file: drive.fileFor(caller, ctx.params.fileId!, 'read') };
  };
  const writable = (ctx: Context): { caller: Caller; file: DriveFile } => {
    const caller = access.authenticate(ctx, DRIVE_WRITE_SCOPES);
    const file = drive.fileFor(caller, ctx.params.fileId!, 'read');
    if (!access.canAccess(caller, file, 'write', 'drive')) throw driveErrors.fileNotFound(file.id);
    return { caller, file };
  };
  const commentIn = (file: DriveFile, commentId: string, includeDeleted = true) => {
    const comment = comments.list(file.id).find((each) => each.id === commentId);
    if (!comment || (comment.deleted && !includeDeleted)) throw commentErrors.notFound('Comment', commentId);
    return comment;
  };
  /**
   * A deleted reply is found only when asked for with includeDeleted (replies.get), as a deleted
   * comment is: it cannot be edited or deleted again
   * (https://developers.google.com/workspace/drive/api/reference/rest/v3/replies/get).
   */
  const replyIn = (comment: StoredComment, replyId: string, includeDeleted = false) => {
    const reply = comment.replies.find((each) => each.id === replyId);
    if (!reply || (reply.deleted && !includeDeleted)) throw commentErrors.notFound('Reply', replyId);
    return reply;
  };
  const includeDeleted = (ctx: Context) => queryString(ctx, 'includeDeleted') === 'true';
  const now = () => new Date().toISOString();

  router.get('/', (ctx) => {
    const mask = requiredFields(ctx);
    const { caller, file } = readable(ctx);
    const deleted = includeDeleted(ctx);
    const since = queryString(ctx, 'startModifiedTime');
    const all = comments
      .list(file.id)
      .filter((comment) => (deleted || !comment.deleted) && (!since || comment.modifiedTime >= since));
    const { items, nextPageToken } = page(ctx, all, 20);
    const list: drive_v3.Schema$CommentList = {
      kind: 'drive#commentList',
      ...(nextPageToken ? { nextPageToken } : {}),
      comments: items.map((comment) => commentResource(comment, caller, deleted)),
    };
    ctx.body = applyFieldMask(list, mask, COMMENT_LIST_FIELDS);
  });

  router.get('/:commentId', (ctx) => {
    const mask = requiredFields(ctx);
    const { caller, file } = readable(ctx);
    const comment = commentIn(file, ctx.params.commentId!, includeDeleted(ctx));
    ctx.body = applyFieldMask(commentResource(comment, caller, includeDeleted(ctx)), mask, COMMENT_FIELDS);
  });

  router.post('/', async (ctx) => {
    const mask = requiredFields(ctx);
    const { caller, file } = writable(ctx);
    const body = await readObject(ctx);
    const text = content(body.content, 'content', true)!;
    const quoted = body.quotedFileContent as { value?: unknown; mimeType?: unknown } | undefined;
    const time = now();
    const comment: StoredComment = {
      id: newId(),
      author: caller.account,
      content: text,
      createdTime: time,
      modifiedTime: time,
      resolved: false,
      deleted: false,
      replies: [],
      ...(quoted && typeof quoted.value === 'string'
        ? { quotedFileContent: { mimeType: String(quoted.mimeType ?? 'text/plain'), value: quoted.value } }
        : {}),
      ...(typeof body.anchor === 'string' ? { anchor: body.anchor } : {}),
    };
    comments.list(file.id).push(comment);
    ctx.body = applyFieldMask(commentResource(comment, caller, false), mask, COMMENT_FIELDS);
  });

  router.patch('/:commentId', async (ctx) => {
    const mask = requiredFields(ctx);
    const { caller, file } = writable(ctx);
    const comment = commentIn(file, ctx.params.commentId!, false);
    const text = content((await readObject(ctx)).content, 'content', true)!;
    comment.content = text;
    comment.modifiedTime = now();
    ctx.body = applyFieldMask(commentResource(comment, caller, false), mask, COMMENT_FIELDS);
  });

  router.delete('/:commentId', (ctx) => {
    const { file } = writable(ctx);
    const comment = commentIn(file, ctx.params.commentId!, false);
    comment.deleted = true;
    comment.modifiedTime = now();
    ctx.status = 204;
  });

  router.get('/:commentId/replies', (ctx) => {
    const mask = requiredFields(ctx);
    const { caller, file } = readable(ctx);
    const comment = commentIn(file, ctx.params.commentId!, false);
    const deleted = includeDeleted(ctx);
    const { items, nextPageToken } = page(
      ctx,
      comment.replies.filter((reply) => deleted || !reply.deleted),
      20,
    );
    const list: drive_v3.Schema$ReplyList = {
      kind: 'drive#replyList',
      ...(nextPageToken ? { nextPageToken } : {}),
      replies: items.map((reply) => replyResource(reply, caller)),
    };
    ctx.body = applyFieldMask(list, mask, REPLY_LIST_FIELDS);
  });

  router.get('/:commentId/replies/:replyId', (ctx) => {
    const mask = requiredFields(ctx);
    const { caller, file } = readable(ctx);
    const reply = replyIn(
      commentIn(file, ctx.params.commentId!, false),
      ctx.params.replyId!,
      includeDeleted(ctx),
    );
    ctx.body = applyFieldMask(replyResource(reply, caller), mask, REPLY_FIELDS);
  });

  router.post('/:commentId/replies', async (ctx) => {
    const mask = requiredFields(ctx);
    const { caller, file } = writable(ctx);
    const comment = commentIn(file, ctx.params.commentId!, false);
    const body = await readObject(ctx);
    const action = body.action;
    if (action !== undefined && action !== null && action !== 'resolve' && action !== 'reopen')
      throw commentErrors.invalid('action', `The action must be resolve or reopen, not ${String(action)}.`);
    // Content may be left out only when the reply resolves or reopens the comment.
    const text = content(body.content, 'content', !action) ?? '';
    const time = now();
    const reply: StoredReply = {
      id: newId(),
      author: caller.account,
      content: text,
      createdTime: time,
      modifiedTime: time,
      deleted: false,
      ...(action ? { action: action as 'resolve' | 'reopen' } : {}),
    };
    comment.replies.push(reply);
    if (action) comment.resolved = action === 'resolve';
    comment.modifiedTime = time;
    ctx.body = applyFieldMask(replyResource(reply, caller), mask, REPLY_FIELDS);
  });

  router.patch('/:commentId/replies/:replyId', async (ctx) => {
    const mask = requiredFields(ctx);
    const { caller, file } = writable(ctx);
    const reply = replyIn(commentIn(file, ctx.params.commentId!, false), ctx.params.replyId!);
    reply.content = content((await readObject(ctx)).content, 'content', true)!;
    reply.modifiedTime = now();
    ctx.body = applyFieldMask(replyResource(reply, caller), mask, REPLY_FIELDS);
  });

  router.delete('/:commentId/replies/:replyId', (ctx) => {
    const { file } = writable(ctx);
    const reply = replyIn(commentIn(file, ctx.params.commentId!, false), ctx.params.replyId!);
    reply.deleted = true;
    reply.modifiedTime = now();
    ctx.status = 204;
  });

  return router;
}
