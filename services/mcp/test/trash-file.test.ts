import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { readJson } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, postMcp, startMcpUnderTest } from './support/stack.ts';
import { type Answer, callTool, callToolOk } from './support/tool-answers.ts';

// trash_file (issue 36: "files a task made can go") through the MCP SDK client, real mcp and auth
// processes, PostgreSQL and the Google emulator: what the person made through Sheetgate goes to the
// Drive trash (read back with alice's own Google token), a folder with what it holds; undo_change
// takes it out; anything else — a file made outside Sheetgate, one Google would let Sheetgate change
// but that no tool of hers made, bob's — stays, and so does everything on a dry run, a declined
// confirmation or bad input.

let stack: McpUnderTest;
let alice: Client;
let aliceId: string;
let token: string;

const ok = (name: string, args: Record<string, unknown>) => callToolOk(alice, name, args);
const trash = (args: Record<string, unknown>) => callTool(alice, 'trash_file', args);
const changeOf = (answer: Answer) => answer.structured.changeId as string;

/** Drive's own answer for a file, with alice's Google token (no tool). */
async function driveFile(fileId: string): Promise<{ name: string; trashed: boolean }> {
  const googleToken = await stack.googleAccessToken(aliceId);
  const response = await fetch(
    `${stack.emulatorUrl}/drive/v3/files/${fileId}?fields=name,trashed&supportsAllDrives=true`,
    { headers: { authorization: `Bearer ${googleToken}` } },
  );
  if (!response.ok) throw new Error(`files.get ${fileId}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { name: string; trashed: boolean };
}
const trashed = async (fileId: string) => (await driveFile(fileId)).trashed;

/** A spreadsheet made through create_spreadsheet: Sheetgate's, in alice's journal. */
const made = async (title: string, folderId?: string) =>
  (await ok('create_spreadsheet', { title, ...(folderId ? { folderId } : {}) })).structured
    .spreadsheetId as string;

/**
 * A 2026-07-28 tools/call of trash_file, stateless, from a client that can elicit forms unless
 * `canElicit` is false; `extra` adds the MRTR members.
 */
async function modernCall(
  mcpUrl: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  canElicit = true,
) {
  const response = await postMcp(
    mcpUrl,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'trash_file',
        arguments: args,
        ...extra,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': canElicit ? { elicitation: { form: {} } } : {},
          'io.modelcontextprotocol/clientInfo': { name: 'trash-test', version: '1.0.0' },
        },
      },
    },
    {
      headers: {
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'trash_file',
      },
    },
  );
  expect(response.status).toBe(200);
  return readJson(response);
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  aliceId = (await stack.signIn('alice@example.com')).userId;
  alice = await stack.connectClient(aliceId, 'trash file');
  token = await stack.sign({ sub: aliceId });
}, 120_000);

afterAll(async () => {
  await alice?.close();
  await stack?.stop();
});

describe('trash_file', () => {
  it('moves a spreadsheet made with Sheetgate to the trash; undo takes it out, and undoing that trashes it again', async () => {
    const id = await made('Scratch sums');
    const done = await ok('trash_file', { fileId: id });
    expect(done.structured).toMatchObject({ fileId: id, name: 'Scratch sums', folder: false });
    expect(done.text).toMatch(
      new RegExp(
        `^Moved the file "Scratch sums" \\(${id}\\) to the trash\\. Change ${changeOf(done)} \\(undo_change can undo it\\)\\.$`,
      ),
    );
    expect(await trashed(id)).toBe(true);
    const listed = await ok('list_changes', { spreadsheetId: id, pageSize: 1 });
    expect(listed.structured.changes).toMatchObject([
      { changeId: changeOf(done), tool: 'trash_file', summary: 'moved "Scratch sums" to the trash' },
    ]);

    const undone = await ok('undo_change', { changeId: changeOf(done) });
    expect(undone.text).toContain(`took "Scratch sums" (${id}) out of the trash`);
    expect(await trashed(id)).toBe(false);
    await ok('undo_change', { changeId: changeOf(undone) });
    expect(await trashed(id)).toBe(true);
  });

  it('moves a folder made with Sheetgate to the trash with what it holds, named; undo restores them all', async () => {
    const folderId = (await ok('create_folder', { name: 'Task output' })).structured.folderId as string;
    const inside = await made('Helper sums', folderId);
    const dry = await ok('trash_file', { fileId: folderId, dryRun: true });
    expect(dry.text).toBe(
      `Dry run: would move the folder "Task output" (${folderId}) with 1 item in it ("Helper sums"; what its folders hold goes too) to the trash. Nothing was changed.`,
    );
    expect(dry.structured).toMatchObject({
      folder: true,
      held: { count: 1, first: ['Helper sums'], more: false },
      dryRun: true,
    });
    expect([await trashed(folderId), await trashed(inside)]).toEqual([false, false]);

    const done = await ok('trash_file', { fileId: folderId });
    expect(done.text).toContain('with 1 item in it ("Helper sums"');
    expect([await trashed(folderId), await trashed(inside)]).toEqual([true, true]);
    await ok('undo_change', { changeId: changeOf(done) });
    expect([await trashed(folderId), await trashed(inside)]).toEqual([false, false]);
  });

  it('says what an empty folder is, and refuses a file already in the trash', async () => {
    const folderId = (await ok('create_folder', { name: 'Empty' })).structured.folderId as string;
    expect((await ok('trash_file', { fileId: folderId, dryRun: true })).text).toContain(
      `the folder "Empty" (${folderId}), which is empty`,
    );
    await ok('trash_file', { fileId: folderId });
    const again = await trash({ fileId: folderId });
    expect(again).toMatchObject({
      isError: true,
      text: `the folder "Empty" (${folderId}) is in the trash already.`,
    });
  });

  it("leaves alone a file not made through Sheetgate, even one Google would let it change, and bob's", async () => {
    const [own] = await stack.seed('alice@example.com', [{ name: 'Own budget', values: [['Rent', 1200]] }]);
    // Copied with alice's Google token for Sheetgate's app: drive.file lets Sheetgate change it,
    // but no tool of hers made it (as with a file chosen in the Picker).
    const googleToken = await stack.googleAccessToken(aliceId);
    const copied = (await (
      await fetch(`${stack.emulatorUrl}/drive/v3/files/${own}/copy`, {
        method: 'POST',
        headers: { authorization: `Bearer ${googleToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Copied outside' }),
      })
    ).json()) as { id: string };
    for (const [fileId, name] of [
      [own!, 'Own budget'],
      [copied.id, 'Copied outside'],
    ] as const)
      for (const dryRun of [false, true]) {
        const refused = await trash({ fileId, dryRun });
        expect(refused.isError).toBe(true);
        expect(refused.text).toBe(
          `the file "${name}" (${fileId}) stays: Sheetgate trashes only files you made with it (create_spreadsheet, copy_spreadsheet, convert_file, create_folder) within its change journal's retention. Move it to the trash in Google Drive.`,
        );
        expect(await trashed(fileId)).toBe(false);
      }

    await stack.signIn('bob@example.com');
    const [bobs] = await stack.seed('bob@example.com', [{ name: 'Bob private', values: [['x']] }]);
    const refused = await trash({ fileId: bobs! });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/not found/i);
    expect(refused.text).not.toContain('Bob private');
  });

  it('asks a client that can elicit before trashing, naming the file; declined, it stays', async () => {
    const id = await made('Asked about');
    const call = (extra: Record<string, unknown> = {}) => modernCall(stack.mcpUrl, { fileId: id }, extra);
    const asked = (await call()).result;
    expect(asked.resultType).toBe('input_required');
    expect(asked.inputRequests.confirm.params.message).toContain(
      `The file "Asked about" (${id}) goes to the Drive trash (Google deletes it for good after 30 days there).`,
    );
    const declined = (
      await call({
        requestState: asked.requestState,
        inputResponses: { confirm: { action: 'decline' } },
      })
    ).result;
    expect(declined.isError).toBe(true);
    expect(await trashed(id)).toBe(false);
    const accepted = (
      await call({
        requestState: asked.requestState,
        inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      })
    ).result;
    expect(accepted.isError).toBeFalsy();
    expect(await trashed(id)).toBe(true);
  });

  it('leaves every file where it is when the change journal is off (it could not tell what Sheetgate made)', async () => {
    const id = await made('Unjournaled');
    const off = await stack.startMcp({ CHANGE_JOURNAL: 'off' });
    const answer = (await modernCall(off.mcpUrl, { fileId: id }, {}, false)).result;
    expect(answer.isError).toBe(true);
    expect(answer.content[0].text).toBe(
      `the file "Unjournaled" (${id}) stays: this deployment keeps no change journal, so Sheetgate cannot tell the files it made (and could not undo the trash). Move it to the trash in Google Drive.`,
    );
    expect(await trashed(id)).toBe(false);
  });

  it('refuses malformed, hostile and missing input, changing nothing', async () => {
    const id = await made('Kept safe');
    const bad: Array<Record<string, unknown>> = [
      {},
      { fileId: '' },
      { fileId: 'x'.repeat(5_000) },
      { fileId: 42 },
      { fileId: "abc' or trashed = false or name = '" },
      { fileId: '../../files/other' },
      { fileId: id, dryRun: 'yes' },
      { fileId: id, force: true },
    ];
    for (const args of bad) {
      const answer = await trash(args);
      expect(answer.isError, JSON.stringify(args)).toBe(true);
      expect(answer.text.length).toBeLessThan(1_000);
    }
    expect(await trashed(id)).toBe(false);
    // A file's URL is taken as its id, as everywhere ids are asked.
    const byUrl = await ok('trash_file', {
      fileId: `https://docs.google.com/spreadsheets/d/${id}/edit#gid=0`,
      dryRun: true,
    });
    expect(byUrl.structured.fileId).toBe(id);
  });
});
