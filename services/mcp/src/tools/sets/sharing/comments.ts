import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import type { ChangeEntry } from '../../../journal/change-journal.ts';
import { readComment } from '../../../journal/drive-images.ts';
import { type CommentPayload, quotedComment, type ReplyImage } from '../../../journal/drive-payloads.ts';
import { changeNote } from '../../../journal/record-change.ts';
import { CHANGE, READ } from '../../kit/annotations.ts';
import { anyFileId, changeIdOutput, dryRun, dryRunOutput } from '../../kit/common-schemas.ts';
import { ALL_DRIVES } from '../../kit/drive-options.ts';
import { drivePageAnswer, pageToken } from '../../kit/drive-pages.ts';
import { changeOfSheetgatesFile } from '../../kit/sheetgate-files.ts';
import { defineTool, type ToolContext } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

const commentId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, 'a commentId has only letters, digits, - and _');
const commentText = z.string().trim().min(1).max(4_000);

/** Under drive.file Google lets Sheetgate comment only on files it created or was opened with. */
function commentChange<T>(fileId: string, call: () => Promise<T>): Promise<T> {
  return changeOfSheetgatesFile(
    fileId,
    `Not found among the files Sheetgate may change: Sheetgate can comment only on files it created or that were opened with it, and ${fileId} is not one (or is not in your Drive). Comment in Google Sheets instead, or work on a copy (copy_spreadsheet).`,
    call,
  );
}

const replyOutput = z.object({
  replyId: z.string(),
  author: z.string().nullable(),
  content: z.string(),
  action: z.string().nullable(),
  createdTime: z.string().nullable(),
});
const commentOutput = z.object({
  commentId: z.string(),
  author: z.string().nullable(),
  content: z.string(),
  quotedText: z.string().nullable(),
  resolved: z.boolean(),
  createdTime: z.string().nullable(),
  replies: z.array(replyOutput),
});
const COMMENT_FIELDS =
  'id, content, createdTime, resolved, author(displayName), quotedFileContent(value), replies(id, content, action, createdTime, author(displayName))';

