import { createTestDatabase, type TestDatabase } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { withTransaction } from '../src/db/transaction.ts';

let database: TestDatabase;
let pool: DatabasePool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = createDatabasePool(database.url, 2);
  await pool.query('CREATE TABLE notes (body text)');
});
afterAll(async () => {
  await pool?.end();
  await database?.close();
});

describe('withTransaction', () => {
  it('commits, rolls back a dry run, and rolls back on an error it rethrows', async () => {
    await withTransaction(pool, (client) => client.query(`INSERT INTO notes VALUES ('kept')`));
    await withTransaction(pool, (client) => client.query(`INSERT INTO notes VALUES ('dry')`), {
      dryRun: true,
    });
    await expect(
      withTransaction(pool, async (client) => {
        await client.query(`INSERT INTO notes VALUES ('failed')`);
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    expect((await pool.query('SELECT body FROM notes')).rows).toEqual([{ body: 'kept' }]);
  });

  // Needs a PostgreSQL server (DATABASE_URL): the embedded PGlite has one backend and ignores
  // pg_terminate_backend.
  it.skipIf(!process.env.DATABASE_URL)(
    'rethrows the work’s error when the connection died with it, and the pool serves on',
    async () => {
      // Terminating its own backend fails the query; the ROLLBACK after it then fails as well.
      await expect(
        withTransaction(pool, (client) => client.query('SELECT pg_terminate_backend(pg_backend_pid())')),
      ).rejects.toMatchObject({ code: '57P01' });
      for (let i = 0; i < 3; i++) expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    },
  );
});
