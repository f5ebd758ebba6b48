import { createLogger } from '@sheetgate/service-runtime';
import { createTestDatabase, type TestDatabase } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createSessionStore } from '../src/sessions/index.ts';
import { createUserLibrary } from '../src/users/index.ts';

let database: TestDatabase;
let pool: DatabasePool;
let userId: string;
let otherUserId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateToLatest(database.url, createLogger({ service: 'test', level: 'silent' }));
  pool = createDatabasePool(database.url, 4);
  const users = createUserLibrary(pool);
  userId = (await users.upsertFromGoogle({ sub: '3001', email: 'erin@example.com', name: 'Erin' })).id;
  otherUserId = (await users.upsertFromGoogle({ sub: '3002', email: 'frank@example.com', name: 'Frank' })).id;
});
afterAll(async () => {
  await pool?.end();
  await database?.close();
});

describe('dashboard sessions', () => {
  it('issues a 256-bit cookie value and stores only its hash', async () => {
    const sessions = createSessionStore(pool);
    const session = await sessions.create(userId, { userAgent: 'vitest', ip: '127.0.0.1' });
    expect(session.cookieValue).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(session.cookieValue, 'base64url')).toHaveLength(32);
    expect(session.expiresAt.getTime()).toBeGreaterThan(Date.now() + 24 * 3600 * 1000);
    const { rows } = await pool.query('SELECT * FROM dashboard_sessions WHERE id = $1', [session.id]);
    expect(JSON.stringify(rows)).not.toContain(session.cookieValue);
    expect(rows[0]).toMatchObject({ user_id: userId, user_agent: 'vitest', ip: '127.0.0.1' });
    expect(await sessions.findByCookieValue(session.cookieValue)).toEqual({
      id: session.id,
      userId,
      expiresAt: session.expiresAt,
      signedInAt: expect.any(Date),
    });
  });

  it('remembers when the person signed in at Google', async () => {
    const sessions = createSessionStore(pool);
    const signedInAt = new Date(Date.now() - 90_000);
    const session = await sessions.create(userId, { signedInAt });
    expect((await sessions.findByCookieValue(session.cookieValue))?.signedInAt).toEqual(signedInAt);
    const now = Date.now();
    const fresh = await sessions.create(userId);
    const found = (await sessions.findByCookieValue(fresh.cookieValue))!.signedInAt.getTime();
    expect(Math.abs(found - now)).toBeLessThan(2000);
  });

  it('does not find unknown, malformed or missing cookie values', async () => {
    const sessions = createSessionStore(pool);
    const session = await sessions.create(userId);
    const flipped = (session.cookieValue[0] === 'A' ? 'B' : 'A') + session.cookieValue.slice(1);
    expect(await sessions.findByCookieValue(flipped)).toBeUndefined();
    expect(await sessions.findByCookieValue(`${session.cookieValue}x`)).toBeUndefined();
    expect(await sessions.findByCookieValue('')).toBeUndefined();
    expect(await sessions.findByCookieValue(undefined)).toBeUndefined();
  });

  it('ends a session on revoke, and every session of a user on revokeAllForUser', async () => {
    const sessions = createSessionStore(pool);
    const one = await sessions.create(userId);
    await sessions.revoke(one.id);
    expect(await sessions.findByCookieValue(one.cookieValue)).toBeUndefined();

    const a = await sessions.create(userId);
    const b = await sessions.create(userId);
    const other = await sessions.create(otherUserId);
    expect(await sessions.revokeAllForUser(userId)).toBeGreaterThanOrEqual(2);
    expect(await sessions.findByCookieValue(a.cookieValue)).toBeUndefined();
    expect(await sessions.findByCookieValue(b.cookieValue)).toBeUndefined();
    expect(await sessions.findByCookieValue(other.cookieValue)).toMatchObject({ userId: otherUserId });
  });

  it('does not find an expired session, and sweeps ended ones', async () => {
    const sessions = createSessionStore(pool, { ttlSeconds: 0.3 });
    const session = await sessions.create(userId);
    expect(await sessions.findByCookieValue(session.cookieValue)).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await sessions.findByCookieValue(session.cookieValue)).toBeUndefined();
    await pool.query(`UPDATE dashboard_sessions SET expires_at = now() - interval '2 days' WHERE id = $1`, [
      session.id,
    ]);
    expect(await sessions.sweepEnded()).toBeGreaterThanOrEqual(1);
    const { rowCount } = await pool.query('SELECT 1 FROM dashboard_sessions WHERE id = $1', [session.id]);
    expect(rowCount).toBe(0);
  });

  it('disappears with its user', async () => {
    const users = createUserLibrary(pool);
    const doomed = await users.upsertFromGoogle({ sub: '3099', email: 'gone@example.com' });
    const session = await createSessionStore(pool).create(doomed.id);
    await pool.query('DELETE FROM users WHERE id = $1', [doomed.id]);
    expect(await createSessionStore(pool).findByCookieValue(session.cookieValue)).toBeUndefined();
  });
});
