import type { AuthInfo } from '../auth/auth-info.ts';
import { ToolError } from '../errors/tool-error.ts';
import { amount, quotedName } from '../tools/guards/loss-phrases.ts';
import { FOLDER_MIME } from '../tools/kit/drive-folders.ts';
import { ALL_DRIVES, driveQueryString } from '../tools/kit/drive-options.ts';
import { spreadsheetBatchUpdate } from '../tools/kit/spreadsheet-batch-update.ts';
import type { ToolDeps } from '../tools/kit/tool-deps.ts';
import type { ChangeJournal, ListedChange } from './change-journal.ts';
import { type CommentNow, readComment, readPermissions } from './drive-images.ts';
import {
  type CommentPayload,
  type CopiedTabPayload,
  type DrivePayload,
  type FilePayload,
  granteeOf,
  PERMISSION_IMAGE_FIELDS,
  type PermissionImage,
  type PermissionPayload,
  permissionImage,
  quotedComment,
  sameGrantee,
  sharingSummary,
} from './drive-payloads.ts';
import { captureSheet } from './sheet-image.ts';
import type { UndoOutcome } from './undo-change.ts';

/** A refusal of a Drive undo, carried out to undo_change's one answer like the cells' refusals. */
export class DriveUndoRefusal extends Error {
  readonly outcome: UndoOutcome;
  constructor(outcome: UndoOutcome) {
    super(outcome.kind);
    this.outcome = outcome;
  }
}

/** What a Drive undo did (or, for a dry run, would do). */
export interface DriveUndone {
  /** The objects restored: a permission, a comment, a file, a tab. */
  restored: string[];
  /** What was changed since the change (replaced or removed too only with `force`). */
  changedSince: string[];
  text: string;
  undoId?: string;
  undoUnavailable?: string;
}

interface UndoRun {
  deps: ToolDeps;
  journal: ChangeJournal;
  auth: AuthInfo;
  signal: AbortSignal;
  change: ListedChange;
  force: boolean;
  dryRun: boolean;
}

/** What the change changed is gone or already as before: nothing to undo, said in `message`. */
function targetGone(run: UndoRun, message: string): never {
  throw new DriveUndoRefusal({ kind: 'target_gone', change: run.change, message: `Not undone: ${message}` });
}

function refuseChanged(run: UndoRun, changedSince: string[]): void {
  if (changedSince.length === 0 || run.force) return;
  throw new DriveUndoRefusal({ kind: 'changed_since', change: run.change, cells: changedSince });
}

const isNotFound = (error: unknown) => error instanceof ToolError && error.message.startsWith('Not found:');

/** The undo's own entry: under the undoing credential, so undoing it redoes the change. */
function recordUndo(
  run: UndoRun,
  entry: { ranges: string[]; summary: string; payload: DrivePayload },
): string {
  return run.journal.record(run.auth, {
    tool: 'undo_change',
    spreadsheetId: run.change.spreadsheetId,
    ranges: entry.ranges,
    cells: 0,
    rows: 0,
    summary: entry.summary,
    payload: entry.payload,
    undoesChangeId: run.change.id,
  });
}

/**
 * The undo of a Drive-side change (docs/design.md §11.8): a permission put back as it was (a share
 * removed, a removal recreated without a notification, a role restored), a comment or reply
 * deleted (or written again), a resolve reversed, a made file moved to the trash (or out of it), a
 * copied tab deleted with its cells kept. Refused, naming it, when what the change left was changed
 * since, unless `force`; refused as gone when there is nothing left to undo.
 */
export async function undoDriveChange(
  deps: ToolDeps,
  journal: ChangeJournal,
  auth: AuthInfo,
  signal: AbortSignal,
  change: ListedChange,
  payload: DrivePayload,
  options: { force: boolean; dryRun: boolean },
): Promise<DriveUndone> {
  const run: UndoRun = { deps, journal, auth, signal, change, ...options };
  switch (payload.kind) {
    case 'permission':
      return undoPermission(run, payload);
    case 'comment':
      return payload.action === 'added' || payload.action === 'deleted'
        ? undoCommentPresence(run, payload)
        : undoReply(run, payload);
    case 'file':
      return undoFile(run, payload);
    case 'copied-tab':
      return undoCopiedTab(run, payload);
  }
}

