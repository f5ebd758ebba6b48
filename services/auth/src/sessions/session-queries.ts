import type { DatabasePool } from '../db/pool.ts';

export interface StoredSession {
  id: string;
  userId: string;
  expiresAt: Date;
  /** When the person signed in at Google (the ID tokens' `auth_time`). */
  signedInAt: Date;
}

/** SQL for `dashboard_sessions`. Sessions are found by the SHA-256 of their cookie value. */
export function createSessionQueries(pool: DatabasePool) {
  return {
    async insert(row: {
      userId: string;
      cookieHash: Buffer;
      expiresAt: Date;
      signedInAt: Date;
      userAgent: string | null;
      ip: string | null;
    }): Promise<StoredSession> {
      const { rows } = await pool.query<StoredSession>(
        `INSERT INTO dashboard_sessions (user_id, cookie_hash, expires_at, signed_in_at, user_agent, ip)
         VALUES ($1, $2, $3, $4, $5, $6)
         RETURNING id, user_id AS "userId", expires_at AS "expiresAt", signed_in_at AS "signedInAt"`,
        [row.userId, row.cookieHash, row.expiresAt, row.signedInAt, row.userAgent, row.ip],
      );
      return rows[0]!;
    },

    /** The live session with this cookie hash: not revoked, not expired. */
    async findLiveByCookieHash(cookieHash: Buffer): Promise<StoredSession | undefined> {
      const { rows } = await pool.query<StoredSession>(
        `SELECT id, user_id AS "userId", expires_at AS "expiresAt", signed_in_at AS "signedInAt"
           FROM dashboard_sessions
         WHERE cookie_hash = $1 AND revoked_at IS NULL AND expires_at > now()`,
        [cookieHash],
      );
      return rows[0];
    },

    async revoke(id: string): Promise<void> {
      await pool.query(
        'UPDATE dashboard_sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL',
        [id],
      );
    },

    async revokeAllForUser(userId: string): Promise<number> {
      const { rowCount } = await pool.query(
        'UPDATE dashboard_sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL',
        [userId],
      );
      return rowCount ?? 0;
    },

    /** Deletes sessions that ended (expired or revoked) before `before`. */
    async deleteEndedBefore(before: Date): Promise<number> {
      const { rowCount } = await pool.query(
        'DELETE FROM dashboard_sessions WHERE expires_at < $1 OR revoked_at < $1',
        [before],
      );
      return rowCount ?? 0;
    },
  };
}

export type SessionQueries = ReturnType<typeof createSessionQueries>;
