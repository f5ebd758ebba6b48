import type { DatabasePool } from '../db/pool.ts';
import { withTransaction } from '../db/transaction.ts';
import { CLEAR_ID_MODELS, HASHED_ID_PREFIX, type ModelSecrets } from './model-secrets.ts';
import { createOidcModelQueries } from './oidc-model-queries.ts';

const BATCH = 500;

/**
 * Rewrites the provider's rows that an earlier release stored in clear (bearer ids as row ids,
 * client secrets in the payload) into their stored form (model-secrets.ts), so tokens, sessions
 * and clients issued before the upgrade keep working and stop being readable. A migration cannot
 * do it: the hash key and the key ring are settings, not in the database.
 *
 * Run at start-up before auth serves, and with each sweep (rows a replica of the earlier release
 * still writes during a rollout; the PostgreSQL adapter converts those it is asked for at once).
 * Codes and interactions in Redis are not converted: they live minutes, and one written by an
 * earlier replica is just not found (the person signs in again). Idempotent — a converted row no
 * longer matches — and safe when replicas run it at once: each batch locks its rows and skips
 * those another replica holds. Answers how many rows were converted.
 */
export async function convertModelsStoredInClear(pool: DatabasePool, secrets: ModelSecrets): Promise<number> {
  let converted = 0;
  for (;;) {
    const count = await withTransaction(pool, async (client) => {
      const queries = createOidcModelQueries(client);
      const rows = await queries.lockRowsInClear(BATCH, CLEAR_ID_MODELS, HASHED_ID_PREFIX);
      for (const row of rows) {
        await queries.rewrite(row.model, row.id, {
          id: secrets.storedId(row.model, row.id),
          payload: secrets.toStored(row.model, row.id, row.payload),
          userCode: row.user_code === null ? null : secrets.storedUserCode(row.model, row.user_code),
        });
      }
      return rows.length;
    });
    converted += count;
    if (count < BATCH) return converted;
  }
}
