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
  constructor(options: {
    code: number;
    status: string;
    message: string;
    reason: string;
    domain?: string;
    headers?: Record<string, string>;
    location?: string;
    locationType?: string;
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
      },
    };
  }
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
  rateLimited: (
    retryAfterSeconds: number,
    reason: 'rateLimitExceeded' | 'userRateLimitExceeded' = 'rateLimitExceeded',
  ) =>
    new GoogleApiError({
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
      message: `Quota exceeded for quota metric 'Requests' and limit 'Requests per minute per user'.`,
      reason,
      domain: 'usageLimits',
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  internal: () =>
    new GoogleApiError({
      code: 500,
      status: 'INTERNAL',
      message: 'Internal error encountered.',
      reason: 'backendError',
    }),
  unavailable: () =>
    new GoogleApiError({
      code: 503,
      status: 'UNAVAILABLE',
      message: 'The service is currently unavailable.',
      reason: 'backendError',
    }),
};
