import {
  ChangeCredentialKind,
  type ChangeJournalServiceServer,
  type ChangeRecord,
  type ChangeSummary as ChangeSummaryMessage,
  type GetChangeRequest,
  type GetChangeResponse,
  type ListChangesRequest,
  type ListChangesResponse,
  type MarkChangeUndoneRequest,
  type MarkChangeUndoneResponse,
  type RecordChangesRequest,
  type RecordChangesResponse,
} from '@sheetgate/proto';
import { isUuid, type Logger, SheetgateError } from '@sheetgate/service-runtime';
import {
  type ChangeInput,
  type ChangeJournal,
  type ChangeSummary,
  type ChangeCredentialKind as CredentialKindName,
  decodeCursor,
} from '../change-journal/change-journal.ts';
import { unaryHandler } from './unary-handler.ts';

/** Entries per RecordChanges call at most. */
export const MAX_CHANGES_PER_BATCH = 50;
/** Bytes of one entry's payload at most (the MCP service keeps its before-images under this). */
export const MAX_CHANGE_PAYLOAD_BYTES = 512 * 1024;
const MAX_RANGES = 100;
const MAX_RANGE_LENGTH = 300;
const MAX_ID_LENGTH = 200;
const MAX_REASON_LENGTH = 500;
const MAX_SUMMARY_LENGTH = 300;
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** An entry from further ahead than this is not from a replica's clock. */
const CLOCK_SKEW_MS = 10 * 60 * 1000;
const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

const KIND_NAMES = new Map<ChangeCredentialKind, CredentialKindName>([
  [ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_API_KEY, 'api_key'],
  [ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_APP, 'app'],
  [ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_DASHBOARD, 'dashboard'],
]);
const KIND_ON_WIRE = new Map([...KIND_NAMES].map(([wire, name]) => [name, wire]));

const invalid = (message: string) => new SheetgateError('invalid_argument', message);

function userId(value: string): string {
  if (!isUuid(value)) throw invalid('user_id must be a user id');
  return value;
}

/** An entry as auth stores it, or INVALID_ARGUMENT naming the entry's position and the fault. */
function checkedRecord(record: ChangeRecord, index: number, now: number): ChangeInput {
  const fault = (what: string) => invalid(`changes[${index}]: ${what}`);
  if (!isUuid(record.id)) throw fault('id must be a UUID');
  if (!isUuid(record.userId)) throw fault('user_id must be a user id');
  if (!(record.occurredAtMs > 0 && record.occurredAtMs <= now + CLOCK_SKEW_MS))
    throw fault('occurred_at_ms must be a time no later than now');
  const credentialKind = KIND_NAMES.get(record.credentialKind);
  if (!credentialKind) throw fault('credential_kind must be given');
  if (record.credentialId.length > MAX_ID_LENGTH) throw fault('credential_id is too long');
  if (!TOOL_NAME.test(record.tool)) throw fault('tool must be a tool name');
  if (record.spreadsheetId.length > MAX_ID_LENGTH) throw fault('spreadsheet_id is too long');
  if (record.ranges.length > MAX_RANGES) throw fault(`at most ${MAX_RANGES} ranges`);
  if (record.ranges.some((range) => range.length > MAX_RANGE_LENGTH)) throw fault('a range is too long');
  if (!(Number.isSafeInteger(record.cells) && record.cells >= 0)) throw fault('cells must be 0 or more');
  if (!(Number.isSafeInteger(record.rows) && record.rows >= 0)) throw fault('rows must be 0 or more');
  if (record.undoUnavailableReason.length > MAX_REASON_LENGTH)
    throw fault('undo_unavailable_reason is too long');
  if (record.summary.length > MAX_SUMMARY_LENGTH) throw fault('summary is too long');
  if (record.payload.length > MAX_CHANGE_PAYLOAD_BYTES)
    throw fault(`payload is larger than ${MAX_CHANGE_PAYLOAD_BYTES} bytes`);
  if (record.undoable && record.payload.length === 0) throw fault('an undoable entry needs its payload');
  if (record.undoesChangeId && !isUuid(record.undoesChangeId)) throw fault('undoes_change_id must be a UUID');
  return {
    id: record.id.toLowerCase(),
    userId: record.userId,
    occurredAt: new Date(record.occurredAtMs),
    credentialKind,
    credentialId: record.credentialId,
    tool: record.tool,
    spreadsheetId: record.spreadsheetId,
    ranges: record.ranges,
    cells: record.cells,
    rows: record.rows,
    undoable: record.undoable,
    undoUnavailableReason: record.undoable ? '' : record.undoUnavailableReason,
    payload: record.undoable ? Buffer.from(record.payload) : Buffer.alloc(0),
    undoesChangeId: record.undoesChangeId ? record.undoesChangeId.toLowerCase() : null,
    summary: record.summary,
  };
}

/** A change as the gRPC services answer it (ChangeJournalService and AccountService). */
export function toChangeMessage(change: ChangeSummary): ChangeSummaryMessage {
  return {
    id: change.id,
    occurredAtMs: change.occurredAt.getTime(),
    credentialKind:
      KIND_ON_WIRE.get(change.credentialKind) ?? ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_UNSPECIFIED,
    credentialId: change.credentialId,
    credentialName: change.credentialName,
    tool: change.tool,
    spreadsheetId: change.spreadsheetId,
    ranges: change.ranges,
    cells: change.cells,
    rows: change.rows,
    undoable: change.undoable,
    undoUnavailableReason: change.undoUnavailableReason,
    undoesChangeId: change.undoesChangeId ?? '',
    undoneAtMs: change.undoneAt?.getTime() ?? 0,
    undoneByChangeId: change.undoneByChangeId ?? '',
    summary: change.summary,
  };
}

