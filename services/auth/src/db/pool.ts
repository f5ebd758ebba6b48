import pg from 'pg';

export type DatabasePool = pg.Pool;

/** The service's PostgreSQL pool; small, since an embedded PGlite serves a handful of connections. */
export function createDatabasePool(connectionString: string, max = 10): DatabasePool {
  return new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000 });
}
