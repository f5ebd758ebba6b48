import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';

// Sharing (share_file, list_permissions, update_permission, remove_permission) through the MCP SDK
// client, real mcp and auth processes and the Google emulator holding Sheetgate's scopes: a file
// Sheetgate created is shared, changed and unshared; one it did not create, or another person's,
// is refused in words (drive.file); dry runs and bad arguments send Google no permission change.
// Alice's and Bob's API keys may act outbound (their choice on the key form): sharing outside and
// with anyone runs here as their clients cannot ask (outbound-consent.test.ts holds the choice).

let stack: McpUnderTest;
let alice: Client;
let bob: Client;
let made: string;
let seeded: string;

// biome-ignore lint/suspicious/noExplicitAny: results are checked by toEqual, not by the compiler
type Structured = Record<string, any>;

async function changes(): Promise<number> {
  const body = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { attempts: number }>;
  };
  return ['create', 'update', 'delete']
    .map((verb) => body.methods[`drive.permissions.${verb}`]?.attempts ?? 0)
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

/** A tool error; `sent` says whether Google was asked for the change (and refused it). */
async function refused(client: Client, name: string, args: Record<string, unknown>, sent = false) {
  const before = await changes();
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBe(true);
  expect(await changes()).toBe(before + (sent ? 1 : 0));
  return (result.content as Array<{ text: string }>)[0]!.text;
}

const DRIVE_FILE_REFUSAL = (fileId: string) =>
  `Not found among the files Sheetgate may change: Sheetgate can change the sharing only of files it created or that were opened with it, and ${fileId} is not one (or is not in your Drive). Share it in Google Drive instead, or copy it with copy_spreadsheet — the copy is Sheetgate's — and share the copy.`;

