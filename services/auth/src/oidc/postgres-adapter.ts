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

    /**
     * By the hash of `id`, and in the same statement by `id` itself: a row a replica of the earlier
     * release stored in clear during a rollout is converted on its first use, so the token it holds
     * keeps working (stored-in-clear.ts converts the others). A miss costs one query either way.
     */
    async find(id: string): Promise<AdapterPayload | undefined> {
      const storedId = secrets.storedId(this.model, id);
      const idInClear = secrets.idInClear(this.model, id);
      const rows = await queries.findLiveByIds(
        this.model,
        idInClear === undefined ? [storedId] : [storedId, idInClear],
      );
      const stored = rows.find((row) => row.id === storedId);
      if (stored) return this.payloadOf(stored, id);
      const inClear = rows.find((row) => row.id === idInClear);
      if (!inClear || idInClear === undefined) return undefined;
      const payload = secrets.toStored(this.model, id, inClear.payload);
      const { userCode } = inClear.payload;
      await queries.rewrite(this.model, idInClear, {
        id: storedId,
        payload,
        userCode: typeof userCode === 'string' ? secrets.storedUserCode(this.model, userCode) : null,
      });
      return this.payloadOf({ id: storedId, payload, consumed_at: inClear.consumed_at }, id);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.findBy('uid', uid);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.findBy('user_code', secrets.storedUserCode(this.model, userCode));
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

    private async findBy(column: 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined> {
      const row = await queries.findLive(this.model, column, value);
      return row ? this.payloadOf(row, undefined) : undefined;
    }

    /** A stored row as the provider knows it: `id` back in, secrets opened, `consumed` set. */
    private payloadOf(
      row: { id: string; payload: AdapterPayload; consumed_at: Date | null },
      id: string | undefined,
    ): AdapterPayload | undefined {
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
