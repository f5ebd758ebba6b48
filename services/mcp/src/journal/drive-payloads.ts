import { quotedName } from '../tools/guards/loss-phrases.ts';

/**
 * What undo keeps of a Drive-side change (docs/design.md §11.8): a permission, a comment or reply,
 * a file made (or trashed), a tab copied into a spreadsheet. Each payload says what the change
 * left, so that undo can tell whether it still stands, and what it replaced, so that undo can put
 * it back; an undo's own payload is the same kind the other way round (undoing it redoes).
 */

/** A permission as undo recreates or restores it (Drive's Permission resource, the fields kept). */
export interface PermissionImage {
  id: string;
  type: string;
  role: string;
  emailAddress?: string | undefined;
  domain?: string | undefined;
  allowFileDiscovery?: boolean | undefined;
}

/** A file's sharing before and after a change: null where there was (or is) no permission. */
export interface PermissionPayload {
  v: 1;
  kind: 'permission';
  fileId: string;
  before: PermissionImage | null;
  after: PermissionImage | null;
}

/** A reply a change posted or deleted: its text (absent for a bare resolve or reopen) and action. */
export interface ReplyImage {
  id: string;
  content?: string | undefined;
  action?: 'resolve' | 'reopen' | undefined;
}

/**
 * A comment added or deleted, or a reply posted or deleted on it (reply_to_comment, and
 * resolve_comment, which is a reply whose action resolves or reopens the comment).
 */
export interface CommentPayload {
  v: 1;
  kind: 'comment';
  fileId: string;
  commentId: string;
  action: 'added' | 'deleted' | 'replied' | 'reply-deleted';
  /** The comment's text: names it, and is written again when a deleted comment is recreated. */
  content: string;
  quotedText?: string | undefined;
  /** The reply posted ('replied') or deleted ('reply-deleted'). */
  reply?: ReplyImage | undefined;
  /** Whether the comment was resolved before the change. */
  resolvedBefore?: boolean | undefined;
}

/** A file the change made (or trashed, or took out of the trash): undo trashes or restores it. */
export interface FilePayload {
  v: 1;
  kind: 'file';
  fileId: string;
  name: string;
  mimeType: string;
  /** Whether the change left the file in the trash. */
  trashed: boolean;
  /** The file's modifiedTime as the change left it; a later one means it was changed since. */
  modifiedTime?: string | undefined;
}

/** A tab copy_sheet_to made in a spreadsheet: undo deletes it, keeping its cells. */
export interface CopiedTabPayload {
  v: 1;
  kind: 'copied-tab';
  spreadsheetId: string;
  sheetId: number;
  title: string;
  /** The spreadsheet the tab was copied from. */
  sourceSpreadsheetId: string;
}

export type DrivePayload = PermissionPayload | CommentPayload | FilePayload | CopiedTabPayload;

const DRIVE_KINDS: ReadonlySet<string> = new Set(['permission', 'comment', 'file', 'copied-tab']);

export function isDrivePayload(payload: { kind: string }): payload is DrivePayload {
  return DRIVE_KINDS.has(payload.kind);
}

/** Who a permission is for, as a person says it: an email, a domain, or anyone with the link. */
export function granteeOf(permission: {
  type: string;
  emailAddress?: string | null | undefined;
  domain?: string | null | undefined;
}): string {
  if (permission.type === 'anyone') return 'anyone with the link';
  if (permission.type === 'domain') return `everyone at ${permission.domain ?? 'a domain'}`;
  return `${permission.emailAddress ?? 'an unnamed grantee'}${permission.type === 'group' ? ' (group)' : ''}`;
}

/** The Drive Permission fields a PermissionImage keeps. */
export const PERMISSION_IMAGE_FIELDS = 'id, type, role, emailAddress, domain, allowFileDiscovery';

/** A Drive Permission as undo keeps it. */
export function permissionImage(permission: {
  id?: string | null;
  type?: string | null;
  role?: string | null;
  emailAddress?: string | null;
  domain?: string | null;
  allowFileDiscovery?: boolean | null;
}): PermissionImage {
  return {
    id: permission.id ?? '',
    type: permission.type ?? '',
    role: permission.role ?? '',
    ...(permission.emailAddress ? { emailAddress: permission.emailAddress.toLowerCase() } : {}),
    ...(permission.domain ? { domain: permission.domain.toLowerCase() } : {}),
    ...(typeof permission.allowFileDiscovery === 'boolean'
      ? { allowFileDiscovery: permission.allowFileDiscovery }
      : {}),
  };
}

/** Whether two permissions are for the same grantee (a link shared, or not, by discovery alike). */
export function sameGrantee(a: PermissionImage, b: PermissionImage): boolean {
  if (a.id && a.id === b.id) return true;
  if (a.type !== b.type) return false;
  if (a.type === 'anyone') return (a.allowFileDiscovery ?? false) === (b.allowFileDiscovery ?? false);
  if (a.type === 'domain') return a.domain === b.domain;
  return a.emailAddress === b.emailAddress;
}

/** The words a sharing change is logged with, from what it replaced and what it left. */
export function sharingSummary(before: PermissionImage | null, after: PermissionImage | null): string {
  if (!before && after) return `shared with ${granteeOf(after)} as ${after.role}`;
  if (before && !after) return `removed ${granteeOf(before)} (${before.role})`;
  if (before && after) return `changed ${granteeOf(after)} from ${before.role} to ${after.role}`;
  return 'changed nothing of the sharing';
}

/** Longest comment text a summary or refusal quotes before cutting it with "…". */
const QUOTED_CHARACTERS = 60;

/** A comment's or reply's text as the log quotes it: short, in quotes, hidden characters escaped. */
export function quotedComment(text: string): string {
  const characters = [...text.replace(/\s+/g, ' ').trim()];
  const shown =
    characters.length > QUOTED_CHARACTERS
      ? `${characters.slice(0, QUOTED_CHARACTERS).join('')}…`
      : characters.join('');
  return quotedName(shown);
}
