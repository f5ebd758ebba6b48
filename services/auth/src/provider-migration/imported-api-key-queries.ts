import type { ApiKeyCredential } from '../api-keys/api-key-queries.ts';
import type { Queryable } from '../db/pool.ts';

/** The SQL of imported API keys' first use (keys migrate:import brought from a retired provider). */
export function createImportedApiKeyQueries(pool: Queryable) {
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
     * Answers the credentials of the keys it upgraded (none for hashes no key carries).
     */
    async upgradeLegacyHashes(
      upgrades: ReadonlyArray<{ legacyHash: string; secretHash: string }>,
    ): Promise<ApiKeyCredential[]> {
      const { rows } = await pool.query<ApiKeyCredential>({
        name: 'api-keys-upgrade-legacy-hashes',
        text: `UPDATE api_keys SET secret_hash = u.secret_hash, legacy_hash = NULL
                 FROM unnest($1::text[], $2::text[]) AS u(legacy_hash, secret_hash)
                WHERE api_keys.legacy_hash = u.legacy_hash AND api_keys.secret_hash IS NULL
            RETURNING api_keys.id, api_keys.user_id AS "userId", api_keys.secret_hash AS "secretHash",
                      api_keys.scopes, api_keys.expires_at AS "expiresAt", api_keys.revoked_at AS "revokedAt"`,
        values: [
          upgrades.map((upgrade) => upgrade.legacyHash),
          upgrades.map((upgrade) => upgrade.secretHash),
        ],
      });
      return rows;
    },
  };
}
