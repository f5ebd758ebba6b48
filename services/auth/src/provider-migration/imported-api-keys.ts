import type { ImportedApiKeys } from '../api-keys/index.ts';
import type { Queryable } from '../db/pool.ts';
import { betterAuthKeyHash } from './better-auth-secrets.ts';
import { createMigrationQueries } from './migration-queries.ts';

/**
 * Keys imported from a retired provider (migrate:import) have that provider's shape, and keep its
 * hash (Better Auth: unkeyed SHA-256) until their first use, when Sheetgate's HMAC replaces it;
 * from then on they resolve like any other key. The API-key library receives this and knows
 * nothing of Better Auth.
 */
export function createImportedApiKeys(pool: Queryable): ImportedApiKeys {
  const queries = createMigrationQueries(pool);
  // Where no key was ever imported, a key of another shape costs one indexed read, of whether any
  // was (as a well-formed unknown `sg_live_` key costs one); once an import is seen, that read is
  // skipped for good.
  let keysWereImported = false;
  return {
    async mayExist() {
      keysWereImported ||= await queries.anyImported();
      return keysWereImported;
    },
    upgrade(keys) {
      return queries.upgradeLegacyHashes(
        keys.map(({ presented, secretHash }) => ({ legacyHash: betterAuthKeyHash(presented), secretHash })),
      );
    },
  };
}
