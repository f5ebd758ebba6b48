import { namedStatementsWhereSafe } from '../db/named-statements.ts';
import type { DatabasePool, Queryable } from '../db/pool.ts';

/** One stored entry's listed columns (the credential's name is found by the library). */
export interface ChangeRow {
  id: string;
  occurredAt: Date;
  credentialKind: 'api_key' | 'app' | 'dashboard';
  credentialId: string;
  /** The API key's name (api_key entries whose key still exists), else null. */
  keyName: string | null;
  tool: string;
  spreadsheetId: string;
  ranges: string[];
  cells: number;
  rows: number;
  undoable: boolean;
  undoUnavailableReason: string;
  undoesChangeId: string | null;
  undoneAt: Date | null;
  undoneByChangeId: string | null;
  summary: string;
}

export interface ChangeInsert {
  id: string;
  userId: string;
  occurredAt: Date;
  credentialKind: string;
  credentialId: string;
  tool: string;
  spreadsheetId: string;
  ranges: string[];
  cells: number;
  rows: number;
  undoable: boolean;
  undoUnavailableReason: string;
  payloadSealed: string | null;
  payloadBytes: number;
  undoesChangeId: string | null;
  summary: string;
}

const COLUMNS = `j.id, j.occurred_at AS "occurredAt", j.credential_kind AS "credentialKind",
  j.credential_id AS "credentialId", k.name AS "keyName",
  j.tool, j.spreadsheet_id AS "spreadsheetId", j.ranges, j.cells::float8 AS cells, j.rows::float8 AS rows,
  j.undoable, j.undo_unavailable_reason AS "undoUnavailableReason",
  j.undoes_change_id AS "undoesChangeId", j.undone_at AS "undoneAt",
  j.undone_by_change_id AS "undoneByChangeId", j.summary`;
const FROM = `change_journal j
  LEFT JOIN api_keys k ON j.credential_kind = 'api_key' AND k.id::text = j.credential_id`;

