import pg from 'pg';

export type DatabasePool = pg.Pool;

/** The service's PostgreSQL pool; small, since an embedded PGlite serves a handful of connections. */
export function createDatabasePool(
  connectionString: string,
  max = 10,
  onIdleError: (error: Error) => void = () => {},
): DatabasePool {
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
  });
  // An idle client whose connection dies (PostgreSQL restarted or failed over) is dropped from the
  // pool, which emits 'error'; without a listener that event would crash the whole process.
  pool.on('error', onIdleError);
  return pool;
}