describe('sharing tools', () => {
  beforeAll(async () => {
    stack = await startMcpUnderTest();
    const allowOutbound = async (email: string) => {
      const person = await stack.signIn(email);
      const key = await stack.createApiKey(person.sessionCookie, {
        choices: { mayActOutbound: true, mayDestroyUnasked: true },
      });
      return { userId: person.userId, key: key.secret };
    };
    const aliceKey = await allowOutbound('alice@example.com');
    const bobKey = await allowOutbound('bob@example.com');
    [seeded] = (await stack.seed('alice@example.com', [{ name: 'Seeded', values: [['x']] }])) as [string];
    alice = await stack.connectClient(aliceKey.userId, 'sharing', aliceKey.key);
    bob = await stack.connectClient(bobKey.userId, 'sharing, bob', bobKey.key);
    made = (await call(alice, 'create_spreadsheet', { title: 'Made by Sheetgate' })).structured.spreadsheetId;
  }, 120_000);

  afterAll(async () => {
    await alice?.close();
    await bob?.close();
    await stack?.stop();
  });

  describe('sharing a file Sheetgate created', () => {
    it('shares, lists, changes and removes', async () => {
      const shared = await call(alice, 'share_file', {
        fileId: made,
        emailAddress: 'Carol@Example.com',
        role: 'reader',
        emailMessage: 'The plan',
      });
      expect(shared.structured).toEqual({
        permissionId: expect.any(String),
        type: 'user',
        role: 'reader',
        emailAddress: 'carol@example.com',
        domain: null,
        fileName: null,
        changeId: expect.any(String),
      });
      const carol = shared.structured.permissionId as string;
      expect(shared.text).toBe(
        `Shared ${made} with carol@example.com as reader (permissionId ${carol}). Change ${shared.structured.changeId} (undo_change can undo it).`,
      );
      await call(alice, 'share_file', { fileId: made, type: 'anyone', role: 'commenter' });
      await call(alice, 'share_file', {
        fileId: made,
        type: 'domain',
        domain: 'example.org',
        role: 'reader',
      });

      const listed = await call(alice, 'list_permissions', { fileId: made });
      expect(
        listed.structured.permissions.map((p: Structured) => [p.type, p.role, p.emailAddress ?? p.domain]),
      ).toEqual([
        ['user', 'owner', 'alice@example.com'],
        ['user', 'reader', 'carol@example.com'],
        ['anyone', 'commenter', null],
        ['domain', 'reader', 'example.org'],
      ]);
      expect(listed.text).toContain(`carol@example.com: reader  (permissionId ${carol})`);
      expect(listed.text).toContain('anyone with the link: commenter');

      const updated = await call(alice, 'update_permission', {
        fileId: made,
        permissionId: carol,
        role: 'writer',
      });
      // The change journal's read of the permission before the change names the earlier role.
      expect(updated.structured).toMatchObject({
        permissionId: carol,
        role: 'writer',
        previousRole: 'reader',
      });
      expect(updated.text).toBe(
        `carol@example.com is now writer of ${made} (was reader). Change ${updated.structured.changeId} (undo_change can undo it).`,
      );

      const removed = await call(alice, 'remove_permission', { fileId: made, permissionId: carol });
      expect(removed.structured).toEqual({
        fileId: made,
        permissionId: carol,
        removed: true,
        changeId: expect.any(String),
      });
      const after = await call(alice, 'list_permissions', { fileId: made });
      expect(after.structured.permissions.map((p: Structured) => p.permissionId)).not.toContain(carol);
    });

    it('dry runs say what would change and change nothing', async () => {
      const before = await changes();
      const share = await call(alice, 'share_file', {
        fileId: made,
        emailAddress: 'dave@example.com',
        role: 'writer',
        dryRun: true,
      });
      expect(share.structured).toMatchObject({
        permissionId: null,
        fileName: 'Made by Sheetgate',
        dryRun: true,
      });
      expect(share.text).toBe(
        'Dry run: would share Made by Sheetgate with dave@example.com as writer. Nothing was changed.',
      );
      const anyone = (await call(alice, 'list_permissions', { fileId: made })).structured.permissions.find(
        (p: Structured) => p.type === 'anyone',
      );
      const update = await call(alice, 'update_permission', {
        fileId: made,
        permissionId: anyone.permissionId,
        role: 'reader',
        dryRun: true,
      });
      expect(update.text).toBe(
        'Dry run: would change anyone with the link from commenter to reader. Nothing was changed.',
      );
      const remove = await call(alice, 'remove_permission', {
        fileId: made,
        permissionId: anyone.permissionId,
        dryRun: true,
      });
      expect(remove.structured).toMatchObject({ removed: false, dryRun: true });
      expect(await changes()).toBe(before);
      const still = await call(alice, 'list_permissions', { fileId: made });
      expect(still.structured.permissions.find((p: Structured) => p.type === 'anyone').role).toBe(
        'commenter',
      );
    });
  });

  describe('files Sheetgate may not share', () => {
    it('says that drive.file reaches only files Sheetgate created, and how to share instead', async () => {
      // Reading who has access works for any file alice can read…
      const listed = await call(alice, 'list_permissions', { fileId: seeded });
      expect(listed.structured.permissions).toHaveLength(1);
      // …changing it is refused by Google, and said in words.
      expect(
        await refused(alice, 'share_file', { fileId: seeded, type: 'anyone', role: 'reader' }, true),
      ).toBe(DRIVE_FILE_REFUSAL(seeded));
    });

    it('keeps bob from alice’s files', async () => {
      // The change journal's read of the permissions before the change is refused already: Google
      // is not asked for the change.
      expect(
        await refused(bob, 'share_file', { fileId: made, emailAddress: 'bob@example.com', role: 'writer' }),
      ).toBe(DRIVE_FILE_REFUSAL(made));
      const ownerId = (await call(alice, 'list_permissions', { fileId: made })).structured.permissions[0]
        .permissionId as string;
      expect(await refused(bob, 'remove_permission', { fileId: made, permissionId: ownerId })).toBe(
        DRIVE_FILE_REFUSAL(made),
      );
      expect(await refused(bob, 'list_permissions', { fileId: made })).toContain('Not found');
    });
  });

  describe('bad arguments', () => {
    it('are refused before Google, naming the problem', async () => {
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['share_file', { fileId: made, emailAddress: 'x@example.com', role: 'owner' }, 'role'],
        ['share_file', { fileId: made, emailAddress: 'not an email', role: 'reader' }, 'emailAddress'],
        ['share_file', { fileId: made, role: 'reader' }, 'sharing with a user needs its emailAddress'],
        [
          'share_file',
          { fileId: made, type: 'group', role: 'reader' },
          'sharing with a group needs its emailAddress',
        ],
        [
          'share_file',
          { fileId: made, type: 'domain', role: 'reader' },
          'sharing with a domain needs domain',
        ],
        ['share_file', { fileId: made, type: 'domain', role: 'reader', domain: "x' or '" }, 'domain'],
        [
          'share_file',
          { fileId: made, type: 'anyone', role: 'reader', sendNotificationEmail: true },
          'notifications (sendNotificationEmail, emailMessage) go only to a user or group',
        ],
        [
          'share_file',
          { fileId: made, type: 'anyone', role: 'reader', emailAddress: 'x@example.com' },
          'emailAddress is for type user or group, not anyone',
        ],
        ['update_permission', { fileId: made, permissionId: "1' or '1", role: 'reader' }, 'permissionId'],
        ['update_permission', { fileId: made, permissionId: '123', role: 'organizer' }, 'role'],
        ['remove_permission', { fileId: 'x/../y', permissionId: '123' }, 'fileId'],
      ];
      for (const [tool, args, problem] of cases) expect(await refused(alice, tool, args)).toContain(problem);
    });

    it('an unknown permission is Google’s not found', async () => {
      // Found missing by the change journal's read before the change.
      expect(
        await refused(alice, 'update_permission', { fileId: made, permissionId: '123', role: 'reader' }),
      ).toContain('Permission not found: 123');
    });
  });
});
