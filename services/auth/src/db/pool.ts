import pg from 'pg';

export type DatabasePool = pg.Pool;

/** What query code needs: the pool, or one client of it inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

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

// PostgreSQL's connection-exception class (08xxx) and its shutting-down / starting-up states.
const UNAVAILABLE_SQLSTATES = /^(08...|57P01|57P02|57P03)$/;
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

/**
 * Whether an error says PostgreSQL is down, restarting or unreachable (worth retrying shortly),
 * rather than that the query itself failed. `pg` reports a lost connection by message only.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.test(code) || UNAVAILABLE_SOCKET_CODES.has(code)))
    return true;
  const message = (error as { message?: unknown } | null)?.message;
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
      message,
    )
  );
}
