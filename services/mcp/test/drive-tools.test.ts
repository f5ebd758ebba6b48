import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// Drive beyond one spreadsheet — folders, search, copies, shared drives — through the MCP SDK
// client, real mcp and auth processes and the Google emulator holding Sheetgate's scopes
// (spreadsheets, drive.readonly, drive.file): each tool's effect read back, dry runs that make no
// Google write, one person kept from another's files, and hostile arguments as clear tool errors.

let stack: McpUnderTest;
let alice: Client;
let bob: Client;
const ids: Record<string, string> = {};

// biome-ignore lint/suspicious/noExplicitAny: results are checked by toEqual, not by the compiler
type Structured = Record<string, any>;

async function attempts(method: string): Promise<number> {
  const body = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return body.methods[method]?.attempts ?? 0;
}
const DRIVE_WRITES = [
  'drive.files.create',
  'drive.files.copy',
  'drive.files.update',
  'sheets.spreadsheets.create',
];
const writes = async () => (await Promise.all(DRIVE_WRITES.map(attempts))).reduce((a, b) => a + b, 0);

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return {
    structured: result.structuredContent as Structured,
    text: (result.content as Array<{ text: string }>)[0]!.text,
  };
}

/** A tool error, and proof that Google was sent no write for it. */
async function refused(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const before = await writes();
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBe(true);
  expect(await writes()).toBe(before);
  return (result.content as Array<{ text: string }>)[0]!.text;
}

