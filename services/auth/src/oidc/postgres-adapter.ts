import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { DatabasePool, Queryable } from '../db/pool.ts';

/**
 * oidc-provider's storage interface on PostgreSQL (one `oidc_models` table, as Logto does).
 * Consumed tokens stay in the table with `consumed_at` set until they expire, so a reused refresh
 * token is recognised and its grant revoked; `sweepExpired` deletes what has expired.
 */
export function postgresAdapterFactory(pool: Queryable) {
  return class PostgresAdapter implements Adapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      await pool.query(
        `INSERT INTO oidc_models (model, id, payload, grant_id, user_code, uid, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
           user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
        [
          this.model,
          id,
          payload,
          payload.grantId ?? null,
          payload.userCode ?? null,
          payload.uid ?? null,
          expiresAt,
        ],
      );
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
      await pool.query('UPDATE oidc_models SET consumed_at = now() WHERE model = $1 AND id = $2', [
        this.model,
        id,
      ]);
    }

    async destroy(id: string): Promise<void> {
      await pool.query('DELETE FROM oidc_models WHERE model = $1 AND id = $2', [this.model, id]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      // Every model bound to the grant goes, not only this adapter's: the provider calls this once
      // per model, and deleting all at the first call closes the window between them.
      await pool.query('DELETE FROM oidc_models WHERE grant_id = $1', [grantId]);
    }

    private async findBy(
      column: 'id' | 'uid' | 'user_code',
      value: string,
    ): Promise<AdapterPayload | undefined> {
      const { rows } = await pool.query<{ payload: AdapterPayload; consumed_at: Date | null }>(
        `SELECT payload, consumed_at FROM oidc_models
         WHERE model = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > now())`,
        [this.model, value],
      );
      const row = rows[0];
      if (!row) return undefined;
      return row.consumed_at
        ? { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) }
        : row.payload;
    }
  };
}

/** Deletes expired model instances; run periodically by one replica at a time. */
export async function sweepExpiredOidcModels(pool: DatabasePool): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM oidc_models WHERE expires_at < now()');
  return rowCount ?? 0;
}