/** One page of the person's journal, the request's bounds checked (ListChanges, ListRecentChanges). */
export async function listPage(
  journal: ChangeJournal,
  user: string,
  request: {
    spreadsheetId: string;
    /** Absent on AccountService.ListRecentChanges (the dashboard filters by spreadsheet only). */
    tool?: string;
    credentialId: string;
    sinceMs: number;
    untilMs: number;
    pageSize: number;
    pageToken: string;
  },
) {
  const pageSize = request.pageSize || DEFAULT_PAGE_SIZE;
  if (!(pageSize >= 1 && pageSize <= MAX_PAGE_SIZE)) throw invalid(`page_size must be 1..${MAX_PAGE_SIZE}`);
  if (request.spreadsheetId.length > MAX_ID_LENGTH || request.credentialId.length > MAX_ID_LENGTH)
    throw invalid('a filter is too long');
  if (request.tool && !TOOL_NAME.test(request.tool)) throw invalid('tool must be a tool name');
  if (request.sinceMs < 0 || request.untilMs < 0) throw invalid('times must be 0 or more');
  let cursor: { at: Date; id: string } | undefined;
  if (request.pageToken) {
    cursor = request.pageToken.length <= 200 ? decodeCursor(request.pageToken) : undefined;
    if (!cursor) throw invalid('page_token is not one ListChanges answered');
  }
  const page = await journal.list(
    user,
    {
      spreadsheetId: request.spreadsheetId,
      tool: request.tool,
      credentialId: request.credentialId,
      since: request.sinceMs ? new Date(request.sinceMs) : undefined,
      until: request.untilMs ? new Date(request.untilMs) : undefined,
    },
    pageSize,
    cursor,
  );
  return { changes: page.changes.map(toChangeMessage), nextPageToken: page.nextPageToken };
}

const notFound = () => new SheetgateError('not_found', 'no such change');

/** gRPC ChangeJournalService: the MCP service's journal entries, stored and read back per person. */
export function changeJournalHandlers(deps: {
  logger: Logger;
  journal: ChangeJournal;
  /** Counts entries stored, stored without undo, and refused (metrics). */
  onRecorded?: (outcome: 'recorded' | 'without_undo' | 'refused', count: number) => void;
}): Partial<ChangeJournalServiceServer> {
  const { logger, journal } = deps;
  return {
    recordChanges: unaryHandler<RecordChangesRequest, RecordChangesResponse>(
      logger,
      'RecordChanges',
      async (request) => {
        const now = Date.now();
        let changes: ChangeInput[];
        try {
          if (request.changes.length === 0) throw invalid('no changes given');
          if (request.changes.length > MAX_CHANGES_PER_BATCH)
            throw invalid(`at most ${MAX_CHANGES_PER_BATCH} changes per call`);
          changes = request.changes.map((record, index) => checkedRecord(record, index, now));
        } catch (error) {
          deps.onRecorded?.('refused', request.changes.length);
          throw error;
        }
        const result = await journal.record(changes);
        deps.onRecorded?.('recorded', result.recorded - result.storedWithoutUndo);
        deps.onRecorded?.('without_undo', result.storedWithoutUndo);
        return { recorded: result.recorded, storedWithoutUndo: result.storedWithoutUndo };
      },
    ),

    listChanges: unaryHandler<ListChangesRequest, ListChangesResponse>(
      logger,
      'ListChanges',
      async (request) => listPage(journal, userId(request.userId), request),
    ),

    getChange: unaryHandler<GetChangeRequest, GetChangeResponse>(logger, 'GetChange', async (request) => {
      const user = userId(request.userId);
      if (request.changeId && !isUuid(request.changeId)) throw notFound();
      if (request.credentialId.length > MAX_ID_LENGTH) throw invalid('credential_id is too long');
      if (request.spreadsheetId.length > MAX_ID_LENGTH) throw invalid('spreadsheet_id is too long');
      const found = await journal.get(user, request.changeId.toLowerCase() || undefined, {
        credentialId: request.credentialId,
        spreadsheetId: request.spreadsheetId,
      });
      if (!found) throw notFound();
      return { change: toChangeMessage(found.change), payload: found.payload };
    }),

    markChangeUndone: unaryHandler<MarkChangeUndoneRequest, MarkChangeUndoneResponse>(
      logger,
      'MarkChangeUndone',
      async (request) => {
        const user = userId(request.userId);
        if (!isUuid(request.changeId)) throw notFound();
        if (!isUuid(request.undoneByChangeId)) throw invalid('undone_by_change_id must be a UUID');
        const outcome = await journal.markUndone(
          user,
          request.changeId.toLowerCase(),
          request.undoneByChangeId.toLowerCase(),
        );
        if (outcome === 'not_found') throw notFound();
        if (outcome === 'already') throw new SheetgateError('conflict', 'the change is undone already');
        return {};
      },
    ),
  };
}
