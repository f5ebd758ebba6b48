import { randomUUID } from 'node:crypto';
import {
  ChangeCredentialKind,
  type ChangeJournalClient,
  type ChangeRecord,
  type ChangeSummary,
  kindOfCallError,
} from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';
import type { AuthInfo } from '../auth/auth-info.ts';
import type { ChangePayload } from './change-payloads.ts';

/** What a tool says of a change it made; the journal adds who, when and the id. */
export interface ChangeEntry {
  tool: string;
  spreadsheetId: string;
  /** A1 ranges or tab titles changed (at most 100 are kept). */
  ranges: string[];
  cells: number;
  rows: number;
  /**
   * What changed, in words a person reads in the activity log ("12 cells bold on Sheet1!A1:C4",
   * "rule 2 of 3 on A2:A300", "shared with bob@example.com as commenter"); at most 300 characters.
   */
  summary?: string;
  /** What undo needs; absent (with `undoUnavailableReason`) when the change cannot be undone. */
  payload?: ChangePayload | undefined;
  undoUnavailableReason?: string;
  /** An undo's own entry: the change it undid. */
  undoesChangeId?: string;
}

/** One change as list_changes shows it. */
export type ListedChange = ChangeSummary;

export interface ChangeFilters {
  spreadsheetId?: string | undefined;
  /** Only changes made by this tool. */
  tool?: string | undefined;
  credentialId?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  pageSize?: number | undefined;
  pageToken?: string | undefined;
}

/**
 * The change journal as the tools see it (docs/design.md §11.8). `record` never fails and never
 * waits: it answers the entry's id at once and sends the entry to auth with others, a few
 * milliseconds later; a lost entry is counted, never the caller's failure.
 */
export interface ChangeJournal {
  record(auth: AuthInfo, entry: ChangeEntry): string;
  /** Resolves once every entry recorded so far has reached auth (or was lost). */
  flush(): Promise<void>;
  list(auth: AuthInfo, filters: ChangeFilters): Promise<{ changes: ListedChange[]; nextPageToken: string }>;
  /**
   * One of the person's changes (by id; else the credential's newest that stands), or undefined;
   * with `spreadsheetId`, only a change to that spreadsheet.
   */
  get(
    auth: AuthInfo,
    changeId: string | undefined,
    spreadsheetId?: string | undefined,
  ): Promise<{ change: ListedChange; payload: ChangePayload | undefined } | undefined>;
  markUndone(auth: AuthInfo, changeId: string, undoneBy: string): Promise<'ok' | 'already' | 'not_found'>;
  close(): Promise<void>;
}

/** Entries per RecordChanges call (auth's bound). */
const MAX_BATCH_ENTRIES = 50;
/** Bytes of payload per RecordChanges call: auth accepts 4 MiB messages. */
const MAX_BATCH_BYTES = 3 * 1024 * 1024;
const MAX_RANGES = 100;
const MAX_RANGE_LENGTH = 300;
/** Characters of an entry's summary auth keeps. */
export const MAX_SUMMARY_LENGTH = 300;

/** A summary auth takes: at most 300 characters, cut with an ellipsis. */
function boundedSummary(summary: string): string {
  return summary.length <= MAX_SUMMARY_LENGTH ? summary : `${summary.slice(0, MAX_SUMMARY_LENGTH - 1)}…`;
}

/**
 * The credential a change is recorded under: the API key's id, the connected app's client id, or
 * the dashboard (no id: the person themself).
 */
export function credentialOf(auth: AuthInfo): { kind: ChangeCredentialKind; id: string } {
  if (auth.credential === 'dashboard')
    return { kind: ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_DASHBOARD, id: '' };
  return auth.credential === 'api_key'
    ? { kind: ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_API_KEY, id: auth.apiKeyId ?? '' }
    : { kind: ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_APP, id: auth.clientId ?? '' };
}

/**
 * The journal over auth's ChangeJournalService: entries wait here at most `flushMs` (or until 50
 * are waiting) and go in one RecordChanges call; a call that fails loses its entries, counted by
 * `onLost` and logged without their contents.
 */
