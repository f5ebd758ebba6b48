import type { Queryable } from '../db/pool.ts';

export type ConnectionStatus = 'connected' | 'reauth_required';

export interface ConnectionRow {
  userId: string;
  googleSubject: string;
  email: string;
  /** The account's Workspace domain, kept on its user (`users.google_hosted_domain`): '' consumer, null unknown. */
  hostedDomain: string | null;
  refreshTokenEncrypted: string | null;
  grantedScopes: string[];
  partial: boolean;
  status: ConnectionStatus;
  connectedAt: Date;
  updatedAt: Date;
}

/** Of `google_connections AS c`; the domain from the user, in the same statement (also a RETURNING). */
const COLUMNS = `c.user_id AS "userId", c.google_subject AS "googleSubject", c.email,
  (SELECT u.google_hosted_domain FROM users u WHERE u.id = c.user_id) AS "hostedDomain",
  c.refresh_token_encrypted AS "refreshTokenEncrypted", c.granted_scopes AS "grantedScopes", c.partial, c.status,
  c.connected_at AS "connectedAt", c.updated_at AS "updatedAt"`;

/** SQL for `google_connections`. */
export function createConnectionQueries(pool: Queryable) {
  return {
    async findByUserId(userId: string): Promise<ConnectionRow | undefined> {
      const { rows } = await pool.query<ConnectionRow>(
        `SELECT ${COLUMNS} FROM google_connections c WHERE c.user_id = $1`,
        [userId],
      );
      return rows[0];
    },

    /**
     * Stores a fresh grant. Without a new refresh token (Google sends one only with consent), the
     * stored one is kept, and the connection is `connected` only if there is one.
     */
    async upsert(row: {
      userId: string;
      googleSubject: string;
      email: string;
      refreshTokenEncrypted: string | null;
      grantedScopes: string[];
      partial: boolean;
    }): Promise<ConnectionRow> {
      const { rows } = await pool.query<ConnectionRow>(
        `INSERT INTO google_connections AS c
           (user_id, google_subject, email, refresh_token_encrypted, granted_scopes, partial, status)
         VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $4::text IS NULL THEN 'reauth_required' ELSE 'connected' END)
         ON CONFLICT (user_id) DO UPDATE SET
           google_subject = EXCLUDED.google_subject,
           email = EXCLUDED.email,
           refresh_token_encrypted = COALESCE(EXCLUDED.refresh_token_encrypted, c.refresh_token_encrypted),
           granted_scopes = EXCLUDED.granted_scopes,
           partial = EXCLUDED.partial,
           status = CASE WHEN COALESCE(EXCLUDED.refresh_token_encrypted, c.refresh_token_encrypted) IS NULL
             THEN 'reauth_required' ELSE 'connected' END,
           connected_at = now(),
           updated_at = now()
         RETURNING ${COLUMNS}`,
        [row.userId, row.googleSubject, row.email, row.refreshTokenEncrypted, row.grantedScopes, row.partial],
      );
      return rows[0]!;
    },

    /**
     * Marks the connection as needing a new sign-in, but only while it still holds the refresh token
     * Google refused: a reconnect that stored a new one in the meantime must not be undone.
     */
    async markReauthRequired(userId: string, refusedTokenEncrypted: string): Promise<boolean> {
      const { rowCount } = await pool.query(
        `UPDATE google_connections SET status = 'reauth_required', updated_at = now()
         WHERE user_id = $1 AND refresh_token_encrypted = $2`,
        [userId, refusedTokenEncrypted],
      );
      return (rowCount ?? 0) > 0;
    },

    /**
     * Google handed out a new refresh token on refresh (rotation), or a key rotation re-sealed it:
     * keep it, unless the row changed meanwhile. Says whether it replaced the row.
     */
    async replaceRefreshToken(
      userId: string,
      previousEncrypted: string,
      nextEncrypted: string,
    ): Promise<boolean> {
      const { rowCount } = await pool.query(
        `UPDATE google_connections SET refresh_token_encrypted = $3, updated_at = now()
         WHERE user_id = $1 AND refresh_token_encrypted = $2`,
        [userId, previousEncrypted, nextEncrypted],
      );
      return (rowCount ?? 0) > 0;
    },

    /** Sealed refresh tokens written with a key other than `keyId` (the ring's current key). */
    async listSealedWithOtherKey(keyId: string): Promise<Array<{ userId: string; sealed: string }>> {
      const { rows } = await pool.query<{ userId: string; sealed: string }>(
        `SELECT user_id AS "userId", refresh_token_encrypted AS sealed FROM google_connections
         WHERE refresh_token_encrypted IS NOT NULL AND split_part(refresh_token_encrypted, '.', 2) <> $1`,
        [keyId],
      );
      return rows;
    },

    async delete(userId: string): Promise<boolean> {
      const { rowCount } = await pool.query('DELETE FROM google_connections WHERE user_id = $1', [userId]);
      return (rowCount ?? 0) > 0;
    },
  };
}

export type ConnectionQueries = ReturnType<typeof createConnectionQueries>;
