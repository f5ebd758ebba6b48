import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { DatabasePool, Queryable } from '../db/pool.ts';
import { createOidcModelQueries } from './oidc-model-queries.ts';

/**
 * oidc-provider's storage interface on PostgreSQL (one `oidc_models` table, as Logto does).
 * Consumed tokens stay in the table with `consumed_at` set until they expire, so a reused refresh
 * token is recognised and its grant revoked; `sweepExpired` deletes what has expired.
 */
export function postgresAdapterFactory(pool: Queryable) {
  const queries = createOidcModelQueries(pool);
  return class PostgresAdapter implements Adapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      await queries.upsert(this.model, id, payload, expiresAt);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return this.findBy('id', id);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.findBy('uid', uid);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.findBy('user_code', userCode);
    }

    async consume(id: string): Promise<void> {
      await queries.consume(this.model, id);
    }

    async destroy(id: string): Promise<void> {
      await queries.destroy(this.model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      // Every model bound to the grant goes, not only this adapter's: the provider calls this once
      // per model, and deleting all at the first call closes the window between them.
      await queries.deleteByGrantId(grantId);
    }

    private async findBy(
      column: 'id' | 'uid' | 'user_code',
      value: string,
    ): Promise<AdapterPayload | undefined> {
      const row = await queries.findLive(this.model, column, value);
      if (!row) return undefined;
      return row.consumed_at
        ? { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) }
        : row.payload;
    }
  };
}

/** Deletes expired model instances; run periodically by one replica at a time. */
export function sweepExpiredOidcModels(pool: DatabasePool): Promise<number> {
  return createOidcModelQueries(pool).sweepExpired();
}