/** `reader access`, or `no access` where there is no permission. */
const access = (permission: PermissionImage | null) =>
  permission ? `${permission.role} access` : 'no access';

/** Puts a file's permission for one grantee back to `before`, from `after` as the change left it. */
async function undoPermission(run: UndoRun, payload: PermissionPayload): Promise<DriveUndone> {
  const { deps, auth, signal, change } = run;
  const { drive, callGoogle } = deps;
  const { fileId, before, after } = payload;
  const grantee = (before ?? after)!;
  const who = granteeOf(grantee);
  const current =
    (await readPermissions(deps, auth, signal, fileId)).find((each) => sameGrantee(each, grantee)) ?? null;
  if ((current?.role ?? null) === (before?.role ?? null))
    targetGone(run, `${who} has ${access(current)} to ${fileId} already, as before change ${change.id}.`);
  const changedSince =
    (current?.role ?? null) === (after?.role ?? null)
      ? []
      : [`${who}'s access to ${fileId} (${access(current)} now, where the change left ${access(after)})`];
  refuseChanged(run, changedSince);
  const restored = [`${who}'s access to ${fileId}`];
  const goal = `${access(before)} to ${fileId}${before ? ' again' : ''}`;
  if (run.dryRun)
    return {
      restored,
      changedSince,
      text: `Dry run: ${who} would have ${goal}, as before change ${change.id}. Nothing was changed.`,
    };
  let result: PermissionImage | null = null;
  if (!before) {
    await callGoogle(auth.userId, signal, (request) =>
      drive.permissions.delete({ fileId, permissionId: current!.id, ...ALL_DRIVES }, request),
    );
  } else if (current) {
    const { data } = await callGoogle(auth.userId, signal, (request) =>
      drive.permissions.update(
        {
          fileId,
          permissionId: current.id,
          fields: PERMISSION_IMAGE_FIELDS,
          requestBody: { role: before.role },
          ...ALL_DRIVES,
        },
        request,
      ),
    );
    result = permissionImage(data);
  } else {
    const person = before.type === 'user' || before.type === 'group';
    const { data } = await callGoogle(auth.userId, signal, (request) =>
      drive.permissions.create(
        {
          fileId,
          fields: PERMISSION_IMAGE_FIELDS,
          requestBody: {
            type: before.type,
            role: before.role,
            ...(before.emailAddress ? { emailAddress: before.emailAddress } : {}),
            ...(before.domain ? { domain: before.domain } : {}),
            ...(before.allowFileDiscovery !== undefined
              ? { allowFileDiscovery: before.allowFileDiscovery }
              : {}),
          },
          // Access given back is not news: no email (Google refuses the flag for a domain or anyone).
          ...(person ? { sendNotificationEmail: false } : {}),
          ...ALL_DRIVES,
        },
        request,
      ),
    );
    result = permissionImage(data);
  }
  const undoId = recordUndo(run, {
    ranges: [who],
    summary: sharingSummary(current, result),
    payload: { v: 1, kind: 'permission', fileId, before: current, after: result },
  });
  return {
    restored,
    changedSince,
    undoId,
    text: `Undid change ${change.id}: ${who} has ${goal}${before && !current ? ' (given back without a notification email)' : ''}.`,
  };
}

