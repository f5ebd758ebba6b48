import type { Keyring } from '../crypto/keyring.ts';
import { type ResealCount, resealEach } from '../crypto/reseal-each.ts';
import type { DatabasePool } from '../db/pool.ts';
import { withTransaction } from '../db/transaction.ts';

/** Who made a change. */
export type ChangeCredentialKind = 'api_key' | 'app' | 'dashboard';

/** One change as the MCP service records it (checked by the gRPC handler). */
export interface ChangeInput {
  id: string;
  userId: string;
  occurredAt: Date;
  credentialKind: ChangeCredentialKind;
  credentialId: string;
  tool: string;
  spreadsheetId: string;
  ranges: string[];
  cells: number;
  rows: number;
  undoable: boolean;
  undoUnavailableReason: string;
  /** Opaque to auth (the MCP service's JSON); sealed before it is stored. */
  payload: Buffer;
  undoesChangeId: string | null;
}

/** One change as listed: never the payload. */
export interface ChangeSummary {
  id: string;
  occurredAt: Date;
  credentialKind: ChangeCredentialKind;
  credentialId: string;
  /** The API key's or the app's name, or empty when it is gone. */
  credentialName: string;
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
}

export interface ChangeFilters {
  spreadsheetId?: string | undefined;
  credentialId?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
}

export interface ChangeJournalOptions {
  pool: DatabasePool;
  keyring: Keyring;
  /** Entries older than this many days are purged (CHANGE_JOURNAL_RETENTION_DAYS). */
  retentionDays: number;
  /** Payload bytes one person's journal holds at most (CHANGE_JOURNAL_MAX_MB_PER_PERSON). */
  maxBytesPerPerson: number;
}

/** The reason an entry says when the person's journal was full as it arrived. */
export function journalFullReason(maxBytesPerPerson: number, retentionDays: number): string {
  const mb = Math.round(maxBytesPerPerson / (1024 * 1024));
  return `Undo is not available: your change journal holds the most Sheetgate keeps for one person (${mb} MB of replaced contents); older changes leave it after ${retentionDays} days.`;
}

const SUMMARY_COLUMNS = `j.id, j.occurred_at AS "occurredAt", j.credential_kind AS "credentialKind",
  j.credential_id AS "credentialId",
  COALESCE(k.name, c.payload->>'client_name', '') AS "credentialName",
  j.tool, j.spreadsheet_id AS "spreadsheetId", j.ranges, j.cells::float8 AS cells, j.rows::float8 AS rows,
  j.undoable, j.undo_unavailable_reason AS "undoUnavailableReason",
  j.undoes_change_id AS "undoesChangeId", j.undone_at AS "undoneAt",
  j.undone_by_change_id AS "undoneByChangeId"`;
const SUMMARY_FROM = `change_journal j
  LEFT JOIN api_keys k ON j.credential_kind = 'api_key' AND k.id::text = j.credential_id
  LEFT JOIN oidc_models c ON j.credential_kind = 'app' AND c.model = 'Client' AND c.id = j.credential_id`;

/** The sealed payload is bound to its person and entry: a row copied elsewhere does not open. */
const payloadContext = (userId: string, id: string) => `change-journal:${userId}:${id}`;

const encodeCursor = (summary: ChangeSummary) =>
  Buffer.from(`${summary.occurredAt.getTime()}:${summary.id}`).toString('base64url');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The page token's position, or undefined when it is not one this journal wrote. */
export function decodeCursor(token: string): { at: Date; id: string } | undefined {
  const [ms, id] = Buffer.from(token, 'base64url').toString('utf8').split(':');
  const at = Number(ms);
  if (!Number.isSafeInteger(at) || !id || !UUID.test(id)) return undefined;
  return { at: new Date(at), id };
}

/**
 * The change journal in PostgreSQL (docs/design.md §11.8): entries per person, their payloads
 * sealed with the key ring and bound to the person and entry, bounded per person, purged after
 * the retention period and deleted with the account (the foreign key cascades).
 */
