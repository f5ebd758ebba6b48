import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { type Answer, callTool, callToolOk } from './support/tool-answers.ts';

// Undo of the Drive-side writes (docs/design.md §11.8) through the MCP SDK client, real mcp and
// auth processes, PostgreSQL and the Google emulator: each tool's change is undone with
// undo_change and read back through Google's own API (alice's Google token, no tool) as it was
// before; what was changed since is refused, naming it, unless forced; undoing the undo redoes.

// biome-ignore lint/suspicious/noExplicitAny: Google's answers are checked by toEqual, not by the compiler
type Json = any;

let stack: McpUnderTest;
let alice: Client;
let aliceId: string;
/** A spreadsheet Sheetgate created, so that drive.file lets it share and comment on it. */
let made: string;

const ok = (name: string, args: Record<string, unknown>) => callToolOk(alice, name, args);
const undo = (changeId: unknown, more: Record<string, unknown> = {}) =>
  callTool(alice, 'undo_change', { changeId, ...more });
const undone = (changeId: unknown, more: Record<string, unknown> = {}) =>
  callToolOk(alice, 'undo_change', { changeId, ...more });
const changeOf = (answer: Answer) => answer.structured.changeId as string;

/** Google's answer to a Drive or Sheets request made with alice's Google token, not through a tool. */
async function google(path: string, init: { method?: string; body?: unknown } = {}): Promise<Json> {
  const token = await stack.googleAccessToken(aliceId);
  const response = await fetch(`${stack.emulatorUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  if (!response.ok)
    throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

/** Who a file is shared with, besides its owner: `type:who:role`, sorted. */
async function sharing(fileId: string): Promise<string[]> {
  const { permissions } = await google(
    `/drive/v3/files/${fileId}/permissions?fields=permissions(id,type,role,emailAddress,domain,allowFileDiscovery)`,
  );
  return (permissions as Json[])
    .filter((permission) => permission.role !== 'owner')
    .map(
      (permission) =>
        `${permission.type}:${permission.emailAddress ?? permission.domain ?? ''}:${permission.role}`,
    )
    .sort();
}

const commentFields = 'id,content,resolved,deleted,quotedFileContent,replies(id,content,action,deleted)';
const comment = (fileId: string, commentId: string) =>
  google(`/drive/v3/files/${fileId}/comments/${commentId}?includeDeleted=true&fields=${commentFields}`);
/** The comments Google lists (deleted ones left out): content, state and live replies. */
async function comments(fileId: string): Promise<Json[]> {
  const { comments: listed } = await google(
    `/drive/v3/files/${fileId}/comments?fields=comments(${commentFields})`,
  );
  return (listed as Json[]).map((each) => ({
    content: each.content,
    quoted: each.quotedFileContent?.value ?? null,
    resolved: each.resolved,
    replies: (each.replies as Json[])
      .filter((reply) => !reply.deleted)
      .map((reply) => reply.content || reply.action),
  }));
}

const trashed = async (fileId: string) =>
  (await google(`/drive/v3/files/${fileId}?fields=trashed&supportsAllDrives=true`)).trashed as boolean;
const tabTitles = async (spreadsheetId: string) =>
  ((await google(`/v4/spreadsheets/${spreadsheetId}?fields=sheets.properties.title`)).sheets as Json[]).map(
    (sheet) => sheet.properties.title as string,
  );

/** What list_changes says a change did. */
async function summaryOf(changeId: string, spreadsheetId: string): Promise<Json> {
  const { changes } = (await ok('list_changes', { spreadsheetId, pageSize: 100 })).structured as Json;
  return (changes as Json[]).find((change) => change.changeId === changeId);
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const person = await stack.signIn('alice@example.com');
  aliceId = person.userId;
  // Her key may act outbound (the key form's choice): a share with another domain runs unasked.
  const key = await stack.createApiKey(person.sessionCookie, {
    choices: { mayActOutbound: true, mayDestroyUnasked: true },
  });
  alice = await stack.connectClient(aliceId, 'drive undo', key.secret);
  made = (await ok('create_spreadsheet', { title: 'Shared plan' })).structured.spreadsheetId as string;
}, 120_000);

afterAll(async () => {
  await alice?.close();
  await stack?.stop();
});

describe('sharing', () => {
  it('share_file: undo removes the permission; undoing the undo shares again', async () => {
    const before = await sharing(made);
    const shared = await ok('share_file', {
      fileId: made,
      emailAddress: 'bob@example.com',
      role: 'commenter',
    });
    expect((await summaryOf(changeOf(shared), made)).summary).toBe(
      'shared with bob@example.com as commenter',
    );
    const first = await undone(changeOf(shared));
    expect(first.text).toContain(`bob@example.com has no access to ${made}.`);
    expect(first.structured.restored).toEqual([`bob@example.com's access to ${made}`]);
    expect(await sharing(made)).toEqual(before);
    expect((await summaryOf(changeOf(first), made)).summary).toBe('removed bob@example.com (commenter)');

    const again = await undone(changeOf(first));
    expect(again.text).toContain('given back without a notification email');
    expect(await sharing(made)).toEqual([...before, 'user:bob@example.com:commenter'].sort());
    await undone(changeOf(again));
    expect(await sharing(made)).toEqual(before);
  });

  it('a role changed since is named and kept, unless forced', async () => {
    const shared = await ok('share_file', {
      fileId: made,
      emailAddress: 'carol@example.com',
      role: 'reader',
    });
    const id = shared.structured.permissionId as string;
    await google(`/drive/v3/files/${made}/permissions/${id}?fields=id`, {
      method: 'PATCH',
      body: { role: 'writer' },
    });
    const refused = await undo(changeOf(shared));
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain(
      `carol@example.com's access to ${made} (writer access now, where the change left reader access)`,
    );
    expect(await sharing(made)).toContain('user:carol@example.com:writer');
    const forced = await undone(changeOf(shared), { force: true });
    expect(forced.structured.changedSince).toHaveLength(1);
    expect(await sharing(made)).not.toContain('user:carol@example.com:writer');
  });

  it('sharing again with another role, and update_permission: undo restores the earlier role', async () => {
    const first = await ok('share_file', { fileId: made, emailAddress: 'dave@example.com', role: 'reader' });
    const again = await ok('share_file', { fileId: made, emailAddress: 'dave@example.com', role: 'writer' });
    expect((await summaryOf(changeOf(again), made)).summary).toBe(
      'shared with dave@example.com as writer (was reader)',
    );
    await undone(changeOf(again));
    expect(await sharing(made)).toContain('user:dave@example.com:reader');

    const updated = await ok('update_permission', {
      fileId: made,
      permissionId: first.structured.permissionId,
      role: 'commenter',
    });
    expect(updated.structured.previousRole).toBe('reader');
    expect((await summaryOf(changeOf(updated), made)).summary).toBe(
      'changed dave@example.com from reader to commenter',
    );
    const back = await undone(changeOf(updated));
    expect(await sharing(made)).toContain('user:dave@example.com:reader');
    await undone(changeOf(back));
    expect(await sharing(made)).toContain('user:dave@example.com:commenter');
    await undone(changeOf(first), { force: true });
  });

  it('remove_permission: undo recreates a person’s, a domain’s and the link’s permission', async () => {
    const grants = [
      { type: 'user', emailAddress: 'erin@example.com', role: 'writer' },
      { type: 'domain', domain: 'example.org', role: 'reader' },
      { type: 'anyone', role: 'commenter' },
    ];
    const ids: string[] = [];
    for (const grant of grants)
      ids.push((await ok('share_file', { fileId: made, ...grant })).structured.permissionId as string);
    const before = await sharing(made);
    expect(before).toEqual(
      expect.arrayContaining([
        'user:erin@example.com:writer',
        'domain:example.org:reader',
        'anyone::commenter',
      ]),
    );
    for (const permissionId of ids) {
      const removed = await ok('remove_permission', { fileId: made, permissionId });
      expect((await summaryOf(changeOf(removed), made)).summary).toMatch(
        /^removed .* \((writer|reader|commenter)\)$/,
      );
      await undone(changeOf(removed));
    }
    expect(await sharing(made)).toEqual(before);
  });

  it('a removal whose grantee was given access again since is refused; force sets the earlier role', async () => {
    const shared = await ok('share_file', {
      fileId: made,
      emailAddress: 'fay@example.com',
      role: 'commenter',
    });
    const removed = await ok('remove_permission', {
      fileId: made,
      permissionId: shared.structured.permissionId,
    });
    await google(`/drive/v3/files/${made}/permissions?sendNotificationEmail=false&fields=id`, {
      method: 'POST',
      body: { type: 'user', role: 'writer', emailAddress: 'fay@example.com' },
    });
    const refused = await undo(changeOf(removed));
    expect(refused.text).toContain(
      `fay@example.com's access to ${made} (writer access now, where the change left no access)`,
    );
    await undone(changeOf(removed), { force: true });
    expect(await sharing(made)).toContain('user:fay@example.com:commenter');
  });
});

