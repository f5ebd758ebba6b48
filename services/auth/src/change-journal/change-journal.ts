import { isUuid } from '@sheetgate/service-runtime';
import type { Keyring } from '../crypto/keyring.ts';
import { type ResealCount, resealEach } from '../crypto/reseal-each.ts';
import type { DatabasePool } from '../db/pool.ts';
import { withTransaction } from '../db/transaction.ts';
import { createOidcModelQueries } from '../oidc/oidc-model-queries.ts';
import { type ChangeRow, createChangeJournalQueries } from './change-journal-queries.ts';

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
  /** What changed, in the activity log's words (at most 300 characters); empty when not said. */
  summary: string;
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
  /** Empty for entries recorded before summaries existed. */
  summary: string;
}

export interface ChangeFilters {
  spreadsheetId?: string | undefined;
  tool?: string | undefined;
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

/** The sealed payload is bound to its person and entry: a row copied elsewhere does not open. */
const payloadContext = (userId: string, id: string) => `change-journal:${userId}:${id}`;

const encodeCursor = (summary: ChangeSummary) =>
  Buffer.from(`${summary.occurredAt.getTime()}:${summary.id}`).toString('base64url');

/** The page token's position, or undefined when it is not one this journal wrote. */
export function decodeCursor(token: string): { at: Date; id: string } | undefined {
  const [ms, id] = Buffer.from(token, 'base64url').toString('utf8').split(':');
  const at = Number(ms);
  if (!Number.isSafeInteger(at) || !id || !isUuid(id)) return undefined;
  return { at: new Date(at), id };
}

/**
 * The change journal in PostgreSQL (docs/design.md §11.8): entries per person, their payloads
 * sealed with the key ring and bound to the person and entry, bounded per person, purged after
 * the retention period and deleted with the account (the foreign key cascades).
 */
export function createChangeJournal(options: ChangeJournalOptions) {
  const { pool, keyring } = options;
  const queries = createChangeJournalQueries(pool);
  const models = createOidcModelQueries(pool);
  const fullReason = journalFullReason(options.maxBytesPerPerson, options.retentionDays);

  /** Rows as listed: an API key's name comes with the row, a connected app's from its client. */
  async function summaries(rows: ChangeRow[]): Promise<ChangeSummary[]> {
    const appIds = [
      ...new Set(rows.filter((row) => row.credentialKind === 'app').map((row) => row.credentialId)),
    ];
    const clients = appIds.length ? await models.findLiveByIds('Client', appIds) : [];
    const appNames = new Map(
      clients.map((client) => [
        client.id,
        String((client.payload as { client_name?: unknown }).client_name ?? ''),
      ]),
    );
    return rows.map(({ keyName, ...row }) => ({
      ...row,
      credentialName: (row.credentialKind === 'api_key' ? keyName : appNames.get(row.credentialId)) ?? '',
    }));
  }

  function opened(userId: string, row: (ChangeRow & { sealed: string | null }) | undefined) {
    if (!row) return undefined;
    const { sealed, ...rest } = row;
    const payload = sealed
      ? Buffer.from(keyring.decrypt(sealed, payloadContext(userId, row.id)), 'base64')
      : Buffer.alloc(0);
    return summaries([rest]).then(([change]) => ({ change: change!, payload }));
  }

  return {
    /** Stores the entries; past the person's bound an entry is kept without its payload. */
    async record(changes: readonly ChangeInput[]): Promise<{ recorded: number; storedWithoutUndo: number }> {
      if (changes.length === 0) return { recorded: 0, storedWithoutUndo: 0 };
      return withTransaction(pool, async (client) => {
        const used = await queries.payloadBytes(client, [...new Set(changes.map((change) => change.userId))]);
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
          const inserted = await queries.insert(client, {
            ...change,
            undoable: undoable && payload !== null,
            undoUnavailableReason,
            payloadSealed: payload
              ? keyring.encrypt(payload.toString('base64'), payloadContext(change.userId, change.id))
              : null,
            payloadBytes: payload?.length ?? 0,
          });
          if (inserted) {
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
      const rows = await queries.list(
        userId,
        {
          spreadsheetId: filters.spreadsheetId || null,
          tool: filters.tool || null,
          credentialId: filters.credentialId || null,
          since: filters.since ?? null,
          until: filters.until ?? null,
          cursor: cursor ?? null,
        },
        pageSize + 1,
      );
      const changes = await summaries(rows.slice(0, pageSize));
      return {
        changes,
        nextPageToken: rows.length > pageSize ? encodeCursor(changes[changes.length - 1]!) : '',
      };
    },

    /**
     * One entry of the person with its payload opened, or undefined (unknown, another person's, or
     * of another spreadsheet than `spreadsheetId`). Without an id: the person's newest change that
     * stands, of one credential and one spreadsheet if given.
     */
    async get(
      userId: string,
      changeId: string | undefined,
      scope: { credentialId?: string | undefined; spreadsheetId?: string | undefined } = {},
    ): Promise<{ change: ChangeSummary; payload: Buffer } | undefined> {
      const spreadsheetId = scope.spreadsheetId || null;
      return opened(
        userId,
        changeId
          ? await queries.find(userId, changeId, spreadsheetId)
          : await queries.findNewestStanding(userId, scope.credentialId || null, spreadsheetId),
      );
    },

    /** Marks the entry undone by another; `already` when it was undone before. */
    async markUndone(
      userId: string,
      changeId: string,
      undoneByChangeId: string,
    ): Promise<'ok' | 'not_found' | 'already'> {
      const marked = await queries.markUndone(userId, changeId, undoneByChangeId);
      return marked === undefined ? 'not_found' : marked ? 'ok' : 'already';
    },

    /** Deletes entries past the retention period; answers how many. */
    purgeExpired(now = new Date()): Promise<number> {
      return queries.deleteOlderThan(new Date(now.getTime() - options.retentionDays * 86_400_000));
    },

    /** Key rotation: payloads sealed with an older key are sealed again with the current one. */
    async resealWithCurrentKey(): Promise<ResealCount> {
      const rows = await queries.sealedWithOtherKey(keyring.currentKeyId);
      return resealEach(
        keyring,
        rows.map((row) => ({ ...row, associatedData: payloadContext(row.userId, row.id) })),
        ({ id, sealed }, resealed) => queries.replaceSealed(id, sealed, resealed),
      );
    },
  };
}

export type ChangeJournal = ReturnType<typeof createChangeJournal>;
