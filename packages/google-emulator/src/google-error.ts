/**
 * Google's JSON error shape for the Sheets v4 and Drive v3 APIs:
 * `{"error":{"code","message","status","errors":[{"message","domain","reason"}]}}`.
 * Both APIs and the emulator's own middleware use this one type.
 */
export class GoogleApiError extends Error {
  readonly code: number;
  readonly status: string;
  readonly reason: string;
  readonly domain: string;
  readonly headers: Record<string, string>;
  /** Where the bad input was, as Google reports it (e.g. location "q", locationType "parameter"). */
  readonly location: string | undefined;
  readonly locationType: string | undefined;
  /** google.rpc status details (e.g. an ErrorInfo), as the Sheets API adds to quota errors. */
  readonly details: readonly unknown[] | undefined;
  constructor(options: {
    code: number;
    status: string;
    message: string;
    reason: string;
    domain?: string;
    headers?: Record<string, string>;
    location?: string;
    locationType?: string;
    details?: readonly unknown[];
  }) {
    super(options.message);
    this.name = 'GoogleApiError';
    this.code = options.code;
    this.status = options.status;
    this.reason = options.reason;
    this.domain = options.domain ?? 'global';
    this.headers = options.headers ?? {};
    this.location = options.location;
    this.locationType = options.locationType;
    this.details = options.details;
  }

  toJSON() {
    return {
      error: {
        code: this.code,
        message: this.message,
        status: this.status,
        errors: [
          {
            message: this.message,
            domain: this.domain,
            reason: this.reason,
            ...(this.location
              ? { location: this.location, locationType: this.locationType ?? 'parameter' }
              : {}),
          },
        ],
        ...(this.details ? { details: this.details } : {}),
      },
    };
  }
}

/** The quota reasons Google's APIs answer with (domain `usageLimits`). */
export type QuotaReason = 'rateLimitExceeded' | 'userRateLimitExceeded' | 'dailyLimitExceeded';

/** Drive's messages for its quota reasons (developers.google.com/drive/api/guides/handle-errors). */
const DRIVE_QUOTA_MESSAGES: Record<QuotaReason, string> = {
  rateLimitExceeded: 'Rate Limit Exceeded',
  userRateLimitExceeded:
    'User Rate Limit Exceeded. Rate of requests for user exceed configured project quota. You may consider re-evaluating expected per-user traffic to the API and adjust project quota limits accordingly.',
  dailyLimitExceeded: 'Daily Limit Exceeded',
};

/**
 * A quota error as the API answers it. Drive answers 403 (or 429) with reason
 * `userRateLimitExceeded` / `rateLimitExceeded` / `dailyLimitExceeded` and its short messages;
 * Sheets answers 429 `RESOURCE_EXHAUSTED` naming the quota metric, with an ErrorInfo detail
 * `RATE_LIMIT_EXCEEDED`. Both keep the legacy `errors[0].reason` that clients classify on.
 */
function quotaExceeded(options: {
  code: 403 | 429;
  reason: QuotaReason;
  api: 'sheets' | 'drive';
  /** Sheets counts reads and writes against separate quotas. */
  read: boolean;
  retryAfterSeconds: number | undefined;
}): GoogleApiError {
  const { code, reason, api, read } = options;
  const headers: Record<string, string> =
    options.retryAfterSeconds === undefined ? {} : { 'retry-after': String(options.retryAfterSeconds) };
  const status = code === 429 ? 'RESOURCE_EXHAUSTED' : 'PERMISSION_DENIED';
  if (api === 'drive') {
    return new GoogleApiError({
      code,
      status,
      message: DRIVE_QUOTA_MESSAGES[reason],
      reason,
      domain: 'usageLimits',
      headers,
    });
  }
  const kind = read ? 'Read' : 'Write';
  const perUser = reason === 'userRateLimitExceeded';
  const limit =
    reason === 'dailyLimitExceeded'
      ? `${kind} requests per day`
      : `${kind} requests per minute${perUser ? ' per user' : ''}`;
  return new GoogleApiError({
    code,
    status,
    message: `Quota exceeded for quota metric '${kind} requests' and limit '${limit}' of service 'sheets.googleapis.com' for consumer 'project_number:0'.`,
    reason,
    domain: 'usageLimits',
    headers,
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'RATE_LIMIT_EXCEEDED',
        domain: 'googleapis.com',
        metadata: {
          service: 'sheets.googleapis.com',
          consumer: 'projects/0',
          quota_metric: `sheets.googleapis.com/${kind.toLowerCase()}_requests`,
          quota_limit: limit.replace(/(^|\s)(\w)/g, (_all, _space, letter: string) => letter.toUpperCase()),
        },
      },
    ],
  });
}

export const googleErrors = {
  badRequest: (message: string, reason = 'badRequest') =>
    new GoogleApiError({ code: 400, status: 'INVALID_ARGUMENT', message, reason }),
  unauthenticated: () =>
    new GoogleApiError({
      code: 401,
      status: 'UNAUTHENTICATED',
      message:
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      reason: 'authError',
      headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
    }),
  insufficientScopes: () =>
    new GoogleApiError({
      code: 403,
      status: 'PERMISSION_DENIED',
      message: 'Request had insufficient authentication scopes.',
      reason: 'insufficientPermissions',
      headers: {
        'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="insufficient_scope"',
      },
    }),
  permissionDenied: (message = 'The caller does not have permission') =>
    new GoogleApiError({ code: 403, status: 'PERMISSION_DENIED', message, reason: 'forbidden' }),
  notFound: (message = 'Requested entity was not found.', reason = 'notFound') =>
    new GoogleApiError({ code: 404, status: 'NOT_FOUND', message, reason }),
  quotaExceeded,
  internal: (reason: 'backendError' | 'internalError' = 'backendError') =>
    new GoogleApiError({
      code: 500,
      status: 'INTERNAL',
      message: 'Internal error encountered.',
      reason,
    }),
  unavailable: () =>
    new GoogleApiError({
      code: 503,
      status: 'UNAVAILABLE',
      message: 'The service is currently unavailable.',
      reason: 'backendError',
    }),
};
