import type { DatabasePool } from '../db/pool.ts';

export interface User {
  id: string;
  googleSubject: string;
  email: string;
  displayName: string | null;
  createdAt: Date;
}

const COLUMNS = `id, google_subject AS "googleSubject", email, display_name AS "displayName", created_at AS "createdAt"`;

/** SQL for the `users` table. */
export function createUserQueries(pool: DatabasePool) {
  return {
    /** Inserts the Google account's user, or refreshes its email and name; one statement, race-free. */
    async upsertByGoogleSubject(subject: string, email: string, displayName: string | null): Promise<User> {
      const { rows } = await pool.query<User>(
        `INSERT INTO users (google_subject, email, display_name) VALUES ($1, $2, $3)
         ON CONFLICT (google_subject) DO UPDATE
           SET email = EXCLUDED.email, display_name = EXCLUDED.display_name, updated_at = now()
         RETURNING ${COLUMNS}`,
        [subject, email, displayName],
      );
      return rows[0]!;
    },

    async findById(id: string): Promise<User | undefined> {
      const { rows } = await pool.query<User>(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
      return rows[0];
    },
  };
}

export type UserQueries = ReturnType<typeof createUserQueries>;
