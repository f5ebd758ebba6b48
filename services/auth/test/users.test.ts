import { createLogger } from '@sheetgate/service-runtime';
import { createTestDatabase, type TestDatabase } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { createUserLibrary } from '../src/users/index.ts';

let database: TestDatabase;
let pool: DatabasePool;

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateToLatest(database.url, createLogger({ service: 'test', level: 'silent' }));
  pool = createDatabasePool(database.url, 4);
});
afterAll(async () => {
  await pool?.end();
  await database?.close();
});

describe('users (one per Google account)', () => {
  it('creates a user on first sign-in and finds the same one by Google subject later', async () => {
    const users = createUserLibrary(pool);
    const first = await users.upsertFromGoogle({ sub: '2001', email: 'carol@example.com', name: 'Carol' });
    expect(first).toMatchObject({ googleSubject: '2001', email: 'carol@example.com', displayName: 'Carol' });
    // Email and name follow Google; the subject keeps the identity.
    const again = await users.upsertFromGoogle({ sub: '2001', email: 'carol@new.example', name: 'Carol B' });
    expect(again.id).toBe(first.id);
    expect(await users.findById(first.id)).toMatchObject({
      email: 'carol@new.example',
      displayName: 'Carol B',
    });
  });

  it('never merges accounts by email', async () => {
    const users = createUserLibrary(pool);
    const a = await users.upsertFromGoogle({ sub: '2101', email: 'same@example.com', name: null });
    const b = await users.upsertFromGoogle({ sub: '2102', email: 'same@example.com' });
    expect(a.id).not.toBe(b.id);
    expect(b.displayName).toBeNull();
  });

  it('creates exactly one user when sign-ins of one account race', async () => {
    const users = createUserLibrary(pool);
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        users.upsertFromGoogle({ sub: '2201', email: 'dan@example.com', name: 'Dan' }),
      ),
    );
    expect(new Set(results.map((user) => user.id)).size).toBe(1);
  });

  it('answers undefined for unknown and malformed ids', async () => {
    const users = createUserLibrary(pool);
    expect(await users.findById('00000000-0000-4000-8000-000000000000')).toBeUndefined();
    expect(await users.findById("1' OR '1'='1")).toBeUndefined();
  });
});
