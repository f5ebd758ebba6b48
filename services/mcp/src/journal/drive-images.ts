import type { AuthInfo } from '../auth/auth-info.ts';
import { ALL_DRIVES } from '../tools/kit/drive-options.ts';
import type { ToolDeps } from '../tools/kit/tool-deps.ts';
import { PERMISSION_IMAGE_FIELDS, type PermissionImage, permissionImage } from './drive-payloads.ts';

/** Pages of 100 permissions read at most: a file shared with more is not looked through further. */
const MAX_PERMISSION_PAGES = 10;

/**
 * What a sharing change and its undo read of Drive (docs/design.md §11.8): the file's permissions
 * (to find a grantee's, by id or by who it is for), one permission, and one comment with its
 * replies, deleted ones included (so a deleted comment reads as deleted, not as not found).
 */
export async function readPermissions(
  { drive, callGoogle }: Pick<ToolDeps, 'drive' | 'callGoogle'>,
  auth: AuthInfo,
  signal: AbortSignal,
  fileId: string,
): Promise<PermissionImage[]> {
  const permissions: PermissionImage[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PERMISSION_PAGES; page++) {
    const { data } = await callGoogle(auth.userId, signal, (request) =>
      drive.permissions.list(
        {
          fileId,
          pageSize: 100,
          ...(pageToken ? { pageToken } : {}),
          fields: `nextPageToken, permissions(${PERMISSION_IMAGE_FIELDS})`,
          ...ALL_DRIVES,
        },
        request,
      ),
    );
    permissions.push(...(data.permissions ?? []).map(permissionImage));
    pageToken = data.nextPageToken ?? undefined;
    if (!pageToken) break;
  }
  return permissions;
}

export async function readPermission(
  { drive, callGoogle }: Pick<ToolDeps, 'drive' | 'callGoogle'>,
  auth: AuthInfo,
  signal: AbortSignal,
  fileId: string,
  permissionId: string,
): Promise<PermissionImage> {
  const { data } = await callGoogle(auth.userId, signal, (request) =>
    drive.permissions.get({ fileId, permissionId, fields: PERMISSION_IMAGE_FIELDS, ...ALL_DRIVES }, request),
  );
  return permissionImage(data);
}

/** A comment as undo compares it with what a change left. */
export interface CommentNow {
  id: string;
  content: string;
  resolved: boolean;
  deleted: boolean;
  replies: Array<{ id: string; content: string; action?: string | undefined; deleted: boolean }>;
}

export async function readComment(
  { drive, callGoogle }: Pick<ToolDeps, 'drive' | 'callGoogle'>,
  auth: AuthInfo,
  signal: AbortSignal,
  fileId: string,
  commentId: string,
): Promise<CommentNow> {
  const { data } = await callGoogle(auth.userId, signal, (request) =>
    drive.comments.get(
      {
        fileId,
        commentId,
        includeDeleted: true,
        fields: 'id, content, resolved, deleted, replies(id, content, action, deleted)',
      },
      request,
    ),
  );
  return {
    id: data.id ?? commentId,
    content: data.content ?? '',
    resolved: data.resolved ?? false,
    deleted: data.deleted ?? false,
    replies: (data.replies ?? []).map((reply) => ({
      id: reply.id ?? '',
      content: reply.content ?? '',
      ...(reply.action ? { action: reply.action } : {}),
      deleted: reply.deleted ?? false,
    })),
  };
}