export function createChangeJournal(options: {
  client: ChangeJournalClient;
  logger: Logger;
  flushMs?: number;
  onLost?: (entries: number) => void;
  onRecorded?: (entries: number) => void;
}): ChangeJournal {
  const { client, logger } = options;
  const flushMs = options.flushMs ?? 5;
  let waiting: ChangeRecord[] = [];
  let waitingBytes = 0;
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();

  function send(batch: ChangeRecord[]) {
    const sent = client.recordChanges({ changes: batch }).then(
      () => options.onRecorded?.(batch.length),
      (error: unknown) => {
        options.onLost?.(batch.length);
        logger.warn(
          { entries: batch.length, kind: kindOfCallError(error) ?? 'unknown' },
          'change journal entries were lost (auth did not take them)',
        );
      },
    );
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  }

  function sendWaiting() {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (waiting.length > 0) send(waiting);
    waiting = [];
    waitingBytes = 0;
  }

  async function flush() {
    sendWaiting();
    await Promise.all([...inFlight]);
  }

  return {
    record(auth, entry) {
      const id = randomUUID();
      const credential = credentialOf(auth);
      let payload = Buffer.alloc(0);
      let reason = entry.undoUnavailableReason ?? '';
      try {
        if (entry.payload) payload = Buffer.from(JSON.stringify(entry.payload));
      } catch {
        reason = 'Undo is not available: the replaced contents could not be kept.';
      }
      const record: ChangeRecord = {
        id,
        userId: auth.userId,
        occurredAtMs: Date.now(),
        credentialKind: credential.kind,
        credentialId: credential.id,
        tool: entry.tool,
        spreadsheetId: entry.spreadsheetId,
        ranges: entry.ranges.slice(0, MAX_RANGES).map((range) => range.slice(0, MAX_RANGE_LENGTH)),
        cells: entry.cells,
        rows: entry.rows,
        undoable: payload.length > 0,
        undoUnavailableReason: payload.length > 0 ? '' : reason || 'Undo is not available for this tool.',
        payload,
        undoesChangeId: entry.undoesChangeId ?? '',
        summary: boundedSummary(entry.summary ?? ''),
      };
      if (waitingBytes + payload.length > MAX_BATCH_BYTES) sendWaiting();
      waiting.push(record);
      waitingBytes += payload.length;
      if (waiting.length >= MAX_BATCH_ENTRIES) sendWaiting();
      else if (!timer) {
        timer = setTimeout(sendWaiting, flushMs);
        timer.unref();
      }
      return id;
    },

    flush,

    async list(auth, filters) {
      return client.listChanges({
        userId: auth.userId,
        spreadsheetId: filters.spreadsheetId ?? '',
        tool: filters.tool ?? '',
        credentialId: filters.credentialId ?? '',
        sinceMs: filters.since?.getTime() ?? 0,
        untilMs: filters.until?.getTime() ?? 0,
        pageSize: filters.pageSize ?? 0,
        pageToken: filters.pageToken ?? '',
      });
    },

    async get(auth, changeId, spreadsheetId) {
      try {
        const found = await client.getChange({
          userId: auth.userId,
          changeId: changeId ?? '',
          credentialId: changeId ? '' : credentialOf(auth).id,
          spreadsheetId: spreadsheetId ?? '',
        });
        if (!found.change) return undefined;
        const payload =
          found.payload.length > 0
            ? (JSON.parse(found.payload.toString('utf8')) as ChangePayload)
            : undefined;
        return { change: found.change, payload };
      } catch (error) {
        if (kindOfCallError(error) === 'not_found') return undefined;
        throw error;
      }
    },

    async markUndone(auth, changeId, undoneBy) {
      try {
        await client.markChangeUndone({ userId: auth.userId, changeId, undoneByChangeId: undoneBy });
        return 'ok';
      } catch (error) {
        const kind = kindOfCallError(error);
        if (kind === 'not_found') return 'not_found';
        if (kind === 'conflict') return 'already';
        throw error;
      }
    },

    async close() {
      await flush();
      client.close();
    },
  };
}
