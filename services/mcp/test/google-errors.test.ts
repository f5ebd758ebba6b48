import { describe, expect, it } from 'vitest';
import {
  classifyGoogleFailure,
  describeGoogleFailure,
  type GoogleFailure,
  isFileNotPicked,
  isRetryable,
  parseRetryAfter,
  reachesPickedFilesOnly,
  toToolError,
} from '../src/google/google-errors.ts';

const DASHBOARD = 'https://sheets.example.test/dashboard';
const failure = (status: number | undefined, reason?: string, retryAfterSeconds?: number): GoogleFailure => ({
  status,
  reason,
  message: 'message from Google',
  retryAfterSeconds,
});

describe('Google errors are classified by status and reason', () => {
  it.each([
    [429, 'rateLimitExceeded', 'quota', true],
    [429, 'RESOURCE_EXHAUSTED', 'quota', true],
    // Drive answers quota trouble as 403 with these reasons: retried like a 429, not "refused".
    [403, 'rateLimitExceeded', 'quota', true],
    [403, 'userRateLimitExceeded', 'quota', true],
    [403, 'dailyLimitExceeded', 'daily_quota', false],
    [403, 'insufficientPermissions', 'missing_scope', false],
    [403, 'ACCESS_TOKEN_SCOPE_INSUFFICIENT', 'missing_scope', false],
    [403, 'forbidden', 'forbidden', false],
    [403, undefined, 'forbidden', false],
    [401, 'authError', 'unauthenticated', false],
    [404, 'notFound', 'not_found', false],
    [400, 'badRequest', 'bad_request', false],
    [500, 'backendError', 'unavailable', true],
    [503, 'backendError', 'unavailable', true],
    [undefined, undefined, 'unavailable', true],
    [409, 'conflict', 'other', false],
  ] as const)('%s %s is %s (retried: %s)', (status, reason, kind, retried) => {
    expect(classifyGoogleFailure(failure(status, reason))).toBe(kind);
    expect(isRetryable(failure(status, reason))).toBe(retried);
  });

  it('words each kind so a model and a person can act on it', () => {
    expect(toToolError(failure(403, 'userRateLimitExceeded', 3), DASHBOARD).message).toBe(
      "Google's rate limit was reached (userRateLimitExceeded). Try again in 3 s.",
    );
    expect(toToolError(failure(403, 'dailyLimitExceeded'), DASHBOARD).message).toMatch(/daily quota/);
    expect(toToolError(failure(403, 'forbidden'), DASHBOARD).message).toBe(
      'Google refused access to this file: message from Google',
    );
    expect(toToolError(failure(403, 'insufficientPermissions'), DASHBOARD).message).toContain(DASHBOARD);
    expect(toToolError(failure(401), DASHBOARD).message).toMatch(/^Authentication required.*dashboard/);
    expect(toToolError(failure(404), DASHBOARD).message).toMatch(/^Not found/);
  });
});

describe('a file outside a drive.file-only grant (GOOGLE_SCOPE_MODE=picked-files)', () => {
  const G = 'https://www.googleapis.com/auth/';
  const pickedFiles = ['openid', `${G}userinfo.email`, `${G}drive.file`];
  const standard = [...pickedFiles, `${G}spreadsheets`, `${G}drive.readonly`];

  it('is what a 404, or Drive’s appNotAuthorizedToFile, means under drive.file alone', () => {
    expect(reachesPickedFilesOnly(pickedFiles)).toBe(true);
    expect(isFileNotPicked(failure(404, 'notFound'), pickedFiles)).toBe(true);
    expect(isFileNotPicked(failure(403, 'appNotAuthorizedToFile'), pickedFiles)).toBe(true);
    expect(isFileNotPicked(failure(403, 'insufficientPermissions'), pickedFiles)).toBe(false);
    expect(isFileNotPicked(failure(400), pickedFiles)).toBe(false);
  });

  it('is never said under a broader grant: a 404 there is a plain not found', () => {
    expect(reachesPickedFilesOnly(standard)).toBe(false);
    expect(reachesPickedFilesOnly([`${G}drive.file`, `${G}spreadsheets`])).toBe(false);
    expect(isFileNotPicked(failure(404, 'notFound'), standard)).toBe(false);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date (RFC 9110 §10.2.3), a past one meaning now', () => {
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:59:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    for (const value of [undefined, null, '', 'soon', '-5', '1.5e3'])
      expect(parseRetryAfter(value, now)).toBeUndefined();
  });

  it('is taken from a gaxios error’s headers, a fetch Headers or a plain record', () => {
    const date = new Date(Date.now() + 20_000).toUTCString();
    const withHeaders = describeGoogleFailure({
      response: {
        status: 429,
        headers: new Headers({ 'retry-after': date }),
        data: { error: { message: 'slow down', errors: [{ reason: 'rateLimitExceeded' }] } },
      },
    });
    expect(withHeaders?.retryAfterSeconds).toBeGreaterThanOrEqual(19);
    expect(withHeaders?.retryAfterSeconds).toBeLessThanOrEqual(20);
    expect(withHeaders?.reason).toBe('rateLimitExceeded');
    const withRecord = describeGoogleFailure({ response: { status: 503, headers: { 'retry-after': '4' } } });
    expect(withRecord?.retryAfterSeconds).toBe(4);
    expect(describeGoogleFailure(new Error('not a Google answer'))).toBeUndefined();
  });
});
