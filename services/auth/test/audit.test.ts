import { createLogger } from '@sheetgate/service-runtime';
import { createTestDatabase, type TestDatabase } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEventKinds, createAuditLog } from '../src/audit/index.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createUserLibrary } from '../src/users/index.ts';

let database: TestDatabase;
let pool: DatabasePool;
let userId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateToLatest(database.url, createLogger({ service: 'test', level: 'silent' }));
  pool = createDatabasePool(database.url, 4);
  userId = (await createUserLibrary(pool).upsertFromGoogle({ sub: 'a-1', email: 'alice@example.com' })).id;
});
afterAll(async () => {
  await pool?.end();
  await database?.close();
});

describe('audit log', () => {
  it('records every kind of security event, newest first', async () => {
    const audit = createAuditLog(pool);
    for (const kind of auditEventKinds) await audit.record(kind, { userId, details: { note: kind } });
    const events = await audit.recent({ userId, limit: 100 });
    expect(events.map((event) => event.kind)).toEqual([...auditEventKinds].reverse());
    expect(events[0]).toMatchObject({ userId, details: { note: auditEventKinds.at(-1) } });
    expect(events[0]!.occurredAt).toBeInstanceOf(Date);
    expect(await audit.recent({ userId, kind: 'sign_in' })).toHaveLength(1);
  });

  it('records events without a user, and drops user ids that are not UUIDs', async () => {
    const audit = createAuditLog(pool);
    await audit.record('rate_limit.hit', { details: { limit: 'authIp', ip: '192.0.2.1' } });
    await audit.record('sign_in', { userId: "1' OR '1'='1", details: { via: 'test' } });
    const [latest, before] = await audit.recent({ limit: 2 });
    expect(latest).toMatchObject({ kind: 'sign_in', userId: null });
    expect(before).toMatchObject({ kind: 'rate_limit.hit', userId: null, details: { ip: '192.0.2.1' } });
    expect(await audit.recent({ userId: 'not-a-uuid' })).toEqual([]);
  });

  it('redacts credentials a caller passes by mistake, by key and by shape', async () => {
    const audit = createAuditLog(pool);
    const apiKey = `sg_live_${'Q'.repeat(43)}`;
    await audit.record('refresh_token.reused', {
      userId,
      details: {
        clientId: 'client-1',
        token: 'opaque-refresh-token-value',
        nested: { authorization: 'Bearer abc.def.ghi', note: `presented ${apiKey}` },
      },
    });
    const [event] = await audit.recent({ userId, kind: 'refresh_token.reused' });
    expect(event!.details).toEqual({
      clientId: 'client-1',
      token: '[redacted]',
      nested: { authorization: '[redacted]', note: 'presented [redacted]' },
    });
    const { rows } = await pool.query('SELECT details::text AS text FROM audit_events');
    const everything = rows.map((row: { text: string }) => row.text).join('\n');
    expect(everything).not.toContain('opaque-refresh-token-value');
    expect(everything).not.toContain(apiKey);
  });

  it('keeps oversized details out of the table', async () => {
    const audit = createAuditLog(pool);
    await audit.record('grant.revoked', { userId, details: { body: 'x'.repeat(100_000) } });
    const [event] = await audit.recent({ userId, kind: 'grant.revoked' });
    expect(event!.details).toEqual({ truncated: true });
  });
});