describe('comments', () => {
  it('add_comment: undo deletes it; undoing the undo adds it again', async () => {
    const added = await ok('add_comment', { fileId: made, content: 'Check totals', quotedText: '1200' });
    expect((await summaryOf(changeOf(added), made)).summary).toBe('added a comment "Check totals" on "1200"');
    const first = await undone(changeOf(added));
    expect((await comment(made, added.structured.commentId as string)).deleted).toBe(true);
    expect(await comments(made)).not.toContainEqual(expect.objectContaining({ content: 'Check totals' }));
    const again = await undone(changeOf(first));
    expect(again.text).toContain('added the comment "Check totals"');
    expect(await comments(made)).toContainEqual({
      content: 'Check totals',
      quoted: '1200',
      resolved: false,
      replies: [],
    });
    await undone(changeOf(again));
  });

  it('an edited comment, or one replied to since, is not deleted without force', async () => {
    const added = await ok('add_comment', { fileId: made, content: 'Check rent' });
    const commentId = added.structured.commentId as string;
    await google(`/drive/v3/files/${made}/comments/${commentId}?fields=id`, {
      method: 'PATCH',
      body: { content: 'Check rent and tax' },
    });
    await google(`/drive/v3/files/${made}/comments/${commentId}/replies?fields=id`, {
      method: 'POST',
      body: { content: 'On it' },
    });
    const refused = await undo(changeOf(added));
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('(edited since: now "Check rent and tax")');
    expect(refused.text).toContain('(1 reply since, deleted with it)');
    expect((await comment(made, commentId)).deleted).toBe(false);
    await undone(changeOf(added), { force: true });
    expect((await comment(made, commentId)).deleted).toBe(true);
  });

  it('reply_to_comment that resolves: undo deletes the reply and reopens; undoing the undo replies again', async () => {
    const commentId = (await ok('add_comment', { fileId: made, content: 'Check B2' })).structured
      .commentId as string;
    const replied = await ok('reply_to_comment', {
      fileId: made,
      commentId,
      content: 'Fixed',
      resolve: true,
    });
    expect((await summaryOf(changeOf(replied), made)).summary).toBe(
      'replied "Fixed" to comment "Check B2" and resolved it',
    );
    const first = await undone(changeOf(replied));
    let now = await comment(made, commentId);
    expect(now.resolved).toBe(false);
    expect((now.replies as Json[]).find((reply) => reply.id === replied.structured.replyId).deleted).toBe(
      true,
    );
    // Drive keeps a comment's state only through replies: the reopening is one.
    expect((now.replies as Json[]).filter((reply) => !reply.deleted).map((reply) => reply.action)).toEqual([
      'reopen',
    ]);
    await undone(changeOf(first));
    now = await comment(made, commentId);
    expect(now.resolved).toBe(true);
    expect((now.replies as Json[]).filter((reply) => !reply.deleted).map((reply) => reply.content)).toContain(
      'Fixed',
    );
  });

  it('resolve_comment: undo reopens it and deletes its note; a comment reopened since has nothing to undo', async () => {
    const commentId = (await ok('add_comment', { fileId: made, content: 'Check C3' })).structured
      .commentId as string;
    const resolved = await ok('resolve_comment', { fileId: made, commentId, content: 'Done' });
    expect((await summaryOf(changeOf(resolved), made)).summary).toBe(
      'resolved comment "Check C3" with the note "Done"',
    );
    const first = await undone(changeOf(resolved));
    expect((await comments(made)).find((each) => each.content === 'Check C3')).toEqual(
      expect.objectContaining({ resolved: false, replies: ['reopen'] }),
    );
    const again = await undone(changeOf(first));
    expect((await comment(made, commentId)).resolved).toBe(true);

    // A bare resolve, reopened by someone since: nothing left to undo.
    await undone(changeOf(again));
    const bare = await ok('resolve_comment', { fileId: made, commentId });
    await google(`/drive/v3/files/${made}/comments/${commentId}/replies?fields=id`, {
      method: 'POST',
      body: { action: 'reopen' },
    });
    const nothing = await undo(changeOf(bare));
    expect(nothing.isError).toBe(true);
    expect(nothing.text).toContain('is open already, as before change');
  });

  it('a reply edited since is not deleted without force', async () => {
    const commentId = (await ok('add_comment', { fileId: made, content: 'Check D4' })).structured
      .commentId as string;
    const replied = await ok('reply_to_comment', { fileId: made, commentId, content: 'Soon' });
    await google(
      `/drive/v3/files/${made}/comments/${commentId}/replies/${replied.structured.replyId}?fields=id`,
      {
        method: 'PATCH',
        body: { content: 'Tomorrow' },
      },
    );
    const refused = await undo(changeOf(replied));
    expect(refused.text).toContain('the reply "Soon"');
    expect(refused.text).toContain('(edited since: now "Tomorrow")');
    await undone(changeOf(replied), { force: true });
    expect((await comments(made)).find((each) => each.content === 'Check D4')?.replies).toEqual([]);
  });
});

