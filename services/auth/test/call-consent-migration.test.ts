import { readdirSync } from 'node:fs';
import { createLogger } from '@sheetgate/service-runtime';
import { createTestDatabase, type TestDatabase } from '@sheetgate/test-harness';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, migrationsDir } from '../src/db/migrate.ts';

// The credential-choices and call-approvals migrations on a database that already holds people, API
// keys and apps' toolsets (a deployment upgrading): every key gets the defaults, no app has
// choices, and the new tables hold only what their checks allow. And they roll back.

const OURS = ['20261208090000_credential-choices', '20261208090100_call-approvals'];
const quiet = createLogger({ service: 'test', level: 'silent' });

let database: TestDatabase;
let client: pg.Client;

const migrate = (direction: 'up' | 'down', count: number) =>
  runner({
    databaseUrl: database.url,
    dir: migrationsDir,
    direction,
    migrationsTable: 'schema_migrations',
    count,
    checkOrder: true,
    log: () => {},
  });

beforeAll(async () => {
  database = await createTestDatabase();
  const before = readdirSync(migrationsDir).filter(
    (name) => name.endsWith('.sql') && name < `${OURS[0]}.sql`,
  );
  await migrate('up', before.length);
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await database?.close();
});

describe('the call-consent migrations on an existing database', () => {
  let userId: string;
  let keyId: string;

  it('apply over existing keys and apps: every key has the defaults, no app has choices', async () => {
    userId = (
      await client.query(
        "INSERT INTO users (google_subject, email) VALUES ('9001', 'old@example.com') RETURNING id",
      )
    ).rows[0].id;
    keyId = (
      await client.query(
        `INSERT INTO api_keys (user_id, name, display_prefix, secret_hash, scopes)
         VALUES ($1, 'old key', 'sg_live_abcd', $2, ARRAY['sheets:read']) RETURNING id`,
        [userId, 'a'.repeat(64)],
      )
    ).rows[0].id;
    await client.query(
      "INSERT INTO app_toolsets (user_id, client_id, toolsets) VALUES ($1, 'app', ARRAY['files'])",
      [userId],
    );

    expect(await migrateToLatest(database.url, quiet)).toEqual(expect.arrayContaining(OURS));
    const { rows } = await client.query(
      'SELECT may_act_outbound, may_destroy_unasked FROM api_keys WHERE id = $1',
      [keyId],
    );
    expect(rows).toEqual([{ may_act_outbound: false, may_destroy_unasked: true }]);
    expect((await client.query('SELECT * FROM app_choices')).rows).toEqual([]);
    expect((await client.query('SELECT toolsets FROM app_toolsets')).rows).toEqual([{ toolsets: ['files'] }]);
  });

  it('call_approvals takes a well-formed pending approval for a key or an app', async () => {
    await client.query(
      `INSERT INTO call_approvals (id, user_id, api_key_id, tool, sentence, expires_at)
       VALUES ($1, $2, $3, 'share_file', 'x', now() + interval '5 minutes')`,
      ['A'.repeat(22), userId, keyId],
    );
    await client.query(
      `INSERT INTO call_approvals (id, user_id, client_id, tool, sentence, expires_at)
       VALUES ($1, $2, 'app', 'share_file', 'x', now() + interval '5 minutes')`,
      ['B'.repeat(22), userId],
    );
    expect((await client.query('SELECT state FROM call_approvals ORDER BY id')).rows).toEqual([
      { state: 'pending' },
      { state: 'pending' },
    ]);
  });

  it.each([
    ['an id that is not 22 base64url characters', { id: 'short' }],
    ['both a key and an app', { clientId: 'app' }],
    ['neither a key nor an app', { apiKeyId: null }],
    ['a sentence over 4,000 characters', { sentence: 'x'.repeat(4_001) }],
    ['an empty sentence', { sentence: '' }],
    ['a tool over 100 characters', { tool: 't'.repeat(101) }],
    ['an unknown state', { state: 'maybe', answeredAt: 'now' }],
    ['an answer without its time', { state: 'approved' }],
    ['a pending approval with an answer time', { answeredAt: 'now' }],
  ])('call_approvals refuses %s', async (_case, change: Record<string, string | null>) => {
    const row = {
      id: 'C'.repeat(22),
      apiKeyId: keyId as string | null,
      clientId: null as string | null,
      tool: 'share_file',
      sentence: 'x',
      state: 'pending',
      answeredAt: null as string | null,
      ...change,
    };
    await expect(
      client.query(
        `INSERT INTO call_approvals (id, user_id, api_key_id, client_id, tool, sentence, state, expires_at, answered_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, now() + interval '5 minutes', $8::timestamptz)`,
        [row.id, userId, row.apiKeyId, row.clientId, row.tool, row.sentence, row.state, row.answeredAt],
      ),
    ).rejects.toMatchObject({ code: '23514' });
  });

  it('roll back, leaving the keys as they were, and apply again', async () => {
    await migrate('down', OURS.length);
    const columns = await client.query(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'api_keys' AND column_name LIKE 'may_%'",
    );
    expect(columns.rows).toEqual([]);
    expect(
      (await client.query("SELECT to_regclass('call_approvals') AS t, to_regclass('app_choices') AS c")).rows,
    ).toEqual([{ t: null, c: null }]);
    expect((await client.query('SELECT name FROM api_keys WHERE id = $1', [keyId])).rows).toEqual([
      { name: 'old key' },
    ]);
    expect(await migrateToLatest(database.url, quiet)).toEqual(OURS);
  });
});
