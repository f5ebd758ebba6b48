import { namedStatementsWhereSafe } from '../db/named-statements.ts';
import type { Queryable } from '../db/pool.ts';

/** SQL for the `app_toolsets` table. `database` may be a transaction's client. */
export function createAppToolsetQueries(database: Queryable) {
  const pool = namedStatementsWhereSafe(database);
  return {
    /** The stored choice, or undefined when none was made. */
    async find(userId: string, clientId: string): Promise<string[] | undefined> {
      const { rows } = await pool.query<{ toolsets: string[] }>({
        name: 'app-toolsets-chosen',
        text: 'SELECT toolsets FROM app_toolsets WHERE user_id = $1 AND client_id = $2',
        values: [userId, clientId],
      });
      return rows[0]?.toolsets;
    },

    /** Inserts or replaces the choice for the person and app. */
    async upsert(userId: string, clientId: string, toolsets: readonly string[]): Promise<void> {
      await pool.query({
        name: 'app-toolsets-choose',
        text: `INSERT INTO app_toolsets (user_id, client_id, toolsets) VALUES ($1, $2, $3)
          ON CONFLICT (user_id, client_id) DO UPDATE SET toolsets = EXCLUDED.toolsets, chosen_at = now()`,
        values: [userId, clientId, toolsets],
      });
    },

    async delete(userId: string, clientId: string): Promise<void> {
      await pool.query({
        name: 'app-toolsets-forget',
        text: 'DELETE FROM app_toolsets WHERE user_id = $1 AND client_id = $2',
        values: [userId, clientId],
      });
    },

    /** Every person's choice for every app (an OAuth reset deletes every client). */
    async deleteAll(): Promise<void> {
      await pool.query('DELETE FROM app_toolsets');
    },
  };
}

export type AppToolsetQueries = ReturnType<typeof createAppToolsetQueries>;
