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
  let broken: Error | undefined;
  // A checked-out client whose connection dies emits 'error'; unheard, it would end the process.
  const onConnectionError = (error: Error) => {
    broken = error;
  };
  client.on('error', onConnectionError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query(options.dryRun ? 'ROLLBACK' : 'COMMIT');
    return result;
  } catch (error) {
    // A ROLLBACK that fails too (the connection died) must not hide the error that mattered, and
    // that client must not go back to the pool.
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.off('error', onConnectionError);
    client.release(broken);
  }
}