/** Deletes a comment the change added, or writes again one the change (an undo) deleted. */
async function undoCommentPresence(run: UndoRun, payload: CommentPayload): Promise<DriveUndone> {
  const { deps, auth, signal, change } = run;
  const { drive, callGoogle } = deps;
  const { fileId } = payload;
  const name = `the comment ${quotedComment(payload.content)} on ${fileId}`;
  if (payload.action === 'deleted') {
    if (run.dryRun)
      return {
        restored: [name],
        changedSince: [],
        text: `Dry run: would add ${name} again (a new comment). Nothing was changed.`,
      };
    const { data } = await callGoogle(auth.userId, signal, (request) =>
      drive.comments.create(
        {
          fileId,
          fields: 'id',
          requestBody: {
            content: payload.content,
            ...(payload.quotedText
              ? { quotedFileContent: { mimeType: 'text/plain', value: payload.quotedText } }
              : {}),
          },
        },
        request,
      ),
    );
    if (!data.id) throw new ToolError('Google did not return the comment’s id');
    const undoId = recordUndo(run, {
      ranges: [`comment ${quotedComment(payload.content)}`],
      summary: `added the comment ${quotedComment(payload.content)} again`,
      payload: { ...payload, commentId: data.id, action: 'added' },
    });
    return {
      restored: [name],
      changedSince: [],
      undoId,
      text: `Undid change ${change.id}: added ${name} again (commentId ${data.id}).`,
    };
  }
  const now = await readCommentOrGone(run, fileId, payload.commentId, name);
  const replies = now.replies.filter((reply) => !reply.deleted);
  const changedSince = [
    ...(now.content !== payload.content ? [`${name} (edited since: now ${quotedComment(now.content)})`] : []),
    ...(replies.length
      ? [`${name} (${amount(replies.length, 'reply', 'replies')} since, deleted with it)`]
      : []),
  ];
  refuseChanged(run, changedSince);
  if (run.dryRun)
    return { restored: [name], changedSince, text: `Dry run: would delete ${name}. Nothing was changed.` };
  await callGoogle(auth.userId, signal, (request) =>
    drive.comments.delete({ fileId, commentId: payload.commentId }, request),
  );
  const undoId = recordUndo(run, {
    ranges: [`comment ${quotedComment(now.content)}`],
    summary: `deleted the comment ${quotedComment(now.content)}`,
    payload: { ...payload, content: now.content, action: 'deleted' },
  });
  return {
    restored: [name],
    changedSince,
    undoId,
    text: `Undid change ${change.id}: deleted ${name}${replies.length ? ` with its ${amount(replies.length, 'reply', 'replies')} (undoing this undo adds the comment again, not them)` : ''}.`,
  };
}

async function readCommentOrGone(
  run: UndoRun,
  fileId: string,
  commentId: string,
  name: string,
): Promise<CommentNow> {
  let now: CommentNow;
  try {
    now = await readComment(run.deps, run.auth, run.signal, fileId, commentId);
  } catch (error) {
    if (isNotFound(error)) targetGone(run, `${name} is gone (or the file is).`);
    throw error;
  }
  if (now.deleted) targetGone(run, `${name} was deleted since change ${run.change.id}.`);
  return now;
}

const reverse = (action: 'resolve' | 'reopen') => (action === 'resolve' ? 'reopen' : 'resolve');
const stateWord = (resolved: boolean) => (resolved ? 'resolved' : 'open');

/**
 * Undoes a reply (reply_to_comment, resolve_comment): deletes its text, and reverses the resolve
 * or reopen it did with a reply of the opposite action (Drive keeps a comment's state only through
 * such replies). A reply an undo deleted is posted again.
 */
