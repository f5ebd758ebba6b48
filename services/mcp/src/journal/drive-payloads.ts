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
