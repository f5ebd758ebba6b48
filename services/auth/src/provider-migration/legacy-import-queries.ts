import type { ApiKeyScopes } from '../api-keys/api-key-input.ts';
import type { Queryable } from '../db/pool.ts';

export type LegacyKind = 'user' | 'google_connection' | 'session' | 'api_key';

/**
 * The SQL migrate:import runs inside its batch's transaction (`db`): Sheetgate's rows for what it
 * imports, and `legacy_imports`, which records each imported row so a re-run leaves it alone.
 */
export function createLegacyImportQueries(db: Queryable) {
  return {
    /** The Sheetgate id a retired provider's row was imported as, if it was. */
    async mapped(kind: LegacyKind, legacyId: string): Promise<string | undefined> {
      const { rows } = await db.query<{ sheetgate_id: string }>(
        'SELECT sheetgate_id FROM legacy_imports WHERE kind = $1 AND legacy_id = $2',
        [kind, legacyId],
      );
      return rows[0]?.sheetgate_id;
    },

    async record(kind: LegacyKind, legacyId: string, sheetgateId: string): Promise<void> {
      await db.query('INSERT INTO legacy_imports (kind, legacy_id, sheetgate_id) VALUES ($1, $2, $3)', [
        kind,
        legacyId,
        sheetgateId,
      ]);
    },

    /** A user who must add their apps again (`oauth_reset_at`): no OAuth client is imported. */
    async insertUser(user: {
      googleSubject: string;
      email: string;
      name: string | null;
      createdAt: Date | null;
    }): Promise<string> {
      const inserted = await db.query<{ id: string }>(
        `INSERT INTO users (google_subject, email, display_name, created_at, oauth_reset_at)
         VALUES ($1, $2, $3, COALESCE($4, now()), now()) RETURNING id`,
        [user.googleSubject, user.email, user.name, user.createdAt],
      );
      return inserted.rows[0]!.id;
    },

    async hasGoogleConnection(userId: string): Promise<boolean> {
      const existing = await db.query('SELECT 1 FROM google_connections WHERE user_id = $1', [userId]);
      return Boolean(existing.rowCount);
    },

    /** The new row's id; undefined when another imported session has the same token. */
    async insertSession(session: {
      userId: string;
      tokenHash: Buffer;
      expiresAt: Date;
    }): Promise<string | undefined> {
      const inserted = await db.query<{ id: string }>(
        `INSERT INTO legacy_sessions (user_id, token_hash, expires_at) VALUES ($1, $2, $3)
          ON CONFLICT (token_hash) DO NOTHING RETURNING id`,
        [session.userId, session.tokenHash, session.expiresAt],
      );
      return inserted.rows[0]?.id;
    },

    /**
     * A key keeping its retired provider's hash (`legacyHash`) until its first use; the new row's
     * id, or undefined when another imported key has the same hash.
     */
    async insertApiKey(key: {
      userId: string;
      name: string;
      displayPrefix: string;
      legacyHash: string;
      scopes: ApiKeyScopes;
      createdAt: Date | null;
      expiresAt: Date | null;
      revokedAt: Date | null;
      lastUsedAt: Date | null;
    }): Promise<string | undefined> {
      const inserted = await db.query<{ id: string }>(
        `INSERT INTO api_keys (user_id, name, display_prefix, legacy_hash, scopes, created_at, expires_at, revoked_at, last_used_at)
          VALUES ($1, $2, $3, $4, $5::text[], COALESCE($6, now()), $7, $8, $9)
          ON CONFLICT (legacy_hash) WHERE legacy_hash IS NOT NULL DO NOTHING RETURNING id`,
        [
          key.userId,
          key.name,
          key.displayPrefix,
          key.legacyHash,
          key.scopes,
          key.createdAt,
          key.expiresAt,
          key.revokedAt,
          key.lastUsedAt,
        ],
      );
      return inserted.rows[0]?.id;
    },
  };
}
export type LegacyImportQueries = ReturnType<typeof createLegacyImportQueries>;
