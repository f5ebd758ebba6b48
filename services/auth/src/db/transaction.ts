import type { DatabasePool, Queryable } from './pool.ts';

/**
 * Runs `work` in one transaction on a client of the pool: committed when `work` resolves, rolled
 * back when it throws (and the error rethrown), and the client released either way. With `dryRun`
 * a successful `work` is rolled back too, so its effects are seen only inside the transaction.
 */
export async function withTransaction<T>(
  pool: DatabasePool,
  work: (client: Queryable) => Promise<T>,
  options: { dryRun?: boolean } = {},
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query(options.dryRun ? 'ROLLBACK' : 'COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}
