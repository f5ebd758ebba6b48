import { ToolError } from '../errors/tool-error.ts';

/** A Google API error as gaxios reports it, reduced to what we classify on. */
export interface GoogleFailure {
  status: number | undefined;
  reason: string | undefined;
  message: string;
  retryAfterSeconds: number | undefined;
}

/**
 * What a failure means for the caller. Google answers quota trouble as 429, and Drive also as 403
 * with reason `rateLimitExceeded`/`userRateLimitExceeded` (developers.google.com/drive/api/guides/
 * handle-errors): those are retried like a 429, not reported as a refusal. `dailyLimitExceeded`
 * will not clear within a call, so it is reported at once.
 */
export type GoogleFailureKind =
  | 'quota'
  | 'daily_quota'
  | 'unauthenticated'
  | 'missing_scope'
  | 'forbidden'
  | 'not_found'
  | 'bad_request'
  | 'unavailable'
  | 'other';

const RETRYABLE_QUOTA_REASONS = new Set([
  'rateLimitExceeded',
  'userRateLimitExceeded',
  'RATE_LIMIT_EXCEEDED',
]);
const DAILY_QUOTA_REASONS = new Set(['dailyLimitExceeded', 'quotaExceeded']);
const MISSING_SCOPE_REASONS = new Set(['insufficientPermissions', 'ACCESS_TOKEN_SCOPE_INSUFFICIENT']);

export function classifyGoogleFailure({ status, reason }: GoogleFailure): GoogleFailureKind {
  if (status === undefined || status >= 500) return 'unavailable';
  if (status === 429) return 'quota';
  if (status === 401) return 'unauthenticated';
  if (status === 403) {
    if (reason && RETRYABLE_QUOTA_REASONS.has(reason)) return 'quota';
    if (reason && DAILY_QUOTA_REASONS.has(reason)) return 'daily_quota';
    if (reason && MISSING_SCOPE_REASONS.has(reason)) return 'missing_scope';
    return 'forbidden';
  }
  if (status === 404) return 'not_found';
  if (status === 400) return 'bad_request';
  return 'other';
}

/** Worth trying again after a pause: quota, transient server errors, and no answer at all. */
export function isRetryable(failure: GoogleFailure): boolean {
  const kind = classifyGoogleFailure(failure);
  return kind === 'quota' || kind === 'unavailable';
}

/**
 * A `Retry-After` value in seconds: delta-seconds or an HTTP-date (RFC 9110 §10.2.3), a date in
 * the past meaning now. Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // Every HTTP-date form (IMF-fixdate, RFC 850, asctime) starts with the day's name.
  if (!/^[A-Za-z]{3}/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

export function describeGoogleFailure(error: unknown): GoogleFailure | undefined {
  const candidate = error as {
    status?: number;
    response?: { status?: number; headers?: Headers | Record<string, string>; data?: unknown };
    message?: string;
  };
  if (!candidate || typeof candidate !== 'object' || !('response' in candidate || 'status' in candidate))
    return undefined;
  const status = candidate.response?.status ?? candidate.status;
  const data = candidate.response?.data as
    | { error?: { message?: string; errors?: Array<{ reason?: string }>; status?: string } }
    | undefined;
  // gaxios hands back a fetch Headers object from another realm (so no instanceof), or a record.
  const headers = candidate.response?.headers as { get?: unknown } | Record<string, string> | undefined;
  const retryAfter =
    typeof headers?.get === 'function'
      ? (headers as Headers).get('retry-after')
      : (headers as Record<string, string> | undefined)?.['retry-after'];
  return {
    status,
    reason: data?.error?.errors?.[0]?.reason ?? data?.error?.status,
    message: data?.error?.message ?? candidate.message ?? 'unknown Google error',
    retryAfterSeconds: parseRetryAfter(retryAfter),
  };
}

/** Turns a Google failure into the tool error a model (and a person) can act on. */
export function toToolError(failure: GoogleFailure, dashboardUrl: string): ToolError {
  const { reason, message } = failure;
  switch (classifyGoogleFailure(failure)) {
    case 'unauthenticated':
      return authenticationRequired(dashboardUrl);
    case 'missing_scope':
      return new ToolError(
        `Google did not allow this: the Google connection lacks a permission it needs. Reconnect Google at ${dashboardUrl} and allow every requested access.`,
      );
    case 'quota': {
      const wait = failure.retryAfterSeconds
        ? ` Try again in ${failure.retryAfterSeconds} s.`
        : ' Try again shortly.';
      return new ToolError(`Google's rate limit was reached (${reason ?? 'rateLimitExceeded'}).${wait}`);
    }
    case 'daily_quota':
      return new ToolError(
        `Google's daily quota for this project is used up (${reason}). Try again tomorrow, or ask the operator to raise the quota.`,
      );
    case 'forbidden':
      return new ToolError(`Google refused access to this file: ${message}`);
    case 'not_found':
      return new ToolError(
        // Google's messages usually end with a full stop already ("Requested entity was not found.").
        `Not found: ${message.replace(/\.+$/, '')}. Check the spreadsheetId or fileId (list_spreadsheets shows yours).`,
      );
    case 'unavailable':
      return new ToolError('Google is not answering right now. Try again in a minute.');
    case 'bad_request':
      return new ToolError(`Google refused the request: ${message}`);
    default:
      return new ToolError(`Google answered with an error: ${message}`);
  }
}

