import { API_KEY_NAMESPACE, mayBeApiKey } from '@sheetgate/proto';
import { type ApiKeyCredential, createApiKeyQueries } from '../api-keys/api-key-queries.ts';
import type { ImportedApiKeys } from '../api-keys/index.ts';
import type { DatabasePool } from '../db/pool.ts';
import { betterAuthKeyHash } from './better-auth-secrets.ts';
import { createMigrationQueries } from './migration-queries.ts';

/**
 * Keys imported from a retired provider (migrate:import) have that provider's shape, and keep its
 * hash (Better Auth: unkeyed SHA-256) until their first use, when Sheetgate's HMAC replaces it;
 * from then on they resolve like any other key. The API-key resolver receives this and knows
 * nothing of Better Auth.
 */
export function createImportedApiKeys(pool: DatabasePool): ImportedApiKeys {
  const queries = createMigrationQueries(pool);
  const apiKeys = createApiKeyQueries(pool);
  // Where no key was ever imported, a key of another shape costs one indexed read, of whether any
  // was (as a well-formed unknown `sg_live_` key costs one); once an import is seen, that read is
  // skipped for good.
  let keysWereImported = false;
  return {
    // The shape the MCP service lets through (@sheetgate/proto), outside Sheetgate's namespace.
    mayBeOne: (value: unknown): value is string => mayBeApiKey(value) && !value.startsWith(API_KEY_NAMESPACE),

    async mayExist() {
      keysWereImported ||= await queries.anyImported();
      return keysWereImported;
    },

    /**
     * Keys still carrying their legacy hash are upgraded, all in one statement, and their rows
     * answered. A key upgraded by a concurrent request between the caller's lookup and this
     * upgrade is no longer found by its legacy hash, so what the upgrade did not find is looked
     * up once more by HMAC (garbage of another shape costs these two statements per batch,
     * whatever its size).
     */
    async find(keys): Promise<ApiKeyCredential[]> {
      const missing = new Map(keys.map(({ presented, secretHash }) => [secretHash, presented]));
      if (missing.size === 0) return [];
      const upgraded = await queries.upgradeLegacyHashes(
        [...missing].map(([secretHash, presented]) => ({
          legacyHash: betterAuthKeyHash(presented),
          secretHash,
        })),
      );
      for (const row of upgraded) missing.delete(row.secretHash);
      if (missing.size === 0) return upgraded;
      return [...upgraded, ...(await apiKeys.findCredentialsByHashes([...missing.keys()]))];
    },
  };
}