export function createChangeJournal(options: ChangeJournalOptions) {
  const { pool, keyring } = options;
  const fullReason = journalFullReason(options.maxBytesPerPerson, options.retentionDays);
  return {
    /** Stores the entries; past the person's bound an entry is kept without its payload. */
    async record(changes: readonly ChangeInput[]): Promise<{ recorded: number; storedWithoutUndo: number }> {
      if (changes.length === 0) return { recorded: 0, storedWithoutUndo: 0 };
      return withTransaction(pool, async (client) => {
        const users = [...new Set(changes.map((change) => change.userId))];
        const { rows } = await client.query<{ userId: string; bytes: string }>(
          `SELECT user_id AS "userId", COALESCE(SUM(payload_bytes), 0) AS bytes FROM change_journal
           WHERE user_id = ANY($1::uuid[]) GROUP BY user_id`,
          [users],
        );
        const used = new Map(rows.map((row) => [row.userId, Number(row.bytes)]));
        let recorded = 0;
        let storedWithoutUndo = 0;
        for (const change of changes) {
          let { undoable, undoUnavailableReason } = change;
          let payload: Buffer | null = change.payload.length > 0 ? change.payload : null;
          const before = used.get(change.userId) ?? 0;
          if (payload && before + payload.length > options.maxBytesPerPerson) {
            payload = null;
            undoable = false;
            undoUnavailableReason = fullReason;
          }
          const result = await client.query(
            `INSERT INTO change_journal (id, user_id, occurred_at, credential_kind, credential_id, tool,
               spreadsheet_id, ranges, cells, rows, undoable, undo_unavailable_reason, payload_sealed,
               payload_bytes, undoes_change_id)
             SELECT $1, $2, $3, $4, $5, $6, $7, $8::text[], $9, $10, $11, $12, $13, $14, $15
             WHERE EXISTS (SELECT 1 FROM users WHERE id = $2)
             ON CONFLICT (id) DO NOTHING`,
            [
              change.id,
              change.userId,
              change.occurredAt,
              change.credentialKind,
              change.credentialId,
              change.tool,
              change.spreadsheetId,
              change.ranges,
              change.cells,
              change.rows,
              undoable && payload !== null,
              undoUnavailableReason,
              payload
                ? keyring.encrypt(payload.toString('base64'), payloadContext(change.userId, change.id))
                : null,
              payload?.length ?? 0,
              change.undoesChangeId,
            ],
          );
          if (result.rowCount === 1) {
            recorded++;
            used.set(change.userId, before + (payload?.length ?? 0));
            if (change.payload.length > 0 && !payload) storedWithoutUndo++;
          }
        }
        return { recorded, storedWithoutUndo };
      });
    },

    /** The person's entries, newest first; `cursor` continues a previous page. */
    async list(
      userId: string,
      filters: ChangeFilters,
      pageSize: number,
      cursor?: { at: Date; id: string },
    ): Promise<{ changes: ChangeSummary[]; nextPageToken: string }> {
      const { rows } = await pool.query<ChangeSummary>(
        `SELECT ${SUMMARY_COLUMNS} FROM ${SUMMARY_FROM}
         WHERE j.user_id = $1
           AND ($2::text IS NULL OR j.spreadsheet_id = $2)
           AND ($3::text IS NULL OR j.credential_id = $3)
           AND ($4::timestamptz IS NULL OR j.occurred_at >= $4)
           AND ($5::timestamptz IS NULL OR j.occurred_at < $5)
           AND ($6::timestamptz IS NULL OR (j.occurred_at, j.id) < ($6, $7::uuid))
         ORDER BY j.occurred_at DESC, j.id DESC
         LIMIT $8`,
        [
          userId,
          filters.spreadsheetId || null,
          filters.credentialId || null,
          filters.since ?? null,
          filters.until ?? null,
          cursor?.at ?? null,
          cursor?.id ?? null,
          pageSize + 1,
        ],
      );
      const changes = rows.slice(0, pageSize);
      return {
        changes,
        nextPageToken: rows.length > pageSize ? encodeCursor(changes[changes.length - 1]!) : '',
      };
    },

    /**
     * One entry of the person with its payload opened, or undefined (unknown, or another
     * person's). Without an id: the person's newest change that stands, of one credential if given.
     */
    async get(
      userId: string,
      changeId: string | undefined,
      credentialId?: string,
    ): Promise<{ change: ChangeSummary; payload: Buffer } | undefined> {
      const { rows } = await pool.query<ChangeSummary & { sealed: string | null }>(
        changeId
          ? `SELECT ${SUMMARY_COLUMNS}, j.payload_sealed AS sealed FROM ${SUMMARY_FROM}
             WHERE j.user_id = $1 AND j.id = $2`
          : `SELECT ${SUMMARY_COLUMNS}, j.payload_sealed AS sealed FROM ${SUMMARY_FROM}
             WHERE j.user_id = $1 AND j.undone_at IS NULL AND j.undoes_change_id IS NULL
               AND ($2::text IS NULL OR j.credential_id = $2)
             ORDER BY j.occurred_at DESC, j.id DESC LIMIT 1`,
        [userId, changeId ?? (credentialId || null)],
      );
      const row = rows[0];
      if (!row) return undefined;
      const { sealed, ...change } = row;
      const payload = sealed
        ? Buffer.from(keyring.decrypt(sealed, payloadContext(userId, change.id)), 'base64')
        : Buffer.alloc(0);
      return { change, payload };
    },

    /** Marks the entry undone by another; `already` when it was undone before. */
    async markUndone(
      userId: string,
      changeId: string,
      undoneByChangeId: string,
    ): Promise<'ok' | 'not_found' | 'already'> {
      const { rows } = await pool.query<{ undone: boolean }>(
        `WITH target AS (SELECT id, undone_at FROM change_journal WHERE user_id = $1 AND id = $2),
              marked AS (UPDATE change_journal SET undone_at = now(), undone_by_change_id = $3
                         WHERE user_id = $1 AND id = $2 AND undone_at IS NULL RETURNING id)
         SELECT (SELECT count(*) FROM marked) = 1 AS undone FROM target`,
        [userId, changeId, undoneByChangeId],
      );
      if (rows.length === 0) return 'not_found';
      return rows[0]!.undone ? 'ok' : 'already';
    },

    /** Deletes entries past the retention period; answers how many. */
    async purgeExpired(now = new Date()): Promise<number> {
      const cutoff = new Date(now.getTime() - options.retentionDays * 86_400_000);
      const result = await pool.query('DELETE FROM change_journal WHERE occurred_at < $1', [cutoff]);
      return result.rowCount ?? 0;
    },

    /** Key rotation: payloads sealed with an older key are sealed again with the current one. */
    async resealWithCurrentKey(): Promise<ResealCount> {
      const { rows } = await pool.query<{ id: string; userId: string; sealed: string }>(
        `SELECT id, user_id AS "userId", payload_sealed AS sealed FROM change_journal
         WHERE payload_sealed IS NOT NULL AND split_part(payload_sealed, '.', 2) <> $1`,
        [keyring.currentKeyId],
      );
      return resealEach(
        keyring,
        rows.map((row) => ({ ...row, associatedData: payloadContext(row.userId, row.id) })),
        async ({ id, sealed }, resealed) => {
          const result = await pool.query(
            'UPDATE change_journal SET payload_sealed = $3 WHERE id = $1 AND payload_sealed = $2',
            [id, sealed, resealed],
          );
          return result.rowCount === 1;
        },
      );
    },
  };
}

export type ChangeJournal = ReturnType<typeof createChangeJournal>;
