import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { DatabasePool, Queryable } from '../db/pool.ts';
import type { ModelSecrets } from './model-secrets.ts';
import { createOidcModelQueries } from './oidc-model-queries.ts';

/**
 * oidc-provider's storage interface on PostgreSQL (one `oidc_models` table, as Logto does).
 * Consumed tokens stay in the table with `consumed_at` set until they expire, so a reused refresh
 * token is recognised and its grant revoked; `sweepExpired` deletes what has expired.
 * Bearer values are stored hashed and secrets sealed (model-secrets.ts): every id the provider
 * passes is the presented value, turned into the stored one here.
 */
export function postgresAdapterFactory(pool: Queryable, secrets: ModelSecrets) {
  const queries = createOidcModelQueries(pool);
  return class PostgresAdapter implements Adapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      await queries.upsert(
        this.model,
        secrets.storedId(this.model, id),
        secrets.toStored(this.model, id, payload),
        {
          grantId: payload.grantId ?? null,
          userCode: payload.userCode ? secrets.storedUserCode(this.model, payload.userCode) : null,
          uid: payload.uid ?? null,
        },
        expiresAt,
      );
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const storedId = secrets.storedId(this.model, id);
      return (await this.findBy('id', storedId, id)) ?? (await this.findInClear(id, storedId));
    }

    /**
     * A row a replica of the earlier release stored in clear during a rollout: converted on its
     * first use, so the token it holds keeps working (stored-in-clear.ts converts the others).
     */
    private async findInClear(id: string, storedId: string): Promise<AdapterPayload | undefined> {
      const idInClear = secrets.idInClear(this.model, id);
      if (idInClear === undefined) return undefined;
      const row = await queries.findLive(this.model, 'id', idInClear);
      if (!row) return undefined;
      const { userCode } = row.payload;
      await queries.rewrite(this.model, idInClear, {
        id: storedId,
        payload: secrets.toStored(this.model, id, row.payload),
        userCode: typeof userCode === 'string' ? secrets.storedUserCode(this.model, userCode) : null,
      });
      return this.findBy('id', storedId, id);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.findBy('uid', uid, undefined);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.findBy('user_code', secrets.storedUserCode(this.model, userCode), undefined);
    }

    async consume(id: string): Promise<void> {
      await queries.consume(this.model, secrets.storedId(this.model, id));
    }

    async destroy(id: string): Promise<void> {
      await queries.destroy(this.model, secrets.storedId(this.model, id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      // Every model bound to the grant goes, not only this adapter's: the provider calls this once
      // per model, and deleting all at the first call closes the window between them.
      await queries.deleteByGrantId(grantId);
    }

    private async findBy(
      column: 'id' | 'uid' | 'user_code',
      value: string,
      id: string | undefined,
    ): Promise<AdapterPayload | undefined> {
      const row = await queries.findLive(this.model, column, value);
      if (!row) return undefined;
      const payload = secrets.fromStored(this.model, row.payload, {
        storedId: row.id,
        ...(id === undefined ? {} : { id }),
      });
      if (!payload) return undefined;
      return row.consumed_at
        ? { ...payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) }
        : payload;
    }
  };
}

/** Deletes expired model instances; run periodically by one replica at a time. */
export function sweepExpiredOidcModels(pool: DatabasePool): Promise<number> {
  return createOidcModelQueries(pool).sweepExpired();
}
