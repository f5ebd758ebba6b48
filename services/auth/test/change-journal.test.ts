import { randomBytes, randomUUID } from 'node:crypto';
import {
  ChangeCredentialKind,
  type ChangeJournalClient,
  type ChangeRecord,
  createAccountServiceClient,
  createChangeJournalClient,
  GrpcStatus,
} from '@sheetgate/proto';
import { createLogger } from '@sheetgate/service-runtime';
import { createTestDatabase, type TestDatabase } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChangeJournal } from '../src/change-journal/change-journal.ts';
import { generateKeyringSpec, parseKeyring } from '../src/crypto/keyring.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createUserLibrary } from '../src/users/index.ts';
import { type AuthUnderTest, startAuthUnderTest } from './support/auth-process.ts';

const payloadOf = (text: string) => Buffer.from(JSON.stringify({ before: text }));

function record(userId: string, overrides: Partial<ChangeRecord> = {}): ChangeRecord {
  return {
    id: randomUUID(),
    userId,
    occurredAtMs: Date.now(),
    credentialKind: ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_API_KEY,
    credentialId: randomUUID(),
    tool: 'write_range',
    spreadsheetId: 'sheet-1',
    ranges: ["'Sheet1'!A1:B2"],
    cells: 4,
    rows: 2,
    undoable: true,
    undoUnavailableReason: '',
    payload: payloadOf('secret-cell-contents'),
    undoesChangeId: '',
    summary: 'wrote 4 cells of Sheet1!A1:B2',
    ...overrides,
  };
}

