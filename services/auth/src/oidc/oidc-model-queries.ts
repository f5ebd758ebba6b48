import type { AdapterPayload } from 'oidc-provider';
import type { Queryable } from '../db/pool.ts';

/** A row of the connected-apps listing: one client the user granted, over all its grants. */
export interface ConnectedAppRow {
  client_id: string;
  client: Record<string, unknown> | null;
  scopes: string | null;
  first_used: string;
  last_used: string;
}

/**
 * Every statement over the provider's models (one `oidc_models` table: model, id, payload jsonb,
 * as Logto does): the provider's adapter, the expiry sweep, grant lookups, connected apps and the
 * OAuth reset. `pool` may be a transaction's client.
 */
export function createOidcModelQueries(pool: Queryable) {
  return {
    /** `id` and `payload` as stored (model-secrets.ts); the columns come from the provider's payload. */
    async upsert(
      model: string,
      id: string,
      payload: AdapterPayload,
      columns: { grantId: string | null; userCode: string | null; uid: string | null },
      expiresAt: Date | null,
    ): Promise<void> {
      await pool.query(
        `INSERT INTO oidc_models (model, id, payload, grant_id, user_code, uid, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
           user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
        [model, id, payload, columns.grantId, columns.userCode, columns.uid, expiresAt],
      );
    },

    /** A model instance that has not expired, by one of its keys, with when it was consumed. */
    async findLive(
      model: string,
      column: 'uid' | 'user_code',
      value: string,
    ): Promise<{ id: string; payload: AdapterPayload; consumed_at: Date | null } | undefined> {
      const { rows } = await pool.query<{ id: string; payload: AdapterPayload; consumed_at: Date | null }>(
        `SELECT id, payload, consumed_at FROM oidc_models
         WHERE model = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > now())`,
        [model, value],
      );
      return rows[0];
    },

    /** The live rows of `model` stored under any of `ids`, in one statement. */
    async findLiveByIds(
      model: string,
      ids: readonly string[],
    ): Promise<Array<{ id: string; payload: AdapterPayload; consumed_at: Date | null }>> {
      const { rows } = await pool.query<{ id: string; payload: AdapterPayload; consumed_at: Date | null }>(
        `SELECT id, payload, consumed_at FROM oidc_models
         WHERE model = $1 AND id = ANY($2::text[]) AND (expires_at IS NULL OR expires_at > now())`,
        [model, ids],
      );
      return rows;
    },

    async consume(model: string, id: string): Promise<void> {
      await pool.query('UPDATE oidc_models SET consumed_at = now() WHERE model = $1 AND id = $2', [
        model,
        id,
      ]);
    },

    async destroy(model: string, id: string): Promise<void> {
      await pool.query('DELETE FROM oidc_models WHERE model = $1 AND id = $2', [model, id]);
    },

    /** Every model bound to the grant, whatever its model. */
    async deleteByGrantId(grantId: string): Promise<void> {
      await pool.query('DELETE FROM oidc_models WHERE grant_id = $1', [grantId]);
    },

    /**
     * Up to `limit` rows the previous release wrote in clear (see model-secrets.ts): a bearer
     * model's id not yet hashed, or a client's secret not yet sealed. Locked for rewriting in the
     * caller's transaction; rows another replica is rewriting are skipped.
     */
    async lockRowsInClear(
      limit: number,
      clearIdModels: readonly string[],
      hashedIdPrefix: string,
    ): Promise<Array<{ model: string; id: string; payload: AdapterPayload; user_code: string | null }>> {
      const { rows } = await pool.query<{
        model: string;
        id: string;
        payload: AdapterPayload;
        user_code: string | null;
      }>(
        `SELECT model, id, payload, user_code FROM oidc_models
          WHERE (model <> ALL($2::text[]) AND left(id, length($3)) <> $3)
             OR (model = 'Client' AND payload ? 'client_secret')
          LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit, clearIdModels, hashedIdPrefix],
      );
      return rows;
    },

    /**
     * Moves a row to its stored form. Should the new id be taken already (a replica of the new
     * release stored the same model meanwhile), that row is the newer one: the old row just goes.
     */
    async rewrite(
      model: string,
      id: string,
      stored: { id: string; payload: AdapterPayload; userCode: string | null },
    ): Promise<void> {
      if (stored.id === id) {
        await pool.query('UPDATE oidc_models SET payload = $3, user_code = $4 WHERE model = $1 AND id = $2', [
          model,
          id,
          stored.payload,
          stored.userCode,
        ]);
        return;
      }
      await pool.query(
        `WITH old AS (DELETE FROM oidc_models WHERE model = $1 AND id = $2
                      RETURNING grant_id, uid, expires_at, consumed_at)
         INSERT INTO oidc_models (model, id, payload, grant_id, user_code, uid, expires_at, consumed_at)
         SELECT $1, $3, $4, grant_id, $5, uid, expires_at, consumed_at FROM old
         ON CONFLICT (model, id) DO NOTHING`,
        [model, id, stored.id, stored.payload, stored.userCode],
      );
    },

    /** Client rows whose secret is sealed, for resealing under the key ring's current key. */
    async sealedClientSecrets(): Promise<Array<{ id: string; sealed: string }>> {
      const { rows } = await pool.query<{ id: string; sealed: string }>(
        `SELECT id, payload->>'client_secret_sealed' AS sealed FROM oidc_models
          WHERE model = 'Client' AND payload ? 'client_secret_sealed'`,
      );
      return rows;
    },

    /** Replaces a sealed client secret if it is still the one read; true when it was. */
    async replaceSealedClientSecret(id: string, sealed: string, resealed: string): Promise<boolean> {
      const { rowCount } = await pool.query(
        `UPDATE oidc_models SET payload = jsonb_set(payload, '{client_secret_sealed}', to_jsonb($3::text))
          WHERE model = 'Client' AND id = $1 AND payload->>'client_secret_sealed' = $2`,
        [id, sealed, resealed],
      );
      return rowCount === 1;
    },

    /** Deletes expired model instances; answers how many. */
    async sweepExpired(): Promise<number> {
      const { rowCount } = await pool.query('DELETE FROM oidc_models WHERE expires_at < now()');
      return rowCount ?? 0;
    },

    /** The newest live grant of the account to the client (consent remembered across sessions). */
    async newestGrantId(accountId: string, clientId: string): Promise<string | undefined> {
      const { rows } = await pool.query<{ id: string }>(
        `SELECT id FROM oidc_models WHERE model = 'Grant' AND payload->>'accountId' = $1
         AND payload->>'clientId' = $2 AND (expires_at IS NULL OR expires_at > now())
         ORDER BY (payload->>'iat')::bigint DESC LIMIT 1`,
        [accountId, clientId],
      );
      return rows[0]?.id;
    },

    /** Every grant of the account to the client, live or not. */
    async grantIds(accountId: string, clientId: string): Promise<string[]> {
      const { rows } = await pool.query<{ id: string }>(
        `SELECT id FROM oidc_models WHERE model = 'Grant' AND payload->>'accountId' = $1 AND payload->>'clientId' = $2`,
        [accountId, clientId],
      );
      return rows.map((row) => row.id);
    },

    /**
     * The clients the account has live grants to, newest use first, with the scopes granted for
     * `resource` (grants store resource scopes under the resource URL:
     * payload.resources[<resource>] = "a b").
     */
    async connectedApps(accountId: string, resource: string): Promise<ConnectedAppRow[]> {
      const { rows } = await pool.query<ConnectedAppRow>(
        `WITH grants AS (
           SELECT id, payload->>'clientId' AS client_id, payload->'resources'->>$2 AS scopes,
                  (payload->>'iat')::bigint AS iat
             FROM oidc_models
            WHERE model = 'Grant' AND payload->>'accountId' = $1 AND (expires_at IS NULL OR expires_at > now())
         )
         SELECT grants.client_id, c.payload AS client, string_agg(DISTINCT grants.scopes, ' ') AS scopes,
                to_timestamp(min(grants.iat)) AS first_used,
                to_timestamp(max(COALESCE((t.payload->>'iat')::bigint, grants.iat))) AS last_used
           FROM grants
           LEFT JOIN oidc_models c ON c.model = 'Client' AND c.id = grants.client_id
           LEFT JOIN oidc_models t ON t.model = 'RefreshToken' AND t.grant_id = grants.id
          GROUP BY grants.client_id, c.payload
          ORDER BY last_used DESC`,
        [accountId, resource],
      );
      return rows;
    },

    /** Marks everyone who holds a grant as reset (their dashboard explains); answers how many. */
    async markGrantHoldersReset(): Promise<number> {
      const { rowCount } = await pool.query(
        `UPDATE users SET oauth_reset_at = now()
          WHERE id::text IN (SELECT payload->>'accountId' FROM oidc_models WHERE model = 'Grant')`,
      );
      return rowCount ?? 0;
    },

    /** Deletes every model instance; answers how many of each model went. */
    async deleteAll(): Promise<Record<string, number>> {
      const { rows } = await pool.query<{ model: string; count: string }>(
        `WITH gone AS (DELETE FROM oidc_models RETURNING model)
         SELECT model, count(*) AS count FROM gone GROUP BY model ORDER BY model`,
      );
      return Object.fromEntries(rows.map((row) => [row.model, Number(row.count)]));
    },
  };
}

export type OidcModelQueries = ReturnType<typeof createOidcModelQueries>;
