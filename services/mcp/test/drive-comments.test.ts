import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// Comments (list_comments, add_comment, reply_to_comment, resolve_comment) through the MCP SDK
// client, real mcp and auth processes and the Google emulator holding Sheetgate's scopes.

// biome-ignore lint/suspicious/noExplicitAny: results are checked by toEqual, not by the compiler
type Structured = Record<string, any>;

describe('comment tools', () => {
  let stack: McpUnderTest;
  let alice: Client;
  let bob: Client;
  let made: string;
  let seeded: string;

  async function changes(): Promise<number> {
    const body = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
      methods: Record<string, { attempts: number }>;
    };
    return ['drive.comments.create', 'drive.replies.create']
      .map((method) => body.methods[method]?.attempts ?? 0)
      .reduce((a, b) => a + b, 0);
  }

  async function call(client: Client, name: string, args: Record<string, unknown>) {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    return {
      structured: result.structuredContent as Structured,
      text: (result.content as Array<{ text: string }>)[0]!.text,
    };
  }

  async function refused(client: Client, name: string, args: Record<string, unknown>) {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError, JSON.stringify(result.content)).toBe(true);
    return (result.content as Array<{ text: string }>)[0]!.text;
  }

  beforeAll(async () => {
    stack = await startMcpUnderTest();
    const aliceId = (await stack.signIn('alice@example.com')).userId;
    const bobId = (await stack.signIn('bob@example.com')).userId;
    [seeded] = (await stack.seed('alice@example.com', [{ name: 'Seeded', values: [['x']] }])) as [string];
    alice = await stack.connectClient(aliceId, 'comments');
    bob = await stack.connectClient(bobId, 'comments, bob');
    made = (await call(alice, 'create_spreadsheet', { title: 'Commented' })).structured.spreadsheetId;
  }, 120_000);

  afterAll(async () => {
    await alice?.close();
    await bob?.close();
    await stack?.stop();
  });

  it('adds, replies, resolves, reopens and lists', async () => {
    const added = await call(alice, 'add_comment', { fileId: made, content: 'Check B2', quotedText: '1200' });
    const commentId = added.structured.commentId as string;
    expect(added.text).toBe(
      `Commented on ${made} (commentId ${commentId}). Change ${added.structured.changeId} (undo_change can undo it).`,
    );
    const reply = await call(alice, 'reply_to_comment', {
      fileId: made,
      commentId,
      content: 'Done',
      resolve: true,
    });
    expect(reply.structured).toMatchObject({ resolved: true });
    let listed = await call(alice, 'list_comments', { fileId: made });
    expect(listed.structured.comments).toEqual([
      expect.objectContaining({
        commentId,
        content: 'Check B2',
        quotedText: '1200',
        resolved: true,
        replies: [expect.objectContaining({ content: 'Done', action: 'resolve' })],
      }),
    ]);
    expect(
      (await call(alice, 'list_comments', { fileId: made, includeResolved: false })).structured.comments,
    ).toEqual([]);
    await call(alice, 'resolve_comment', { fileId: made, commentId, reopen: true });
    listed = await call(alice, 'list_comments', { fileId: made });
    expect(listed.structured.comments[0].resolved).toBe(false);
    expect(listed.text).toContain(`Check B2  (commentId ${commentId})`);
    await call(alice, 'resolve_comment', { fileId: made, commentId });
    expect((await call(alice, 'list_comments', { fileId: made })).structured.comments[0].resolved).toBe(true);
  });

  it('dry runs change nothing', async () => {
    const before = await changes();
    const commentId = (await call(alice, 'list_comments', { fileId: made })).structured.comments[0].commentId;
    const changesAfterList = await changes();
    expect(changesAfterList).toBe(before);
    await call(alice, 'add_comment', { fileId: made, content: 'x', dryRun: true });
    await call(alice, 'reply_to_comment', { fileId: made, commentId, content: 'x', dryRun: true });
    const resolve = await call(alice, 'resolve_comment', {
      fileId: made,
      commentId,
      reopen: true,
      dryRun: true,
    });
    expect(resolve.text).toBe('Dry run: would reopen "Check B2". Nothing was changed.');
    expect(await changes()).toBe(before);
  });

  it('refuses files Sheetgate did not make, another person’s, and bad arguments', async () => {
    expect(await refused(alice, 'add_comment', { fileId: seeded, content: 'x' })).toContain(
      'Sheetgate can comment only on files it created or that were opened with it',
    );
    expect(await refused(bob, 'add_comment', { fileId: made, content: 'x' })).toContain(
      'Sheetgate can comment only on files it created',
    );
    expect(await refused(bob, 'list_comments', { fileId: made })).toContain('Not found');
    expect(await refused(alice, 'add_comment', { fileId: made, content: '   ' })).toContain('content');
    expect(
      await refused(alice, 'reply_to_comment', { fileId: made, commentId: "x' or '", content: 'y' }),
    ).toContain('commentId');
    expect(await refused(alice, 'resolve_comment', { fileId: made, commentId: 'nope' })).toContain(
      'Comment not found: nope',
    );
  });
});
