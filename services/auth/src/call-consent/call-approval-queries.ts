import { namedStatementsWhereSafe } from '../db/named-statements.ts';
import type { DatabasePool } from '../db/pool.ts';

/** A call approval as stored, its state as of now (a pending one past its expiry is `expired`). */
export interface CallApprovalRow {
  id: string;
  state: 'pending' | 'approved' | 'declined' | 'expired';
  tool: string;
  sentence: string;
  apiKeyId: string | null;
  /** The API key's name, for an approval an API key's call asked for. */
  keyName: string | null;
  clientId: string | null;
  createdAt: Date;
  expiresAt: Date;
  answeredAt: Date | null;
}

// Every time is PostgreSQL's: expiry is judged by one clock, whichever replica asks.
const STATE = `CASE WHEN a.state = 'pending' AND a.expires_at <= now() THEN 'expired' ELSE a.state END`;
const ROW_COLUMNS = `a.id, ${STATE} AS state, a.tool, a.sentence, a.api_key_id AS "apiKeyId",
  k.name AS "keyName", a.client_id AS "clientId", a.created_at AS "createdAt",
  a.expires_at AS "expiresAt", a.answered_at AS "answeredAt"`;

/** SQL for the `call_approvals` table. */
export function createCallApprovalQueries(database: DatabasePool) {
  const pool = namedStatementsWhereSafe(database);
  return {
    /**
     * Records a pending approval, expiring `validForMs` from now; false (nothing recorded) when the
     * user does not exist or the API key is not the user's live key.
     */
    async insert(row: {
      id: string;
      userId: string;
      apiKeyId: string | null;
      clientId: string | null;
      tool: string;
      sentence: string;
      validForMs: number;
    }): Promise<boolean> {
      const { rowCount } = await pool.query({
        name: 'call-approvals-insert',
        text: `INSERT INTO call_approvals (id, user_id, api_key_id, client_id, tool, sentence, expires_at)
          SELECT $1, u.id, $3::uuid, $4, $5, $6, now() + $7::integer * interval '1 millisecond'
            FROM users u
           WHERE u.id = $2
             AND ($3::uuid IS NULL OR EXISTS (
               SELECT 1 FROM api_keys k WHERE k.id = $3::uuid AND k.user_id = u.id AND k.revoked_at IS NULL
                  AND (k.expires_at IS NULL OR k.expires_at > now())))`,
        values: [row.id, row.userId, row.apiKeyId, row.clientId, row.tool, row.sentence, row.validForMs],
      });
      return rowCount === 1;
    },

    /** The user's approval, or undefined (unknown, or someone else's). */
    async find(id: string, userId: string): Promise<CallApprovalRow | undefined> {
      const { rows } = await pool.query<CallApprovalRow>({
        name: 'call-approvals-find',
        text: `SELECT ${ROW_COLUMNS} FROM call_approvals a LEFT JOIN api_keys k ON k.id = a.api_key_id
          WHERE a.id = $1 AND a.user_id = $2`,
        values: [id, userId],
      });
      return rows[0];
    },

    /** Only the state, for the MCP service's retry. */
    async state(id: string, userId: string): Promise<CallApprovalRow['state'] | undefined> {
      const { rows } = await pool.query<{ state: CallApprovalRow['state'] }>({
        name: 'call-approvals-state',
        text: `SELECT ${STATE} AS state FROM call_approvals a WHERE a.id = $1 AND a.user_id = $2`,
        values: [id, userId],
      });
      return rows[0]?.state;
    },

    /**
     * Answers the user's approval if it is still pending and unexpired, in one conditional update:
     * of answers racing, exactly one finds it pending. True when this one did.
     */
    async answer(id: string, userId: string, state: 'approved' | 'declined'): Promise<boolean> {
      const { rowCount } = await pool.query({
        name: 'call-approvals-answer',
        text: `UPDATE call_approvals SET state = $3, answered_at = now()
          WHERE id = $1 AND user_id = $2 AND state = 'pending' AND expires_at > now()`,
        values: [id, userId, state],
      });
      return rowCount === 1;
    },

    /** Deletes approvals that expired more than `afterMs` ago; answers how many. */
    async deleteExpired(afterMs: number): Promise<number> {
      const { rowCount } = await pool.query(
        `DELETE FROM call_approvals WHERE expires_at < now() - $1::integer * interval '1 millisecond'`,
        [afterMs],
      );
      return rowCount ?? 0;
    },
  };
}

export type CallApprovalQueries = ReturnType<typeof createCallApprovalQueries>;