describe('files', () => {
  it('create_spreadsheet: its starting values are counted; undo trashes it, undoing the undo restores it', async () => {
    const values = Array.from({ length: 5 }, (_, row) =>
      Array.from({ length: 7 }, (_, column) => row * 7 + column),
    );
    const created = await ok('create_spreadsheet', { title: 'Budget', values });
    const spreadsheetId = created.structured.spreadsheetId as string;
    const listed = await summaryOf(changeOf(created), spreadsheetId);
    expect(listed).toMatchObject({
      cells: 35,
      rows: 5,
      summary: 'created spreadsheet "Budget" with 35 cells',
    });
    const first = await undone(changeOf(created));
    expect(first.text).toContain(`moved "Budget" (${spreadsheetId}) to the trash`);
    expect(await trashed(spreadsheetId)).toBe(true);
    await undone(changeOf(first));
    expect(await trashed(spreadsheetId)).toBe(false);
  });

  it('a spreadsheet written since is not trashed without force', async () => {
    const created = await ok('create_spreadsheet', { title: 'Kept' });
    const spreadsheetId = created.structured.spreadsheetId as string;
    const changeId = changeOf(created);
    await ok('write_range', { spreadsheetId, range: 'A1', values: [['later']] });
    const refused = await undo(changeId);
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/"Kept" \(.+\) \(modified at .+, after the change\)/);
    expect(await trashed(spreadsheetId)).toBe(false);
    await undone(changeId, { force: true });
    expect(await trashed(spreadsheetId)).toBe(true);
  });

  it('a spreadsheet whose modifiedTime Google did not answer is made, and says undo is not available', async () => {
    await stack.fault({ match: 'drive.files.get', status: 500, count: 10 });
    let created: Answer;
    try {
      created = await ok('create_spreadsheet', { title: 'Unread' });
    } finally {
      await stack.clearFaults();
    }
    const refused = await undo(changeOf(created));
    expect(refused.text).toContain('cannot be undone');
    expect(refused.text).toContain('Google did not say when the new spreadsheet was last modified');
    expect(await trashed(created.structured.spreadsheetId as string)).toBe(false);
  });

  it('create_folder: undo trashes it, but not while it holds a file put in it since, unless forced', async () => {
    const folder = await ok('create_folder', { name: 'Reports' });
    const folderId = folder.structured.folderId as string;
    expect((await summaryOf(changeOf(folder), folderId)).summary).toBe('created folder "Reports"');
    await ok('create_spreadsheet', { title: 'Q3 report', folderId });
    const refused = await undo(changeOf(folder));
    expect(refused.text).toContain('"Q3 report"');
    expect(refused.text).toContain('the trash would take it too');
    expect(await trashed(folderId)).toBe(false);
    await undone(changeOf(folder), { force: true });
    expect(await trashed(folderId)).toBe(true);
  });

  it('copy_spreadsheet and convert_file: undo trashes the new file', async () => {
    const copy = await ok('copy_spreadsheet', { spreadsheetId: made, name: 'Plan copy' });
    const converted = await ok('convert_file', { fileId: made, to: 'csv' });
    for (const [answer, fileId] of [
      [copy, copy.structured.spreadsheetId],
      [converted, converted.structured.fileId],
    ] as const) {
      expect(await trashed(fileId as string)).toBe(false);
      await undone(changeOf(answer));
      expect(await trashed(fileId as string)).toBe(true);
    }
    expect((await summaryOf(changeOf(copy), copy.structured.spreadsheetId as string)).summary).toBe(
      `copied spreadsheet ${made} as "Plan copy"`,
    );
  });
});

