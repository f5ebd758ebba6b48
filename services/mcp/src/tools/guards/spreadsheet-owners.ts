import type { drive_v3 } from 'googleapis';
import type { AuthInfo } from '../../auth/auth-info.ts';
import { ToolError } from '../../errors/tool-error.ts';
import type { CallGoogle } from '../../google/call-google.ts';
import type { GoogleAccessTokens } from '../../google/google-access.ts';
import { describeGoogleFailure, GoogleReconnectNeeded } from '../../google/google-errors.ts';
import type { FileOwnership } from './outbound-actions.ts';

/** Drive does not find the file for this person (404, or drive.file's `appNotAuthorizedToFile`). */
export const NOT_REACHED = Symbol('not reached');

/** What the one Drive read asks for: the name for the person's question, and who owns the file. */
export const OWNERSHIP_FIELDS = 'name,owners(emailAddress,me),driveId';

/** How long an answer stands for a burst of writes (ownership rarely changes within a minute). */
export const DEFAULT_OWNERS_KEPT_MS = 60_000;
/** At most this many answers kept per replica; the oldest go first. */
const MAX_KEPT = 5_000;
/** The read's own limit: it is shared by the calls waiting on it, so no one call's signal stops it. */
const READ_TIMEOUT_MS = 30_000;

export interface OwnershipOptions {
  /**
   * How long an answer stands once read (SPREADSHEET_OWNERS_KEPT_SECONDS); 0 keeps none across
   * calls, and the calls asking while a read is under way still share it.
   */
  keptMs?: number;
  maxKept?: number;
  now?: () => number;
}

const SPREADSHEETS = 'https://www.googleapis.com/auth/spreadsheets';
const DRIVE_READING = [
  'https://www.googleapis.com/auth/drive',
  'https://www.googleapis.com/auth/drive.readonly',
];

/**
 * Who owns a spreadsheet, as the person's token sees it: one Drive files.get (supportsAllDrives,
 * `name,owners(emailAddress,me),driveId`) per person and file, kept in this process for a minute
 * (`keptMs`) after its answer, and shared by the calls that ask while it is under way, so a burst of
 * writes costs one read.
 *
 * A file Drive does not find for the person is NOT_REACHED (not kept): the write then runs and
 * answers not found in its own words, since under Sheetgate's grants Drive and Sheets reach the
 * same files — except a grant of `spreadsheets` without `drive.readonly` (a partial one, which the
 * dashboard asks to reconnect), where Sheets would write into a file shared with the person that
 * Drive cannot see: that write is refused, saying to reconnect Google.
 * Any other failure is not kept either, and its call does not run: the write would be made without
 * knowing whether it goes outside the account. The ToolError says so with Google's answer in
 * Sheetgate's words (a rate limit or an outage says when to try again); Google refusing the
 * person's grant stays "reconnect Google" as every tool says it.
 */
export function spreadsheetOwnership(
  deps: { drive: drive_v3.Drive; callGoogle: CallGoogle; tokens: GoogleAccessTokens; dashboardUrl: string },
  options: OwnershipOptions = {},
) {
  const keptMs = options.keptMs ?? DEFAULT_OWNERS_KEPT_MS;
  const maxKept = options.maxKept ?? MAX_KEPT;
  const now = options.now ?? Date.now;
  const kept = new Map<string, { until: number; ownership: Promise<Ownership> }>();

  const read = async (userId: string, fileId: string): Promise<Ownership> => {
    const answer = await deps.callGoogle(userId, AbortSignal.timeout(READ_TIMEOUT_MS), async (request) => {
      try {
        return await deps.drive.files.get(
          { fileId, supportsAllDrives: true, fields: OWNERSHIP_FIELDS },
          request,
        );
      } catch (error) {
        const failure = describeGoogleFailure(error);
        if (failure?.status === 404 || failure?.reason === 'appNotAuthorizedToFile') return NOT_REACHED;
        throw error;
      }
    });
    if (answer !== NOT_REACHED) {
      const { data } = answer;
      return { name: data.name, owners: data.owners, driveId: data.driveId };
    }
    const token = await deps.tokens.get(userId);
    if (
      token.ok &&
      token.scopes.includes(SPREADSHEETS) &&
      !DRIVE_READING.some((scope) => token.scopes.includes(scope))
    )
      throw new OwnersUnchecked(
        fileId,
        `its Google connection lacks Drive read access. Reconnect Google at ${deps.dashboardUrl} and allow every requested access.`,
      );
    return NOT_REACHED;
  };

  return function ownershipOf(auth: AuthInfo, fileId: string, signal: AbortSignal): Promise<Ownership> {
    const key = `${auth.userId}\n${fileId}`;
    const found = kept.get(key);
    if (found && found.until > now()) return untilAborted(found.ownership, signal);
    kept.delete(key);
    // Under way it stands for every call asking (they share it); answered, keptMs from then on.
    const settle = (keep: boolean) => {
      const entry = kept.get(key);
      if (entry?.ownership !== ownership) return;
      if (keep) entry.until = now() + keptMs;
      else kept.delete(key);
    };
    const ownership = read(auth.userId, fileId).then(
      (answer) => {
        settle(answer !== NOT_REACHED && keptMs > 0);
        return answer;
      },
      (error: unknown) => {
        settle(false);
        throw couldNotCheck(fileId, error);
      },
    );
    kept.set(key, { until: Number.POSITIVE_INFINITY, ownership });
    for (const oldest of kept.keys()) {
      if (kept.size <= maxKept) break;
      kept.delete(oldest);
    }
    return untilAborted(ownership, signal);
  };
}

/** What Drive says of the file's owners, or that it does not find the file for the person. */
export type Ownership = FileOwnership | typeof NOT_REACHED;

export type SpreadsheetOwnership = ReturnType<typeof spreadsheetOwnership>;

/** The refusal of a write whose spreadsheet's owners could not be read, and why. */
class OwnersUnchecked extends ToolError {
  constructor(fileId: string, why: string) {
    super(
      `Nothing was changed: Sheetgate could not check who owns ${fileId}, which it does before writing into a spreadsheet: ${why}`,
    );
  }
}

function couldNotCheck(fileId: string, error: unknown): unknown {
  if (
    error instanceof GoogleReconnectNeeded ||
    error instanceof OwnersUnchecked ||
    !(error instanceof ToolError)
  )
    return error;
  const checked = new OwnersUnchecked(fileId, error.message);
  checked.cause = error;
  return checked;
}

/** The shared read, for one call: its own cancellation ends its wait, not the read. */
function untilAborted<T>(shared: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new ToolError('the request was cancelled'));
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(new ToolError('the request was cancelled'));
    signal.addEventListener('abort', stop, { once: true });
    shared.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}