async function undoReply(run: UndoRun, payload: CommentPayload): Promise<DriveUndone> {
  const { deps, auth, signal, change } = run;
  const { drive, callGoogle } = deps;
  const { fileId, commentId } = payload;
  const reply = payload.reply!;
  const comment = `comment ${quotedComment(payload.content)}`;
  const name = `the ${comment} on ${fileId}`;
  const now = await readCommentOrGone(run, fileId, commentId, name);
  const post = async (body: { content?: string; action?: 'resolve' | 'reopen' }) => {
    const { data } = await callGoogle(auth.userId, signal, (request) =>
      drive.replies.create({ fileId, commentId, fields: 'id', requestBody: body }, request),
    );
    if (!data.id) throw new ToolError('Google did not return the reply’s id');
    return data.id;
  };
  if (payload.action === 'reply-deleted') {
    const what = reply.content ? `the reply ${quotedComment(reply.content)}` : `the ${reply.action}`;
    if (run.dryRun)
      return {
        restored: [name],
        changedSince: [],
        text: `Dry run: would post ${what} to ${name} again. Nothing was changed.`,
      };
    const id = await post({
      ...(reply.content ? { content: reply.content } : {}),
      ...(reply.action ? { action: reply.action } : {}),
    });
    const undoId = recordUndo(run, {
      ranges: [comment],
      summary: `posted ${what} to ${comment} again`,
      payload: { ...payload, action: 'replied', reply: { ...reply, id }, resolvedBefore: now.resolved },
    });
    return {
      restored: [name],
      changedSince: [],
      undoId,
      text: `Undid change ${change.id}: posted ${what} to ${name} again.`,
    };
  }
  const left = reply.action ? reply.action === 'resolve' : now.resolved;
  const changedState = reply.action !== undefined && payload.resolvedBefore !== left;
  const stillLeft = now.resolved === left;
  const replyNow = now.replies.find((each) => each.id === reply.id);
  if (reply.content) {
    if (!replyNow || replyNow.deleted)
      targetGone(
        run,
        `the reply ${quotedComment(reply.content)} to ${name} was deleted since change ${change.id}.`,
      );
  } else if (!changedState || !stillLeft) {
    targetGone(run, `${name} is ${stateWord(now.resolved)} already, as before change ${change.id}.`);
  }
  const changedSince = [
    ...(reply.content && replyNow && replyNow.content !== reply.content
      ? [
          `the reply ${quotedComment(reply.content)} to ${name} (edited since: now ${quotedComment(replyNow.content)})`,
        ]
      : []),
    ...(changedState && !stillLeft ? [`${name} (${stateWord(now.resolved)} again since)`] : []),
  ];
  refuseChanged(run, changedSince);
  const reverseAction = changedState && stillLeft ? reverse(reply.action!) : undefined;
  const steps = [
    ...(reply.content ? [`delete the reply ${quotedComment(reply.content)}`] : []),
    ...(reverseAction ? [`${reverseAction} ${name}`] : []),
  ];
  if (run.dryRun)
    return {
      restored: [name],
      changedSince,
      text: `Dry run: would ${steps.join(' and ')}. Nothing was changed.`,
    };
  if (reply.content)
    await callGoogle(auth.userId, signal, (request) =>
      drive.replies.delete({ fileId, commentId, replyId: reply.id }, request),
    );
  const reverseId = reverseAction ? await post({ action: reverseAction }) : undefined;
  const summary = [
    ...(reply.content ? [`deleted the reply ${quotedComment(replyNow!.content)} to ${comment}`] : []),
    ...(reverseAction ? [`${reverseAction === 'reopen' ? 'reopened' : 'resolved'} ${comment}`] : []),
  ].join(' and ');
  const undone: CommentPayload = reply.content
    ? {
        ...payload,
        action: 'reply-deleted',
        reply: { ...reply, content: replyNow!.content },
        resolvedBefore: now.resolved,
      }
    : {
        ...payload,
        action: 'replied',
        reply: { id: reverseId!, action: reverseAction },
        resolvedBefore: now.resolved,
      };
  const undoId = recordUndo(run, { ranges: [comment], summary, payload: undone });
  return { restored: [name], changedSince, undoId, text: `Undid change ${change.id}: ${summary}.` };
}

/** Trashes a file the change made (or took out of the trash), or restores one it trashed. */
async function undoFile(run: UndoRun, payload: FilePayload): Promise<DriveUndone> {
  const { deps, auth, signal, change } = run;
  const { drive, callGoogle } = deps;
  const { fileId } = payload;
  const folder = payload.mimeType === FOLDER_MIME;
  let now: { name?: string | null; trashed?: boolean | null; modifiedTime?: string | null };
  try {
    ({ data: now } = await callGoogle(auth.userId, signal, (request) =>
      drive.files.get({ fileId, fields: 'id, name, trashed, modifiedTime', ...ALL_DRIVES }, request),
    ));
  } catch (error) {
    if (isNotFound(error))
      targetGone(
        run,
        `${quotedName(payload.name)} (${fileId}) was deleted for good since change ${change.id}.`,
      );
    throw error;
  }
  const name = `${folder ? 'the folder ' : ''}${quotedName(now.name ?? payload.name)} (${fileId})`;
  const trash = !payload.trashed;
  if ((now.trashed ?? false) === trash)
    targetGone(run, `${name} is ${trash ? 'in the trash' : 'out of the trash'} already.`);
  const changedSince: string[] = [];
  if (trash) {
    if (payload.modifiedTime && now.modifiedTime && now.modifiedTime !== payload.modifiedTime)
      changedSince.push(`${name} (modified at ${now.modifiedTime}, after the change)`);
    if (folder) {
      // Trashing a folder trashes what it holds: files put in it since are named.
      const { data } = await callGoogle(auth.userId, signal, (request) =>
        drive.files.list(
          {
            q: `${driveQueryString(fileId)} in parents and trashed = false`,
            fields: 'files(id, name)',
            pageSize: 21,
            supportsAllDrives: true,
            includeItemsFromAllDrives: true,
          },
          request,
        ),
      );
      for (const held of data.files ?? [])
        changedSince.push(
          `${quotedName(held.name ?? '')} (${held.id}), put in ${name} since: the trash would take it too`,
        );
    }
  }
  refuseChanged(run, changedSince);
  const verb = trash ? 'move' : 'take';
  const where = trash ? 'to the trash' : 'out of the trash';
  if (run.dryRun)
    return {
      restored: [name],
      changedSince,
      text: `Dry run: would ${verb} ${name} ${where}. Nothing was changed.`,
    };
  const { data: updated } = await callGoogle(auth.userId, signal, (request) =>
    drive.files.update(
      {
        fileId,
        fields: 'id, name, mimeType, trashed, modifiedTime',
        requestBody: { trashed: trash },
        ...ALL_DRIVES,
      },
      request,
    ),
  );
  const summary = `${trash ? 'moved' : 'took'} ${name} ${where}`;
  const undoId = recordUndo(run, {
    ranges: [updated.name ?? payload.name],
    summary,
    payload: {
      ...payload,
      name: updated.name ?? payload.name,
      trashed: trash,
      ...(updated.modifiedTime ? { modifiedTime: updated.modifiedTime } : {}),
    },
  });
  return { restored: [name], changedSince, undoId, text: `Undid change ${change.id}: ${summary}.` };
}