describe('the change journal library (PostgreSQL)', () => {
  let database: TestDatabase;
  let pool: DatabasePool;
  const keyring = parseKeyring(generateKeyringSpec('j1'));

  beforeAll(async () => {
    database = await createTestDatabase();
    await migrateToLatest(database.url, createLogger({ service: 'test', level: 'silent' }));
    pool = createDatabasePool(database.url, 4);
  });
  afterAll(async () => {
    await pool?.end();
    await database?.close();
  });

  const input = (userId: string, bytes: Buffer, at = new Date()) => ({
    id: randomUUID(),
    userId,
    occurredAt: at,
    credentialKind: 'api_key' as const,
    credentialId: 'k',
    tool: 'write_range',
    spreadsheetId: 's',
    ranges: ['A1'],
    cells: 1,
    rows: 1,
    undoable: true,
    undoUnavailableReason: '',
    payload: bytes,
    undoesChangeId: null,
    summary: '',
  });

  it('seals the payload at rest, bound to the person and entry', async () => {
    const users = createUserLibrary(pool);
    const user = await users.upsertFromGoogle({ sub: 'cj-1', email: 'a@example.com', name: 'A' });
    const journal = createChangeJournal({ pool, keyring, retentionDays: 30, maxBytesPerPerson: 1 << 20 });
    const entry = input(user.id, payloadOf('quarterly-figures'));
    await journal.record([entry]);
    const { rows } = await pool.query('SELECT payload_sealed FROM change_journal WHERE id = $1', [entry.id]);
    expect(rows[0].payload_sealed).toMatch(/^v1\.j1\./);
    expect(rows[0].payload_sealed).not.toContain('quarterly');
    expect((await journal.get(user.id, entry.id))?.payload.toString()).toContain('quarterly-figures');
    // Moved to another entry's row, the sealed payload does not open.
    const other = input(user.id, payloadOf('x'));
    await journal.record([other]);
    await pool.query('UPDATE change_journal SET payload_sealed = $1 WHERE id = $2', [
      rows[0].payload_sealed,
      other.id,
    ]);
    await expect(journal.get(user.id, other.id)).rejects.toThrow(/failed authentication/);
  });

  it('keeps an entry past the per-person bound without its before-images, saying why', async () => {
    const users = createUserLibrary(pool);
    const user = await users.upsertFromGoogle({ sub: 'cj-2', email: 'b@example.com', name: 'B' });
    const journal = createChangeJournal({ pool, keyring, retentionDays: 7, maxBytesPerPerson: 100 });
    const first = input(user.id, Buffer.alloc(60, 'a'));
    const second = input(user.id, Buffer.alloc(60, 'b'));
    expect(await journal.record([first, second])).toEqual({ recorded: 2, storedWithoutUndo: 1 });
    const kept = await journal.get(user.id, second.id);
    expect(kept?.change.undoable).toBe(false);
    expect(kept?.payload.length).toBe(0);
    expect(kept?.change.undoUnavailableReason).toMatch(/change journal holds the most .* after 7 days/);
    expect((await journal.get(user.id, first.id))?.change.undoable).toBe(true);
  });

  it('purges entries past the retention period and deletes all with the account', async () => {
    const users = createUserLibrary(pool);
    const user = await users.upsertFromGoogle({ sub: 'cj-3', email: 'c@example.com', name: 'C' });
    const journal = createChangeJournal({ pool, keyring, retentionDays: 30, maxBytesPerPerson: 1 << 20 });
    const old = input(user.id, payloadOf('old'), new Date(Date.now() - 31 * 86_400_000));
    const recent = input(user.id, payloadOf('recent'));
    await journal.record([old, recent]);
    expect(await journal.purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await journal.get(user.id, old.id)).toBeUndefined();
    expect(await journal.get(user.id, recent.id)).toBeDefined();
    await pool.query('DELETE FROM users WHERE id = $1', [user.id]);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM change_journal WHERE user_id = $1', [
      user.id,
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('reseals payloads written with an older key', async () => {
    const users = createUserLibrary(pool);
    const user = await users.upsertFromGoogle({ sub: 'cj-4', email: 'd@example.com', name: 'D' });
    const oldSpec = `old:${randomBytes(32).toString('base64')}`;
    const entry = input(user.id, payloadOf('rotate-me'));
    const options = { pool, retentionDays: 30, maxBytesPerPerson: 1 << 20 };
    await createChangeJournal({ ...options, keyring: parseKeyring(oldSpec) }).record([entry]);
    const rotated = createChangeJournal({
      ...options,
      keyring: parseKeyring(`new:${randomBytes(32).toString('base64')},${oldSpec}`),
    });
    expect((await rotated.resealWithCurrentKey()).resealed).toBeGreaterThanOrEqual(1);
    const { rows } = await pool.query('SELECT payload_sealed FROM change_journal WHERE id = $1', [entry.id]);
    expect(rows[0].payload_sealed).toMatch(/^v1\.new\./);
    expect((await rotated.get(user.id, entry.id))?.payload.toString()).toContain('rotate-me');
  });
});

describe('ChangeJournalService over gRPC', () => {
  let subject: AuthUnderTest;
  let pool: DatabasePool;
  let journal: ChangeJournalClient;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    subject = await startAuthUnderTest({ CHANGE_JOURNAL_MAX_MB_PER_PERSON: '1' });
    pool = createDatabasePool(subject.database.url, 2);
    const users = createUserLibrary(pool);
    alice = (await users.upsertFromGoogle({ sub: 'cj-g1', email: 'alice@example.com', name: 'Alice' })).id;
    bob = (await users.upsertFromGoogle({ sub: 'cj-g2', email: 'bob@example.com', name: 'Bob' })).id;
    journal = createChangeJournalClient({
      address: `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`,
      serviceToken: subject.env.INTERNAL_SERVICE_TOKEN!,
    });
  });
  afterAll(async () => {
    journal?.close();
    await pool?.end();
    await subject?.stop();
  });

  it('records a batch, lists it newest first and pages, and opens one entry with its payload', async () => {
    const key = randomUUID();
    const base = Date.now() - 10_000;
    const entries = [0, 1, 2].map((n) =>
      record(alice, { occurredAtMs: base + n, credentialId: key, spreadsheetId: 'listed', cells: n }),
    );
    expect(await journal.recordChanges({ changes: entries })).toEqual({ recorded: 3, storedWithoutUndo: 0 });
    // The same ids again are skipped.
    expect(await journal.recordChanges({ changes: entries })).toEqual({ recorded: 0, storedWithoutUndo: 0 });
    const first = await journal.listChanges({
      userId: alice,
      spreadsheetId: 'listed',
      tool: '',
      credentialId: '',
      sinceMs: 0,
      untilMs: 0,
      pageSize: 2,
      pageToken: '',
    });
    expect(first.changes.map((change) => change.cells)).toEqual([2, 1]);
    expect(first.changes[0]).toMatchObject({
      credentialKind: ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_API_KEY,
      credentialId: key,
      tool: 'write_range',
      undoable: true,
    });
    const second = await journal.listChanges({
      userId: alice,
      spreadsheetId: 'listed',
      tool: '',
      credentialId: '',
      sinceMs: 0,
      untilMs: 0,
      pageSize: 2,
      pageToken: first.nextPageToken,
    });
    expect(second.changes.map((change) => change.cells)).toEqual([0]);
    expect(second.nextPageToken).toBe('');
    const got = await journal.getChange({
      userId: alice,
      changeId: entries[1]!.id,
      credentialId: '',
      spreadsheetId: '',
    });
    expect(got.change?.id).toBe(entries[1]!.id);
    expect(got.payload.toString()).toContain('secret-cell-contents');
    // The default is the credential's newest change that stands.
    const last = await journal.getChange({
      userId: alice,
      changeId: '',
      credentialId: key,
      spreadsheetId: '',
    });
    expect(last.change?.id).toBe(entries[2]!.id);
  });

  it("names the credential: the API key's name, the connected app's client name", async () => {
    const registered = await fetch(`${subject.baseUrl}/api/auth/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Sheets Agent',
        redirect_uris: ['http://127.0.0.1:9/callback'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const { rows } = await pool.query(
      `INSERT INTO api_keys (user_id, name, display_prefix, secret_hash, scopes)
       VALUES ($1, 'Nightly import', 'sg_live_abcd', $2, ARRAY['sheets:read']) RETURNING id`,
      [alice, 'a'.repeat(64)],
    );
    const byApp = record(alice, {
      spreadsheetId: 'named',
      credentialKind: ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_APP,
      credentialId: clientId,
    });
    const byKey = record(alice, { spreadsheetId: 'named', credentialId: rows[0].id });
    await journal.recordChanges({ changes: [byApp, byKey] });
    const listed = await journal.listChanges({
      userId: alice,
      spreadsheetId: 'named',
      tool: '',
      credentialId: '',
      sinceMs: 0,
      untilMs: 0,
      pageSize: 0,
      pageToken: '',
    });
    const names = Object.fromEntries(listed.changes.map((change) => [change.id, change.credentialName]));
    expect(names).toEqual({ [byApp.id]: 'Sheets Agent', [byKey.id]: 'Nightly import' });
  });

  it('keeps what each change did in words, and filters by tool', async () => {
    const entries = [
      record(alice, { spreadsheetId: 'worded', summary: 'wrote 12 cells of Sheet1!A1:C4 (3 formulas)' }),
      record(alice, {
        spreadsheetId: 'worded',
        tool: 'delete_sheet',
        summary: "deleted the tab 'Q3' (1,200 rows, 4,312 cells)",
      }),
      // Recorded before summaries existed: none.
      record(alice, { spreadsheetId: 'worded', tool: 'set_notes', summary: '' }),
    ];
    await journal.recordChanges({ changes: entries });
    const list = (tool: string) =>
      journal.listChanges({
        userId: alice,
        spreadsheetId: 'worded',
        tool,
        credentialId: '',
        sinceMs: 0,
        untilMs: 0,
        pageSize: 0,
        pageToken: '',
      });
    const all = await list('');
    expect(Object.fromEntries(all.changes.map((change) => [change.tool, change.summary]))).toEqual({
      write_range: 'wrote 12 cells of Sheet1!A1:C4 (3 formulas)',
      delete_sheet: "deleted the tab 'Q3' (1,200 rows, 4,312 cells)",
      set_notes: '',
    });
    expect((await list('delete_sheet')).changes.map((change) => change.id)).toEqual([entries[1]!.id]);
    const got = await journal.getChange({
      userId: alice,
      changeId: entries[0]!.id,
      credentialId: '',
      spreadsheetId: '',
    });
    expect(got.change?.summary).toBe('wrote 12 cells of Sheet1!A1:C4 (3 formulas)');
    await expect(list('DROP TABLE')).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
  });

  it("scopes 'the last change' to a spreadsheet, and a change by id to its spreadsheet", async () => {
    const key = randomUUID();
    const inFirst = record(alice, {
      credentialId: key,
      spreadsheetId: 'first',
      occurredAtMs: Date.now() - 5_000,
    });
    const inSecond = record(alice, { credentialId: key, spreadsheetId: 'second' });
    await journal.recordChanges({ changes: [inFirst, inSecond] });
    const last = (spreadsheetId: string) =>
      journal.getChange({ userId: alice, changeId: '', credentialId: key, spreadsheetId });
    expect((await last('')).change?.id).toBe(inSecond.id);
    expect((await last('first')).change?.id).toBe(inFirst.id);
    await expect(last('third')).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
    const byId = (spreadsheetId: string) =>
      journal.getChange({ userId: alice, changeId: inFirst.id, credentialId: '', spreadsheetId });
    expect((await byId('first')).change?.id).toBe(inFirst.id);
    await expect(byId('second')).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
  });

  it("answers NOT_FOUND for another person's change and for an unknown one", async () => {
    const entry = record(alice);
    await journal.recordChanges({ changes: [entry] });
    for (const request of [
      { userId: bob, changeId: entry.id, credentialId: '', spreadsheetId: '' },
      { userId: alice, changeId: randomUUID(), credentialId: '', spreadsheetId: '' },
      { userId: alice, changeId: 'not-a-uuid', credentialId: '', spreadsheetId: '' },
    ])
      await expect(journal.getChange(request)).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
    await expect(
      journal.markChangeUndone({ userId: bob, changeId: entry.id, undoneByChangeId: randomUUID() }),
    ).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
    const bobs = await journal.listChanges({
      userId: bob,
      spreadsheetId: '',
      tool: '',
      credentialId: '',
      sinceMs: 0,
      untilMs: 0,
      pageSize: 0,
      pageToken: '',
    });
    expect(bobs.changes).toEqual([]);
  });

  it('marks a change undone once; the default then skips it', async () => {
    const key = randomUUID();
    const older = record(alice, { credentialId: key, occurredAtMs: Date.now() - 5_000 });
    const newer = record(alice, { credentialId: key });
    await journal.recordChanges({ changes: [older, newer] });
    const undo = randomUUID();
    await journal.markChangeUndone({ userId: alice, changeId: newer.id, undoneByChangeId: undo });
    await expect(
      journal.markChangeUndone({ userId: alice, changeId: newer.id, undoneByChangeId: randomUUID() }),
    ).rejects.toMatchObject({ code: GrpcStatus.ALREADY_EXISTS });
    const undone = await journal.getChange({
      userId: alice,
      changeId: newer.id,
      credentialId: '',
      spreadsheetId: '',
    });
    expect(undone.change).toMatchObject({ undoneByChangeId: undo });
    expect(undone.change!.undoneAtMs).toBeGreaterThan(0);
    const last = await journal.getChange({
      userId: alice,
      changeId: '',
      credentialId: key,
      spreadsheetId: '',
    });
    expect(last.change?.id).toBe(older.id);
  });

  it('refuses malformed and oversized batches, storing nothing of them', async () => {
    const good = record(alice);
    const cases: Array<[ChangeRecord[], RegExp]> = [
      [[], /no changes/],
      [Array.from({ length: 51 }, () => record(alice)), /at most 50/],
      [[good, record(alice, { id: 'nope' })], /changes\[1\]: id must be a UUID/],
      [[record(alice, { userId: 'x' })], /user_id/],
      [[record(alice, { tool: 'DROP TABLE' })], /tool/],
      [
        [record(alice, { credentialKind: ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_UNSPECIFIED })],
        /credential_kind/,
      ],
      [[record(alice, { occurredAtMs: Date.now() + 3_600_000 })], /occurred_at_ms/],
      [[record(alice, { ranges: Array.from({ length: 101 }, () => 'A1') })], /at most 100 ranges/],
      [[record(alice, { payload: Buffer.alloc(512 * 1024 + 1) })], /payload is larger/],
      [[record(alice, { summary: 'x'.repeat(301) })], /summary is too long/],
      [[record(alice, { payload: Buffer.alloc(0) })], /needs its payload/],
    ];
    for (const [changes, message] of cases) {
      const error = await journal.recordChanges({ changes }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
      expect((error as { details: string }).details).toMatch(message);
    }
    await expect(
      journal.getChange({ userId: alice, changeId: good.id, credentialId: '', spreadsheetId: '' }),
    ).rejects.toMatchObject({
      code: GrpcStatus.NOT_FOUND,
    });
    await expect(
      journal.listChanges({
        userId: alice,
        spreadsheetId: '',
        tool: '',
        credentialId: '',
        sinceMs: 0,
        untilMs: 0,
        pageSize: 0,
        pageToken: 'garbage',
      }),
    ).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
  });

  it("keeps the person's journal under CHANGE_JOURNAL_MAX_MB_PER_PERSON, saying so in the entry", async () => {
    const users = createUserLibrary(pool);
    const carol = (await users.upsertFromGoogle({ sub: 'cj-g3', email: 'carol@example.com', name: 'C' })).id;
    const big = () => record(carol, { payload: Buffer.alloc(400 * 1024, 'z') });
    const entries = [big(), big(), big()];
    expect(await journal.recordChanges({ changes: entries })).toEqual({ recorded: 3, storedWithoutUndo: 1 });
    const third = await journal.getChange({
      userId: carol,
      changeId: entries[2]!.id,
      credentialId: '',
      spreadsheetId: '',
    });
    expect(third.change).toMatchObject({ undoable: false });
    expect(third.change!.undoUnavailableReason).toMatch(
      /holds the most Sheetgate keeps for one person \(1 MB/,
    );
  });

  it("lists the signed-in person's changes for the dashboard (AccountService), never another's", async () => {
    const cookie = (await createSessionStore(pool).create(bob)).cookieValue;
    const accounts = createAccountServiceClient({
      address: `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`,
      serviceToken: subject.env.INTERNAL_SERVICE_TOKEN!,
    });
    try {
      const bobs = record(bob, { spreadsheetId: 'bobs-sheet' });
      await journal.recordChanges({ changes: [bobs, record(alice, { spreadsheetId: 'bobs-sheet' })] });
      const listed = await accounts.listRecentChanges({
        sessionCookie: cookie,
        spreadsheetId: 'bobs-sheet',
        pageSize: 0,
        pageToken: '',
      });
      expect(listed.changes.map((change) => change.id)).toEqual([bobs.id]);
      await expect(
        accounts.listRecentChanges({
          sessionCookie: 'x'.repeat(43),
          spreadsheetId: '',
          pageSize: 0,
          pageToken: '',
        }),
      ).rejects.toMatchObject({ code: GrpcStatus.PERMISSION_DENIED });
    } finally {
      accounts.close();
    }
  });

  it('refuses a caller without the service credential', async () => {
    const stranger = createChangeJournalClient({
      address: `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`,
      serviceToken: 'w'.repeat(43),
    });
    try {
      await expect(stranger.recordChanges({ changes: [record(alice)] })).rejects.toMatchObject({
        code: GrpcStatus.UNAUTHENTICATED,
      });
      await expect(
        stranger.getChange({ userId: alice, changeId: randomUUID(), credentialId: '', spreadsheetId: '' }),
      ).rejects.toMatchObject({ code: GrpcStatus.UNAUTHENTICATED });
    } finally {
      stranger.close();
    }
  });
});