/** list_comments, add_comment, reply_to_comment and resolve_comment (Drive comments and replies). */
export function commentTools(deps: ToolDeps) {
  const { drive, callGoogle, journal } = deps;
  /** Journals a comment change: the comment (and the reply) it added, with what undo needs. */
  const record = (
    auth: ToolContext['auth'],
    tool: string,
    summary: string,
    payload: Omit<CommentPayload, 'v' | 'kind'>,
  ): string | undefined => {
    const entry: ChangeEntry = {
      tool,
      spreadsheetId: payload.fileId,
      ranges: [`comment ${quotedComment(payload.content)}`],
      cells: 0,
      rows: 0,
      summary,
      payload: { v: 1, kind: 'comment', ...payload },
    };
    return journal?.record(auth, entry);
  };
  /** The comment replied to as it is before the reply: its text and state, kept by the journal. */
  const commentNow = (context: Pick<ToolContext, 'auth' | 'signal'>, fileId: string, id: string) =>
    journal
      ? commentChange(fileId, () => readComment(deps, context.auth, context.signal, fileId, id))
      : undefined;
  const checkComment = async (context: Pick<ToolContext, 'auth' | 'signal'>, fileId: string, id: string) => {
    const { data } = await callGoogle(context.auth.userId, context.signal, (request) =>
      drive.comments.get({ fileId, commentId: id, fields: 'id, content, resolved' }, request),
    );
    return data;
  };
  /**
   * Posts a reply (text, an action that resolves or reopens, or both) to a comment, and journals
   * it as `tool` with the comment's text and state before it: what reply_to_comment and
   * resolve_comment send. The journal entry needs the reply's id; without one nothing is recorded.
   */
  const postReply = async (
    context: Pick<ToolContext, 'auth' | 'signal'>,
    tool: string,
    { fileId, commentId }: { fileId: string; commentId: string },
    reply: Omit<ReplyImage, 'id'>,
    summary: (before: string) => string,
  ) => {
    const before = await commentNow(context, fileId, commentId);
    const { data } = await commentChange(fileId, () =>
      callGoogle(context.auth.userId, context.signal, (request) =>
        drive.replies.create({ fileId, commentId, fields: 'id', requestBody: reply }, request),
      ),
    );
    const changeId =
      before && data.id
        ? record(context.auth, tool, summary(before.content), {
            fileId,
            commentId,
            action: 'replied',
            content: before.content,
            reply: { id: data.id, ...reply },
            resolvedBefore: before.resolved,
          })
        : undefined;
    return { replyId: data.id, changeId };
  };
  return [
    defineTool({
      name: 'list_comments',
      toolset: 'sharing',
      title: 'List comments',
      description: 'Lists a file’s comments and replies, oldest first.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({
        fileId: anyFileId,
        includeResolved: z.boolean().default(true),
        pageSize: z.number().int().min(1).max(100).default(20),
        pageToken,
      }),
      outputSchema: z.object({ comments: z.array(commentOutput), nextPageToken: z.string().nullable() }),
      async run(input, { auth, signal }) {
        const { data } = await callGoogle(auth.userId, signal, (request) =>
          drive.comments.list(
            {
              fileId: input.fileId,
              pageSize: input.pageSize,
              pageToken: input.pageToken,
              fields: `nextPageToken, comments(${COMMENT_FIELDS})`,
            },
            request,
          ),
        );
        const comments = (data.comments ?? [])
          .filter((comment) => input.includeResolved || !comment.resolved)
          .map((comment) => ({
            commentId: comment.id ?? '',
            author: comment.author?.displayName ?? null,
            content: comment.content ?? '',
            quotedText: comment.quotedFileContent?.value ?? null,
            resolved: comment.resolved ?? false,
            createdTime: comment.createdTime ?? null,
            replies: (comment.replies ?? []).map((reply) => ({
              replyId: reply.id ?? '',
              author: reply.author?.displayName ?? null,
              content: reply.content ?? '',
              action: reply.action ?? null,
              createdTime: reply.createdTime ?? null,
            })),
          }));
        const lines = comments.flatMap((comment) => [
          `${comment.author ?? 'someone'}${comment.resolved ? ' (resolved)' : ''}: ${comment.content}  (commentId ${comment.commentId})`,
          ...comment.replies.map(
            (reply) =>
              `  ↳ ${reply.author ?? 'someone'}: ${reply.action ? `[${reply.action}] ` : ''}${reply.content}`,
          ),
        ]);
        return drivePageAnswer('comments', comments, lines, 'No comments.', data.nextPageToken);
      },
    }),

    defineTool({
      name: 'add_comment',
      toolset: 'sharing',
      title: 'Add a comment',
      description: 'Comments on a file Sheetgate made or opened.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: CHANGE,
      inputSchema: z.object({
        fileId: anyFileId,
        content: commentText,
        quotedText: z.string().max(1_000).optional().describe('The text it is about.'),
        dryRun,
      }),
      outputSchema: z.object({
        commentId: z.string().nullable(),
        content: z.string(),
        dryRun: dryRunOutput,
        changeId: changeIdOutput,
      }),
      async run(input, { auth, signal }) {
        if (input.dryRun) {
          const { data: file } = await callGoogle(auth.userId, signal, (request) =>
            drive.files.get({ fileId: input.fileId, fields: 'id, name', ...ALL_DRIVES }, request),
          );
          return {
            structuredContent: { commentId: null, content: input.content, dryRun: true },
            text: `Dry run: would comment on ${file.name}: ${input.content}. Nothing was changed.`,
          };
        }
        const { data } = await commentChange(input.fileId, () =>
          callGoogle(auth.userId, signal, (request) =>
            drive.comments.create(
              {
                fileId: input.fileId,
                fields: 'id, content',
                requestBody: {
                  content: input.content,
                  ...(input.quotedText
                    ? { quotedFileContent: { mimeType: 'text/plain', value: input.quotedText } }
                    : {}),
                },
              },
              request,
            ),
          ),
        );
        if (!data.id) throw new ToolError('Google did not return the comment’s id');
        const content = data.content ?? input.content;
        const changeId = record(
          auth,
          'add_comment',
          `added a comment ${quotedComment(content)}${input.quotedText ? ` on ${quotedComment(input.quotedText)}` : ''}`,
          {
            fileId: input.fileId,
            commentId: data.id,
            action: 'added',
            content,
            ...(input.quotedText ? { quotedText: input.quotedText } : {}),
          },
        );
        return {
          structuredContent: { commentId: data.id, content, ...(changeId ? { changeId } : {}) },
          text: `Commented on ${input.fileId} (commentId ${data.id}).${changeNote(changeId)}`,
        };
      },
    }),

    defineTool({
      name: 'reply_to_comment',
      toolset: 'sharing',
      title: 'Reply to a comment',
      description: 'Replies to a comment, optionally resolving it.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: CHANGE,
      inputSchema: z.object({
        fileId: anyFileId,
        commentId,
        content: commentText,
        resolve: z.boolean().default(false),
        dryRun,
      }),
      outputSchema: z.object({
        replyId: z.string().nullable(),
        resolved: z.boolean(),
        dryRun: dryRunOutput,
        changeId: changeIdOutput,
      }),
      async run(input, context) {
        if (input.dryRun) {
          const comment = await checkComment(context, input.fileId, input.commentId);
          return {
            structuredContent: {
              replyId: null,
              resolved: input.resolve || (comment.resolved ?? false),
              dryRun: true,
            },
            text: `Dry run: would reply to "${comment.content}"${input.resolve ? ' and resolve it' : ''}. Nothing was changed.`,
          };
        }
        const { replyId, changeId } = await postReply(
          context,
          'reply_to_comment',
          input,
          { content: input.content, ...(input.resolve ? { action: 'resolve' as const } : {}) },
          (before) =>
            `replied ${quotedComment(input.content)} to comment ${quotedComment(before)}${input.resolve ? ' and resolved it' : ''}`,
        );
        if (!replyId) throw new ToolError('Google did not return the reply’s id');
        return {
          structuredContent: { replyId, resolved: input.resolve, ...(changeId ? { changeId } : {}) },
          text: `Replied to ${input.commentId}${input.resolve ? ' and resolved it' : ''} (replyId ${replyId}).${changeNote(changeId)}`,
        };
      },
    }),

    defineTool({
      name: 'resolve_comment',
      toolset: 'sharing',
      title: 'Resolve or reopen a comment',
      description: 'Resolves (or reopens) a comment, with an optional note.',
      scope: 'sheets:write',
      journalsItself: true,
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({
        fileId: anyFileId,
        commentId,
        reopen: z.boolean().default(false),
        content: commentText.optional(),
        dryRun,
      }),
      outputSchema: z.object({
        commentId: z.string(),
        resolved: z.boolean(),
        dryRun: dryRunOutput,
        changeId: changeIdOutput,
      }),
      async run(input, context) {
        const resolved = !input.reopen;
        if (input.dryRun) {
          const comment = await checkComment(context, input.fileId, input.commentId);
          return {
            structuredContent: { commentId: input.commentId, resolved, dryRun: true },
            text: `Dry run: would ${input.reopen ? 'reopen' : 'resolve'} "${comment.content}". Nothing was changed.`,
          };
        }
        const action = input.reopen ? 'reopen' : 'resolve';
        const { changeId } = await postReply(
          context,
          'resolve_comment',
          input,
          { action, ...(input.content ? { content: input.content } : {}) },
          (before) =>
            `${input.reopen ? 'reopened' : 'resolved'} comment ${quotedComment(before)}${input.content ? ` with the note ${quotedComment(input.content)}` : ''}`,
        );
        return {
          structuredContent: { commentId: input.commentId, resolved, ...(changeId ? { changeId } : {}) },
          text: `${input.reopen ? 'Reopened' : 'Resolved'} ${input.commentId}.${changeNote(changeId)}`,
        };
      },
    }),
  ];
}