const DRIVE_FILE = 'https://www.googleapis.com/auth/drive.file';
/** Scopes that reach a person's files beyond those the app created or was given (drive.file). */
const BROAD_FILE_SCOPES = [
  'https://www.googleapis.com/auth/drive',
  'https://www.googleapis.com/auth/drive.readonly',
  'https://www.googleapis.com/auth/spreadsheets',
  'https://www.googleapis.com/auth/spreadsheets.readonly',
];

/**
 * The person's grant reaches only the files Sheetgate created or the person chose for it in the
 * Google Picker (GOOGLE_SCOPE_MODE=picked-files): `drive.file` without any broader file scope.
 */
export function reachesPickedFilesOnly(grantedScopes: readonly string[]): boolean {
  return (
    grantedScopes.includes(DRIVE_FILE) && !BROAD_FILE_SCOPES.some((scope) => grantedScopes.includes(scope))
  );
}

/**
 * Under a drive.file-only grant Google answers 404 for a file the app was never given (Drive's
 * `appNotAuthorizedToFile` 403 says so outright): the person can fix that on the dashboard.
 */
export function isFileNotPicked(failure: GoogleFailure, grantedScopes: readonly string[]): boolean {
  if (!reachesPickedFilesOnly(grantedScopes)) return false;
  return classifyGoogleFailure(failure) === 'not_found' || failure.reason === 'appNotAuthorizedToFile';
}

export function fileNotPicked(dashboardUrl: string): ToolError {
  return new ToolError(
    `Sheetgate cannot reach this spreadsheet: in this deployment it only reaches files you created with it or chose for it. Choose it on the dashboard (Choose spreadsheets) at ${dashboardUrl}. If you did, check the spreadsheetId or fileId (list_spreadsheets shows the files Sheetgate can reach).`,
  );
}

/** Google no longer takes the person's grant: the dashboard's undo tells "reconnect Google" apart by it. */
export class GoogleReconnectNeeded extends ToolError {}

export function authenticationRequired(dashboardUrl: string, neverConnected = false): ToolError {
  // A person known through an enterprise IdP (docs/design.md §4.7) may never have connected Google.
  if (neverConnected)
    return new GoogleReconnectNeeded(
      `Authentication required: Sheetgate is not connected to your Google account. Connect Google at ${dashboardUrl}, then try again.`,
    );
  return new GoogleReconnectNeeded(
    `Authentication required: Sheetgate can no longer reach your Google account. Reconnect Google at ${dashboardUrl}, then try again.`,
  );
}
