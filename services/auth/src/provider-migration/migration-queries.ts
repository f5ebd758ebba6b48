import type { ApiKeyCredential } from '../api-keys/api-key-queries.ts';
import type { Queryable } from '../db/pool.ts';

/**
 * The SQL the provider migration runs while auth serves: imported API keys' and sessions' first
 * use, their sweep, and the OAuth generation of a reset. `pool` may be a transaction's client.
 */
export function createMigrationQueries(pool: Queryable) {
  return {
    /** Whether any key was ever imported from a retired provider (migrate:import). */
    async anyImported(): Promise<boolean> {
      const { rows } = await pool.query<{ imported: boolean }>(
        "SELECT EXISTS (SELECT 1 FROM legacy_imports WHERE kind = 'api_key') AS imported",
      );
      return rows[0]!.imported;
    },

    /**
     * Imported keys' first use, for a whole batch in one statement: each retired provider's hash
     * found is replaced by Sheetgate's HMAC, so from now on the key is found like any other.
     * Answers the credentials of the keys it upgraded (none for hashes no key carries). Unnamed:
     * it runs once per imported key, and a named statement would collide in the embedded PGlite's
     * one shared session (db/named-statements.ts).
     */
    async upgradeLegacyHashes(
      upgrades: ReadonlyArray<{ legacyHash: string; secretHash: string }>,
    ): Promise<ApiKeyCredential[]> {
      const { rows } = await pool.query<ApiKeyCredential>({
        text: `UPDATE api_keys SET secret_hash = u.secret_hash, legacy_hash = NULL
                 FROM unnest($1::text[], $2::text[]) AS u(legacy_hash, secret_hash)
                WHERE api_keys.legacy_hash = u.legacy_hash AND api_keys.secret_hash IS NULL
            RETURNING api_keys.id, api_keys.user_id AS "userId", api_keys.secret_hash AS "secretHash",
                      api_keys.scopes, api_keys.toolsets, api_keys.expires_at AS "expiresAt",
                      api_keys.revoked_at AS "revokedAt"`,
        values: [
          upgrades.map((upgrade) => upgrade.legacyHash),
          upgrades.map((upgrade) => upgrade.secretHash),
        ],
      });
      return rows;
    },

    /**
     * Spends an imported session by its token hash, whether or not it is still live (a copied
     * cookie is worth one try at most); answers its user and expiry when it had not been spent.
     */
    async spendLegacySession(
      tokenHash: Buffer,
    ): Promise<{ user_id: string; expires_at: Date; live: boolean } | undefined> {
      const { rows } = await pool.query<{ user_id: string; expires_at: Date; live: boolean }>(
        `UPDATE legacy_sessions SET exchanged_at = now()
          WHERE token_hash = $1 AND exchanged_at IS NULL
          RETURNING user_id, expires_at, expires_at > now() AS live`,
        [tokenHash],
      );
      return rows[0];
    },

    /** Deletes imported sessions that expired or were spent more than a day ago. */
    async sweepLegacySessions(): Promise<number> {
      const { rowCount } = await pool.query(
        `DELETE FROM legacy_sessions
          WHERE expires_at < now() - interval '1 day' OR exchanged_at < now() - interval '1 day'`,
      );
      return rowCount ?? 0;
    },

    /** Serialises concurrent OAuth resets (inside their transaction): the second waits. */
    async lockOAuthGenerations(): Promise<void> {
      await pool.query('LOCK TABLE oauth_generations IN EXCLUSIVE MODE');
    },

    /** Records the next OAuth generation and answers its number. */
    async advanceOAuthGeneration(reason: string): Promise<number> {
      const { rows } = await pool.query<{ generation: number }>(
        `INSERT INTO oauth_generations (generation, reason)
         SELECT COALESCE(max(generation), 0) + 1, $1 FROM oauth_generations RETURNING generation`,
        [reason],
      );
      return rows[0]!.generation;
    },
  };
}

export type MigrationQueries = ReturnType<typeof createMigrationQueries>;