/**
 * Deletes a tab copy_sheet_to made. Its cells, formats and merges are kept first (the undo's own
 * entry, as delete_sheet's), so whatever was written to it since is not lost: undoing this undo
 * recreates the tab. A tab larger than undo keeps is deleted only with `force`.
 */
async function undoCopiedTab(run: UndoRun, payload: CopiedTabPayload): Promise<DriveUndone> {
  const { deps, auth, signal, change } = run;
  const { spreadsheetId, sheetId } = payload;
  let captured: Awaited<ReturnType<typeof captureSheet>>;
  try {
    captured = await captureSheet(deps, auth, signal, spreadsheetId, sheetId);
  } catch (error) {
    if (error instanceof ToolError && error.message.startsWith('there is no tab'))
      targetGone(
        run,
        `the tab ${quotedName(payload.title)} (sheetId ${sheetId}) change ${change.id} copied is gone.`,
      );
    throw error;
  }
  const tab = `the tab ${quotedName(captured.title)} (sheetId ${sheetId}) in ${spreadsheetId}`;
  if (!captured.image && !run.force)
    targetGone(
      run,
      `${tab} is larger than Sheetgate keeps (${captured.undoUnavailableReason ?? ''}), so deleting it could not be undone; undo_change with force: true deletes it anyway.`,
    );
  const filled = (captured.image?.rows ?? []).reduce((sum, row) => sum + (row.values?.length ?? 0), 0);
  if (run.dryRun)
    return {
      restored: [captured.title],
      changedSince: [],
      text: `Dry run: would delete ${tab}, which change ${change.id} copied there${captured.image ? '; its cells are kept, so undoing the undo recreates it' : ''}. Nothing was changed.`,
    };
  await spreadsheetBatchUpdate(deps)(auth.userId, signal, spreadsheetId, [{ deleteSheet: { sheetId } }]);
  const summary = `deleted the tab ${quotedName(captured.title)} copied from spreadsheet ${payload.sourceSpreadsheetId}`;
  const undoId = run.journal.record(auth, {
    tool: 'undo_change',
    spreadsheetId,
    ranges: [captured.title],
    cells: filled,
    rows: captured.rows,
    summary,
    undoesChangeId: change.id,
    ...(captured.image
      ? { payload: { v: 1, kind: 'sheet', sheet: captured.image } }
      : { undoUnavailableReason: captured.undoUnavailableReason ?? '' }),
  });
  return {
    restored: [captured.title],
    changedSince: [],
    undoId,
    ...(captured.image ? {} : { undoUnavailable: captured.undoUnavailableReason ?? '' }),
    text: `Undid change ${change.id}: ${summary}${captured.image ? ` (its ${amount(filled, 'cell')} are kept: undoing this undo recreates it)` : ''}.`,
  };
}