describe('copy_sheet_to', () => {
  it('undo deletes the copied tab, keeping what was written to it: undoing the undo recreates it', async () => {
    const source = (await ok('create_spreadsheet', { title: 'Source', values: [['Item', 'Cost']] }))
      .structured.spreadsheetId as string;
    const destination = (await ok('create_spreadsheet', { title: 'Destination' })).structured
      .spreadsheetId as string;
    const sheetId = ((await ok('get_spreadsheet', { spreadsheetId: source })).structured.sheets as Json[])[0]
      .sheetId;
    const copied = await ok('copy_sheet_to', {
      spreadsheetId: source,
      sheetId,
      destinationSpreadsheetId: destination,
    });
    expect(await tabTitles(destination)).toEqual(['Sheet1', 'Copy of Sheet1']);
    expect((await summaryOf(changeOf(copied), destination)).summary).toBe(
      `copied a tab of spreadsheet ${source} here as "Copy of Sheet1"`,
    );
    await ok('write_range', {
      spreadsheetId: destination,
      range: "'Copy of Sheet1'!C1",
      values: [['later']],
    });
    const first = await undone(changeOf(copied));
    expect(first.text).toContain('its 3 cells are kept: undoing this undo recreates it');
    expect(await tabTitles(destination)).toEqual(['Sheet1']);
    await undone(changeOf(first));
    expect(await tabTitles(destination)).toEqual(['Sheet1', 'Copy of Sheet1']);
    const { values } = await google(`/v4/spreadsheets/${destination}/values/'Copy of Sheet1'!A1:C1`);
    expect(values).toEqual([['Item', 'Cost', 'later']]);
  });
});

