import type { DatabasePool } from '../db/pool.ts';

/**
 * SQL for the `rate_limits` table beyond what RateLimiterPostgres runs itself (its counters use the
 * same table, created by migration 20261122193000).
 */
export function createRateLimitQueries(pool: DatabasePool) {
  return {
    /** Removes windows that ended before `beforeMs` (epoch milliseconds, as the library stores). */
    async deleteExpired(beforeMs: number): Promise<number> {
      const { rowCount } = await pool.query('DELETE FROM rate_limits WHERE expire < $1', [beforeMs]);
      return rowCount ?? 0;
    },
  };
}

export type RateLimitQueries = ReturnType<typeof createRateLimitQueries>;
