import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// list_folder_contents (issue 35, item 8): what a Drive folder holds, through the MCP SDK client,
// real mcp and auth processes and the Google emulator. It relies on Drive v3's files.list with
// `'<folderId>' in parents` (ref-search-terms: "parents … Whether the parents collection contains
// the specified ID") and orderBy `folder,name`, and on files.get answering 404 for an unknown id.

let stack: McpUnderTest;
let alice: Client;
const ids: Record<string, string> = {};

interface Listing {
  files: Array<{ id: string; name: string; type: string; modifiedTime: string | null }>;
  nextPageToken: string | null;
}

async function seed(email: string, files: Array<Record<string, unknown>>): Promise<string[]> {
  const response = await fetch(`${stack.emulatorUrl}/__emulator/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, files }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { files: Array<{ id: string }> }).files.map((file) => file.id);
}

async function list(args: Record<string, unknown>) {
  const result = await alice.callTool({ name: 'list_folder_contents', arguments: args });
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  expect(result.isError, text).toBeFalsy();
  return { listing: result.structuredContent as unknown as Listing, text };
}

async function refused(args: Record<string, unknown>): Promise<string> {
  const result = await alice.callTool({ name: 'list_folder_contents', arguments: args });
  expect(result.isError).toBe(true);
  return (result.content as Array<{ text: string }>)[0]!.text;
}

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const aliceId = (await stack.signIn('alice@example.com')).userId;
  await stack.signIn('bob@example.com');
  const folder = 'application/vnd.google-apps.folder';
  [ids.reports, ids.empty, ids.top] = (await seed('alice@example.com', [
    { name: 'Reports', mimeType: folder },
    { name: 'Empty', mimeType: folder },
    { name: 'Top sheet', values: [['a']] },
  ])) as [string, string, string];
  [ids.q1, ids.old, ids.scan] = (await seed('alice@example.com', [
    { name: 'Q1 numbers', values: [['1']], parents: [ids.reports] },
    { name: 'Old', mimeType: folder, parents: [ids.reports] },
    { name: 'scan.pdf', mimeType: 'application/pdf', contentBase64: 'JVBERg==', parents: [ids.reports] },
    { name: 'Gone', values: [['x']], parents: [ids.reports], trashed: true },
  ])) as [string, string, string];
  [ids.bobFolder] = (await seed('bob@example.com', [{ name: 'Bob only', mimeType: folder }])) as [string];
  await seed('bob@example.com', [{ name: 'Bob sheet', values: [['b']], parents: [ids.bobFolder] }]);
  alice = await stack.connectClient(aliceId, 'folder contents');
});
afterAll(async () => {
  await alice?.close();
  await stack?.stop();
});

describe('list_folder_contents', () => {
  it('lists what is directly in a folder, folders first then by name, with type and modified time', async () => {
    const { listing, text } = await list({ folderId: ids.reports });
    expect(listing.files.map(({ id, name, type }) => ({ id, name, type }))).toEqual([
      { id: ids.old, name: 'Old', type: 'folder' },
      { id: ids.q1, name: 'Q1 numbers', type: 'spreadsheet' },
      { id: ids.scan, name: 'scan.pdf', type: 'application/pdf' },
    ]);
    for (const file of listing.files) expect(file.modifiedTime).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(listing.nextPageToken).toBeNull();
    expect(text).toContain(`Q1 numbers  (spreadsheet, spreadsheetId ${ids.q1}, modified `);
    expect(text).toContain(`Old  (folder, folderId ${ids.old}`);
    expect(text).toContain(`scan.pdf  (application/pdf, fileId ${ids.scan}`);
  });

  it('pages, each page naming the token of the next', async () => {
    const first = await list({ folderId: ids.reports, pageSize: 2 });
    expect(first.listing.files.map((file) => file.name)).toEqual(['Old', 'Q1 numbers']);
    expect(first.listing.nextPageToken).toEqual(expect.any(String));
    expect(first.text).toContain(
      `More: call again with pageToken=${JSON.stringify(first.listing.nextPageToken)}.`,
    );
    const second = await list({ folderId: ids.reports, pageSize: 2, pageToken: first.listing.nextPageToken });
    expect(second.listing).toMatchObject({ files: [{ name: 'scan.pdf' }], nextPageToken: null });
  });

  it('"root" (the default) is the top of My Drive, not what is inside its folders', async () => {
    const { listing } = await list({});
    expect(listing.files.map((file) => file.name)).toEqual(['Empty', 'Reports', 'Top sheet']);
    expect((await list({ folderId: 'root' })).listing).toEqual(listing);
  });

  it('an empty folder says so; an unknown id, another person’s folder or a file are clear errors', async () => {
    expect((await list({ folderId: ids.empty })).text).toBe('The folder "Empty" is empty.');
    for (const folderId of ['1NoSuchFolder000', ids.bobFolder])
      expect(await refused({ folderId })).toContain(
        `the folder ${folderId} does not exist, or is not in your Drive (list_folders shows yours)`,
      );
    expect(await refused({ folderId: ids.top })).toContain(
      `${ids.top} ("Top sheet") is not a folder but a application/vnd.google-apps.spreadsheet`,
    );
  });

  it('malformed, oversized and hostile arguments are refused before Google', async () => {
    expect(await refused({ folderId: "x' or name contains 'a" })).toContain('a folderId has only letters');
    expect(await refused({ folderId: ids.reports, pageSize: 1_000 })).toMatch(/pageSize/);
    expect(await refused({ folderId: ids.reports, pageToken: 'x'.repeat(501) })).toMatch(/pageToken/);
    expect(await refused({ folderId: ids.reports, pageToken: 'forged' })).toMatch(/pageToken|Invalid/);
  });
});