describe('dry runs and toolsets', () => {
  it('a dry run says what it would do and changes nothing', async () => {
    const shared = await ok('share_file', { fileId: made, emailAddress: 'gus@example.com', role: 'reader' });
    const dry = await undone(changeOf(shared), { dryRun: true });
    expect(dry.text).toContain(`Dry run: gus@example.com would have no access to ${made}, as before change`);
    expect(await sharing(made)).toContain('user:gus@example.com:reader');
    await undone(changeOf(shared));
  });

  it('undoing a sharing change needs the sharing toolset', async () => {
    const shared = await ok('share_file', { fileId: made, emailAddress: 'hal@example.com', role: 'reader' });
    const token = await stack.sign({ sub: aliceId, toolsets: ['core-read', 'core-write'] });
    const valuesOnly = new Client({ name: 'values only', version: '1.0.0' });
    await valuesOnly.connect(
      new StreamableHTTPClientTransport(new URL(stack.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const refused = await callTool(valuesOnly, 'undo_change', { changeId: changeOf(shared) });
      expect(refused.isError).toBe(true);
      expect(refused.text).toContain('writes again what share_file did, which is in the toolset');
      expect(await sharing(made)).toContain('user:hal@example.com:reader');
    } finally {
      await valuesOnly.close();
    }
  });
});
