import type { drive_v3 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { admin, driveFor, failureOf, SCOPES, signIn, startTestEmulator } from './support/emulator.ts';

// Drive v3 comments and replies through googleapis alone, with Sheetgate's grant: a file the app
// made is commented on, replied to, resolved and reopened; one it did not make is read, not
// commented on (404 under drive.file); `fields` is required, as at Google.

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

describe('comments and replies', () => {
  it('comments, replies, resolves, reopens, edits and deletes', async () => {
    const { data: comment } = await drive.comments.create({
      fileId: made,
      fields: 'id,content,htmlContent,resolved,author(displayName,me),quotedFileContent',
      requestBody: {
        content: 'Is <B2> right?',
        quotedFileContent: { mimeType: 'text/plain', value: '1200' },
      },
    });
    expect(comment).toEqual({
      id: expect.any(String),
      content: 'Is <B2> right?',
      htmlContent: 'Is &lt;B2&gt; right?',
      resolved: false,
      author: { displayName: 'Alice', me: true },
      quotedFileContent: { mimeType: 'text/plain', value: '1200' },
    });
    const { data: reply } = await drive.replies.create({
      fileId: made,
      commentId: comment.id!,
      fields: 'id,content',
      requestBody: { content: 'Yes' },
    });
    expect(reply).toEqual({ id: expect.any(String), content: 'Yes' });
    const { data: resolving } = await drive.replies.create({
      fileId: made,
      commentId: comment.id!,
      fields: 'action,content',
      requestBody: { action: 'resolve' },
    });
    expect(resolving).toEqual({ action: 'resolve', content: '' });
    const resolved = await drive.comments.get({
      fileId: made,
      commentId: comment.id!,
      fields: 'resolved,replies(content,action)',
    });
    expect(resolved.data).toEqual({
      resolved: true,
      replies: [{ content: 'Yes' }, { content: '', action: 'resolve' }],
    });
    await drive.replies.create({
      fileId: made,
      commentId: comment.id!,
      fields: 'id',
      requestBody: { action: 'reopen' },
    });
    expect(
      (await drive.comments.get({ fileId: made, commentId: comment.id!, fields: 'resolved' })).data,
    ).toEqual({
      resolved: false,
    });

    await drive.comments.update({
      fileId: made,
      commentId: comment.id!,
      fields: 'id',
      requestBody: { content: 'Edited' },
    });
    const listed = await drive.comments.list({ fileId: made, fields: 'comments(content,replies(content))' });
    expect(listed.data.comments?.[0]?.content).toBe('Edited');
    const replies = await drive.replies.list({ fileId: made, commentId: comment.id!, fields: 'replies(id)' });
    expect(replies.data.replies).toHaveLength(3);
    await drive.replies.delete({ fileId: made, commentId: comment.id!, replyId: reply.id! });
    // A deleted reply is read only with includeDeleted, without its content, and is not deleted twice.
    const gone = await failureOf(
      drive.replies.get({ fileId: made, commentId: comment.id!, replyId: reply.id!, fields: 'id' }),
    );
    expect(gone.response?.status).toBe(404);
    expect(
      (
        await drive.replies.get({
          fileId: made,
          commentId: comment.id!,
          replyId: reply.id!,
          includeDeleted: true,
          fields: 'id,deleted,content',
        })
      ).data,
    ).toEqual({ id: reply.id, deleted: true });
    const twice = await failureOf(
      drive.replies.delete({ fileId: made, commentId: comment.id!, replyId: reply.id! }),
    );
    expect(twice.response?.data.error.message).toBe(`Reply not found: ${reply.id}.`);
    await drive.comments.delete({ fileId: made, commentId: comment.id! });
    expect((await drive.comments.list({ fileId: made, fields: 'comments(id)' })).data.comments).toEqual([]);
    const withDeleted = await drive.comments.list({
      fileId: made,
      includeDeleted: true,
      fields: 'comments(id,deleted)',
    });
    expect(withDeleted.data.comments).toEqual([{ id: comment.id, deleted: true }]);
  });

  it('answers Google’s errors', async () => {
    const noFields = await failureOf(drive.comments.list({ fileId: made }));
    expect(noFields.response?.status).toBe(400);
    expect(noFields.response?.data.error.message).toBe("The 'fields' parameter is required for this method.");
    const empty = await failureOf(drive.comments.create({ fileId: made, fields: 'id', requestBody: {} }));
    expect(empty.response?.data.error.errors[0]).toMatchObject({ reason: 'required', location: 'content' });
    const noComment = await failureOf(drive.comments.get({ fileId: made, commentId: 'nope', fields: 'id' }));
    expect(noComment.response?.status).toBe(404);
    expect(noComment.response?.data.error.message).toBe('Comment not found: nope.');
    const { data: comment } = await drive.comments.create({
      fileId: made,
      fields: 'id',
      requestBody: { content: 'x' },
    });
    const badAction = await failureOf(
      drive.replies.create({
        fileId: made,
        commentId: comment.id!,
        fields: 'id',
        requestBody: { action: 'close' },
      }),
    );
    expect(badAction.response?.data.error.errors[0]).toMatchObject({ reason: 'invalid', location: 'action' });
    const noContent = await failureOf(
      drive.replies.create({ fileId: made, commentId: comment.id!, fields: 'id', requestBody: {} }),
    );
    expect(noContent.response?.data.error.errors[0]).toMatchObject({
      reason: 'required',
      location: 'content',
    });
  });

  it('reads but does not comment on a file the app did not make, and keeps other accounts out', async () => {
    expect((await drive.comments.list({ fileId: seeded, fields: 'comments(id)' })).data.comments).toEqual([]);
    const failure = await failureOf(
      drive.comments.create({ fileId: seeded, fields: 'id', requestBody: { content: 'x' } }),
    );
    expect(failure.response?.status).toBe(404);
    expect(failure.response?.data.error.message).toBe(`File not found: ${seeded}.`);
    expect(
      (await failureOf(bobDrive.comments.list({ fileId: made, fields: 'comments(id)' }))).response?.status,
    ).toBe(404);
  });
});
