import type { Queryable } from '../db/pool.ts';

/** SQL for finding the Sheetgate person an enterprise identity names (table `users`). */
export function createEnterprisePersonQueries(pool: Queryable) {
  return {
    /** The ids of the people whose Google account has this e-mail (at most two are read). */
    async idsByEmail(email: string): Promise<string[]> {
      const { rows } = await pool.query<{ id: string }>(
        'SELECT id FROM users WHERE lower(email) = $1 LIMIT 2',
        [email.toLowerCase()],
      );
      return rows.map((row) => row.id);
    },

    /** The same, among Google accounts of that Workspace domain only (`hd` at their last sign-in). */
    async idsByWorkspaceEmail(email: string, domain: string): Promise<string[]> {
      const { rows } = await pool.query<{ id: string }>(
        'SELECT id FROM users WHERE lower(email) = $1 AND google_hosted_domain = $2 LIMIT 2',
        [email.toLowerCase(), domain.toLowerCase()],
      );
      return rows.map((row) => row.id);
    },
  };
}
