import { ToolError } from '../tools/tool-definition.ts';

/** A Google API error as gaxios reports it, reduced to what we classify on. */
export interface GoogleFailure {
  status: number | undefined;
  reason: string | undefined;
  message: string;
  retryAfterSeconds: number | undefined;
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
  const seconds = retryAfter === undefined || retryAfter === null ? undefined : Number(retryAfter);
  return {
    status,
    reason: data?.error?.errors?.[0]?.reason ?? data?.error?.status,
    message: data?.error?.message ?? candidate.message ?? 'unknown Google error',
    retryAfterSeconds: seconds !== undefined && Number.isFinite(seconds) ? seconds : undefined,
  };
}

/** Worth trying again after a pause: quota and transient server errors. */
export function isRetryable(failure: GoogleFailure): boolean {
  return (
    failure.status === 429 ||
    (failure.status !== undefined && failure.status >= 500) ||
    failure.status === undefined
  );
}

/** Turns a Google failure into the tool error a model (and a person) can act on. */
export function toToolError(failure: GoogleFailure, dashboardUrl: string): ToolError {
  const { status, reason, message } = failure;
  if (status === 401) return authenticationRequired(dashboardUrl);
  if (
    status === 403 &&
    (reason === 'insufficientPermissions' || reason === 'ACCESS_TOKEN_SCOPE_INSUFFICIENT')
  ) {
    return new ToolError(
      `Google did not allow this: the Google connection lacks a permission it needs. Reconnect Google at ${dashboardUrl} and allow every requested access.`,
    );
  }
  if (status === 403) return new ToolError(`Google refused access to this file: ${message}`);
  if (status === 404)
    return new ToolError(
      `Not found: ${message}. Check the spreadsheetId or fileId (list_spreadsheets shows yours).`,
    );
  if (status === 429) {
    const wait = failure.retryAfterSeconds
      ? ` Try again in ${failure.retryAfterSeconds} s.`
      : ' Try again shortly.';
    return new ToolError(`Google's rate limit was reached (${reason ?? 'rateLimitExceeded'}).${wait}`);
  }
  if (status !== undefined && status >= 500)
    return new ToolError('Google is not answering right now. Try again in a minute.');
  if (status === 400) return new ToolError(`Google refused the request: ${message}`);
  return new ToolError(`Google answered with an error: ${message}`);
}

export function authenticationRequired(dashboardUrl: string): ToolError {
  return new ToolError(
    `Authentication required: Sheetgate can no longer reach your Google account. Reconnect Google at ${dashboardUrl}, then try again.`,
  );
}
