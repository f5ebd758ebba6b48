import type { CredentialChoices } from '@sheetgate/proto';
import { namedStatementsWhereSafe } from '../db/named-statements.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { ApiKeyScopes } from './api-key-input.ts';

/** An API key as the dashboard sees it: never the secret, never its hash. */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  displayPrefix: string;
  scopes: ApiKeyScopes;
  /** Null: every set (a key created before toolsets). */
  toolsets: string[] | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  /** The person's choices for the key (docs/design.md §11.10). */
  mayActOutbound: boolean;
  mayDestroyUnasked: boolean;
}

/** What resolving a presented key needs, found by the key's hash. */
export interface ApiKeyCredential {
  id: string;
  userId: string;
  secretHash: string;
  scopes: ApiKeyScopes;
  toolsets: string[] | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

const RECORD_COLUMNS = `id, user_id AS "userId", name, display_prefix AS "displayPrefix", scopes,
  toolsets, created_at AS "createdAt", expires_at AS "expiresAt", revoked_at AS "revokedAt", last_used_at AS "lastUsedAt",
  may_act_outbound AS "mayActOutbound", may_destroy_unasked AS "mayDestroyUnasked"`;
const CREDENTIAL_COLUMNS = `id, user_id AS "userId", secret_hash AS "secretHash", scopes,
  toolsets, expires_at AS "expiresAt", revoked_at AS "revokedAt"`;

/** SQL for the `api_keys` table. */
export function createApiKeyQueries(database: DatabasePool) {
  const pool = namedStatementsWhereSafe(database);
  return {
    async insert(row: {
      userId: string;
      name: string;
      displayPrefix: string;
      secretHash: string;
      scopes: ApiKeyScopes;
      toolsets: readonly string[] | null;
      expiresAt: Date | null;
      choices: CredentialChoices;
    }): Promise<ApiKeyRecord> {
      const { rows } = await pool.query<ApiKeyRecord>(
        `INSERT INTO api_keys (user_id, name, display_prefix, secret_hash, scopes, expires_at, toolsets,
           may_act_outbound, may_destroy_unasked)
         VALUES ($1, $2, $3, $4, $5::text[], $6, $7::text[], $8, $9)
         RETURNING ${RECORD_COLUMNS}`,
        [
          row.userId,
          row.name,
          row.displayPrefix,
          row.secretHash,
          row.scopes,
          row.expiresAt,
          row.toolsets,
          row.choices.mayActOutbound,
          row.choices.mayDestroyUnasked,
        ],
      );
      return rows[0]!;
    },

    /** Newest first. */
    async listByUser(userId: string): Promise<ApiKeyRecord[]> {
      const { rows } = await pool.query<ApiKeyRecord>(
        `SELECT ${RECORD_COLUMNS} FROM api_keys WHERE user_id = $1 ORDER BY created_at DESC, id`,
        [userId],
      );
      return rows;
    },

    /**
     * The hot path of API-key requests whose key is not cached: one unique-index lookup per key,
     * for a whole batch in one statement, prepared once per connection (a named statement).
     */
    async findCredentialsByHashes(secretHashes: readonly string[]): Promise<ApiKeyCredential[]> {
      const { rows } = await pool.query<ApiKeyCredential>({
        name: 'api-keys-find-credentials-by-hashes',
        text: `SELECT ${CREDENTIAL_COLUMNS} FROM api_keys WHERE secret_hash = ANY($1::text[])`,
        values: [secretHashes],
      });
      return rows;
    },

    /** Revokes the user's key if it is still live, and says what it found. */
    async revoke(userId: string, keyId: string): Promise<'revoked' | 'already_revoked' | 'not_found'> {
      const updated = await pool.query(
        `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING id`,
        [keyId, userId],
      );
      if (updated.rowCount) return 'revoked';
      const existing = await pool.query('SELECT 1 FROM api_keys WHERE id = $1 AND user_id = $2', [
        keyId,
        userId,
      ]);
      return existing.rowCount ? 'already_revoked' : 'not_found';
    },

    /** The choices of the user's key while it is live (not revoked, not expired); else undefined. */
    async liveChoices(userId: string, keyId: string): Promise<CredentialChoices | undefined> {
      const { rows } = await pool.query<CredentialChoices>({
        name: 'api-keys-live-choices',
        text: `SELECT may_act_outbound AS "mayActOutbound", may_destroy_unasked AS "mayDestroyUnasked"
          FROM api_keys WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL
          AND (expires_at IS NULL OR expires_at > now())`,
        values: [keyId, userId],
      });
      return rows[0];
    },

    /** Replaces the choices of the user's live key; undefined when it has no such live key. */
    async setChoices(
      userId: string,
      keyId: string,
      choices: CredentialChoices,
    ): Promise<ApiKeyRecord | undefined> {
      const { rows } = await pool.query<ApiKeyRecord>(
        `UPDATE api_keys SET may_act_outbound = $3, may_destroy_unasked = $4
         WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
         RETURNING ${RECORD_COLUMNS}`,
        [keyId, userId, choices.mayActOutbound, choices.mayDestroyUnasked],
      );
      return rows[0];
    },

    /** One statement for a whole batch of keys used since the last flush. */
    async touchLastUsed(keyIds: string[], usedAt: Date): Promise<void> {
      await pool.query(
        `UPDATE api_keys SET last_used_at = GREATEST(last_used_at, $2::timestamptz) WHERE id = ANY($1::uuid[])`,
        [keyIds, usedAt],
      );
    },
  };
}

export type ApiKeyQueries = ReturnType<typeof createApiKeyQueries>;