/** Files put in a Drive through the emulator's seed API, with fields the stack's seed does not type. */
async function seed(email: string, files: Array<Record<string, unknown>>): Promise<string[]> {
  const response = await fetch(`${stack.emulatorUrl}/__emulator/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, files }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { files: Array<{ id: string }> }).files.map((file) => file.id);
}

const names = (list: Array<{ name: string }>) => list.map((item) => item.name).sort();

beforeAll(async () => {
  stack = await startMcpUnderTest();
  const aliceId = (await stack.signIn('alice@example.com')).userId;
  const bobId = (await stack.signIn('bob@example.com')).userId;
  [ids.budget, ids.travel, ids.team, ids.archive] = (await seed('alice@example.com', [
    {
      name: 'Budget 2026',
      values: [
        ['Rent', 1200],
        ['Quarterly "forecast"', 'c:\\temp'],
      ],
    },
    { name: 'Travel plan', values: [['Lisbon']] },
    { name: 'Team budget', values: [['Shared']], driveId: '0ATeam' },
    { name: 'Archive', mimeType: 'application/vnd.google-apps.folder' },
  ])) as [string, string, string, string];
  [ids.bobBook] = (await seed('bob@example.com', [{ name: 'Bob budget', values: [['b']] }])) as [string];
  alice = await stack.connectClient(aliceId, 'drive tools');
  bob = await stack.connectClient(bobId, 'drive tools, bob');
}, 120_000);

afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await stack?.stop();
});

describe('create_folder and list_folders', () => {
  it('creates folders, nested, and lists them by parent and name, paged', async () => {
    const dry = await call(alice, 'create_folder', { name: 'Reports', dryRun: true });
    expect(dry.structured).toEqual({ folderId: null, name: 'Reports', parentId: null, dryRun: true });
    expect(dry.text).toContain('Nothing was changed.');
    expect(await attempts('drive.files.create')).toBe(0);

    const reports = await call(alice, 'create_folder', { name: 'Reports' });
    ids.reports = reports.structured.folderId;
    expect(reports.structured).toEqual({
      folderId: ids.reports,
      name: 'Reports',
      parentId: 'root',
      changeId: expect.any(String),
    });
    const q3 = await call(alice, 'create_folder', { name: 'Q3 "final"', parentId: ids.reports });
    ids.q3 = q3.structured.folderId;
    expect(q3.text).toBe(
      `Created the folder Q3 "final" in the folder "Reports" (folderId ${ids.q3}). Change ${q3.structured.changeId} (undo_change can undo it).`,
    );

    const all = await call(alice, 'list_folders', {});
    expect(names(all.structured.folders)).toEqual(['Archive', 'Q3 "final"', 'Reports']);
    const inReports = await call(alice, 'list_folders', { parentId: ids.reports });
    expect(inReports.structured).toEqual({
      folders: [{ folderId: ids.q3, name: 'Q3 "final"', parentId: ids.reports, driveId: null }],
      nextPageToken: null,
    });
    expect(names((await call(alice, 'list_folders', { nameContains: 'q3' })).structured.folders)).toEqual([
      'Q3 "final"',
    ]);
    const first = await call(alice, 'list_folders', { pageSize: 2 });
    expect(first.structured.folders).toHaveLength(2);
    expect(first.text).toContain('pageToken=');
    const rest = await call(alice, 'list_folders', {
      pageSize: 2,
      pageToken: first.structured.nextPageToken,
    });
    expect(names([...first.structured.folders, ...rest.structured.folders])).toEqual(
      names(all.structured.folders),
    );
  });

  it('keeps one person’s folders from another', async () => {
    expect((await call(bob, 'list_folders', {})).structured.folders).toEqual([]);
    const text = await refused(bob, 'create_folder', { name: 'Into alice', parentId: ids.reports });
    expect(text).toContain(`the folder ${ids.reports} does not exist`);
  });
});

describe('folderId on create_spreadsheet, convert_file and copy_spreadsheet', () => {
  it('creates, converts and copies into a folder', async () => {
    const created = await call(alice, 'create_spreadsheet', { title: 'In reports', folderId: ids.reports });
    expect(created.structured.folderId).toBe(ids.reports);
    expect(created.text).toContain('in the folder "Reports"');
    const converted = await call(alice, 'convert_file', {
      fileId: ids.budget,
      to: 'csv',
      folderId: ids.reports,
    });
    expect(converted.structured.name).toBe('Budget 2026.csv');
    const copied = await call(alice, 'copy_spreadsheet', {
      spreadsheetId: ids.budget,
      name: 'Budget copy',
      folderId: ids.q3,
    });
    expect(copied.structured).toMatchObject({ name: 'Budget copy', folderId: ids.q3 });
    ids.copy = copied.structured.spreadsheetId;
    const inReports = await call(alice, 'search_spreadsheets', {
      query: 'in',
      match: 'name',
      folderId: ids.reports,
    });
    expect(names(inReports.structured.spreadsheets)).toEqual(['In reports']);
    const inQ3 = await call(alice, 'search_spreadsheets', { query: 'budget', folderId: ids.q3 });
    expect(inQ3.structured.spreadsheets).toEqual([
      expect.objectContaining({ spreadsheetId: ids.copy, name: 'Budget copy' }),
    ]);
    // The copy holds the original's cells.
    const read = await call(alice, 'read_range', { spreadsheetId: ids.copy, range: 'Sheet1!A1:B1' });
    expect(read.structured.values[0][0]).toBe('Rent');
  });

  it('refuses a folderId that is a spreadsheet, that does not exist, or that Sheetgate may not write into', async () => {
    for (const [tool, args] of [
      ['create_spreadsheet', { title: 'x' }],
      ['convert_file', { fileId: ids.budget, to: 'csv' }],
      ['copy_spreadsheet', { spreadsheetId: ids.budget }],
      ['create_folder', { name: 'x' }],
    ] as const) {
      const key = tool === 'create_folder' ? 'parentId' : 'folderId';
      expect(await refused(alice, tool, { ...args, [key]: ids.travel })).toBe(
        `${ids.travel} ("Travel plan") is not a folder but a application/vnd.google-apps.spreadsheet: give a folderId from list_folders`,
      );
      expect(await refused(alice, tool, { ...args, [key]: '1NoSuchFolderAtAll' })).toContain(
        'the folder 1NoSuchFolderAtAll does not exist',
      );
    }
    const copy = await alice.callTool({
      name: 'copy_spreadsheet',
      arguments: { spreadsheetId: ids.budget, folderId: ids.archive },
    });
    expect(copy.isError).toBe(true);
    expect((copy.content as Array<{ text: string }>)[0]!.text).toBe(
      `Sheetgate can put files only in folders it created (create_folder) or that were opened with it, and "Archive" (${ids.archive}) is not one: use create_folder, or leave folderId out and move the file in Google Drive.`,
    );
    const created = await alice.callTool({
      name: 'create_spreadsheet',
      arguments: { title: 'Stays at the top', folderId: ids.archive },
    });
    expect(created.isError).toBe(true);
    expect((created.content as Array<{ text: string }>)[0]!.text).toMatch(
      /^Created Stays at the top \(spreadsheetId [\w-]+\) at the top of My Drive, but did not move it: Sheetgate can put files only in folders it created/,
    );
  });

  it('refuses a malformed folderId before Google', async () => {
    const text = await refused(alice, 'copy_spreadsheet', {
      spreadsheetId: ids.budget,
      folderId: "x' or '1'='1",
    });
    expect(text).toContain('a folderId has only letters, digits, - and _');
  });
});

describe('copy_spreadsheet', () => {
  it('copies with the default name; a dry run copies nothing', async () => {
    const before = await attempts('drive.files.copy');
    const dry = await call(alice, 'copy_spreadsheet', { spreadsheetId: ids.travel, dryRun: true });
    expect(dry.structured).toEqual({
      spreadsheetId: null,
      name: 'Copy of Travel plan',
      url: null,
      folderId: null,
      dryRun: true,
    });
    expect(dry.text).toBe('Dry run: would copy Travel plan as Copy of Travel plan. Nothing was changed.');
    expect(await attempts('drive.files.copy')).toBe(before);
    const copy = await call(alice, 'copy_spreadsheet', { spreadsheetId: ids.travel });
    expect(copy.structured.name).toBe('Copy of Travel plan');
    expect(await attempts('drive.files.copy')).toBe(before + 1);
  });

  it('copies a shared drive’s spreadsheet, beside it', async () => {
    const copy = await call(alice, 'copy_spreadsheet', { spreadsheetId: ids.team, name: 'Team copy' });
    expect(copy.structured).toMatchObject({ name: 'Team copy', folderId: '0ATeam' });
  });

  it('does not let bob copy alice’s spreadsheet', async () => {
    // Google is asked, and answers as if the file were not there.
    const result = await bob.callTool({ name: 'copy_spreadsheet', arguments: { spreadsheetId: ids.budget } });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]!.text).toBe(
      `Not found: File not found: ${ids.budget}. Check the spreadsheetId or fileId (list_spreadsheets shows yours).`,
    );
    expect(names((await call(bob, 'list_spreadsheets', {})).structured.spreadsheets)).toEqual(['Bob budget']);
  });
});

describe('search_spreadsheets', () => {
  it('finds by name, by content, and either, in shared drives too', async () => {
    const search = async (query: string, match?: string) =>
      names(
        (await call(alice, 'search_spreadsheets', { query, ...(match ? { match } : {}) })).structured
          .spreadsheets,
      );
    expect(await search('budget', 'name')).toEqual(['Budget 2026', 'Budget copy', 'Team budget']);
    expect(await search('rent', 'content')).toEqual(['Budget 2026', 'Budget copy']);
    expect(await search('lisbon')).toEqual(['Copy of Travel plan', 'Travel plan']);
    expect(await search('shared')).toEqual(['Team budget', 'Team copy']);
  });

  it('keeps quotes and backslashes inside the query', async () => {
    const search = async (query: string) =>
      names((await call(alice, 'search_spreadsheets', { query, match: 'content' })).structured.spreadsheets);
    expect(await search('Quarterly "forecast"')).toEqual(['Budget 2026', 'Budget copy']);
    expect(await search('c:\\temp')).toEqual(['Budget 2026', 'Budget copy']);
    // A query trying to leave the string finds nothing rather than every file.
    expect(await search("x' or name contains '")).toEqual([]);
    expect(await search("\\' or trashed = false or name = \\'")).toEqual([]);
    expect(await search("'")).toEqual([]);
    expect(await search('\\')).toEqual(['Budget 2026', 'Budget copy']);
    const none = await call(alice, 'search_spreadsheets', { query: 'zzz nothing' });
    expect(none.text).toBe('No spreadsheets match "zzz nothing".');
  });

  it('shows bob only his own', async () => {
    const found = await call(bob, 'search_spreadsheets', { query: 'budget' });
    expect(names(found.structured.spreadsheets)).toEqual(['Bob budget']);
  });
});

describe('shared drives', () => {
  it('list_spreadsheets lists a shared drive’s spreadsheets', async () => {
    const { structured } = await call(alice, 'list_spreadsheets', { nameContains: 'team' });
    expect(names(structured.spreadsheets)).toEqual(['Team budget', 'Team copy']);
  });

  it('reads and converts a shared drive’s spreadsheet', async () => {
    const converted = await call(alice, 'convert_file', { fileId: ids.team, to: 'xlsx' });
    expect(converted.structured.name).toBe('Team budget.xlsx');
  });
});
