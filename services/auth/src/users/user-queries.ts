import type { Queryable } from '../db/pool.ts';

export interface User {
  id: string;
  googleSubject: string;
  email: string;
  displayName: string | null;
  /**
   * The Workspace domain (`hd`) of the latest verified Google sign-in; empty for a consumer
   * account, null when not known (no sign-in since it was first kept).
   */
  googleHostedDomain: string | null;
  createdAt: Date;
  /** When a provider upgrade last disconnected this person's OAuth apps (null: never). */
  oauthResetAt: Date | null;
}

const COLUMNS = `id, google_subject AS "googleSubject", email, display_name AS "displayName",
  google_hosted_domain AS "googleHostedDomain", created_at AS "createdAt", oauth_reset_at AS "oauthResetAt"`;

/** SQL for the `users` table. */
export function createUserQueries(pool: Queryable) {
  return {
    /**
     * Inserts the Google account's user, or refreshes its email, name and Workspace domain; one
     * statement, race-free.
     */
    async upsertByGoogleSubject(
      subject: string,
      email: string,
      displayName: string | null,
      hostedDomain: string,
    ): Promise<User> {
      const { rows } = await pool.query<User>(
        `INSERT INTO users (google_subject, email, display_name, google_hosted_domain) VALUES ($1, $2, $3, $4)
         ON CONFLICT (google_subject) DO UPDATE
           SET email = EXCLUDED.email, display_name = EXCLUDED.display_name,
             google_hosted_domain = EXCLUDED.google_hosted_domain, updated_at = now()
         RETURNING ${COLUMNS}`,
        [subject, email, displayName, hostedDomain],
      );
      return rows[0]!;
    },

    async findByGoogleSubject(subject: string): Promise<User | undefined> {
      const { rows } = await pool.query<User>(`SELECT ${COLUMNS} FROM users WHERE google_subject = $1`, [
        subject,
      ]);
      return rows[0];
    },

    /**
     * The user an OIDC `sub` names. Compared as text, so a `sub` that is not a UUID (from a
     * token of another issuer) finds nobody instead of failing the cast.
     */
    async findByAccountId(sub: string): Promise<User | undefined> {
      const { rows } = await pool.query<User>(`SELECT ${COLUMNS} FROM users WHERE id::text = $1`, [sub]);
      return rows[0];
    },

    async findById(id: string): Promise<User | undefined> {
      const { rows } = await pool.query<User>(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
      return rows[0];
    },
  };
}

export type UserQueries = ReturnType<typeof createUserQueries>;