/** SQL for the `change_journal` table. */
export function createChangeJournalQueries(database: DatabasePool) {
  const pool = namedStatementsWhereSafe(database);
  return {
    /** Payload bytes each person holds now. */
    async payloadBytes(client: Queryable, userIds: string[]): Promise<Map<string, number>> {
      const { rows } = await client.query<{ userId: string; bytes: string }>(
        `SELECT user_id AS "userId", COALESCE(SUM(payload_bytes), 0) AS bytes FROM change_journal
         WHERE user_id = ANY($1::uuid[]) GROUP BY user_id`,
        [userIds],
      );
      return new Map(rows.map((row) => [row.userId, Number(row.bytes)]));
    },

    /** Inserts the entry unless its id is taken or its person is gone; true when inserted. */
    async insert(client: Queryable, row: ChangeInsert): Promise<boolean> {
      const result = await client.query(
        `INSERT INTO change_journal (id, user_id, occurred_at, credential_kind, credential_id, tool,
           spreadsheet_id, ranges, cells, rows, undoable, undo_unavailable_reason, payload_sealed,
           payload_bytes, undoes_change_id, summary)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8::text[], $9, $10, $11, $12, $13, $14, $15, $16
         WHERE EXISTS (SELECT 1 FROM users WHERE id = $2)
         ON CONFLICT (id) DO NOTHING`,
        [
          row.id,
          row.userId,
          row.occurredAt,
          row.credentialKind,
          row.credentialId,
          row.tool,
          row.spreadsheetId,
          row.ranges,
          row.cells,
          row.rows,
          row.undoable,
          row.undoUnavailableReason,
          row.payloadSealed,
          row.payloadBytes,
          row.undoesChangeId,
          row.summary,
        ],
      );
      return result.rowCount === 1;
    },

    /** Newest first, after the cursor; `limit` rows at most. */
    async list(
      userId: string,
      filters: {
        spreadsheetId: string | null;
        tool: string | null;
        credentialId: string | null;
        since: Date | null;
        until: Date | null;
        cursor: { at: Date; id: string } | null;
      },
      limit: number,
    ): Promise<ChangeRow[]> {
      const { rows } = await pool.query<ChangeRow>(
        `SELECT ${COLUMNS} FROM ${FROM}
         WHERE j.user_id = $1
           AND ($2::text IS NULL OR j.spreadsheet_id = $2)
           AND ($3::text IS NULL OR j.credential_id = $3)
           AND ($4::timestamptz IS NULL OR j.occurred_at >= $4)
           AND ($5::timestamptz IS NULL OR j.occurred_at < $5)
           AND ($6::timestamptz IS NULL OR (j.occurred_at, j.id) < ($6, $7::uuid))
           AND ($9::text IS NULL OR j.tool = $9)
         ORDER BY j.occurred_at DESC, j.id DESC
         LIMIT $8`,
        [
          userId,
          filters.spreadsheetId,
          filters.credentialId,
          filters.since,
          filters.until,
          filters.cursor?.at ?? null,
          filters.cursor?.id ?? null,
          limit,
          filters.tool,
        ],
      );
      return rows;
    },

    /** One entry of the person with its sealed payload, by id (and of one spreadsheet if given). */
    async find(
      userId: string,
      id: string,
      spreadsheetId: string | null,
    ): Promise<(ChangeRow & { sealed: string | null }) | undefined> {
      const { rows } = await pool.query<ChangeRow & { sealed: string | null }>(
        `SELECT ${COLUMNS}, j.payload_sealed AS sealed FROM ${FROM}
         WHERE j.user_id = $1 AND j.id = $2 AND ($3::text IS NULL OR j.spreadsheet_id = $3)`,
        [userId, id, spreadsheetId],
      );
      return rows[0];
    },

    /**
     * The person's newest entry that stands (not undone, not an undo), of one credential and one
     * spreadsheet if given.
     */
    async findNewestStanding(
      userId: string,
      credentialId: string | null,
      spreadsheetId: string | null,
    ): Promise<(ChangeRow & { sealed: string | null }) | undefined> {
      const { rows } = await pool.query<ChangeRow & { sealed: string | null }>(
        `SELECT ${COLUMNS}, j.payload_sealed AS sealed FROM ${FROM}
         WHERE j.user_id = $1 AND j.undone_at IS NULL AND j.undoes_change_id IS NULL
           AND ($2::text IS NULL OR j.credential_id = $2)
           AND ($3::text IS NULL OR j.spreadsheet_id = $3)
         ORDER BY j.occurred_at DESC, j.id DESC LIMIT 1`,
        [userId, credentialId, spreadsheetId],
      );
      return rows[0];
    },

    /** Marks the entry undone: undefined when the person has no such entry, else whether it was marked now. */
    async markUndone(userId: string, id: string, undoneBy: string): Promise<boolean | undefined> {
      const { rows } = await pool.query<{ undone: boolean }>(
        `WITH target AS (SELECT id FROM change_journal WHERE user_id = $1 AND id = $2),
              marked AS (UPDATE change_journal SET undone_at = now(), undone_by_change_id = $3
                         WHERE user_id = $1 AND id = $2 AND undone_at IS NULL RETURNING id)
         SELECT (SELECT count(*) FROM marked) = 1 AS undone FROM target`,
        [userId, id, undoneBy],
      );
      return rows[0]?.undone;
    },

    async deleteOlderThan(cutoff: Date): Promise<number> {
      const result = await pool.query('DELETE FROM change_journal WHERE occurred_at < $1', [cutoff]);
      return result.rowCount ?? 0;
    },

    async sealedWithOtherKey(keyId: string): Promise<Array<{ id: string; userId: string; sealed: string }>> {
      const { rows } = await pool.query<{ id: string; userId: string; sealed: string }>(
        `SELECT id, user_id AS "userId", payload_sealed AS sealed FROM change_journal
         WHERE payload_sealed IS NOT NULL AND split_part(payload_sealed, '.', 2) <> $1`,
        [keyId],
      );
      return rows;
    },

    async replaceSealed(id: string, sealed: string, resealed: string): Promise<boolean> {
      const result = await pool.query(
        'UPDATE change_journal SET payload_sealed = $3 WHERE id = $1 AND payload_sealed = $2',
        [id, sealed, resealed],
      );
      return result.rowCount === 1;
    },
  };
}
